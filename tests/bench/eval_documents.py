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

from citedesk.core.findings import Kind
from citedesk.pipeline import AuditOptions, audit_text

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval" / "wice" / "claim_dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="heuristic")
    parser.add_argument("--no-dense", action="store_true")
    parser.add_argument("--documents", type=int, default=8)
    args = parser.parse_args()
    if not EVAL.is_file():
        print(f"no evaluation data at {EVAL}; nothing to measure")
        return
    rows = [json.loads(line) for line in EVAL.open(encoding="utf-8")]
    supported = [r for r in rows if r["label"] == "supported"]
    rng = random.Random(3)
    rng.shuffle(supported)
    swapped_total = flagged_swapped = flagged_correct = 0
    uncited_total = uncited_found = uncited_right = uncited_false = 0
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
            position = {c.id: i + 1 for i, c in enumerate(report.document.claims)}
            misattributed = {
                (position[f.claim_id], f.reference)
                for f in report.findings
                if f.kind is Kind.MISATTRIBUTED and f.claim_id in claims
            }
            for n, role in enumerate(roles, start=1):
                if role == "swap":
                    swapped_total += 1
                    flagged_swapped += (n, str(cited[n])) in misattributed
                elif role == "ok":
                    flagged_correct += (n, str(n)) in misattributed
            uncited = {
                position[f.claim_id]: f for f in report.findings if f.kind is Kind.UNCITED and f.claim_id
            }
            for n, role in enumerate(roles, start=1):
                if role == "drop":
                    uncited_total += 1
                    if n in uncited:
                        uncited_found += 1
                        uncited_right += uncited[n].details.get("suggested") == str(n)
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
        f"uncited: {uncited_found}/{uncited_total} found, right reference suggested for {uncited_right}; "
        f"F1 (found with the right suggestion) {f1:.2f}"
    )


if __name__ == "__main__":
    main()
