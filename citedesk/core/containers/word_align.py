"""Where a repaired Word view differs from the view it was read from, found in bounded time.

`core.containers.word_write` writes a plan's edits into a .docx paragraph by paragraph, so it must know which
old paragraph each new line is, and inside a paragraph which units (characters, citation groups)
changed. A plan edits lines in place and never moves one, so only the region between the first and
the last difference is compared: old and new lines one to one when their number is kept, else by
the most alike pairing with the deleted paragraphs left over (scored only where an order-keeping
pairing can go); a paragraph's units by difflib. Each comparison has a cap; a repair past it is
refused (RepairError: apply fewer fixes at once), never a hang: 2,400 changed paragraphs, each
compared with every other by difflib, took hours.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from citedesk.errors import RepairError

MAX_LINE_PAIRINGS = 200_000
"""How many (old paragraph, new line) pairs a repair that removes paragraphs may score to match
them up (2,000 changed paragraphs with 99 removed): a wider one is refused, never a hang."""
MAX_RATIO_CHARS = 2_000
"""Two lines longer than this together are compared by the characters they share (linear), not
by difflib's ratio (quadratic at worst)."""
MAX_ALIGN_CELLS = 4_000_000
"""How large (old units x new units) the changed region of one paragraph may be for difflib to
match it with its runs (2,000 characters rewritten into 2,000): wider is refused."""


def align_lines(
    old: list[str], new: list[str], placed: list[tuple[int, str]]
) -> list[tuple[int, tuple[int, str] | None]]:
    """Each old paragraph that changed with its new line (None: deleted); RepairError where one was
    added. Only the region between the first and the last changed line is aligned (a plan edits
    lines, it never moves them): line by line when it keeps the number of lines, else by the
    pairing most alike overall, in `_pair_lines`' bounded time."""
    head = _common_prefix(old, new)
    tail = _common_prefix(old[head:][::-1], new[head:][::-1])
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    if len(new_mid) > len(old_mid):
        raise RepairError("A repair that adds a paragraph cannot be written into a Word document.")
    chosen = (
        {i: i for i in range(len(old_mid))} if len(new_mid) == len(old_mid) else _pair_lines(old_mid, new_mid)
    )
    pairs: list[tuple[int, tuple[int, str] | None]] = []
    for i, line in enumerate(old_mid):
        j = chosen.get(i)
        if j is None or new_mid[j] != line:
            pairs.append((head + i, placed[head + j] if j is not None else None))
    return pairs


def _common_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """How many items `a` and `b` begin with alike."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _pair_lines(old: list[str], new: list[str]) -> dict[int, int]:
    """Which new line each old line is (order kept; the old lines left over were deleted), most
    alike overall. Only the (deleted + 1) x (new lines) pairings a monotone matching can use are
    scored, and at most MAX_LINE_PAIRINGS of them: beyond, the repair is refused (fewer fixes at
    once align)."""
    n, m = len(old), len(new)
    k = n - m
    if (k + 1) * m > MAX_LINE_PAIRINGS:
        raise RepairError(
            f"A repair that removes {k} of {n} changed paragraphs of a Word document is too wide to "
            "match up safely; apply fewer fixes at once."
        )
    # best[j][d]: the most alike pairing of new[j:] into old[j + d:]; take[j][d]: pair them there
    best = [[0.0] * (k + 2) for _ in range(m + 1)]
    take = [[False] * (k + 1) for _ in range(m)]
    for j in range(m - 1, -1, -1):
        best[j][k + 1] = float("-inf")
        for d in range(k, -1, -1):
            paired = _alike(old[j + d], new[j]) + best[j + 1][d]
            skipped = best[j][d + 1]
            take[j][d] = paired >= skipped
            best[j][d] = max(paired, skipped)
    pairing: dict[int, int] = {}
    j = d = 0
    while j < m:
        if take[j][d]:
            pairing[j + d] = j
            j += 1
        else:
            d += 1
    return pairing


def _alike(a: str, b: str) -> float:
    """How alike two lines are, from 0 to 1: difflib's ratio for lines of a paragraph's length, its
    linear upper bound (characters in common) for longer ones, whose ratio may take quadratic time."""
    if a == b:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.ratio() if len(a) + len(b) <= MAX_RATIO_CHARS else matcher.quick_ratio()


def opcodes(old: Sequence[object], new: Sequence[object]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes turning `old` into `new`, but for the equal ones: only the region between
    the first and the last difference is compared, at most MAX_ALIGN_CELLS units by units."""
    head = _common_prefix(old, new)
    tail = _common_prefix(old[head:][::-1], new[head:][::-1])
    a, b = old[head : len(old) - tail], new[head : len(new) - tail]
    if not a and not b:
        return []
    if len(a) * len(b) > MAX_ALIGN_CELLS:
        raise RepairError(
            f"A repair changes {len(a)} characters of a Word paragraph into {len(b)}: too wide to "
            "match with its runs safely; apply fewer fixes at once."
        )
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [
        (tag, i1 + head, i2 + head, j1 + head, j2 + head)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
