"""A child process's lifeline to its parent: when the parent is gone (killed, crashed), the child
ends too, whatever it was doing — an audit in the window's background process, a corpus worker.

On Linux the kernel sends SIGKILL the moment the parent dies (prctl PR_SET_PDEATHSIG); everywhere,
a daemon thread also checks every half second that the parent is still the one it was started by.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading

PARENT_CHECK_S = 0.5
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """End this process (at once, no clean-up) as soon as process `parent` is no longer its parent."""
    with contextlib.suppress(OSError, AttributeError):  # Linux: the kernel tells us at once
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(0)

    def watch() -> None:
        while True:
            threading.Event().wait(PARENT_CHECK_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="citedesk-parent-watch", daemon=True).start()
