"""Done when (issue 39): a judge declares its own settings on its spec. A judge registered from one
test module (`tests/helpers/toy_judge.py`) with one setting of its own (`toy_depth`) gets a key of
the user's settings file, a command-line flag, and the value in its `JudgeContext` when it is
loaded — with no module of `citedesk/` naming it (its row in the settings dialog:
`tests/gui/test_judge_setting_row.py`). Taken back, the key is unknown again."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk import config
from citedesk.cli import main
from tests.conftest import SAMPLES
from tests.helpers.toy_judge import DEPTHS, toy_judge


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    target = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", target)
    return target


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv(config.CONFIG_VARIABLE, str(path))
    return path


@pytest.fixture
def toy() -> Iterator[None]:
    with toy_judge():
        yield


def audit(sample: Path, *flags: str) -> int:
    args = ["audit", str(sample), "--offline", "--no-dense", "--format", "json", "--judge", "toy-depth"]
    return main([*args, *flags])


def test_its_setting_is_a_key_of_the_users_file(toy: None, user_file: Path) -> None:
    user_file.write_text('toy_depth = "deep"\n', encoding="utf-8")
    loaded = config.load(None)
    assert loaded.settings.value("toy_depth") == "deep"
    assert ("toy_depth", '"deep"', loaded.origin("toy_depth")) in loaded.rows()
    assert loaded.audit_options().judge_settings == {"toy_depth": "deep"}


def test_without_its_judge_the_key_is_unknown(user_file: Path) -> None:
    user_file.write_text('toy_depth = "deep"\n', encoding="utf-8")
    with pytest.raises(config.ConfigError, match="unknown setting `toy_depth`"):
        config.load(None)


def test_its_flag_is_on_the_command_line_with_its_help(toy: None, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    audit_help = " ".join(capsys.readouterr().out.split())
    assert "--toy-depth DEPTH" in audit_help
    assert "how deeply the toy judge reads" in audit_help


def test_its_loader_gets_the_value_from_the_file_or_the_flag(
    toy: None, user_file: Path, sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user_file.write_text("timeout = 300\n", encoding="utf-8")
    assert audit(sample) in (0, 1)
    user_file.write_text('toy_depth = "deep"\n', encoding="utf-8")
    assert audit(sample) in (0, 1)
    assert audit(sample, "--toy-depth", "deeper") in (0, 1)
    capsys.readouterr()
    assert DEPTHS == ["shallow", "deep", "deeper"]  # the default, the file's, the flag's
