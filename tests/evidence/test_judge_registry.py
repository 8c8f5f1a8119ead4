"""The judge registry: judges register themselves, one function resolves a setting, and a judge
defined here — outside CiteDesk — is chosen by name and read with its own policy."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.cli.parser import JUDGE_HELP
from citedesk.core.findings import Kind, Severity
from citedesk.errors import UsageError
from citedesk.evidence import local_models
from citedesk.evidence.catalogue import find_entry, recommended
from citedesk.evidence.judges import heuristic, nli
from citedesk.evidence.judges.base import Judgement, Pair, Policy
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.judges.registry import (
    AUTO,
    OFF,
    JudgeKind,
    JudgeSpec,
    chooser,
    help_text,
    model_judge,
    register,
    registered,
    resolve,
    specs,
    unregister,
)
from citedesk.evidence.local_models import models_dir, set_default
from citedesk.pipeline import AuditOptions, audit_text

PACKAGE = Path(__file__).resolve().parents[2] / "citedesk"
EVIDENCE_KINDS = {Kind.MISATTRIBUTED, Kind.NUMBER_MISMATCH, Kind.UNSUPPORTED_PART, Kind.UNCITED}


# a judge CiteDesk has never heard of --------------------------------------------------------------
@dataclass
class ToyJudge:
    """A stand-in for a judge served elsewhere: it answers with the heuristic judge's numbers (so
    the sample's findings are known), under its own name and its registry entry's policy."""

    policy: Policy
    name: str = "toy"
    inner: HeuristicJudge = field(default_factory=HeuristicJudge)
    asked: list[str] = field(default_factory=list)

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        self.asked.extend(p.claim for p in pairs)
        return self.inner.judge(pairs, progress)


def toy_spec(name: str, kind: JudgeKind, **policy: Any) -> JudgeSpec:
    # the heuristic judge's numbers, read as a model's would be unless `policy` says otherwise
    calibrated = replace(replace(heuristic.POLICY, note="", acts=True, kind="model"), **policy)
    if not calibrated.acts:
        calibrated = replace(calibrated, kind="word-level")
    return JudgeSpec(name, kind, f"Toy judge {name}", lambda _: ToyJudge(calibrated, name), calibrated)


@pytest.fixture
def strong() -> Iterator[JudgeSpec]:
    with registered(toy_spec("toy", JudgeKind.SERVER)) as spec:
        yield spec


@pytest.fixture
def weak() -> Iterator[JudgeSpec]:
    with registered(toy_spec("toy-words", JudgeKind.WORD_LEVEL, acts=False)) as spec:
        yield spec


def audit(sample: Path, judge: str) -> Any:
    options = AuditOptions(offline=True, dense=False, judge=judge, document_dir=sample.parent)
    return audit_text(sample.read_text(encoding="utf-8"), str(sample), options)


def cli_report(sample: Path, capsys: pytest.CaptureFixture[str], judge: str) -> dict[str, Any]:
    main(["audit", str(sample), "--offline", "--format", "json", "--no-dense", "--judge", judge])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_a_registered_judge_is_chosen_by_its_name_and_may_act(sample: Path, strong: JudgeSpec) -> None:
    report = audit(sample, "toy")
    assert report.judge == "toy"
    by_kind = {(f.kind, f.reference): f for f in report.findings}
    # a judge that may act: the same findings the heuristic judge's numbers give, errors and fixes
    assert by_kind[(Kind.NUMBER_MISMATCH, "1")].severity is Severity.ERROR
    assert by_kind[(Kind.MISATTRIBUTED, "3")].fixes[0].title == "Cite [2] instead of [3]"
    assert by_kind[(Kind.UNCITED, None)].fixes


def test_a_registered_judge_is_chosen_with_the_judge_flag(
    sample: Path, strong: JudgeSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    report = cli_report(sample, capsys, "toy")
    assert report["judge"] == "toy"
    assert {v["judge"] for c in report["claims"] for v in c["verdicts"] if v["label"] != "unchecked"} == {
        "toy"
    }


def test_a_judge_that_may_only_suggest_raises_no_error_and_drives_no_fix(
    sample: Path, weak: JudgeSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not weak.may_act
    report = audit(sample, "toy-words")
    assert report.judge == "toy-words"
    judged = [f for f in report.findings if f.kind in EVIDENCE_KINDS]
    assert {f.kind for f in judged} >= {Kind.MISATTRIBUTED, Kind.NUMBER_MISMATCH, Kind.UNCITED}
    # no error from its reading; a figure the source gives otherwise is explicit, and keeps its level
    assert all(f.severity is not Severity.ERROR for f in judged if f.kind is not Kind.NUMBER_MISMATCH)
    assert all(not fix.safe for f in judged for fix in f.fixes)  # suggestions to verify
    assert {f.judged_by for f in judged if f.kind is Kind.MISATTRIBUTED} == {"word-level"}
    misattributed = next(f for f in judged if f.kind is Kind.MISATTRIBUTED)
    assert misattributed.suggestion is not None
    assert misattributed.suggestion.key == "2"  # it still says which reference supports the sentence
    uncited = next(f for f in judged if f.kind is Kind.UNCITED)
    assert uncited.suggestion is not None
    assert uncited.suggestion.key == "3"
    # `fix` applies nothing it suggests
    before = sample.read_text(encoding="utf-8")
    kinds = "misattributed,uncited,number_mismatch"
    assert (
        main(["fix", str(sample), "--kinds", kinds, "--offline", "--no-dense", "--judge", "toy-words"]) == 1
    )
    capsys.readouterr()
    assert sample.read_text(encoding="utf-8") == before


def test_a_judge_is_read_with_its_calibrated_threshold(sample: Path) -> None:
    with registered(toy_spec("toy-strict", JudgeKind.SERVER, supported=1.01)) as strict:
        assert strict.threshold == 1.01
        report = audit(sample, "toy-strict")
    labels = {v.label.value for c in report.verdicts.values() for v in c}
    assert "supported" not in labels  # the heuristic judge's numbers, read with a threshold none reaches
    assert "supported" in {v.label.value for c in audit(sample, "heuristic").verdicts.values() for v in c}


# the built-in judges and the settings ---------------------------------------------------------------
def test_the_built_in_judges_register_themselves_with_their_kind_and_policy() -> None:
    by_name = {s.name: s for s in specs()}
    assert by_name["heuristic"].kind is JudgeKind.WORD_LEVEL
    assert by_name["nli"].kind is JudgeKind.ENCODER
    assert by_name["claude"].kind is JudgeKind.SERVER
    assert by_name["claude"].sends_text
    assert not by_name["heuristic"].sends_text
    assert not by_name["nli"].sends_text
    assert by_name["heuristic"].threshold == heuristic.SUPPORTED
    assert by_name["nli"].threshold == 0.5
    # the word-level judge may only suggest: no error from its reading, no safe fix (issue 25);
    # model judges may act where their evidence passes the gate
    assert not by_name["heuristic"].may_act
    assert all(s.may_act for name, s in by_name.items() if name != "heuristic")
    assert by_name["heuristic"].policy.note


def test_a_loaded_judge_carries_its_registry_entrys_policy(tmp_path: Path) -> None:
    words = resolve("heuristic").load()
    assert replace(words.policy, fingerprint="") == heuristic.SPEC.policy
    folder = tmp_path / "some-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    model = resolve(f"nli:{folder}").load()  # built, not loaded: torch only when it judges
    assert isinstance(model, nli.NliJudge)
    assert model.name == "nli:some-model"
    assert model.policy == local_models.NLI.policy


def test_resolve_reads_every_setting() -> None:
    assert resolve(OFF).off
    assert resolve("heuristic").spec is heuristic.SPEC
    choice = resolve("nli:minilm-nli")
    assert (choice.spec, choice.argument) == (local_models.NLI, "minilm-nli")
    assert resolve("claude").sends_text
    assert not resolve(AUTO).sends_text
    with pytest.raises(UsageError, match=r"unknown judge 'bogus': use heuristic, .*nli, nli:MODEL.* or auto"):
        resolve("bogus")


def test_auto_prefers_the_default_model_else_the_heuristic_judge() -> None:
    assert resolve(AUTO).spec is heuristic.SPEC
    folder = models_dir() / "tiny"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}", encoding="utf-8")
    set_default("tiny")
    choice = resolve(AUTO)
    assert choice.spec is local_models.NLI
    assert choice.argument == str(folder)


def test_a_name_is_taken_once_and_auto_and_none_are_not_names() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(replace(heuristic.SPEC, label="another"))
    for name in (AUTO, OFF, "a:b", ""):
        with pytest.raises(ValueError, match="cannot name a judge"):
            register(replace(heuristic.SPEC, name=name))


def test_the_judge_flags_help_and_the_chooser_come_from_the_registry() -> None:
    assert help_text() == JUDGE_HELP
    assert chooser() == [
        (
            "auto",
            "Automatic (the default model if it is text-to-text, else the default NLI model if installed, "
            "else heuristic)",
        ),
        ("heuristic", "Heuristic judge (no model needed)"),
    ]


def test_a_registered_judge_joins_the_chooser_and_the_help(strong: JudgeSpec) -> None:
    assert ("toy", "Toy judge toy") in chooser()
    assert "toy" in help_text()


# the catalogue of downloadable models reads the registry ------------------------------------------
def test_the_catalogue_offers_only_models_a_registered_judge_runs() -> None:
    flan = find_entry("minicheck-flan-t5-large")
    assert flan is not None
    assert flan.kind is JudgeKind.TEXT_TO_TEXT
    assert model_judge(JudgeKind.ENCODER) is local_models.NLI
    # the text-to-text judge is registered, so the catalogue offers the model (and checks it with it)
    assert model_judge(JudgeKind.TEXT_TO_TEXT) is local_models.SEQ2SEQ
    assert flan.offered
    assert flan in recommended()
    # without it, the model would be listed, not offered
    models_seq2seq = local_models.SEQ2SEQ
    unregister(models_seq2seq.name)
    try:
        assert not flan.offered
        assert flan.why_not_offered == "a text-to-text model; no judge CiteDesk has runs one"
    finally:
        register(models_seq2seq)
    hhem = find_entry("hhem-2.1-open")
    assert hhem is not None
    assert not hhem.offered  # custom code: never offered, whatever judges there are
    assert "trust_remote_code" in hhem.why_not_offered


# no judge is chosen by its name outside the registry ------------------------------------------------
ALLOWED = {"evidence/judges/registry.py"}
"""Where a setting may be compared with a judge's name: the registry, which reads settings."""


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def judge_name_comparisons(path: Path, names: set[str]) -> list[str]:
    """`x == "claude"`, `kind in ("heuristic", "nli")`, `judge != "none"`,
    `spec.startswith("nli")`: a string literal naming a judge (or `auto`; `none` beside a name that
    says judge) compared with something — except an `assist` setting, whose values (`claude`,
    `none`) are not judges."""
    where = path.relative_to(PACKAGE) if path.is_relative_to(PACKAGE) else path.name
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            literals = [s.partition(":")[0] for o in operands for s in _strings(o)]
            others = " ".join(ast.unparse(o) for o in operands if not _strings(o))
            named = {s for s in literals if s in names} | (
                {OFF} & set(literals) if "judge" in others else set()
            )
            if named and "assist" not in others:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith", "partition")
            and any(s.partition(":")[0] in names for a in node.args for s in _strings(a))
        ):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_outside_the_registry_compares_judge_names() -> None:
    """A judge is chosen by `resolve`, never by comparing a setting with its name: adding a judge
    edits no conditional. Judge names may still appear as text (help, messages, a judge's own
    name in reports, the defaults `auto`) — only comparisons are refused."""
    names = {s.name for s in specs()} | {AUTO}
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() not in ALLOWED
        for hit in judge_name_comparisons(path, names)
    ]
    assert found == []


def test_the_comparison_check_sees_what_it_refuses(tmp_path: Path) -> None:
    names = {"heuristic", "nli", "claude", AUTO}
    probe = tmp_path / "probe.py"
    probe.write_text(
        'if options.judge == "claude": pass\n'
        'if kind in ("heuristic", "nli"): pass\n'
        'if options.judge != "none": pass\n'
        'if spec.startswith("nli:"): pass\n'
        'if options.assist == "claude": pass\n'
        'if report == "none": pass\n',
        encoding="utf-8",
    )
    found = judge_name_comparisons(probe, names)
    assert [hit.split(":")[1] for hit in found] == ["1", "2", "3", "4"]
