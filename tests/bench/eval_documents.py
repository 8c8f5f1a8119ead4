"""Misattribution and uncited-claim detection in whole documents built from WiCE (figures, not a test).

Each document holds 10 real Wikipedia sentences that WiCE marks `supported` by their cited page,
with those pages as local sources 1..10. In every document three sentences cite the wrong page
(the marker swapped to another reference) and two lose their marker. Printed: precision and recall
of `misattributed` on the swapped markers, and F1 of `uncited` on the unmarked sentences counting
a hit only when the right reference is suggested.

    .venv/bin/python -m tests.bench.eval_documents [--judge heuristic] [--no-dense]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from citedesk.core.findings import Kind
from citedesk.pipeline import AuditOptions, audit_text

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval" / "wice" / "claim_dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="heuristic")
    parser.add_argument("--no-dense", action="store_true")
    parser.add_argument("--documents", type=int, default=0, help="how many (default: all the data allows)")
    parser.add_argument(
        "--verbose", action="store_true", help="print each miss and false alarm with its scores"
    )
    args = parser.parse_args()
    if not EVAL.is_file():
        print(f"no evaluation data at {EVAL}; nothing to measure")
        return
    rows = [json.loads(line) for line in EVAL.open(encoding="utf-8")]
    supported = [r for r in rows if r["label"] == "supported"]
    rng = random.Random(3)
    rng.shuffle(supported)
    args.documents = args.documents or len(supported) // 10
    swapped_total = flagged_swapped = flagged_correct = 0
    uncited_total = uncited_found = uncited_right = uncited_false = uncited_wrong = 0
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store.sqlite3"
        for d in range(args.documents):
            group = supported[d * 10 : d * 10 + 10]
            if len(group) < 10:
                break
            folder = Path(tmp) / f"doc{d}"
            folder.mkdir()
            for n, row in enumerate(group, start=1):
                (folder / f"{n}.txt").write_text("\n\n".join(row["evidence"]), encoding="utf-8")
            roles = ["ok"] * 5 + ["swap"] * 3 + ["drop"] * 2
            rng.shuffle(roles)
            sentences = []
            cited: dict[int, int] = {}
            for n, (row, role) in enumerate(zip(group, roles, strict=True), start=1):
                claim = row["claim"].rstrip(".")
                if role == "drop":
                    sentences.append(claim + ".")
                    continue
                target = n if role == "ok" else rng.choice([k for k in range(1, 11) if k != n])
                cited[n] = target
                sentences.append(f"{claim} [{target}].")
            refs = "\n".join(
                f"{n}. {row['meta']['claim_title']}. {n}.txt" for n, row in enumerate(group, start=1)
            )
            text = "\n\n".join(sentences) + "\n\n## References\n\n" + refs + "\n"
            doc = folder / "doc.md"
            doc.write_text(text, encoding="utf-8")
            options = AuditOptions(
                offline=True, sources_dir=folder, store_path=store, judge=args.judge, dense=not args.no_dense
            )
            report = audit_text(text, str(doc), options)
            claims = {c.id: c for c in report.document.claims}
            # each claim belongs to the WiCE sentence it lies in (a sentence the splitter cuts in two,
            # "Impulse! Records", leaves its marker on the last piece: that piece is what is judged)
            starts = [text.index(s) for s in sentences]
            piece_of = {
                c.id: max(n for n, at in enumerate(starts, start=1) if at <= c.sentence.start)
                for c in report.document.claims
            }
            position = {c: n for c, n in piece_of.items() if _marked_or_last(report.document, c, n, piece_of)}
            misattributed = {
                (position[f.claim_id], f.reference)
                for f in report.findings
                if f.kind is Kind.MISATTRIBUTED and f.claim_id in claims
            }
            by_position = {position[c]: vs for c, vs in report.verdicts.items() if c in position}
            for n, role in enumerate(roles, start=1):
                if role == "swap":
                    swapped_total += 1
                    flagged_swapped += (n, str(cited[n])) in misattributed
                    if args.verbose and (n, str(cited[n])) not in misattributed:
                        print(
                            f"  missed swap d{d} s{n}: {_scores(by_position.get(n, []))} {group[n - 1]['claim'][:90]}"
                        )
                elif role == "ok":
                    flagged_correct += (n, str(n)) in misattributed
                    if args.verbose and (n, str(n)) in misattributed:
                        print(
                            f"  false alarm d{d} s{n}: {_scores(by_position.get(n, []))} {group[n - 1]['claim'][:90]}"
                        )
            uncited = {
                piece_of[f.claim_id]: f for f in report.findings if f.kind is Kind.UNCITED and f.claim_id
            }
            for n, role in enumerate(roles, start=1):
                if role == "drop":
                    uncited_total += 1
                    if n in uncited:
                        uncited_found += 1
                        uncited_right += uncited[n].details.get("suggested") == str(n)
                        uncited_wrong += uncited[n].details.get("suggested") not in (None, str(n))
                        if args.verbose and uncited[n].details.get("suggested") != str(n):
                            details = uncited[n].details
                            print(
                                f"  wrong/no suggestion d{d} s{n}: {details.get('suggested')} {details.get('score')} {group[n - 1]['claim'][:90]}"
                            )
                elif n in uncited:
                    uncited_false += 1
    precision = flagged_swapped / max(1, flagged_swapped + flagged_correct)
    recall = flagged_swapped / max(1, swapped_total)
    right_precision = uncited_right / max(1, uncited_found + uncited_false)
    right_recall = uncited_right / max(1, uncited_total)
    f1 = 2 * right_precision * right_recall / max(1e-9, right_precision + right_recall)
    print(
        f"documents: {args.documents} x 10 WiCE sentences; judge {args.judge}{' (words only)' if args.no_dense else ''}"
    )
    print(
        f"misattributed: precision {precision:.2f}, recall {recall:.2f} ({flagged_swapped}/{swapped_total} swapped markers flagged, {flagged_correct} correct ones flagged)"
    )
    print(
        f"uncited: {uncited_found}/{uncited_total} found, right reference suggested for {uncited_right}, "
        f"a wrong one for {uncited_wrong}; "
        f"F1 (found with the right suggestion) {f1:.2f}"
    )


def _marked_or_last(document: Any, claim_id: str, n: int, position: dict[str, int]) -> bool:
    """Keep one claim per WiCE sentence: the piece with the marker, else the last piece."""
    pieces = [c for c in document.claims if position[c.id] == n]
    marked = [c for c in pieces if c.sentence.markers]
    return bool(claim_id == (marked[-1] if marked else pieces[-1]).id)


def _scores(verdicts: list[Any]) -> str:
    return ", ".join(f"[{v.reference}] {v.label.value} {v.score:.2f}" for v in verdicts)


if __name__ == "__main__":
    main()
