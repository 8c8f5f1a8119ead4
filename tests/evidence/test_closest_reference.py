"""An uncited sentence is told which of the document's references comes clearly closest, even when
none confirms it (issue 38).

On documents built from real labelled claims, the word-level judge often scores the right
reference for an unmarked claim "not supported" (support 0.2–0.3) while it leads every other
reference by a clear margin: the writer was told only "cites no source". Now the finding names
that reference as the one to read — honestly ("it does not confirm this") and with no fix, so
nothing cites it for them; a coin toss between references, a lone reference, a contradicting one
names none; a match on a title alone is said to be one.
"""

from __future__ import annotations

from pathlib import Path

from citedesk.core.findings import Finding, Kind, Verdict, VerdictLabel
from citedesk.evidence.policy import STANDS_OUT, suggestion
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
    "Ridership on the city's buses fell in 2023, the transport authority reported.\n\n"
    "Operating costs were reviewed by the council.\n"
)
NOT, PARTIAL, CONTRADICTED = (
    VerdictLabel.NOT_SUPPORTED,
    VerdictLabel.PARTIALLY_SUPPORTED,
    VerdictLabel.CONTRADICTED,
)


def ranked(*scored: tuple[str, VerdictLabel, float]) -> list[tuple[str, Verdict]]:
    return [(key, Verdict(key, label, score)) for key, label, score in scored]


def uncited(folder: Path, prose: str) -> Finding:
    (folder / "sources").mkdir()
    refs = []
    for n, (title, text) in enumerate(
        [("Street trees and summer heat", HEAT), ("Salmon life cycle", SALMON), ("City transit", TRANSIT)],
        start=1,
    ):
        (folder / "sources" / f"s{n}.txt").write_text(text, encoding="utf-8")
        refs.append(f"{n}. Author (2023). *{title}*. sources/s{n}.txt")
    text = f"# Notes\n\n{prose}\n\n## References\n\n" + "\n".join(refs) + "\n"
    document = folder / "notes.md"
    document.write_text(text, encoding="utf-8")
    options = AuditOptions(offline=True, dense=False, judge="heuristic", document_dir=folder)
    [finding] = [f for f in audit_text(text, str(document), options).findings if f.kind is Kind.UNCITED]
    return finding


def test_an_unsupporting_reference_is_suggested_only_when_it_clearly_leads_the_runner_up() -> None:
    leading = suggestion(ranked(("3", NOT, 0.28), ("5", NOT, 0.28 - STANDS_OUT - 0.005), ("1", NOT, 0.1)))
    assert leading is not None
    assert leading[0] == "3"
    assert suggestion(ranked(("3", NOT, 0.30), ("5", NOT, 0.29))) is None  # a coin toss
    assert suggestion(ranked(("3", NOT, 0.28))) is None  # a lone reference leads nothing
    assert suggestion(ranked(("3", CONTRADICTED, 0.7), ("5", NOT, 0.1))) is None
    assert suggestion(ranked(("3", PARTIAL, 0.45), ("5", PARTIAL, 0.44))) is None  # unchanged


def test_the_closest_reference_is_named_to_read_with_no_fix(tmp_path: Path) -> None:
    finding = uncited(
        tmp_path, "Authority reports are associated with lower school performance in rural districts."
    )
    assert finding.suggestion is not None
    assert finding.suggestion.key == "3"
    assert "The closest of your references is [3] (support 0." in finding.message
    assert "but it does not confirm this: read it before citing it." in finding.message
    assert finding.fixes == ()  # nothing cites it for the writer, not even with unsafe fixes
    assert finding.evidence is not None
    assert "transport authority reported" in finding.evidence.passage


def test_a_reference_closest_only_by_its_title_is_named_as_such(tmp_path: Path) -> None:
    finding = uncited(tmp_path, "Heat exposure is associated with lower school performance.")
    assert finding.suggestion is not None
    assert finding.suggestion.key == "1"
    assert finding.message.endswith(
        "but it does not confirm this: read it before citing it."
        " The closest it comes is the source's title, no sentence of its text."
    )
    assert finding.fixes == ()
