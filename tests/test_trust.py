"""Trust: repairs never break a reference, every citation is accounted for, numbers are numbers.

Each test is a document a writer could have written, run through the real CLI (`main`), with its
sources as local files (`--offline`: nothing is fetched).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.core.reading import parse_document
from citedesk.core.repair import prose_of

SWAP_AND_ORPHAN = """# Cool streets

Heat islands raise energy use for cooling in dense cities [1]. Streets with more than 40% tree canopy were on average 1.5 °C cooler in the afternoon [2]. Dense cities report more heat deaths in heatwaves [1].

## References

[1] Smith. Heat islands and energy. heat.txt
[2] Jones. Rainfall in the Sahel. rain.txt
[3] Moreau. Urban tree canopy cooling. canopy.txt
"""
SOURCES = {
    "heat.txt": "Urban heat islands raise the energy used for cooling buildings in summer. Dense cities "
    "report more heat-related deaths during heatwaves than rural areas do.",
    "rain.txt": "Rainfall in the Sahel has varied strongly over the last century, with long droughts in "
    "the 1970s and 1980s followed by partial recovery.",
    "canopy.txt": "The survey measured afternoon temperatures in 120 streets. Streets with more than 40% "
    "tree canopy were on average 1.5 °C cooler in the afternoon than streets with little canopy.",
}
LOCAL = ["--offline", "--judge", "heuristic", "--no-dense"]


def write(folder: Path, text: str) -> Path:
    for name, content in SOURCES.items():
        (folder / name).write_text(content, encoding="utf-8")
    document = folder / "draft.md"
    document.write_text(text, encoding="utf-8")
    return document


def report_of(document: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    main(["audit", str(document), "--format", "json", *LOCAL, *extra])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("renumber", [False, True])
def test_fix_all_never_fabricates_a_citation_and_a_second_run_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], renumber: bool
) -> None:
    document = write(tmp_path, SWAP_AND_ORPHAN)
    before = report_of(document, capsys)
    kinds = {(f["kind"], f["reference"]): f for f in before["findings"]}
    # each fix is right alone; together they used to cite a removed reference
    assert kinds[("misattributed", "2")]["fixes"][0]["title"] == "Cite [3] instead of [2]"
    assert kinds[("orphan_reference", "3")]["fixes"][0]["title"] == "Remove reference [3]"

    flags = ["--renumber", "--unsafe-fixes"] if renumber else ["--unsafe-fixes"]
    assert main(["fix", str(document), "--kinds", "all", *flags, *LOCAL]) == 0
    said = capsys.readouterr().err
    assert "Cite [3] instead of [2]" in said
    assert "Kept reference [3]: the repair cites it." in said
    assert "Removed reference [2]: nothing cites it after this repair." in said
    fixed = document.read_text(encoding="utf-8")
    after = parse_document(fixed)
    known = after.references.by_key()
    assert all(key in known for marker in after.markers for key in marker.keys)  # nothing fabricated
    cited = next(c for c in after.claims if "canopy" in c.text)
    [key] = after.cited_keys(cited)
    assert "Urban tree canopy cooling" in known[key].text  # the right source, whatever its number
    assert prose_of(after) == prose_of(parse_document(SWAP_AND_ORPHAN))  # prose byte-identical
    audited = report_of(document, capsys)
    assert not [f for f in audited["findings"] if f["kind"] in ("fabricated", "orphan_reference")]

    assert main(["fix", str(document), "--kinds", "all", *flags, *LOCAL]) == 0  # idempotent
    assert "nothing to fix" in capsys.readouterr().err
    assert document.read_text(encoding="utf-8") == fixed


def test_a_malformed_markers_fix_keeps_the_references_it_cites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "draft.md"
    document.write_text(
        "Coffee lowers the risk of diabetes [2,,3].\n\n## References\n\n[1] A. https://a.example\n"
        "[2] B. https://b.example\n[3] C. https://c.example\n",
        encoding="utf-8",
    )
    report = report_of(document, capsys)
    orphans = [f["reference"] for f in report["findings"] if f["kind"] == "orphan_reference"]
    assert orphans == ["1"]  # 2 and 3 are cited, by a malformed marker whose intent is clear
    kinds = "fabricated,orphan_reference,malformed_marker"
    assert main(["fix", str(document), "--kinds", kinds, "--renumber", "--no-sources"]) == 0
    capsys.readouterr()
    fixed = document.read_text(encoding="utf-8")
    assert "risk of diabetes [1, 2]." in fixed
    assert "[1] B. https://b.example\n[2] C. https://c.example\n" in fixed  # renumbered, both kept


def test_a_malformed_marker_citing_missing_references_keeps_only_the_real_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "draft.md"
    document.write_text("Trees cool streets [1,,8,,9].\n\n## References\n\n[1] A. https://a.example\n")
    report = report_of(document, capsys, "--no-sources")
    [malformed] = [f for f in report["findings"] if f["kind"] == "malformed_marker"]
    assert "[8], [9], which the reference list does not have" in malformed["message"]
    assert malformed["fixes"][0]["title"] == "Rewrite as [1]"


def test_every_citation_is_counted_checked_or_not_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = write(
        tmp_path,
        SWAP_AND_ORPHAN.replace("[2].", "[2, 4].").replace(
            "[3] Moreau. Urban tree canopy cooling. canopy.txt",
            "[3] Moreau. Urban tree canopy cooling. canopy.txt\n[5] Lee. Parks. https://parks.example/p",
        )
        + "",
    )
    text = document.read_text(encoding="utf-8").replace("heatwaves [1].", "heatwaves [1, 5].")
    document.write_text(text, encoding="utf-8")
    summary = report_of(document, capsys)["summary"]
    assert summary["citations"] == 5
    assert summary["checked"] + summary["unchecked"] == summary["citations"]
    assert summary["unchecked_reasons"] == {"no such reference": 1, "offline": 1}
    for fmt, needle in (
        ("text", "3 of 5 citations checked; 2 not checked"),
        ("markdown", "## Not checked (2 citations)"),
        ("html", "<h2>Not checked (2 citations)</h2>"),
    ):
        main(["audit", str(document), "--format", fmt, *LOCAL])
        shown = capsys.readouterr().out
        assert needle in shown
        assert "[5] offline" in shown or "offline" in shown
    main(["audit", str(document), *LOCAL])
    text_report = capsys.readouterr().out
    assert "[5] offline — cited on line 3" in text_report
    assert "[4] no such reference — cited on line 3" in text_report


def test_a_wrong_figure_is_one_number_finding_not_a_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = write(
        tmp_path,
        "Streets with more than 40% tree canopy were on average 2.5 °C cooler in the afternoon [1].\n\n"
        "## References\n\n[1] Moreau. Urban tree canopy cooling. canopy.txt\n",
    )
    for extra in ([], ["--no-dense"]):
        main(["audit", str(document), "--format", "json", "--offline", "--judge", "heuristic", *extra])
        report = json.loads(capsys.readouterr().out)
        findings = report["findings"]
        assert [f["kind"] for f in findings] == ["number_mismatch"]
        # the citation is right (only the number is wrong): its verdict is not a contradiction
        assert [v["label"] for c in report["claims"] for v in c["verdicts"]] == ["supported"]
        assert findings[0]["severity"] == "error"
        assert findings[0]["message"] == "The cited source [1] says 1.5 °C, not 2.5 °C."
        start, end = findings[0]["span"]
        assert document.read_text(encoding="utf-8")[start:end] == "2.5"


def test_a_wrong_figure_names_its_unit_and_a_noun_phrase_negation_is_no_contradiction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "yields.txt").write_text(
        "We measured yields on allotment plots. Plots produced on average 8 kilograms of vegetables per "
        "square metre each year. Households with a plot bought noticeably fewer fresh vegetables during "
        "the summer months than comparable households without a plot.",
        encoding="utf-8",
    )
    document = write(
        tmp_path,
        "Plots produced on average 12 kilograms of vegetables per square metre each year [1]. "
        "Households with a plot bought noticeably fewer fresh vegetables during the summer months [1].\n\n"
        "## References\n\n[1] Yields and purchases on allotments. yields.txt\n",
    )
    report = report_of(document, capsys)
    assert [f["message"] for f in report["findings"]] == [
        "The cited source [1] says 8 kilograms, not 12 kilograms."
    ]
    # "without a plot" negates its noun phrase, not "bought fewer": the second citation is supported
    assert [v["label"] for c in report["claims"] for v in c["verdicts"]] == ["supported", "supported"]
    (tmp_path / "yields.txt").write_text(
        "Children who grew up with a garden had higher rates of asthma than other children.", encoding="utf-8"
    )
    document.write_text(
        "Children who grew up without a garden had higher rates of asthma than other children [1].\n\n"
        "## References\n\n[1] Gardens and asthma. yields.txt\n",
        encoding="utf-8",
    )
    [reversed_claim] = report_of(document, capsys)["claims"]  # "without X" against "with X" is a reversal
    assert [v["label"] for v in reversed_claim["verdicts"]] == ["contradicted"]
    (tmp_path / "yields.txt").write_text(
        "About 20% of the saplings died within five years.", encoding="utf-8"
    )
    document.write_text(
        "About 30% of the saplings died within five years [1].\n\n## References\n\n[1] Saplings. yields.txt\n",
        encoding="utf-8",
    )
    messages = [f["message"] for f in report_of(document, capsys)["findings"]]
    assert messages == ["The cited source [1] says 20%, not 30%."]  # "of" is no unit


def test_a_source_that_matches_an_uncited_sentence_only_in_part_is_named_but_never_cited_for_the_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "health.txt").write_text(
        "Allotment gardening and health: a comparative survey among allotment gardeners and their "
        "neighbors without an allotment. Allotment gardeners reported higher life satisfaction and lower "
        "perceived stress than their neighbours without an allotment, after adjusting for age, income and "
        "education. Gardening is associated with lower self-reported stress and better mood.",
        encoding="utf-8",
    )
    document = write(
        tmp_path,
        "Gardening is associated with lower self-reported stress and better mood [1]. Older gardeners in "
        "particular report that the allotment gives structure to their week.\n\n"
        "## References\n\n[1] van den Berg. Allotment gardening and health. health.txt\n",
    )
    before = document.read_text(encoding="utf-8")
    [uncited] = [f for f in report_of(document, capsys)["findings"] if f["kind"] == "uncited"]
    assert "The source of [1] matches it only in part (support 0." in uncited["message"]
    assert uncited["fixes"] == []
    assert main(["fix", str(document), "--kinds", "all", *LOCAL]) == 1  # the uncited sentence remains
    capsys.readouterr()
    assert document.read_text(encoding="utf-8") == before  # nothing cited on partial support


def test_a_contradiction_shows_its_contradiction_and_the_judge_says_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = write(
        tmp_path,
        "Urban heat islands do not raise the energy used for cooling buildings in summer [1].\n\n"
        "## References\n\n[1] Smith. Heat islands and energy. heat.txt\n",
    )
    report = report_of(document, capsys)
    assert report["judge_note"].startswith("word-level judge, limited accuracy")
    [verdict] = report["claims"][0]["verdicts"]
    assert verdict["label"] == "contradicted"
    # the word-level judge's contradiction is something to read (info), never a warning on its own
    [finding] = [f for f in report["findings"] if f["kind"] == "unconfirmed"]
    assert finding["severity"] == "info"
    assert f"contradiction {verdict['contradiction']:.2f}" in finding["message"]
    assert "support" not in finding["message"].split("before relying on it", 1)[1]
    main(["audit", str(document), *LOCAL])
    assert "judge: heuristic:words — word-level judge, limited accuracy" in capsys.readouterr().out


# --- offline is not dead -----------------------------------------------------------------------------
UNREACHABLE = (
    "Trees cool streets in summer [1]. Parks cut heat deaths by half [2].\n\n## References\n\n"
    "[1] Moreau. Canopy. https://canopy.invalid/report\n[2] Lee. Parks. https://parks.invalid/study\n"
)


def test_with_no_host_reachable_nothing_is_a_dead_link_and_the_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "draft.md"
    document.write_text(UNREACHABLE, encoding="utf-8")  # `.invalid` never resolves (RFC 2606)
    for extra in ([], ["--offline"]):
        report = report_of(document, capsys, *extra)
        assert not [f for f in report["findings"] if f["kind"] == "dead_link"]
        summary = report["summary"]
        assert summary["offline"] is True
        assert (summary["citations"], summary["checked"], summary["unchecked"]) == (2, 0, 2)
        assert summary["unchecked_reasons"] == {"offline": 2}
    main(["audit", str(document), *LOCAL[1:]])  # without --offline: it tried, and says so once
    text = capsys.readouterr().out
    assert text.count("this machine seems to be offline") == 1
    assert "nothing could be checked: 0 of 2 citations checked (offline 2)" in text


def test_with_no_host_reachable_the_report_does_not_claim_the_indexes_were_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "draft.md"  # doi.org, Crossref and OpenAlex are `.invalid` here (conftest)
    document.write_text(
        UNREACHABLE + "[3] Ding. Coffee. https://doi.org/10.2337/dc13-1203\n", encoding="utf-8"
    )
    document.write_text(document.read_text().replace("by half [2].", "by half [2, 3]."), encoding="utf-8")
    main(["audit", str(document), "--format", "json", *LOCAL[1:]])  # not --offline: it tries, in vain
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["offline"] is True
    assert report["retractions"]["offline"] is True
    main(["audit", str(document), *LOCAL[1:]])
    text = capsys.readouterr().out
    assert "retractions: offline" in text
    assert "from Crossref and OpenAlex" not in text


def test_with_local_sources_and_no_index_reachable_the_report_says_nothing_was_looked_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = write(  # every source is a local file; the entries' DOIs go to `.invalid` indexes (conftest)
        tmp_path,
        "Streets with more than 40% tree canopy were on average 1.5 °C cooler in the afternoon [1].\n\n"
        "## References\n\n[1] Moreau. Urban tree canopy cooling. canopy.txt https://doi.org/10.1000/canopy\n",
    )
    main(["audit", str(document), "--format", "json", *LOCAL[1:]])  # not --offline: it tries, in vain
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["checked"] == 1  # the local copy was read and judged
    assert report["retractions"]["offline"] is True
    assert [n for n in report["notices"] if "No index could be reached" in n]
    main(["audit", str(document), *LOCAL[1:]])
    text = capsys.readouterr().out
    assert "from Crossref and OpenAlex" not in text
    assert "[1] local  canopy.txt  (no index reachable: not looked up)" in text  # not offline: tried


def test_a_host_that_does_not_exist_is_a_dead_link_while_others_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers.server import serve

    with serve() as base:
        document = tmp_path / "draft.md"
        document.write_text(
            UNREACHABLE.replace("https://canopy.invalid/report", f"{base}/article"), encoding="utf-8"
        )
        main(["audit", str(document), "--format", "json", "--allow-private-network", *LOCAL[1:]])
        report = json.loads(capsys.readouterr().out)
    dead = [f for f in report["findings"] if f["kind"] == "dead_link"]
    assert [f["reference"] for f in dead] == ["2"]
    assert report["summary"]["offline"] is False


def test_the_time_budget_bounds_the_whole_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import time

    from tests.helpers.server import serve

    with serve() as base:
        entries = "\n".join(f"[{n}] Slow source {n}. {base}/slow?n={n}" for n in range(1, 21))
        claims = " ".join(f"Finding {n} held in the survey [{n}]." for n in range(1, 21))
        document = tmp_path / "slow.md"
        document.write_text(f"{claims}\n\n## References\n\n{entries}\n", encoding="utf-8")
        started = time.monotonic()
        main(
            [
                "audit",
                str(document),
                "--format",
                "json",
                "--allow-private-network",
                "--timeout",
                "3",
                *LOCAL[1:],
            ]
        )
        elapsed = time.monotonic() - started
        report = json.loads(capsys.readouterr().out)
    assert elapsed < 30  # 3 s of budget, then the clean-up; it was 31 s and growing with the sources
    assert report["summary"]["unchecked_reasons"].get("time budget ran out", 0) >= 1
    assert not [f for f in report["findings"] if f["kind"] in ("dead_link", "fabricated_reference")]


def test_the_not_checked_rows_add_up_to_the_citations_they_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two citations of [2] on one line are one row that says so (issue 43): the rows add up to the
    heading's count in every format."""
    document = tmp_path / "draft.md"
    document.write_text(
        "Trees cool streets [2]. Shade lowers the felt heat [2].\n\n"
        "Parks help too [2, 7].\n\n## References\n\n"
        "[2] Lee. Parks. https://parks.example/p\n",
        encoding="utf-8",
    )
    main(["audit", str(document), "--offline"])
    text_report = capsys.readouterr().out
    assert "Not checked (4 citations)" in text_report
    assert "[2] offline — cited 3 times on lines 1, 3" in text_report
    assert "[7] no such reference — cited on line 3" in text_report
    main(["audit", str(document), "--offline", "--format", "markdown"])
    assert "cited 3 times on lines 1, 3" in capsys.readouterr().out
