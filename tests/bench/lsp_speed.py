"""The language server's speed: first diagnostics of a 1,000-word document after didOpen on a warm
server, structural diagnostics after a didChange (median of 20), and the server's memory.

    PYTHONPATH=$PWD python tests/bench/lsp_speed.py

Prints one line per figure, then a JSON line: first_diagnostics_s, change_structural_ms_median,
server_rss_mb (the server and its audit child, resident, after the run). Offline, the heuristic
judge; a fabricated marker is kept in the text so that each audit has a structural finding to show.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SENTENCE = "Street trees cool the pavement below them by several degrees in summer afternoons [1]. "
REFERENCES = "\n\n## References\n\n1. Moreau, L. (2021). Tree canopy and afternoon heat.\n"


class Wire:
    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "citedesk", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "capabilities": {},
                "rootUri": root.as_uri(),
                "initializationOptions": {"offline": True, "judge": "heuristic"},
            },
        )
        self.notify("initialized", {})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while (line := self.process.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(self.process.stdout.read(length))
        return message

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while "id" not in (message := self.read()) or message.get("id") != self.next_id:
            pass
        return message.get("result")

    def diagnostics(self, uri: str, version: int) -> list[dict[str, Any]]:
        """The next published diagnostics about `uri` at `version` that hold the fabricated marker."""
        while True:
            message = self.read()
            params = message.get("params") or {}
            if (
                message.get("method") == "textDocument/publishDiagnostics"
                and params.get("version") == version
                and params.get("uri") == uri
            ) and any(d.get("code") == "fabricated" for d in params["diagnostics"]):
                return list(params["diagnostics"])

    def rss_mb(self) -> float:
        pids = [self.process.pid]
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        if children.exists():
            pids += [int(p) for p in children.read_text().split()]
        total = 0
        for pid in pids:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total / 1024

    def close(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.process.wait(30)


def main() -> None:
    words = len(SENTENCE.split())
    text = SENTENCE * (1000 // words) + "Shade lowers cooling costs [9]." + REFERENCES
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        wire = Wire(root)
        warm = root / "warm.md"
        wire.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": warm.as_uri(), "languageId": "markdown", "version": 1, "text": text}},
        )
        wire.diagnostics(warm.as_uri(), 1)  # the audit child is warm now
        time.sleep(5)  # its audit's later stages done
        uri = (root / "draft.md").as_uri()
        started = time.perf_counter()
        text = "In cities, " + text  # another text: nothing of the warm-up's audit is reused
        wire.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}},
        )
        wire.diagnostics(uri, 1)
        first = time.perf_counter() - started
        changes = []
        for version in range(2, 22):
            started = time.perf_counter()
            edit = {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "text": "So ",
            }
            wire.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [edit]},
            )
            wire.diagnostics(uri, version)
            changes.append((time.perf_counter() - started) * 1000)
        rss = wire.rss_mb()
        wire.close()
    result = {
        "first_diagnostics_s": round(first, 3),
        "change_structural_ms_median": round(statistics.median(changes), 1),
        "server_rss_mb": round(rss, 1),
    }
    print(f"first diagnostics after didOpen (warm server, {len(text.split())} words): {first:.3f} s")
    print(f"structural diagnostics after a didChange, median of 20: {statistics.median(changes):.1f} ms")
    print(f"server RSS (server + audit child): {rss:.0f} MB")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
