"""Audit speed on a ~1,000-word document with 10 cached local sources (figures, not a test).

Prints the time per stage (parse, sources, load = loading the judge and embedder, retrieve,
judge — including the second look for a better source —, findings) with the heuristic judge and
with a MiniLM-size NLI model (6 layers, 384 wide, the real all-MiniLM-L6-v2 vocabulary; random
weights — speed does not depend on them),
the re-audit time after editing one sentence, and the NLI judge's pairs/s next to the bare
forward pass of the same model on the same pairs in the same run. The last line is JSON
(`figures_json`): `edit_reaudit_ms`, the median re-audit time over 20 edits, each of another
sentence (heuristic judge, in this process, as the window's audit process re-audits), and
`cascade_audit_s` beside `plain_audit_s`: the same audit (heuristic, sources cached) with and
without a cascade whose strong judge is a toy that sleeps `STRONG_PAUSE` seconds per pair (a
~100 pairs/s model), with how many claims it re-read of those it wanted (`cascade_reread`).
The window's way (issue 27), through the real `AuditProcess` (a warm child, sources cached):
`process_plain_audit_s` (no cascade, median of 5), and with a cascade (the same toy, under
another name so that none of its readings is cached) `cascade_first_report_s` — the fast judge's
provisional report, what the writer waits for — and `cascade_final_s`, the strong judge's report,
with `cascade_budget_s` and what it re-read (`process_cascade_reread`).

    .venv/bin/python -m tests.bench.audit_speed [--heuristic-only]

Sources are pages from WiCE (../shared/eval) when present, else generated text.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judgement, Pair
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.judges.registry import JudgeKind, JudgeSpec, register, registered
from citedesk.evidence.judges.spec import registered_specs
from citedesk.pipeline import AuditOptions, audit_text

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval" / "wice" / "claim_dev.jsonl"


def make_corpus(folder: Path, sources: int = 10, words: int = 1000) -> str:
    """Write sources 1..n into folder and return a document of about `words` words citing them."""
    rng = random.Random(7)
    if EVAL.is_file():
        rows = [json.loads(line) for line in EVAL.open(encoding="utf-8")][: sources * 3 : 3]
    else:
        topics = [
            "river",
            "forest",
            "bridge",
            "museum",
            "vaccine",
            "harbour",
            "railway",
            "festival",
            "mine",
            "school",
        ]
        rows = [
            {
                "claim": f"The {t} project was completed in {1950 + i} after {i + 3} years of work.",
                "evidence": [
                    f"The {t} project began in {1947 + i} and employed {100 + j} people in year {j}."
                    for j in range(80)
                ],
            }
            for i, t in enumerate(topics)
        ]
    for n, row in enumerate(rows, start=1):
        (folder / f"{n}.txt").write_text("\n\n".join(row["evidence"]), encoding="utf-8")
    sentences: list[str] = []
    count = 0
    while count < words:
        n = rng.randrange(len(rows)) + 1
        row = rows[n - 1]
        text = row["claim"] if rng.random() < 0.5 else rng.choice(row["evidence"][5:])
        text = text.rstrip(".") + f" [{n}]."
        sentences.append(text)
        count += len(text.split())
    paragraphs = [" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)]
    refs = "\n".join(f"{n}. Source {n}. {n}.txt" for n in range(1, len(rows) + 1))
    return "# Benchmark document\n\n" + "\n\n".join(paragraphs) + "\n\n## References\n\n" + refs + "\n"


def minilm_size_nli(folder: Path) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from citedesk.evidence.embed import default_model_dir

    if (folder / "config.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(default_model_dir() / name, folder / name)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=384,
        num_hidden_layers=6,
        num_attention_heads=12,
        intermediate_size=1536,
        id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
        label2id={"contradiction": 0, "entailment": 1, "neutral": 2},
    )
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(str(folder))
    return folder


def timed_audit(text: str, path: Path, options: AuditOptions) -> tuple[float, dict[str, float], int]:
    """Audit once; the wall time, the time spent in each stage, and the number of findings."""
    started = time.perf_counter()
    report = audit_text(text, str(path), options)
    return time.perf_counter() - started, report.timings, len(report.findings)


def edit_reaudits(
    text: str, path: Path, options: AuditOptions, edits: int = 20
) -> tuple[list[float], list[float]]:
    """Seconds of each re-audit after one more edit, wall clock and CPU (this process's, all its
    threads: the figure a loaded machine disturbs least): a word added to another cited sentence
    each time (the edits add up, as a writer's do), after a first audit of `text`."""
    audit_text(text, str(path), options)
    ends = [m.start() for m in re.finditer(r" \[\d+\]\.", text)]
    step = max(1, len(ends) // edits)
    wall, cpu = [], []
    for n, end in enumerate(sorted(ends[::step][:edits], reverse=True)):  # from the end: offsets hold
        text = text[:end] + f" indeed{n}" + text[end:]
        started, used = time.perf_counter(), time.process_time()
        audit_text(text, str(path), options)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return wall, cpu


def figures_json(*, edit_reaudit_s: list[float], **more: object) -> str:
    """The benchmark's last line: its figures as one JSON object (`edit_reaudit_ms`: the median
    of the edits' re-audits). Other figures join it as keyword arguments."""
    figures: dict[str, object] = {
        "edit_reaudit_ms": round(statistics.median(edit_reaudit_s) * 1000, 1),
        "edit_reaudit_max_ms": round(max(edit_reaudit_s) * 1000, 1),
        "edits": len(edit_reaudit_s),
    }
    figures.update(more)
    return json.dumps(figures)


STAGE_NAMES = {
    "parsing": "parse",
    "fetching sources": "sources",
    "loading the judge": "load",
    "retrieving evidence": "retrieve",
    "judging": "judge",
    "checking citations": "findings",
}


def show(label: str, total: float, stages: dict[str, float], findings: int) -> None:
    parts = "  ".join(f"{STAGE_NAMES.get(k, k)} {v * 1000:.0f}" for k, v in stages.items())
    print(f"{label:<44} {total:6.2f} s   (ms: {parts}; {findings} findings)")


def bare_vs_judge(model_dir: Path, pairs: list[Pair]) -> None:
    import torch

    from citedesk.evidence.judges.nli import NliJudge

    judge = NliJudge(model_dir, max_length=128)
    judge.load()
    tokenizer, model = judge._tokenizer, judge._model  # the bare pass runs the very same objects
    chunks = sorted(
        ((c, p.claim) for p in pairs for c in judge.chunks(p)), key=lambda j: len(j[0]) + len(j[1])
    )
    batches = [
        tokenizer(
            [e for e, _ in chunks[b : b + judge.batch_size]],
            [c for _, c in chunks[b : b + judge.batch_size]],
            padding=True,
            truncation="only_first",
            max_length=judge.max_length,
            return_tensors="pt",
        )
        for b in range(0, len(chunks), judge.batch_size)
    ]
    rates_judge, rates_bare = [], []
    for _ in range(3):
        started = time.perf_counter()
        judge.judge(pairs)
        rates_judge.append(len(pairs) / (time.perf_counter() - started))
        started = time.perf_counter()
        with torch.inference_mode():
            for encoded in batches:  # forward passes only: tokenisation and bookkeeping excluded
                model(**encoded)
        rates_bare.append(len(pairs) / (time.perf_counter() - started))
    judge_rate, bare_rate = statistics.median(rates_judge), statistics.median(rates_bare)
    print(
        f"NLI pairs/s (128 tokens): judge {judge_rate:.1f}, bare forward pass {bare_rate:.1f} "
        f"-> {judge_rate / bare_rate:.0%} of bare"
    )


STRONG_PAUSE = 0.01
"""Seconds per pair the cascade bench's strong judge spends (a ~100 pairs/s model)."""


STRONG_POLICY = replace(heuristic.POLICY, note="", acts=True, kind="model")
PROCESS_STRONG = "bench-strong-live"
"""The toy's name in the audit process: another name than in-process, so no reading is cached."""


class SlowStrong:
    """The bench's strong judge: the word-level judge's readings, `STRONG_PAUSE` s per pair."""

    policy = STRONG_POLICY

    def __init__(self, name: str) -> None:
        self.name, self.inner = name, HeuristicJudge()

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        time.sleep(STRONG_PAUSE * len(pairs))
        return self.inner.judge(pairs, progress)


def strong_spec(name: str) -> JudgeSpec:
    return JudgeSpec(
        name, JudgeKind.SERVER, "a slow toy strong judge", lambda _: SlowStrong(name), STRONG_POLICY
    )


def install_strong() -> None:
    """Register the process bench's toy (the audit child's `setup`: a fresh interpreter)."""
    if all(s.name != PROCESS_STRONG for s in registered_specs()):
        register(strong_spec(PROCESS_STRONG))


def cascade_figures(text: str, path: Path, options: AuditOptions) -> dict[str, object]:
    """The audit's time without and with a cascade (a slow toy strong judge, the default budget)."""
    audit_text(text, str(path), options)  # sources and judgements cached for both runs
    plain, _, _ = timed_audit(text, path, options)
    with registered(strong_spec("bench-strong")):
        started = time.perf_counter()
        report = audit_text(text, str(path), replace(options, strong_judge="bench-strong"))
        cascade = time.perf_counter() - started
    show("heuristic, cascade (toy strong judge)", cascade, report.timings, len(report.findings))
    return {
        "plain_audit_s": round(plain, 3),
        "cascade_audit_s": round(cascade, 3),
        "cascade_reread": reread(report.judge_note),
    }


def reread(note: str) -> str:
    said = re.search(r"re-read (\d+) of (\d+)", note)
    return f"{said[1]} of {said[2]}" if said else note


def process_figures(text: str, path: Path, options: AuditOptions, runs: int = 5) -> dict[str, object]:
    """The window's way: seconds from a request to its reports through a warm `AuditProcess`,
    without a cascade (the median of `runs`) and with one (the provisional report, the final)."""
    import importlib

    from citedesk.desk.background import AuditProcess, Cancelled, Failed, Finished, Provisional

    # the child unpickles its setup by module name: this module's, not `__main__`'s
    installer = importlib.import_module("tests.bench.audit_speed").install_strong
    process = AuditProcess(setup=installer)
    asked = 0

    def timed(chosen: AuditOptions) -> tuple[float | None, float, str]:
        nonlocal asked
        asked += 1
        started = time.perf_counter()
        process.submit(asked, text, str(path), chosen)
        first = None
        while True:
            message = process.next_message(300)
            if message is None:
                raise RuntimeError("the audit process did not answer within 300 s")
            if message.generation != asked:
                continue
            if isinstance(message, Provisional):
                first = time.perf_counter() - started
            elif isinstance(message, Finished):
                return first, time.perf_counter() - started, message.report.judge_note
            elif isinstance(message, Failed | Cancelled):
                raise RuntimeError(f"the audit ended with {message}")

    try:
        timed(options)  # the child's first audit: its imports, the sources read from the store
        plain = statistics.median(timed(options)[1] for _ in range(runs))
        first, final, note = timed(replace(options, strong_judge=PROCESS_STRONG))
    finally:
        process.close()
    print(f"{'audit process, no cascade (median)':<44} {plain:6.3f} s")
    print(f"{'audit process, cascade: first report':<44} {first or 0:6.3f} s")
    print(f"{'audit process, cascade: final report':<44} {final:6.3f} s   ({note})")
    return {
        "process_plain_audit_s": round(plain, 3),
        "cascade_first_report_s": round(first or 0.0, 3),
        "cascade_final_s": round(final, 3),
        "cascade_budget_s": options.strong_budget,
        "process_cascade_reread": reread(note),
    }


def main() -> None:
    import sys

    from platformdirs import user_cache_dir

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sources = root / "sources"
        sources.mkdir()
        text = make_corpus(sources)
        doc = root / "doc.md"
        doc.write_text(text, encoding="utf-8")
        print(f"document: {len(text.split())} words, 10 local sources")
        store = root / "store.sqlite3"
        base = AuditOptions(offline=True, sources_dir=sources, store_path=store, judge="heuristic")
        show("heuristic, cold (model load, embeddings)", *timed_audit(text, doc, base))
        show("heuristic, sources and embeddings cached", *timed_audit(text, doc, base))
        edited = text.replace(" [1].", " indeed [1].", 1)
        show("heuristic, after editing one sentence", *timed_audit(edited, doc, base))
        edits, cpu = edit_reaudits(text, doc, base)
        print(
            f"{'heuristic, 20 edits (median, max)':<44} {statistics.median(edits):6.3f} s, {max(edits):.3f} s"
        )
        cpu_ms = round(statistics.median(cpu) * 1000, 1)
        cascade = cascade_figures(text, doc, base) | process_figures(text, doc, base)
        if "--heuristic-only" in sys.argv[1:]:
            print(figures_json(edit_reaudit_s=edits, edit_reaudit_cpu_ms=cpu_ms, **cascade))
            return
        show(
            "heuristic, words only",
            *timed_audit(
                text,
                doc,
                AuditOptions(
                    offline=True,
                    sources_dir=sources,
                    store_path=root / "w.sqlite3",
                    judge="heuristic",
                    dense=False,
                ),
            ),
        )
        model = minilm_size_nli(Path(user_cache_dir("citedesk")) / "bench-minilm-size-nli")
        nli = AuditOptions(offline=True, sources_dir=sources, store_path=store, judge=f"nli:{model}")
        show("MiniLM-size NLI, cold judgements", *timed_audit(text, doc, nli))
        show(
            "MiniLM-size NLI, after editing one sentence",
            *timed_audit(edited.replace("indeed", "truly"), doc, nli),
        )
        body = [s.strip() for s in text.split(".") if len(s.split()) > 8]
        pairs = [
            Pair(body[i], " ".join(body[i + 1 : i + 4]), tuple(body[i + 1 : i + 4]))
            for i in range(min(64, len(body) - 4))
        ]
        bare_vs_judge(model, pairs)
        print(figures_json(edit_reaudit_s=edits, edit_reaudit_cpu_ms=cpu_ms, **cascade))


if __name__ == "__main__":
    main()
