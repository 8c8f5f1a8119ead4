"""The evidence stage end to end: local sources, the heuristic judge, findings, fixes, caching."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.core.findings import Verdict, VerdictLabel
from citedesk.core.reading import parse_document
from citedesk.evidence.judges.base import Judgement, Pair, Policy
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.suggest import assess_evidence, claude_offer
from citedesk.sources.gather import gather_sources
from citedesk.sources.resolved import SourceOptions
from citedesk.store import Store


def audit(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["audit", str(path), "--offline", "--format", "json", "--no-dense", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_misattribution_number_and_suggestions(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = audit(sample, capsys)
    assert code == 1
    assert report["judge"] == "heuristic:words"
    findings = report["findings"]
    assert isinstance(findings, list)
    by_kind = {(f["kind"], f["reference"]): f for f in findings}
    wrong = by_kind[("misattributed", "3")]
    assert wrong["fixes"][0]["title"] == "Cite [2] instead of [3]"
    assert wrong["details"]["suggested"] == "2"
    assert "30% tree canopy" in wrong["details"]["suggested_evidence"]["passage"]
    # [1] is the right source for the sentence, but says 7 °C where the sentence says 12 °C: one
    # number finding naming both figures, on the figure, and no contradicted citation
    assert ("misattributed", "1") not in by_kind
    inflated = by_kind[("number_mismatch", "1")]
    assert inflated["message"] == "The cited source [1] says 7 °C, not 12 °C."
    assert inflated["severity"] == "error"
    assert sample.read_text(encoding="utf-8")[inflated["span"][0] : inflated["span"][1]] == "12"
    assert "7 °C warmer" in inflated["evidence"]["passage"]
    uncited = by_kind[("uncited", None)]
    assert uncited["fixes"][0]["title"] == "Cite [3] (its source supports this)"
    assert uncited["evidence"]["source"] == "3"
    # supported citations produce no finding, and every cited pair has a verdict with evidence offsets
    claims = report["claims"]
    assert isinstance(claims, list)
    verdicts = [v for c in claims for v in c["verdicts"]]
    assert {v["label"] for v in verdicts} >= {"supported"}
    source_text = (sample.parent / "sources" / "canopy-survey.txt").read_text(encoding="utf-8")
    good = next(v for v in verdicts if v["reference"] == "2")
    start, end = good["evidence"]["start"], good["evidence"]["end"]
    assert " ".join(source_text[start:end].split()) == good["evidence"]["passage"]


def test_fixing_swaps_and_adds_citations_without_touching_prose(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sample.read_text(encoding="utf-8")
    # the word-level judge's swaps and added citations are suggestions to verify: `fix` leaves them
    assert main(["fix", str(sample), "--kinds", "misattributed,uncited", "--offline"]) == 1  # they remain
    assert sample.read_text(encoding="utf-8") == before
    said = capsys.readouterr().err
    assert "2 suggestion(s) to verify not applied (Cite [2] instead of [3]; Cite [3]" in said
    assert "--unsafe-fixes" in said
    # asked for, they are applied as one checked plan
    assert main(["fix", str(sample), "--kinds", "misattributed,uncited", "--offline", "--unsafe-fixes"]) == 1
    after = sample.read_text(encoding="utf-8")
    assert "less than 10% canopy [2]." in after
    assert "most often from drought [3]." in after
    restored = after.replace("drought [3].", "drought.").replace("canopy [2].", "canopy [3].")
    assert restored == before  # only the markers changed
    capsys.readouterr()
    _, report = audit(sample, capsys)
    kinds = {(f["kind"], f["reference"]) for f in report["findings"]}
    assert ("misattributed", "3") not in kinds
    assert ("uncited", None) not in kinds


@dataclass
class CountingJudge:
    """The real heuristic judge, counting the pairs it is asked about."""

    inner: HeuristicJudge = field(default_factory=HeuristicJudge)
    asked: list[str] = field(default_factory=list)
    name: str = "heuristic:words"

    @property
    def policy(self) -> Policy:
        return self.inner.policy

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        self.asked.extend(p.claim for p in pairs)
        return self.inner.judge(pairs, progress)


def test_an_edit_rejudges_only_the_changed_sentence(sample: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    text = sample.read_text(encoding="utf-8")
    document = parse_document(text, str(sample))
    sources = gather_sources(
        list(document.entries), SourceOptions(offline=True, document_dir=sample.parent), store
    )
    first = CountingJudge()
    assess_evidence(document, sources, first, store=store)
    assert len(first.asked) >= 4
    edited = text.replace("The cooling effect was strongest", "The cooling was strongest")
    second = CountingJudge()
    assess_evidence(parse_document(edited, str(sample)), sources, second, store=store)
    assert second.asked == ["The cooling was strongest in cities with hot, dry summers."]
    store.close()


def test_a_figure_counts_as_stated_when_any_citation_of_its_sentence_states_it(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = sample.read_text(encoding="utf-8")
    _head, references = text.split("## References")
    sample.write_text(
        "# Heat\n\nHeat islands raise energy use for cooling [1], and neighbourhoods with more than 30% "
        "tree canopy were on average 1.5 °C cooler in the afternoon [2].\n\nHeat islands raise energy "
        "use for cooling [1], and neighbourhoods with more than 45% tree canopy were on average 1.5 °C "
        "cooler in the afternoon [2].\n\n## References" + references,
        encoding="utf-8",
    )
    _code, report = audit(sample, capsys)
    numbers = [f for f in report["findings"] if f["kind"] in ("unsupported_number", "number_mismatch")]
    assert [f["details"]["figure"] for f in numbers] == ["45%"]  # 30% and 1.5 are in [2]; 45% in neither
    assert numbers[0]["message"] == "The cited source [2] says 30%, not 45%."  # [2] gives the same thing
    assert numbers[0]["claim"] == report["claims"][1]["id"]


def test_an_uncited_claim_gets_a_partly_supporting_reference_only_when_it_clearly_leads() -> None:
    from citedesk.core.findings import Verdict, VerdictLabel
    from citedesk.evidence.policy import STANDS_OUT
    from citedesk.evidence.policy import suggestion as _suggestion

    def ranked(*scored: tuple[str, VerdictLabel, float]) -> list[tuple[str, Verdict]]:
        return [(key, Verdict(key, label, score)) for key, label, score in scored]

    partial, supported, unsupported = (
        VerdictLabel.PARTIALLY_SUPPORTED,
        VerdictLabel.SUPPORTED,
        VerdictLabel.NOT_SUPPORTED,
    )
    assert _suggestion(ranked(("4", supported, 0.7), ("2", supported, 0.69))) is not None
    leading = _suggestion(ranked(("4", partial, 0.45), ("2", unsupported, 0.45 - STANDS_OUT - 0.01)))
    assert leading is not None
    assert leading[0] == "4"
    assert (
        _suggestion(ranked(("4", partial, 0.45), ("2", partial, 0.44))) is None
    )  # a coin toss: no suggestion
    assert _suggestion(ranked(("4", unsupported, 0.2))) is None
    assert _suggestion([]) is None


def test_claudes_proposal_is_a_fix_only_when_the_local_judge_finds_it_supports_the_sentence() -> None:
    document = parse_document(
        "Street trees die young in dry summers.\n\n## References\n\n[1] A. a.txt\n[2] B. b.txt\n"
    )
    claim_id = document.claims[0].id
    partial = Verdict("2", VerdictLabel.PARTIALLY_SUPPORTED, 0.41)
    offer = claude_offer(document, claim_id, ["2"], partial)
    assert offer is not None
    assert offer.fix is None  # nothing is cited for the writer on partial support
    assert "Claude suggests [2]" in offer.note
    assert "only in part (support 0.41)" in offer.note
    supported = claude_offer(document, claim_id, ["2"], Verdict("2", VerdictLabel.SUPPORTED, 0.8))
    assert supported is not None
    assert supported.fix is not None
    assert supported.fix.title == "Cite [2] (suggested by Claude, confirmed locally)"


def test_a_title_above_the_evidence_keeps_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The evidence window keeps the source's line break between its title and first sentence, so the
    evidence pane does not run them together ("…material-flow analysis Using a global…", issue 43)."""
    (tmp_path / "canopy.txt").write_text(
        "Urban tree canopy and summer heat in a material-flow analysis\n\n"
        "Using a global dataset of 300 cities, we found that street trees cool streets by 7 degrees in summer. "
        "Parks add more shade.\n",
        encoding="utf-8",
    )
    document = tmp_path / "draft.md"
    document.write_text(
        "# Trees\n\nStreet trees cool streets by 12 degrees in summer [1].\n\n## References\n\n"
        "[1] Moreau. Urban tree canopy and summer heat. canopy.txt\n",
        encoding="utf-8",
    )
    _, report = audit(document, capsys)
    [finding] = [f for f in report["findings"] if f["kind"] == "number_mismatch"]
    window = finding["evidence"]["window"]
    assert window.startswith("Urban tree canopy and summer heat in a material-flow analysis\nUsing a global")
    assert "degrees in summer. Parks add more shade." in window  # one paragraph: one line
