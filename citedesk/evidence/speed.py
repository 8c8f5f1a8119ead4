"""How fast an installed judge model reads on this machine: `citedesk models bench NAME`.

The catalogue's speeds are estimates for a 2-core CPU; what a writer needs to know is what their own
machine does. The bench times the model's judge (as an audit loads it: its own input format,
chunking and threads) on pairs of about 128 and 512 tokens (evidence + claim, counted by the
model's own tokenizer) and records pairs per second in the model folder (`citedesk-speed.json`),
where `models list` reads it. A figure belongs to the machine that measured it, so it is kept with
the installed model, never in the catalogue.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from citedesk.evidence.judges.base import Judge, Pair

SPEED_FILE = "citedesk-speed.json"
LENGTHS = (128, 512)
"""The input sizes measured, in tokens: a sentence against a short passage, and a full window."""
SENTENCES = (
    "The museum opened to the public in 1998 in the old harbour warehouse.",
    "Vaccinated patients had a 90% lower risk of severe disease than unvaccinated ones.",
    "The bridge is 1.2 km long and carries four lanes of traffic across the estuary.",
    "Street trees cooled the surrounding neighbourhoods by about two degrees in summer.",
    "Young trees planted during a drought died more often unless they were watered.",
)


@dataclass(frozen=True)
class Speed:
    pairs_s: dict[int, float]
    """Pairs per second by input size in tokens."""
    measured_at: str
    cores: int
    machine: str

    def in_words(self) -> str:
        """`measured here: 41 pairs/s at 128 tokens, 9.5 pairs/s at 512 tokens`."""
        rates = ", ".join(
            f"{_rate(rate)} pairs/s at {size} tokens" for size, rate in sorted(self.pairs_s.items())
        )
        return f"measured here: {rates} ({self.cores} cores, {self.measured_at[:10]})"


def _rate(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def bench_pairs(count_tokens: Callable[[str], int], tokens: int, pairs: int) -> list[Pair]:
    """`pairs` distinct pairs of about `tokens` tokens each (evidence + claim): the evidence grows a
    sentence at a time (starting at a different sentence for each pair) until the pair is that long."""
    result = []
    for n in range(pairs):
        claim = SENTENCES[n % len(SENTENCES)]
        sentences: list[str] = []
        used = count_tokens(claim)
        i = n + 1
        while used < tokens:
            sentence = SENTENCES[i % len(SENTENCES)]
            sentences.append(sentence)
            used += count_tokens(sentence)
            i += 1
        result.append(Pair(claim, " ".join(sentences), tuple(sentences)))
    return result


def measure(
    judge: Judge, count_tokens: Callable[[str], int], *, pairs: int = 8, lengths: tuple[int, ...] = LENGTHS
) -> Speed:
    """Pairs per second for each input size, after one warm-up pair (loading is not timed)."""
    rates: dict[int, float] = {}
    for size in lengths:
        batch = bench_pairs(count_tokens, size, pairs + 1)
        judge.judge(batch[:1])
        began = time.perf_counter()
        judge.judge(batch[1:])
        rates[size] = pairs / max(time.perf_counter() - began, 1e-9)
    return Speed(rates, datetime.now(UTC).isoformat(timespec="seconds"), _cores(), platform.machine())


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def save(folder: Path, speed: Speed) -> None:
    record = asdict(speed)
    record["pairs_s"] = {str(k): round(v, 3) for k, v in speed.pairs_s.items()}
    (Path(folder) / SPEED_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def load(folder: Path) -> Speed | None:
    """The figure measured for this model folder, or None (never measured, or unreadable)."""
    try:
        record = json.loads((Path(folder) / SPEED_FILE).read_text(encoding="utf-8"))
        return Speed(
            {int(k): float(v) for k, v in record["pairs_s"].items()},
            str(record["measured_at"]),
            int(record["cores"]),
            str(record["machine"]),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
