"""Atomic claims: Claude's decomposition is checked word for word, each fact is judged against the
sentence's citations, and a finding points at the words of the fact that fails."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from citedesk.assist.atoms import atoms_from_answer, decomposition_requests, locate
from citedesk.cli import main
from citedesk.core.document.claims import Atom
from citedesk.core.findings import Kind
from citedesk.core.reading import parse_document
from citedesk.evidence.judges.base import MODEL_POLICY, Judgement, Pair
from citedesk.evidence.lexical import content_stems
from citedesk.evidence.suggest import assess_evidence
from citedesk.sources.gather import gather_sources
from citedesk.sources.resolved import SourceOptions
from citedesk.store import Store
from tests.conftest import SAMPLES
from tests.helpers.messages_api import FakeMessages, by_task, message, messages_api, sentence_of

REFERENCES = """
## References

1. Regional Climate Office. *Urban heat islands: a fact sheet*. sources/heat-islands.txt
2. Moreau, L. and Okafor, T. (2021). "Tree canopy and afternoon heat in 112 mid-sized cities". sources/canopy-survey.txt
3. Municipal Forestry Network (2019). *Street tree survival after planting*. sources/tree-survival.md
"""
MIXED = (
    "About 20% of newly planted street trees die within five years, and neighbourhoods with more "
    "than 30% tree canopy are on average 1.5 °C cooler in the afternoon [3]."
)
SECOND_PART = "neighbourhoods with more than 30% tree canopy are on average 1.5 °C cooler in the afternoon"


def _split_at_and(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A model that splits a sentence at ", and": each clause a fact, quoted from the sentence."""
    clauses = [c.strip(" .") for c in re.split(r",? and ", re.sub(r"\s*\[\d+\]", "", sentence_of(body)))]
    return message(json.dumps({"facts": [{"fact": c[0].upper() + c[1:], "span": c} for c in clauses]}))


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    path = tmp_path / "mixed.md"
    path.write_text(f"# Street trees\n\n{MIXED}\n{REFERENCES}", encoding="utf-8")
    return path


def _audit(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    main(["audit", str(path), "--offline", "--judge", "heuristic", "--format", "json", *extra])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


# --- the deterministic checks -------------------------------------------------------------------
def test_a_decomposition_is_believed_only_where_it_quotes_the_sentence() -> None:
    text = (
        "The protocol went live in March 2024 [1]. It has since attracted $45 million in deposits and "
        "has never been exploited by an attacker [1].\n\n## References\n\n1. A report. https://example.org\n"
    )
    document = parse_document(text)
    claim = document.claims[1]
    answer = {
        "facts": [
            {
                "fact": "The protocol has attracted $45 million in deposits",
                "span": "attracted $45 million in deposits",
            },
            {"fact": "It has never been exploited", "span": "has  never been EXPLOITED"},  # spacing, case
            {"fact": "It has $50 million in deposits", "span": "$45 million in deposits"},  # a new figure
            {
                "fact": "Its audit found no critical bugs in the code",
                "span": "never been exploited",
            },  # new words
            {"fact": "It is popular", "span": "is very popular"},  # not in the sentence
            {"fact": "", "span": "by an attacker"},
        ]
    }
    atoms, problems = atoms_from_answer(answer, document, claim.id)
    assert [text[a.start : a.end] for a in atoms] == [
        "attracted $45 million in deposits",
        "has never been exploited",
    ]
    assert (
        atoms[0].text == "The protocol has attracted $45 million in deposits"
    )  # "protocol": the previous sentence
    assert any("“$50 million”" in p for p in problems)
    assert any("“audit”" in p for p in problems)
    assert any("'is very popular' is not in the sentence" in p for p in problems)
    assert any("without its text or span" in p for p in problems)
    assert atoms_from_answer(["not", "an object"], document, claim.id) == (
        [],
        ["the decomposition had no list of facts"],
    )


def test_spans_may_run_across_a_marker_and_short_sentences_are_not_sent() -> None:
    where = locate("went live in 2024 and", "It went live in 2024 [1] and grew.")
    assert where is not None
    assert "It went live in 2024 [1] and grew."[where[0] : where[1]] == "went live in 2024 [1] and"
    assert locate("went live in 2025", "It went live in 2024 [1] and grew.") is None
    text = (
        f"Trees cool cities [1]. {MIXED}\n\nCities grew quickly over the last century and now house most of "
        f"the world's people.\n{REFERENCES}"
    )
    document = parse_document(text)
    sent = [sentence_of({"messages": [{"content": r.prompt}]}) for _, r in decomposition_requests(document)]
    assert sent == [document.claims[1].text]  # long and cited; the short and the uncited are not sent


# --- end to end, against the local Messages API ---------------------------------------------------
def test_a_fact_no_citation_supports_is_flagged_on_its_own_words_and_fixed_there(
    mixed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    without = _audit(mixed, capsys)
    assert not [f for f in without["findings"] if f["kind"] in ("misattributed", "unsupported_part")]
    with messages_api(by_task(facts=_split_at_and)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        report = _audit(mixed, capsys, "--assist", "claude")
        text = mixed.read_text(encoding="utf-8")
        part = next(f for f in report["findings"] if f["kind"] == "unsupported_part")
        assert text[part["span"][0] : part["span"][1]] == SECOND_PART
        assert part["reference"] == "3"
        assert part["details"]["suggested"] == "2"
        assert "30% tree canopy" in part["details"]["suggested_evidence"]["passage"]
        assert part["fixes"][0]["title"] == "Cite [2] for this part"
        assert part["fixes"][0]["applicability"] == "unsafe"  # the word-level judge's: to verify
        # its figures are that part's problem, not separate findings
        assert not [f for f in report["findings"] if f["kind"] == "unsupported_number"]
        assert len(report["assist"]["facts"][part["claim"]]) == 2
        assert (
            main(
                [
                    "fix",
                    str(mixed),
                    "--kinds",
                    "unsupported_part",
                    "--offline",
                    "--assist",
                    "claude",
                    "--unsafe-fixes",
                    "--fail-on=none",
                ]
            )
            == 0
        )
    fixed = mixed.read_text(encoding="utf-8")
    assert "in the afternoon [3, 2]." in fixed or "in the afternoon [2, 3]." in fixed
    assert re.sub(r"\s*\[[\d, ]+\]", "", fixed) == re.sub(r"\s*\[[\d, ]+\]", "", text)  # prose untouched


def test_with_assistance_off_no_decomposition_is_sent(
    mixed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with messages_api(by_task(facts=_split_at_and)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        report = _audit(mixed, capsys)
    assert FakeMessages.requests == []
    assert report.get("assist") is None


# --- how facts change the verdicts (a judge that needs every content word) ------------------------
class EveryWordJudge:
    """A strict, transparent judge: supported when the evidence has every content word of the claim."""

    name = "every-word"
    policy = MODEL_POLICY

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        out = []
        for pair in pairs:
            have = set(content_stems(pair.evidence))
            share = sum(s in have for s in content_stems(pair.claim)) / max(1, len(content_stems(pair.claim)))
            out.append(Judgement(support=0.9 if share == 1 else 0.1 * share, contradiction=0.0))
        return out


def test_a_citation_right_for_its_part_is_not_misattributed_and_the_unsupported_part_is(
    tmp_path: Path,
) -> None:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    sentence = (
        "Drought was the most common cause of death [3], shade alone explained about two thirds of the "
        "measured difference [2], and the heat island is largest at noon [1]."
    )
    text = f"# Trees\n\n{sentence}\n{REFERENCES}"
    document = parse_document(text, str(tmp_path / "doc.md"))
    sources = gather_sources(
        list(document.entries),
        SourceOptions(offline=True, document_dir=tmp_path),
        Store(tmp_path / "store.sqlite3"),
    )
    facts = [
        "Drought was the most common cause of death",
        "shade alone explained about two thirds",
        "the heat island is largest at noon",
    ]
    claim_id = document.claims[0].id
    atoms = {claim_id: [Atom(f, text.index(f), text.index(f) + len(f)) for f in facts]}

    whole = assess_evidence(document, sources, EveryWordJudge())
    assert {f.reference for f in whole.findings if f.kind is Kind.MISATTRIBUTED} == {"1", "2", "3"}

    by_fact = assess_evidence(document, sources, EveryWordJudge(), atoms=atoms)
    assert [f.kind for f in by_fact.findings] == [Kind.UNSUPPORTED_PART]
    part = by_fact.findings[0]
    assert text[part.start : part.end] == "the heat island is largest at noon"
    assert "“the heat island is largest at noon”" in part.message
    assert part.details["parts"][0]["support"]["1"][0] == "not_supported"
