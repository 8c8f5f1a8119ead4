"""How long a pandoc project takes to audit (figures): a thesis of chapters against one large
bibliography whose entries have local copies, as a Zotero + Better BibTeX export gives them.

    .venv/bin/python -m tests.bench.pandoc_audit [--entries 2000] [--chapters 10]

1. Reading the bibliography: the first time (parsing), then again unchanged (reused).
2. Auditing one chapter (offline, heuristic judge, words only): the first audit (local copies read
   and stored), then again (the store's copies, the cached verdicts).
3. `citedesk audit chapters/*.md --bibliography refs.bib`: every chapter and the summary table.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from citedesk.cli import main as cli
from citedesk.desk import AuditOptions, Desk
from citedesk.sources.citeworks import cited_works

TOPICS = ("canopy", "heat", "drought", "pollen", "rainfall", "traffic", "soil", "river", "birds", "parks")


def build(root: Path, entries: int, chapters: int) -> tuple[Path, list[Path]]:
    rng = random.Random(19)
    (root / "papers").mkdir()
    bib = []
    for n in range(entries):
        topic = TOPICS[n % len(TOPICS)]
        key = f"{topic}{n}"
        (root / "papers" / f"{key}.txt").write_text(
            f"A study of {topic} number {n}.\n\n"
            + " ".join(
                f"In site {s} the {topic} index rose by {rng.randint(2, 60)} percent." for s in range(30)
            ),
            encoding="utf-8",
        )
        bib.append(
            f"@article{{{key},\n  title = {{{topic.title()} in Cities, Study {n}}},\n"
            f"  author = {{Author{n}, Ann and Other, Ben}},\n  year = {{{2000 + n % 24}}},\n"
            f"  doi = {{10.5555/bench.{n}}},\n  file = {{Full Text:papers/{key}.txt:text/plain}}\n}}\n"
        )
    refs = root / "refs.bib"
    refs.write_text("".join(bib), encoding="utf-8")
    files = []
    for c in range(chapters):
        sentences = []
        for s in range(40):
            n = rng.randrange(entries)
            topic = TOPICS[n % len(TOPICS)]
            cite = f"[see @{topic}{n}, p. {s + 1}]" if s % 3 else f"@{topic}{n} [p. 2]"
            sentences.append(f"In site {s} the {topic} index rose by {rng.randint(2, 60)} percent {cite}.")
        path = root / f"chapter{c + 1:02}.md"
        path.write_text("# Chapter\n\n" + "\n".join(sentences) + "\n", encoding="utf-8")
        files.append(path)
    return refs, files


def seconds(run: object) -> float:
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--chapters", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        refs, chapters = build(root, args.entries, args.chapters)
        text = chapters[0].read_text(encoding="utf-8")
        print(f"{args.entries} entries with local copies, {args.chapters} chapters of 40 citations:")
        first = seconds(lambda: cited_works(text, chapters[0], [refs], use_zotero=False))
        again = seconds(lambda: cited_works(text, chapters[0], [refs], use_zotero=False))
        print(f"  bibliography read: first {first * 1000:8.1f} ms, unchanged {again * 1000:6.1f} ms")
        options = AuditOptions(
            offline=True,
            judge="heuristic",
            dense=False,
            store_path=root / "store.sqlite3",
            bibliographies=(refs,),
        )
        session = Desk(options).open(chapters[0])
        cold = seconds(session.audit)
        warm = seconds(session.audit)
        print(f"  one chapter audited: first {cold:6.2f} s, again {warm:6.2f} s")
        argv = [
            "audit",
            *map(str, chapters),
            "--bibliography",
            str(refs),
            "--offline",
            "--judge",
            "heuristic",
        ]
        argv += [
            "--no-dense",
            "--store",
            str(root / "store.sqlite3"),
            "--format",
            "json",
            "--out",
            str(root / "r.json"),
        ]
        whole = seconds(lambda: cli(argv))
        print(f"  citedesk audit chapters/*.md: {whole:6.2f} s ({whole / args.chapters:5.2f} s a chapter)")


if __name__ == "__main__":
    main()
