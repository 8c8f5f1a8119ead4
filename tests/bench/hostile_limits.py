"""What the hostile-input limits cost: time and peak memory of each refusal (figures, not a test).

Each case runs `citedesk` (or the source gatherer) in a child process, so its peak memory (max RSS)
is its own (a PDF worker's is its own too, capped at 1 GiB); sources come from a real HTTP server on
127.0.0.1.

    .venv/bin/python -m tests.bench.hostile_limits [--bomb-gib 4]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

from tests.conftest import REPO
from tests.helpers.server import running

GATHER = """
import json, sys, time
from citedesk.core.document.model import parse_document
from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.gather import gather_sources
from citedesk.sources.resolved import SourceOptions
from citedesk.store import Store
base, budget, folder = sys.argv[1], float(sys.argv[2]), sys.argv[3]
text = " ".join(f"Claim {n} [{n}]." for n in range(1, 21)) + "\\n\\n## References\\n\\n"
text += "\\n".join(f"{n}. Slow {n}. {base}/slow?{n}" for n in range(1, 21)) + "\\n"
policy = FetchPolicy(allow_private_network=True, deadline=3.0, read_timeout=3.0)
store = Store(folder + "/s.sqlite3")
started = time.monotonic()
gather_sources(list(parse_document(text).entries), SourceOptions(fetch=policy, budget=budget), store)
store.close()
from tests.reliability.limited_child import peak_rss_mib
print(json.dumps({"seconds": time.monotonic() - started, "max_rss_mib": peak_rss_mib()}))
"""


class _Server(BaseHTTPRequestHandler):
    bomb: ClassVar[bytes] = b""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/bomb":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Encoding", "gzip, gzip")
            self.send_header("Content-Length", str(len(self.bomb)))
            self.end_headers()
            self.wfile.write(self.bomb)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for _ in range(300):
                self.wfile.write(b"<p>Shaded streets were cooler.</p>\n")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            return


def _bomb(gib: int) -> bytes:
    inner = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (16 * 1024 * 1024)
    parts = [inner.compress(block) for _ in range(gib * 64)]
    parts.append(inner.flush())
    return gzip.compress(b"".join(parts), 9)


def _citedesk(*args: str) -> tuple[float, dict[str, int]]:
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-m", "tests.reliability.limited_child", "4096", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MALLOC_ARENA_MAX": "2"},
        check=False,
    )
    outcome: dict[str, int] = json.loads(child.stderr.strip().splitlines()[-1])
    return time.monotonic() - started, outcome


def run(bomb_gib: int) -> None:
    _Server.bomb = _bomb(bomb_gib)
    with running(_Server) as base, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        doc = folder / "doc.md"
        doc.write_text(f"A claim [1].\n\n## References\n\n1. Bomb. {base}/bomb\n", encoding="utf-8")
        store = str(folder / "s.sqlite3")
        seconds, outcome = _citedesk(
            "audit", str(doc), "--allow-private-network", "--judge", "none", "--no-dense", "--store", store
        )
        print(
            f"gzip-of-gzip bomb ({len(_Server.bomb):,} bytes → {bomb_gib} GiB): whole audit "
            f"{seconds:.2f} s, peak RSS {outcome['max_rss_mib']} MiB"
        )
        seconds, outcome = _citedesk("audit", "/dev/zero", "--no-sources")
        print(f"/dev/zero as a document: refused in {seconds:.2f} s, peak RSS {outcome['max_rss_mib']} MiB")
        big = folder / "big.md"
        with big.open("wb") as handle:
            handle.truncate(65 * 1024 * 1024)
        seconds, outcome = _citedesk("audit", str(big), "--no-sources")
        print(f"65 MB document: refused in {seconds:.2f} s, peak RSS {outcome['max_rss_mib']} MiB")
        _new_surfaces(folder)
        for budget in (3.0, 10.0):
            child = subprocess.run(
                [sys.executable, "-c", GATHER, base, str(budget), tmp],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=600,
                check=True,
            )
            figures = json.loads(child.stdout.strip().splitlines()[-1])
            print(
                f"20 sources that never finish, {budget:g} s budget: gathered in {figures['seconds']:.2f} s "
                f"(each fetch's own deadline 3 s), peak RSS {figures['max_rss_mib']} MiB"
            )


def _new_surfaces(folder: Path) -> None:
    """Issue 32's cases: bibliographies, deep nesting, PDFs (each a whole `citedesk audit`)."""
    from tests.reliability.test_hostile_pdf import _bomb as pdf_bomb
    from tests.reliability.test_hostile_pdf import _document, _slow

    for name, target in (("refs.bib", "/dev/zero"), ("refs.json", "/dev/urandom")):
        (folder / name).symlink_to(target)
        doc = folder / f"{name}.md"
        doc.write_text(f"---\nbibliography: {name}\n---\n\nTrees [@a].\n", encoding="utf-8")
        seconds, outcome = _citedesk("audit", str(doc), "--no-sources", "--allow-local-path")
        print(f"{name} linked to {target}: refused in {seconds:.2f} s, peak RSS {outcome['max_rss_mib']} MiB")
    deep = folder / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    doc = folder / "deep.md"
    doc.write_text("---\nbibliography: deep.json\n---\n\nTrees [@a].\n", encoding="utf-8")
    seconds, outcome = _citedesk("audit", str(doc), "--no-sources")
    print(
        f"100,000-deep CSL-JSON: exit {outcome['code']} in {seconds:.2f} s, peak RSS {outcome['max_rss_mib']} MiB"
    )
    for label, pdf, extra in (
        ("PDF decompression bomb (300 MB of spaces)", pdf_bomb(), ()),
        ("PDF of 500 pages sharing one content stream, --timeout 10", _slow(), ("--timeout", "10")),
    ):
        sub = folder / f"pdf-{len(pdf)}"
        sub.mkdir()
        doc = _document(sub, pdf)
        args = ("audit", str(doc), "--offline", "--judge", "none", "--no-dense", "--store", str(sub / "s.db"))
        seconds, outcome = _citedesk(*args, *extra)
        print(
            f"{label}: whole audit exit {outcome['code']} in {seconds:.2f} s, peak RSS {outcome['max_rss_mib']} MiB"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bomb-gib", type=int, default=4)
    run(parser.parse_args().bomb_gib)
