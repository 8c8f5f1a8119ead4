"""A writer's first run, timed (figures, not a test): the packaged bundle and the Python install.

For each: `citedesk --version`, launch → window shown (the first window, its event loop running;
`CITEDESK_SAY_SHOWN`), and the first audit of a 1,000-word document (10 local sources, offline,
the default judge) on a fresh profile — an empty HOME, no XDG folders, no caches, nothing prepared
in the profile. Each figure is the median of RUNS fresh processes, each with its own empty HOME.
`first_audit_cpu_s` is that audit's CPU time (user + system, children included): on a loaded
machine the figure that moves least. `exported_on_first_run` says whether an audit left an exported
embedder in its profile's cache (it must not: the prepared one ships). The last line printed is JSON.

    bash packaging/build.sh
    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.bench.bundle [RUNS] [--python PYTHON]

`--python` is the interpreter of the Python install to time (default: this one, with this checkout
on PYTHONPATH); the bundle is dist/citedesk-VERSION-linux-x86_64.tar.gz, unpacked afresh.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from citedesk import __version__
from tests.bench.audit_speed import make_corpus

REPO = Path(__file__).resolve().parents[2]


def fresh_env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    keep = {
        key: os.environ[key] for key in ("PATH", "LANG", "DISPLAY", "QT_QPA_PLATFORM") if key in os.environ
    }
    home.mkdir(parents=True, exist_ok=True)
    return {**keep, "HOME": str(home), **extra}


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children: the figure a loaded machine
    moves least)."""
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def window_shown(command: list[str], env: dict[str, str], cwd: Path, document: Path) -> float:
    started = time.perf_counter()
    child = subprocess.Popen(
        [*command, str(document)],
        env={**env, "CITEDESK_SAY_SHOWN": "1"},
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    shown = float("nan")
    for line in child.stderr:
        if "window shown" in line:
            shown = time.perf_counter() - started
            break
    child.terminate()
    child.wait(timeout=60)
    return shown


def measure(
    label: str, command: list[str], extra: dict[str, str], root: Path, runs: int
) -> dict[str, float | bool]:
    document = root / "doc.md"
    audit = [*command, "audit", str(document), "--offline", "--sources", str(root / "sources")]
    homes = root / label  # each install's own empty HOMEs: no store of another's embeddings
    versions, windows, audits = [], [], []
    for run in range(runs):
        versions.append(timed([*command, "--version"], fresh_env(homes / f"v{run}", extra), root))
        windows.append(window_shown(command, fresh_env(homes / f"w{run}", extra), root, document))
        audits.append(timed(audit, fresh_env(homes / f"a{run}", extra), root))
    # an export on a writer's machine leaves the ONNX files in the profile's cache
    exported = any((homes / f"a{run}" / ".cache" / "citedesk" / "onnx").exists() for run in range(runs))
    return {
        "version_s": round(statistics.median(wall for wall, _ in versions), 2),
        "window_visible_s": round(statistics.median(windows), 2),
        "first_audit_fresh_profile_s": round(statistics.median(wall for wall, _ in audits), 2),
        "first_audit_cpu_s": round(statistics.median(cpu for _, cpu in audits), 2),
        "exported_on_first_run": exported,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="?", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    archive = REPO / "dist" / f"citedesk-{__version__}-linux-x86_64.tar.gz"
    figures: dict[str, dict[str, float | bool]] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "sources").mkdir()
        (root / "doc.md").write_text(make_corpus(root / "sources", sources=10, words=1000), encoding="utf-8")
        if archive.is_file():
            with tarfile.open(archive) as tar:
                tar.extractall(root / "bundle", filter="tar")
            app = root / "bundle" / archive.name.removesuffix(".tar.gz") / "citedesk"
            figures["bundle"] = {"bundle_mb": round(archive.stat().st_size / 2**20)} | measure(
                "bundle", [str(app)], {}, root, args.runs
            )
        checkout = {"PYTHONPATH": str(REPO)} if args.python == sys.executable else {}
        figures["python"] = measure("python", [args.python, "-m", "citedesk"], checkout, root, args.runs)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, {args.runs} runs")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
