"""The server's input, bounded: a message longer than any document the server would check is read
past (in pieces, never held) and stands as a short `citedesk/refusedMessage` notification, which
the server logs (`window/logMessage`), so a client that sends — or only announces — gigabytes costs
no memory and stops nothing."""

from __future__ import annotations

import json
import re
from typing import BinaryIO

from citedesk.lsp.server import MAX_DOCUMENT_CHARS

REFUSED = "citedesk/refusedMessage"
MAX_MESSAGE_BYTES = 6 * MAX_DOCUMENT_CHARS + 1024 * 1024
"""The longest message read: a document of `MAX_DOCUMENT_CHARS` in JSON, every character escaped
(`\\uXXXX`), and room for the rest of the message."""
CHUNK_BYTES = 1024 * 1024
_CONTENT_LENGTH = re.compile(rb"^Content-Length: *(\d+)\r\n$", re.IGNORECASE)


class BoundedInput:
    """stdin as pygls reads it (`readline` for the headers, `read(n)` for the body), bounded."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._stream = stream
        self._limit = limit
        self._skip = 0
        """The length of a refused body, to read past at the next `read`."""

    def readline(self) -> bytes:
        line = self._stream.readline()
        match = _CONTENT_LENGTH.fullmatch(line)
        if match is not None and int(match.group(1)) > self._limit:
            self._skip = int(match.group(1))
            return b"Content-Length: %d\r\n" % len(self._notice())
        return line

    def read(self, size: int) -> bytes:
        if not self._skip:
            return self._stream.read(size)
        notice, left = self._notice(), self._skip
        self._skip = 0
        while left > 0:
            chunk = self._stream.read(min(left, CHUNK_BYTES))
            if not chunk:
                return b""  # the client went away mid-message
            left -= len(chunk)
        return notice

    def _notice(self) -> bytes:
        params = {"bytes": self._skip, "limit": self._limit}
        return json.dumps({"jsonrpc": "2.0", "method": REFUSED, "params": params}).encode()
