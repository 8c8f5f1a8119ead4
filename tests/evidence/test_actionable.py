"""Judged findings a writer can act on (issue 25): who judged and how sure, severity from the
judge and the evidence, and a swap or an added citation only on strong evidence.

The texts are a writer's: a short essay on street trees with local sources, one of which (`8.txt`)
has a *title line* that matches a sentence word for word while its body is about buses — the
case where a correct `[4-5]` used to become `[4, 8]`. The "model" judge is the registry's toy
judge: the heuristic judge's numbers read with a model's policy (it may act), so the same scores
show what a judge that may act is allowed to do that the word-level judge is not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citedesk.cli import main
from citedesk.core.findings import Evidence, Kind, Severity, Verdict, VerdictLabel
from citedesk.core.reading import parse_document
from citedesk.core.repair import prose_of
from citedesk.evidence.body import not_body
from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.registry import JudgeKind, JudgeSpec, registered
from citedesk.evidence.policy import MODEL_POLICY, judged_severity, swap_gate
from tests.evidence.test_judge_registry import toy_spec

TREES = """Cooling effect of street trees measured

A survey of forty cities found that street trees cool city streets in summer heat by two degrees on average.

The cooling was strongest on narrow streets with dense canopy.
"""
PARKS = """Parks and public health

Visitors to large parks reported walking more often than residents without a park nearby.

The survey asked residents how many minutes they walk on weekdays.
"""
CLIMATE = """Street trees and the urban climate

A survey of forty cities measured air temperature under street trees and in open streets during summer afternoons.

Streets lined with mature trees were on average two degrees cooler than open streets on hot afternoons.
"""
BUSES = """Street trees cool city streets in summer heat

The city council approved a new bus timetable for the winter season.

Fares for monthly passes will remain unchanged until next spring, the council said in its statement.

Night buses will run every thirty minutes on the main routes.
"""
SOURCES = {"trees.txt": TREES, "parks.txt": PARKS, "climate.txt": CLIMATE, "buses.txt": BUSES}
TREE_CLAIM = "Street trees cool city streets in summer heat by two degrees"
PARK_CLAIM = "Visitors to large parks walk more often than residents without a park nearby"
BUS_CLAIM = "Night buses run every thirty minutes on the main routes"
REFERENCES = {
    "1": "Parks and public health. parks.txt",
    "2": "Cooling effect of street trees measured. trees.txt",
    "4": "Street trees and the urban climate. climate.txt",
    "8": "Street trees cool city streets in summer heat. buses.txt",
}
OFFLINE = ["--offline", "--no-dense"]


@pytest.fixture
def model() -> Iterator[JudgeSpec]:
    with registered(toy_spec("toy", JudgeKind.SERVER)) as spec:
        yield spec


def essay(folder: Path, body: str, references: dict[str, str] = REFERENCES) -> Path:
    for name, text in SOURCES.items():
        (folder / name).write_text(text, encoding="utf-8")
    listed = "\n".join(f"{n}. {entry}" for n, entry in references.items())
    document = folder / "essay.md"
    document.write_text(f"# Trees and heat\n\n{body}\n\n## References\n\n{listed}\n", encoding="utf-8")
    return document


def audit(
    document: Path, capsys: pytest.CaptureFixture[str], judge: str = "heuristic"
) -> list[dict[str, Any]]:
    main(["audit", str(document), "--format", "json", *OFFLINE, "--judge", judge])
    findings: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["findings"]
    return findings


def of_kind(findings: list[dict[str, Any]], kind: Kind) -> list[dict[str, Any]]:
    return [f for f in findings if f["kind"] == kind.value]


# a title line never drives a swap --------------------------------------------------------------------
def test_a_group_that_supports_its_sentence_loses_a_member_that_adds_nothing_never_gains_a_title_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the reported case: a correct [4-5] became [4, 8] because [8]'s title line matched better
    references = {"4": REFERENCES["4"], "5": REFERENCES["1"], "8": REFERENCES["8"]}
    document = essay(tmp_path, f"{TREE_CLAIM} [4-5].\n\n{BUS_CLAIM} [8].", references)
    findings = audit(document, capsys)
    assert not of_kind(findings, Kind.MISATTRIBUTED)  # the group is right: no swap, no warning
    [redundant] = of_kind(findings, Kind.REDUNDANT_CITATION)
    assert redundant["severity"] == "info"
    assert redundant["reference"] == "5"
    assert redundant["message"].startswith("[5] adds nothing here: [4] supports this sentence")
    assert [(f["title"], f["applicability"]) for f in redundant["fixes"]] == [
        ("Remove [5] from this group", "unsafe")  # the word-level judge's: a suggestion to verify
    ]
    assert redundant["details"]["judged_by"] == "word-level"
    assert 0.5 < redundant["details"]["confidence"] <= 1
    assert not [f for f in findings for fix in f["fixes"] if "[8]" in fix["title"]]

    before = document.read_text(encoding="utf-8")
    assert main(["fix", str(document), "--kinds", "all", *OFFLINE]) == 0
    assert document.read_text(encoding="utf-8") == before  # nothing structural to fix, nothing judged applied
    assert "suggestion(s) to verify not applied (Remove [5] from this group)" in capsys.readouterr().err
    # asked for, the removal keeps the rest of the group and every other byte (the entry it leaves
    # cited by nothing goes with it, as in every plan)
    assert main(["fix", str(document), "--kinds", "redundant_citation", *OFFLINE, "--unsafe-fixes"]) == 0
    expected = before.replace("[4-5].", "[4].", 1).replace("5. Parks and public health. parks.txt\n", "")
    assert document.read_text(encoding="utf-8") == expected


def test_a_title_line_that_matches_better_is_named_but_never_proposed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: JudgeSpec
) -> None:
    # only [8]'s title says what the sentence says: even a judge that may act proposes nothing
    document = essay(
        tmp_path,
        f"Street trees cool city streets in summer heat [1].\n\n{BUS_CLAIM} [8].",
        {k: v for k, v in REFERENCES.items() if k in ("1", "8")},
    )
    for judge in ("heuristic", "toy"):
        [wrong] = of_kind(audit(document, capsys, judge), Kind.MISATTRIBUTED)
        assert wrong["reference"] == "1"
        assert wrong["fixes"] == []
        assert "[8] is closer, but is not proposed: its best match is the source's title" in wrong["message"]
        assert "suggested" not in wrong["details"]


# with a judge that may act, strong evidence is a safe fix ----------------------------------------------
def test_a_model_judges_swap_on_body_text_is_safe_and_the_word_level_judges_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: JudgeSpec
) -> None:
    body = f"{TREE_CLAIM} [1].\n\n{PARK_CLAIM} [1].\n\nThe cooling was strongest on narrow streets [2]."
    document = essay(tmp_path, body, {k: v for k, v in REFERENCES.items() if k in ("1", "2")})
    before = document.read_text(encoding="utf-8")
    for judge, applicability in (("heuristic", "unsafe"), ("toy", "safe")):
        [wrong] = of_kind(audit(document, capsys, judge), Kind.MISATTRIBUTED)
        assert wrong["severity"] == "warning"
        assert [(f["title"], f["applicability"]) for f in wrong["fixes"]] == [
            ("Cite [2] instead of [1]", applicability)
        ]
        assert wrong["details"]["judged_by"] == ("word-level" if judge == "heuristic" else "model")

    assert main(["fix", str(document), "--kinds", "all", *OFFLINE]) == 1  # word-level: nothing; it remains
    assert document.read_text(encoding="utf-8") == before
    assert main(["fix", str(document), "--kinds", "all", *OFFLINE, "--judge", "toy"]) == 0
    fixed = document.read_text(encoding="utf-8")
    assert f"{TREE_CLAIM} [2]." in fixed
    assert f"{PARK_CLAIM} [1]." in fixed
    assert prose_of(parse_document(fixed)) == prose_of(parse_document(before))


def test_a_swap_that_would_cite_an_orphan_says_so_and_is_never_safe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: JudgeSpec
) -> None:
    document = essay(
        tmp_path,
        f"{TREE_CLAIM} [1].\n\n{PARK_CLAIM} [1].",
        {k: v for k, v in REFERENCES.items() if k in ("1", "2")},
    )
    findings = audit(document, capsys, "toy")
    [wrong] = of_kind(findings, Kind.MISATTRIBUTED)
    assert "[2] is cited nowhere else: citing it here also settles its orphan finding" in wrong["message"]
    assert [f["applicability"] for f in wrong["fixes"]] == ["unsafe"]
    assert of_kind(findings, Kind.ORPHAN_REFERENCE)


def test_only_a_judge_that_may_act_raises_an_error_and_only_on_body_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: JudgeSpec
) -> None:
    document = essay(
        tmp_path,
        f"Street trees do not cool city streets in summer heat [2].\n\n{PARK_CLAIM} [1].",
        {k: v for k, v in REFERENCES.items() if k in ("1", "2")},
    )
    # the word-level judge's contradiction is not confirmed (info: read it); a model's is an error
    for judge, kind, severity in (
        ("heuristic", Kind.UNCONFIRMED, "info"),
        ("toy", Kind.MISATTRIBUTED, "error"),
    ):
        [contradicted] = of_kind(audit(document, capsys, judge), kind)
        assert contradicted["severity"] == severity
        assert contradicted["details"]["confidence"] == contradicted["details"]["contradiction"]
    [model_read] = of_kind(audit(document, capsys, "toy"), Kind.MISATTRIBUTED)
    assert "contradicts this sentence" in model_read["message"]
    # the same contradiction read on a title line is a warning, whoever judged it
    verdict = Verdict(
        "8",
        VerdictLabel.CONTRADICTED,
        0.1,
        "toy",
        Evidence("8", BUSES.splitlines()[0], 0, 45, title=BUSES.splitlines()[0]),
        contradiction=0.9,
    )
    assert judged_severity(verdict, MODEL_POLICY, BUSES) is Severity.WARNING
    body = Evidence(
        "2",
        TREES.splitlines()[2],
        TREES.index("A survey"),
        len(TREES.splitlines()[0]) + 2 + len(TREES.splitlines()[2]),
    )
    assert (
        judged_severity(
            Verdict("2", VerdictLabel.CONTRADICTED, 0.1, "toy", body, contradiction=0.9), MODEL_POLICY, TREES
        )
        is Severity.ERROR
    )
    assert (
        judged_severity(
            Verdict("2", VerdictLabel.CONTRADICTED, 0.1, "h", body, contradiction=0.9),
            heuristic.POLICY,
            TREES,
        )
        is Severity.WARNING
    )


# the gate and the body-text rule, one by one -----------------------------------------------------------
def passage(text: str, line: str, title: str | None = None) -> Evidence:
    start = text.index(line)
    return Evidence("k", line, start, start + len(line), title=title)


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        (BUSES, "Street trees cool city streets in summer heat", "the source's title"),
        (
            "Intro text here.\n\n## Street trees and heat in dense cities\n\nBody.",
            "## Street trees and heat in dense cities",
            "a heading of the source",
        ),
        ("Published: 3 May 2020\n\nBody text.", "Published: 3 May 2020", "a line of the source's metadata"),
        (
            "Keywords: trees, heat, canopy, cities\n\nBody.",
            "Keywords: trees, heat, canopy, cities",
            "a line of the source's metadata",
        ),
        (
            "Text.\n\n12. Smith J. Trees and heat in cities. Urban Studies (2019) 4: 1-9.",
            "12. Smith J. Trees and heat in cities. Urban Studies (2019) 4: 1-9.",
            "an entry of the source's reference list",
        ),
        (TREES, "The cooling was strongest on narrow streets with dense canopy.", None),
        (
            "Published data show that street trees cool the air around them.",
            "Published data show that street trees cool the air around them.",
            None,
        ),
    ],
)
def test_what_is_body_text(text: str, line: str, why: str | None) -> None:
    title = text.splitlines()[0] if text is BUSES else "Cooling effect of street trees measured"
    assert not_body(passage(text, line, title), text) == why


def test_the_gate_asks_for_support_itself_on_body_text_and_by_a_margin() -> None:
    body = passage(TREES, "The cooling was strongest on narrow streets with dense canopy.")
    title = passage(BUSES, "Street trees cool city streets in summer heat", BUSES.splitlines()[0])

    def verdict(label: VerdictLabel, score: float, evidence: Evidence) -> Verdict:
        return Verdict("k", label, score, "toy", evidence)

    current = verdict(VerdictLabel.PARTIALLY_SUPPORTED, 0.36, body)
    assert swap_gate(verdict(VerdictLabel.SUPPORTED, 0.8, body), current, TREES) is None
    assert "only in part" in str(
        swap_gate(verdict(VerdictLabel.PARTIALLY_SUPPORTED, 0.41, body), current, TREES)
    )
    assert "the source's title" in str(swap_gate(verdict(VerdictLabel.SUPPORTED, 0.9, title), current, BUSES))
    assert "not clearly better" in str(
        swap_gate(
            verdict(VerdictLabel.SUPPORTED, 0.52, body),
            verdict(VerdictLabel.PARTIALLY_SUPPORTED, 0.49, body),
            TREES,
        )
    )


# property: fix --kinds all with the word-level judge changes no citation's target ---------------------
CLAIMS = (TREE_CLAIM, PARK_CLAIM, BUS_CLAIM, "Streets lined with mature trees were two degrees cooler")
MARKERS = ("[1]", "[2]", "[4]", "[8]", "[1, 4]", "[2, 8]", "[9]", "[2-4]")


def works_cited(text: str) -> dict[str, set[str]]:
    """Each sentence's prose → the works (reference titles) its markers cite."""
    doc = parse_document(text)
    known = {key: ref.text.split(".")[0] for key, ref in doc.references.by_key().items()}
    return {
        claim.text.split("[")[0].strip(): {known.get(k, "?") for k in doc.cited_keys(claim)}
        for claim in doc.claims
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(CLAIMS), st.sampled_from(MARKERS)),
        min_size=2,
        max_size=4,
        unique_by=lambda p: p[0],
    )
)
def test_fix_all_with_the_word_level_judge_retargets_no_citation(
    tmp_path_factory: pytest.TempPathFactory, sentences: list[tuple[str, str]]
) -> None:
    folder = tmp_path_factory.mktemp("essay")
    document = essay(folder, "\n\n".join(f"{claim} {marker}." for claim, marker in sentences))
    before = document.read_text(encoding="utf-8")
    assert main(["fix", str(document), "--kinds", "all", *OFFLINE, "--renumber"]) in (0, 1)
    after = document.read_text(encoding="utf-8")
    was, now = works_cited(before), works_cited(after)
    for sentence, works in now.items():
        # structural repairs remove a fabricated [9] or renumber; nothing cites a work it did not
        assert works <= was[sentence], (sentence, was[sentence], works)
    assert prose_of(parse_document(after)) == prose_of(parse_document(before))
