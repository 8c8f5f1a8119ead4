"""Documents per second of `citedesk batch` with 1 and 2 local workers, and on Ray local mode with 2
actors when Ray is installed (figures, not a test).

A generated corpus: 200 Markdown documents with distinct texts, each citing 3 of 24 shared sources
kept as local files (no network, so the figure is the audit's own: structure, sources read from
disk and the store, reference checks skipped, retrieval and judging). Each run starts from an
empty output folder and an empty store. The documents/s figure is of the audits (the parent's
parse-and-gather stage is timed apart), and the wall time of the whole run is given too.

    .venv/bin/python -m tests.bench.corpus_speed [--documents 200] [--judge heuristic] [--no-dense] [--no-ray]

The last line is JSON: {"documents", "judge", "dense", "cores", "runs": [{"engine", "workers",
"documents_per_s", "audit_s", "wall_s", "gather_s", "slowest": [[name, s], …]}], "scaling_2_vs_1",
"scaling_2_vs_1_wall", "scaling_ray_vs_1", "slowest_document_s", "same_reports"} — `same_reports`: every run wrote
byte-identical reports.
`--huge N` adds one document of N citations (the issue's 5 MB paper has 40,000), audited first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from citedesk.desk import AuditOptions, Desk
from citedesk.desk.corpus_ray import ray_installed
from citedesk.desk.corpus_run import run_corpus

SOURCES = 24
WORDS = [
    "canopy",
    "shade",
    "street",
    "park",
    "river",
    "roof",
    "pavement",
    "heat",
    "night",
    "summer",
    "city",
    "survey",
    "cooling",
    "degrees",
    "neighbourhood",
    "drought",
    "watering",
    "trees",
    "humidity",
    "coast",
    "wind",
    "asphalt",
    "albedo",
    "evening",
    "afternoon",
]


def source_text(n: int, rng: random.Random) -> str:
    """A source of ~12 paragraphs; paragraph 0 states its figure, the rest is varied prose."""
    paragraphs = [
        f"Study {n} found that {n + 1}0% more canopy made streets {1 + n % 4}.{n % 10} degrees cooler."
    ]
    for _ in range(12):
        paragraphs.append(" ".join(rng.choice(WORDS) for _ in range(60)).capitalize() + ".")
    return "\n\n".join(paragraphs) + "\n"


def document(i: int, sources: Path, rng: random.Random) -> str:
    cited = rng.sample(range(SOURCES), 3)
    claims = [
        f"In district {i}, {c + 1}0% more canopy made streets {1 + c % 4}.{c % 10} degrees cooler [{k}]."
        for k, c in enumerate(cited, start=1)
    ]
    prose = " ".join(rng.choice(WORDS) for _ in range(80)).capitalize() + "."
    refs = [
        f"{k}. Author {c} ({2000 + c}). Study {c}. {sources / f's{c}.txt'}"
        for k, c in enumerate(cited, start=1)
    ]
    return f"# Report {i}\n\n{' '.join(claims)}\n\n{prose}\n\n## References\n\n" + "\n".join(refs) + "\n"


def build(root: Path, documents: int, huge: int = 0) -> tuple[Path, Path]:
    rng = random.Random(31)
    sources, docs = root / "sources", root / "corpus"
    sources.mkdir()
    for n in range(SOURCES):
        (sources / f"s{n}.txt").write_text(source_text(n, rng), encoding="utf-8")
    for i in range(documents):
        folder = docs / f"batch{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{i:04}.md").write_text(document(i, sources, rng), encoding="utf-8")
    if huge:
        parts = [
            document(documents + k, sources, rng).split("\n\n## References")[0] for k in range(huge // 3)
        ]
        references = document(documents, sources, rng).split("\n\n## References")[1]
        (docs / "huge.md").write_text("\n\n".join(parts) + "\n\n## References" + references, encoding="utf-8")
    return sources, docs


def one_run(
    root: Path, sources: Path, docs: Path, workers: int, judge: str, dense: bool, engine: str = "local"
) -> dict[str, object]:
    options = AuditOptions(
        judge=judge,
        dense=dense,
        local_roots=(sources,),
        offline=True,
        check_references=False,
        store_path=root / f"store-{engine}-{workers}.sqlite3",
    )
    started = time.perf_counter()
    result = run_corpus(
        Desk(options), [docs], root / f"out-{engine}-{workers}", workers=workers, engine=engine
    )
    wall = time.perf_counter() - started
    assert not [o for o in result.outcomes if o.error], "every document audits"
    return {
        "engine": engine,
        "workers": workers,
        "documents_per_s": round(result.audited / result.audit_seconds, 2),
        "audit_s": round(result.audit_seconds, 2),
        "wall_s": round(wall, 2),
        "gather_s": round(result.seconds - result.audit_seconds, 2),
        "findings": sum(len(o.findings) for o in result.outcomes),
        "slowest": [[name, round(seconds, 2)] for name, seconds in result.slowest],
    }


def stage_profile(
    root: Path, sources: Path, docs: Path, judge: str, dense: bool, n: int = 40
) -> dict[str, float]:
    """Seconds per document in each of the audit's timed steps (`Report.timings`), over `n`
    documents audited in this process after one to warm up (models loaded, sources stored)."""
    options = AuditOptions(
        judge=judge,
        dense=dense,
        local_roots=(sources,),
        offline=True,
        check_references=False,
        store_path=root / "store-profile.sqlite3",
    )
    desk = Desk(options)
    paths = sorted(docs.rglob("*.md"))[: n + 1]
    desk.open(paths[0]).audit()
    totals: dict[str, float] = {}
    citations = 0
    for path in paths[1:]:
        report = desk.open(path).audit()
        citations += report.coverage_or_count().citations
        for step, seconds in report.timings.items():
            totals[step] = totals.get(step, 0.0) + seconds
    per_document = {step: round(seconds / n, 4) for step, seconds in totals.items()}
    per_document["citations_per_document"] = round(citations / n, 2)
    return per_document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--judge", default="heuristic")
    parser.add_argument("--no-dense", action="store_true", help="words only (no embedding model)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--huge", type=int, default=0, help="add one document of about this many citations")
    parser.add_argument("--no-ray", action="store_true", help="leave Ray local mode out even when installed")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sources, docs = build(root, args.documents, args.huge)
        engines = [("local", w) for w in args.workers]
        if ray_installed() and not args.no_ray:
            engines.append(("ray", 2))
        for engine, workers in engines:
            run = one_run(root, sources, docs, workers, args.judge, not args.no_dense, engine)
            runs.append(run)
            print(
                f"{engine}, {workers} worker(s): {run['documents_per_s']:.2f} documents/s "
                f"({run['audit_s']:.1f} s auditing, {run['wall_s']:.1f} s in all)",
                flush=True,
            )
        written = [  # the reports (manifest.json holds the settings' hash, which names each run's store)
            {
                str(p.relative_to(root / f"out-{e}-{w}")): p.read_bytes()
                for p in (root / f"out-{e}-{w}" / "reports").rglob("*.json")
            }
            for e, w in engines
        ]
        same = all(w == written[0] for w in written)
        profile = stage_profile(root, sources, docs, args.judge, not args.no_dense)
        print(f"seconds per document by step (1 process, warm): {profile}", flush=True)
    rates = {run["workers"]: run["documents_per_s"] for run in runs if run["engine"] == "local"}
    ray = [run["documents_per_s"] for run in runs if run["engine"] == "ray"]
    walls = {run["workers"]: float(run["wall_s"]) for run in runs if run["engine"] == "local"}  # type: ignore[arg-type]
    wall_scaling = round(walls[1] / walls[2], 2) if 1 in walls and 2 in walls else None
    figures = {
        "documents": args.documents,
        "judge": args.judge,
        "dense": not args.no_dense,
        "cores": os.cpu_count(),
        "runs": runs,
        "seconds_per_document_by_step": profile,
        "scaling_2_vs_1": round(float(rates[2]) / float(rates[1]), 2) if 1 in rates and 2 in rates else None,  # type: ignore[arg-type]
        # the whole run, the parent's reading, gathering and embedding of the sources included
        "scaling_2_vs_1_wall": wall_scaling,
        "scaling_ray_vs_1": round(float(ray[0]) / float(rates[1]), 2) if ray and 1 in rates else None,  # type: ignore[arg-type]
        "slowest_document_s": max((s for run in runs for _, s in run["slowest"]), default=None),  # type: ignore[attr-defined]
        "same_reports": same,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
