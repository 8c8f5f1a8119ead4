"""Severity is earned by evidence a writer can see, not by a weak score (issue 38).

On documents built from real labelled claims, a third of the correctly cited sentences got a
warning from the word-level judge: paraphrases it could not confirm (support 0.19–0.30), figures
"not in source", and direction errors read from a *neighbouring* sentence of the evidence window.
Under a judge that may only suggest, a citation it cannot confirm is now `unconfirmed` (info: read
it before relying on it); a warning needs a source clearly about something else while another
reference supports the sentence; a direction error rests on the matched sentence, which its
evidence quotes. Whole audits of small documents with local sources, offline, words only.
"""

from __future__ import annotations

from pathlib import Path

from citedesk.core.findings import Evidence, Finding, Kind, Severity, Verdict, VerdictLabel
from citedesk.evidence.policy import HEURISTIC_NOTE, Policy, misattribution_severity
from citedesk.pipeline import AuditOptions, audit_text

HEAT = (
    "Street trees and summer heat\n\n"
    "Pavements under a mature canopy stayed markedly less hot through August afternoons than exposed "
    "asphalt, the survey of forty neighbourhoods found.\n\n"
    "The survey was run by volunteers with handheld sensors.\n"
)
SALMON = (
    "Salmon life cycle\n\n"
    "Atlantic salmon return to their native rivers to spawn after two or three years at sea.\n\n"
    "Most of them die after spawning.\n"
)
TRANSIT = (
    "City transit report 2023\n\n"
    "Ridership on the city's buses fell by 12% in 2023, the transport authority reported.\n\n"
    "Operating costs were reviewed by the council.\n"
)
SLOPES = (
    "Hillside survey\n\n"
    "On the grazed hillsides of the reserve, vegetation was surveyed every spring after 2010 by the park "
    "rangers. Across the valley floor, increasing vegetation was recorded in the same years.\n"
)


def audit(folder: Path, prose: str, sources: list[tuple[str, str]]) -> tuple[str, list[Finding]]:
    (folder / "sources").mkdir()
    refs = []
    for n, (title, text) in enumerate(sources, start=1):
        (folder / "sources" / f"s{n}.txt").write_text(text, encoding="utf-8")
        refs.append(f"{n}. Author (2023). *{title}*. sources/s{n}.txt")
    text = f"# Notes\n\n{prose}\n\n## References\n\n" + "\n".join(refs) + "\n"
    document = folder / "notes.md"
    document.write_text(text, encoding="utf-8")
    options = AuditOptions(offline=True, dense=False, judge="heuristic", document_dir=folder)
    return text, audit_text(text, str(document), options).findings


def test_a_paraphrase_the_word_level_judge_cannot_confirm_is_info_to_read_not_a_warning(
    tmp_path: Path,
) -> None:
    _, findings = audit(
        tmp_path,
        "Shade from old roadside trees keeps sidewalks cooler late in the day [1].",
        [("Street trees and summer heat", HEAT), ("Salmon life cycle", SALMON)],
    )
    cited = [f for f in findings if f.reference == "1"]
    assert [(f.kind, f.severity) for f in cited] == [(Kind.UNCONFIRMED, Severity.INFO)]
    assert cited[0].message.startswith("Not confirmed by the word-level judge: read [1] before relying on it")
    assert not [f for f in findings if f.claim_id and f.severity is not Severity.INFO]


def test_a_source_about_something_else_is_a_warning_when_another_reference_supports(tmp_path: Path) -> None:
    _, findings = audit(
        tmp_path,
        "Atlantic salmon return to their native rivers to spawn after two or three years at sea [1].",
        [("City transit report 2023", TRANSIT), ("Salmon life cycle", SALMON)],
    )
    flagged = [f for f in findings if f.reference == "1"]
    assert [(f.kind, f.severity) for f in flagged] == [(Kind.MISATTRIBUTED, Severity.WARNING)]
    assert flagged[0].suggestion is not None
    assert flagged[0].suggestion.key == "2"


def test_a_figure_no_source_states_is_info_under_the_word_level_judge(tmp_path: Path) -> None:
    text, findings = audit(
        tmp_path,
        "Ridership on the city's buses fell by 12% across 40 routes in 2023 [1].",
        [("City transit report 2023", TRANSIT)],
    )
    numbers = [f for f in findings if f.kind is Kind.UNSUPPORTED_NUMBER]
    assert [(text[f.start : f.end], f.severity) for f in numbers] == [("40", Severity.INFO)]


def test_a_neighbouring_sentence_s_direction_word_is_no_error(tmp_path: Path) -> None:
    _, findings = audit(
        tmp_path,
        "Vegetation on the grazed hillsides of the reserve declined after 2010 [1].",
        [("Hillside survey", SLOPES)],
    )
    assert not [f for f in findings if f.kind is Kind.DIRECTION_MISMATCH]
    assert not [f for f in findings if f.severity is Severity.ERROR]


def test_a_direction_error_rests_on_the_matched_sentence_its_evidence_quotes(tmp_path: Path) -> None:
    text, findings = audit(
        tmp_path,
        "Ridership on the city's buses rose by 12% in 2023 [1].",
        [("City transit report 2023", TRANSIT)],
    )
    turned = [f for f in findings if f.kind is Kind.DIRECTION_MISMATCH]
    assert [(text[f.start : f.end], f.severity) for f in turned] == [("rose", Severity.ERROR)]
    evidence = turned[0].evidence
    assert evidence is not None
    assert (
        evidence.passage
        == "Ridership on the city's buses fell by 12% in 2023, the transport authority reported."
    )


def verdict(key: str, label: VerdictLabel, score: float, passage: str) -> Verdict:
    evidence = Evidence(key, passage, 0, len(passage), window=passage)
    return Verdict(key, label, score, judge="heuristic", evidence=evidence)


def test_another_reference_supports_only_when_it_is_seen_to_say_more_of_the_sentence() -> None:
    # HealthVer: every source of the document speaks of COVID-19, so another abstract scores as
    # supporting a sentence that barely overlaps its own; a warning needs the other source to say
    # clearly more of the sentence, not merely to score higher on the words every source shares
    suggest_only = Policy(acts=False, kind="word-level", note=HEURISTIC_NOTE)
    claim = "Zinc lozenges shorten the common cold in adults with COVID-19 symptoms."
    cited = verdict("1", VerdictLabel.NOT_SUPPORTED, 0.15, "Lozenges were tried on adults in small trials.")
    shared_word = verdict("2", VerdictLabel.SUPPORTED, 0.55, "Most COVID-19 patients stayed home.")
    says_more = verdict(
        "3", VerdictLabel.SUPPORTED, 0.55, "Zinc lozenges shortened the common cold in adults."
    )
    barely_better = verdict("4", VerdictLabel.PARTIALLY_SUPPORTED, 0.22, says_more.evidence.passage)  # type: ignore[union-attr]

    def severity(elsewhere: Verdict) -> Severity | None:
        return misattribution_severity(cited, suggest_only, "", claim, elsewhere)

    assert severity(says_more) is Severity.WARNING
    assert severity(shared_word) is None  # no more of the sentence's words than the cited passage
    assert severity(barely_better) is None  # support only 0.07 above the cited source's
