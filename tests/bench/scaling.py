"""How audit time and memory grow with document length and with the number of sources (figures).

    .venv/bin/python -m tests.bench.scaling [--length-only]

1. Length: 1k, 5k, 20k and 100k-word documents citing the same 10 local sources, heuristic judge.
   Each size gets a store whose sources are already cached (a small priming audit in this process,
   after what earlier sizes left in the process's caches is forgotten), then is audited twice:
   first (every sentence is new: retrieval and judging run for all of them) and again (everything
   cached: what the window's live re-audit costs when nothing changed). A JSON line gives the
   seconds of each by length, and the first audit's seconds per 1,000 words (flat when linear).
2. Sources: a 1k-word document citing 2, 5, 10 and 20 sources, first audit (sources cached).
3. Peak memory (max RSS) of a fresh process that audits the 1k-word document with the heuristic
   judge (its embedder on torch, then on ONNX Runtime: the ONNX file is made first if missing),
   and with a MiniLM-size NLI model loaded.

Each measurement of 1 and 2 runs in this process; 3 runs each judge in its own child process so the
figures do not include each other.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from citedesk.pipeline import AuditOptions
from tests.bench.audit_speed import make_corpus, minilm_size_nli, show, timed_audit


def _options(root: Path, sources: Path, name: str, judge: str = "heuristic") -> AuditOptions:
    return AuditOptions(offline=True, sources_dir=sources, store_path=root / f"{name}.sqlite3", judge=judge)


def _primed(root: Path, sources: Path, name: str, text: str) -> AuditOptions:
    """A store with every source fetched and embedded, but no judgement of `text` cached."""
    options = _options(root, sources, name)
    refs = text[text.index("## References") :]
    timed_audit("# Primer\n\nA sentence [1].\n\n" + refs, root / f"{name}.md", options)
    return options


LENGTHS = (1000, 5000, 20000, 100000)


def forget() -> None:
    """Forget what earlier audits in this process keep by content (sentences, sources, figures):
    each size's first audit starts from its sources alone (the sizes share sentences)."""
    from citedesk.core.document.claims import assess
    from citedesk.core.document.sentences import segment_spans
    from citedesk.evidence import lexical
    from citedesk.evidence.direction import mentions
    from citedesk.evidence.numbers import quantities
    from citedesk.evidence.verdicts import clear_reuse

    clear_reuse()
    for cached in (assess, segment_spans, lexical._content_stems, mentions, quantities):
        cached.cache_clear()


def by_length(root: Path) -> dict[str, dict[str, float]]:
    print("Length (10 local sources, heuristic judge, sources cached):")
    figures: dict[str, dict[str, float]] = {"first_audit_s": {}, "again_s": {}, "first_s_per_1k_words": {}}
    for words in LENGTHS:
        forget()
        sources = root / f"len{words}"
        sources.mkdir()
        text = make_corpus(sources, sources=10, words=words)
        options = _primed(root, sources, f"len{words}", text)
        doc = root / f"len{words}.md"
        first = timed_audit(text, doc, options)
        show(f"  {len(text.split()):>6} words, first audit", *first)
        again = timed_audit(text, doc, options)
        show(f"  {len(text.split()):>6} words, again (all cached)", *again)
        figures["first_audit_s"][str(words)] = round(first[0], 3)
        figures["again_s"][str(words)] = round(again[0], 3)
        figures["first_s_per_1k_words"][str(words)] = round(first[0] / len(text.split()) * 1000, 3)
    return figures


def by_sources(root: Path) -> None:
    print("Sources (about 1,000 words, heuristic judge, sources cached):")
    for count in (2, 5, 10, 20):
        sources = root / f"src{count}"
        sources.mkdir()
        text = make_corpus(sources, sources=count, words=1000)
        options = _primed(root, sources, f"src{count}", text)
        show(f"  {count:>2} sources, first audit", *timed_audit(text, root / f"src{count}.md", options))


def peak_memory_child(judge: str) -> None:
    """Run in a child: audit the 1k-word document with `judge`, print max RSS in MiB."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sources = root / "sources"
        sources.mkdir()
        text = make_corpus(sources)
        options = _options(root, sources, "mem", judge)
        timed_audit(text, root / "mem.md", options)
    print(peak_rss_mib())


def peak_rss_mib() -> float:
    """This process's peak resident memory. VmHWM on Linux: ru_maxrss also counts the parent's
    size when it forked (Linux keeps the larger of the two across exec), so a parent that loaded
    torch would inflate its children's figures."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(kib) / 1024


def peak_memory() -> None:
    from platformdirs import user_cache_dir

    from citedesk.evidence.embed import default_model_dir
    from citedesk.evidence.onnx_export import prepare

    model = minilm_size_nli(Path(user_cache_dir("citedesk")) / "bench-minilm-size-nli")
    prepare(default_model_dir())  # the ONNX line measures a process that finds the file made
    print("Peak memory (max RSS of a fresh process auditing 1,000 words with 10 sources):")
    for label, judge, onnx in (
        ("heuristic + embedder (torch)", "heuristic", "off"),
        ("heuristic + embedder (ONNX)", "heuristic", "on"),
        ("MiniLM-size NLI", f"nli:{model}", "on"),
    ):
        out = subprocess.run(
            [sys.executable, "-m", "tests.bench.scaling", "--peak-memory", judge],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "CITEDESK_ONNX": onnx},
        ).stdout.split()[-1]
        print(f"  {label:<28} {float(out):7.0f} MiB")


def main() -> None:
    if sys.argv[1:2] == ["--peak-memory"]:
        peak_memory_child(sys.argv[2])
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lengths = by_length(root)
        if "--length-only" in sys.argv[1:]:
            print(json.dumps(lengths))
            return
        by_sources(root)
    peak_memory()
    print(json.dumps(lengths))


if __name__ == "__main__":
    main()
