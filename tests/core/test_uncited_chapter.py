"""Uncited-claim detection on a thesis chapter written the way theses are written.

`tests/fixtures/uncited/chapter.md` mixes signposting, the writer's own argument, a contact line,
instructions, inline code and a code block, captions and headings with claims, some cited, some
with their figures in words; `chapter.labels` says which sentences are claims needing a source.
The writer acts on every uncited finding, so both a false warning and a missed claim cost them.
"""

from __future__ import annotations

from pathlib import Path

from citedesk.core.checks import uncited_claims
from citedesk.core.reading import parse_document

FIXTURE = Path(__file__).parent.parent / "fixtures" / "uncited"


def _labelled_claims() -> list[str]:
    lines = (FIXTURE / "chapter.labels").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_uncited_findings_on_a_thesis_chapter_are_precise_and_complete() -> None:
    document = parse_document((FIXTURE / "chapter.md").read_text(encoding="utf-8"))
    labels = _labelled_claims()
    claim_sentences = {
        claim.sentence.index for claim in document.claims if any(claim.text.startswith(p) for p in labels)
    }
    # every label names exactly one sentence, so a reworded fixture cannot silently drop a claim
    assert all(sum(c.text.startswith(p) for c in document.claims) == 1 for p in labels), labels
    uncited_truth = {i for i in claim_sentences if not document.sentences[i].markers}
    by_id = {claim.id: claim for claim in document.claims}
    flagged = {by_id[f.claim_id].sentence.index for f in uncited_claims(document) if f.claim_id}
    hits = len(flagged & uncited_truth)
    precision = hits / max(1, len(flagged))
    recall = hits / max(1, len(uncited_truth))
    print(
        f"uncited on the thesis chapter: precision {precision:.2f} ({hits}/{len(flagged)}), "
        f"recall {recall:.2f} ({hits}/{len(uncited_truth)})"
    )
    assert len(document.sentences) >= 40
    assert precision >= 0.9
    assert recall >= 0.9


def test_no_finding_on_the_chapter_gives_a_reason_that_is_untrue_of_its_sentence() -> None:
    """The issue's report: an e-mail line "refers to a study or source", a code span "gives a
    date". On the chapter no finding is on a contact line or a code span, and a figure in digits is
    one the sentence says in digits."""
    document = parse_document((FIXTURE / "chapter.md").read_text(encoding="utf-8"))
    by_id = {claim.id: claim for claim in document.claims}
    for finding in uncited_claims(document):
        claim = by_id[str(finding.claim_id)]
        assert "@" not in claim.text
        assert "`" not in document.text[claim.sentence.start : claim.sentence.end]
        if "states a figure" in claim.reasons:
            assert any(ch.isdigit() for ch in claim.text)
