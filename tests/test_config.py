"""Settings in layers (issue 24): defaults < the user's file < the project's citedesk.toml < the
command line, each value with where it came from; files that are wrong stop with a message naming
the file and the key (exit 2, no traceback); a project file is untrusted input and can neither widen
what CiteDesk may read nor hold a key. The user file is always a temporary one ($CITEDESK_CONFIG);
conftest points the config folder at a temporary home as well."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citedesk import config
from citedesk.cli import main
from citedesk.config import COMMAND_LINE, DEFAULT, ConfigError, Origin

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- hunter2hunter2"


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's settings file, in a temporary folder (empty)."""
    path = tmp_path / "user" / "config.toml"
    path.parent.mkdir()
    path.write_text("", encoding="utf-8")
    monkeypatch.setenv(config.CONFIG_VARIABLE, str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with a chapter two folders down: `project/.git`, `project/text/part/chapter.md`."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "text" / "part").mkdir(parents=True)
    (root / "text" / "part" / "chapter.md").write_text("# Trees\n\nTrees grow.\n", encoding="utf-8")
    return root


def chapter(project: Path) -> Path:
    return project / "text" / "part" / "chapter.md"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- layers and where each value came from --------------------------------------------------------------
def test_each_layer_replaces_the_one_before_and_says_so(user_file: Path, project: Path) -> None:
    user_file.write_text('judge = "nli"\noffline = true\ntimeout = 200\ndense = false\n', encoding="utf-8")
    (project / "citedesk.toml").write_text('judge = "heuristic"\ntimeout = 100\n', encoding="utf-8")
    loaded = config.load(chapter(project), {"timeout": 50.0, "judge": None})
    settings = loaded.settings
    assert (settings.judge, settings.offline, settings.timeout, settings.dense) == (
        "heuristic",
        True,
        50.0,
        False,
    )
    assert settings.fail_on == "warning"
    assert loaded.origin("judge") == Origin("project", project / "citedesk.toml")
    assert loaded.origin("offline") == loaded.origin("dense") == Origin("user", user_file)
    assert loaded.origin("timeout") == COMMAND_LINE
    assert loaded.origin("fail_on") == DEFAULT
    # the engine's options come from these settings, and only from them
    options = loaded.audit_options(refresh=True)
    assert (options.judge, options.offline, options.dense, options.refresh) == (
        "heuristic",
        True,
        False,
        True,
    )
    assert (options.time_budget, options.fetch_timeout) == (50.0, 50.0)
    assert (
        config.load(None, {"timeout": 300.0}).audit_options().fetch_timeout == 60.0
    )  # one source: 60 at most


def test_a_flag_turns_off_what_a_file_turned_on(user_file: Path, project: Path) -> None:
    user_file.write_text("offline = true\nzotero = false\n", encoding="utf-8")
    loaded = config.load(chapter(project), {"offline": False})
    assert (loaded.settings.offline, loaded.origin("offline")) == (False, COMMAND_LINE)
    assert loaded.settings.zotero is False


def test_paths_in_a_file_are_relative_to_it(user_file: Path, project: Path) -> None:
    (project / "sources").mkdir()
    (project / "citedesk.toml").write_text(
        'sources = "sources"\nbibliography = ["refs.bib", "text/more.bib"]\nstore = ".citedesk/s.sqlite3"\n',
        encoding="utf-8",
    )
    settings = config.load(chapter(project)).settings
    assert settings.sources == project / "sources"
    assert settings.bibliography == (project / "refs.bib", project / "text" / "more.bib")
    assert settings.store == project / ".citedesk" / "s.sqlite3"


# --- finding the project file ---------------------------------------------------------------------------
def test_the_project_file_is_found_in_a_parent_folder_up_to_the_repository(project: Path) -> None:
    assert config.find_project_file(chapter(project)) is None
    (project / "citedesk.toml").write_text("", encoding="utf-8")
    assert config.find_project_file(chapter(project)) == project / "citedesk.toml"
    (project / "text" / "citedesk.toml").write_text("", encoding="utf-8")  # the nearest wins
    assert config.find_project_file(chapter(project)) == project / "text" / "citedesk.toml"
    assert config.find_project_file(project / "text" / "part") == project / "text" / "citedesk.toml"


def test_no_project_file_above_the_repository_or_in_the_home_folder(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "citedesk.toml").write_text('judge = "none"\n', encoding="utf-8")
    assert config.find_project_file(chapter(project)) is None  # above .git: another project's
    (project / ".git").rmdir()
    assert config.find_project_file(chapter(project)) == tmp_path / "citedesk.toml"
    monkeypatch.setenv("HOME", str(tmp_path))  # the home folder's settings are the user file's job
    assert config.find_project_file(chapter(project)) is None


def test_a_folder_anyone_may_write_to_ends_the_search(tmp_path: Path) -> None:
    shared, inner = tmp_path / "shared", tmp_path / "shared" / "mine"
    inner.mkdir(parents=True)
    (shared / "citedesk.toml").write_text('judge = "none"\n', encoding="utf-8")
    shared.chmod(0o777)
    assert config.find_project_file(inner / "doc.md") is None
    shared.chmod(0o755)
    assert config.find_project_file(inner / "doc.md") == shared / "citedesk.toml"


# --- files that are wrong ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("judge = \n", "not valid TOML: Invalid value (at line 1, column 9)"),
        (
            'jduge = "nli"\n',
            "unknown setting `jduge` (did you mean `judge`?); the settings are judge, offline",
        ),
        ('[audit]\njudge = "nli"\n', "unknown setting `audit`"),
        (
            'timeout = "fast"\n',
            "`timeout` must be a number of seconds above 0 and at most 3600, not a string",
        ),
        (
            "timeout = 7200\n",
            "`timeout` must be a number of seconds above 0 and at most 3600, not 7200 (a number)",
        ),
        ('offline = "yes"\n', "`offline` must be true or false, not a string"),
        ("allow_folders = [1]\n", "`allow_folders` must be a path or a list of paths (strings), not a list"),
        (
            'format = "pdf"\n',
            '`format` must be one of "html", "json", "markdown", "text", "jsonl", not a string',
        ),
        ('fail_on = "fabricatd"\n', "`fail_on` must be a severity (error, warning, info, none) or a list"),
        ('fix_kinds = ["fabricated", "typo"]\n', '`fix_kinds` must be "all" or finding kinds'),
    ],
)
def test_a_wrong_user_file_is_exit_2_naming_the_file_and_the_key(
    user_file: Path, project: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    user_file.write_text(text, encoding="utf-8")
    code, out, err = run(["audit", str(chapter(project)), "--offline"], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"citedesk: {user_file}: ")
    assert said in err
    assert "Traceback" not in err


def test_a_wrong_project_file_is_exit_2_too(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "citedesk.toml").write_text("dense = 1\n", encoding="utf-8")
    code, _, err = run(["config", "show", str(chapter(project))], capsys)
    assert code == 2
    assert f"{project / 'citedesk.toml'}: `dense` must be true or false, not 1 (a number)" in err


def test_a_missing_file_named_by_the_variable_or_a_missing_folder_is_exit_2(
    user_file: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user_file.unlink()
    code, _, err = run(["config", "show"], capsys)
    assert (code, f"citedesk: {user_file}: cannot be read") == (2, err.split(" (")[0])
    user_file.write_text('sources = "nowhere"\n', encoding="utf-8")
    code, _, err = run(["config", "show"], capsys)
    assert code == 2
    assert f"{user_file}: `sources`: {user_file.parent / 'nowhere'}: no such folder" in err
    with pytest.raises(ConfigError):
        config.load(None)
    user_file.write_text("", encoding="utf-8")
    code, _, err = run(["config", "show", "--sources", "nowhere"], capsys)  # said as it was given
    assert (code, err) == (2, "citedesk: --sources nowhere: no such folder\n")


# --- a project file is untrusted input ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('allow_folders = ["/"]', "cannot widen the folders CiteDesk may read"),
        ("allow_local_paths = true", "cannot widen the folders CiteDesk may read"),
        ("allow_private_network = true", "cannot widen the network CiteDesk may reach"),
        ('store = "/tmp/elsewhere.sqlite3"', "/tmp/elsewhere.sqlite3 is outside the project"),
        ('store = "text/part/chapter.md"', "only in the project's own .citedesk folder"),
        ('store = ".git/config"', "only in the project's own .citedesk folder"),
        ('sources = "../.."', "is outside the project"),
        ('bibliography = ["refs.bib", "~/.ssh/id_rsa"]', "id_rsa is outside the project"),
        ('assist = "claude"', "cannot turn on sending text to Claude"),
        ('judge = "claude"', "cannot turn on sending text to Claude"),
    ],
)
def test_a_project_file_cannot_reach_beyond_its_project(
    user_file: Path, project: Path, capsys: pytest.CaptureFixture[str], line: str, why: str
) -> None:
    (project / "citedesk.toml").write_text(f"{line}\ntimeout = 30\n", encoding="utf-8")
    loaded = config.load(chapter(project))
    name = line.split(" = ", maxsplit=1)[0]
    assert loaded.origin(name) == DEFAULT  # ignored …
    assert getattr(loaded.settings, name) == getattr(config.Settings(), name)
    assert loaded.settings.timeout == 30  # … and the rest of the file still applies
    (notice,) = loaded.notices
    assert notice.startswith(f"{project / 'citedesk.toml'}: `{name}` ignored: ")
    assert why in notice
    assert "untrusted input" in notice
    assert str(user_file) in notice  # where the writer may set it
    code, _, err = run(["config", "show", str(chapter(project))], capsys)
    assert code == 0
    assert f"citedesk: {notice}" in err


def test_the_user_file_may_set_what_a_project_file_may_not(user_file: Path, project: Path) -> None:
    user_file.write_text(
        'allow_folders = ["/"]\nallow_local_paths = true\nassist = "claude"\n', encoding="utf-8"
    )
    loaded = config.load(chapter(project))
    assert loaded.notices == ()
    assert (loaded.settings.allow_folders, loaded.settings.allow_local_paths) == ((Path("/"),), True)
    assert loaded.audit_options().local_roots == (Path("/"),)


@pytest.mark.parametrize(
    "line", ['anthropic_api_key = "sk-ant-hunter2"', 'assist_model = "sk-ant-hunter2"', 'token = "x"']
)
def test_a_key_in_a_settings_file_is_refused_and_never_repeated(
    project: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    (project / "citedesk.toml").write_text(line + "\n", encoding="utf-8")
    code, out, err = run(["audit", str(chapter(project)), "--offline"], capsys)
    assert code == 2
    assert out == ""
    assert f"{project / 'citedesk.toml'}: `{line.split(' = ', maxsplit=1)[0]}` looks like an API key" in err
    assert "citedesk assist set-key" in err
    assert "hunter2" not in err


def test_a_hostile_project_file_does_not_open_a_secret_to_the_audit(
    tmp_path: Path, user_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: a bibliography attachment outside the project stays unread whatever the project
    file allows; the same allowance in the writer's own file reads it."""
    thesis, other = tmp_path / "home" / "thesis", tmp_path / "home2"
    thesis.mkdir(parents=True)
    (other / ".ssh").mkdir(parents=True)
    (other / ".ssh" / "id_rsa").write_text(SECRET, encoding="utf-8")
    (thesis / "refs.bib").write_text(
        "@misc{tree, title={Street tree survival}, file={../../home2/.ssh/id_rsa}}\n", encoding="utf-8"
    )
    doc = thesis / "chapter.md"
    doc.write_text(
        "---\nbibliography: refs.bib\n---\n\nTrees in wide pits survive [@tree].\n", encoding="utf-8"
    )
    (thesis / "citedesk.toml").write_text(
        f'allow_folders = ["/", "{other}"]\nallow_local_paths = true\n', encoding="utf-8"
    )
    args = ["audit", str(doc), "--format", "json", "--store", str(tmp_path / "s.sqlite3")]
    args += ["--judge", "heuristic", "--no-dense", "--offline"]
    code, out, err = run(args, capsys)
    assert code in (0, 1)
    assert "hunter2" not in out + err
    assert {s["key"]: s for s in json.loads(out)["sources"]}["tree"]["status"] == "outside"
    assert "`allow_folders` ignored" in err
    assert "`allow_local_paths` ignored" in err
    user_file.write_text(f'allow_folders = ["{other}"]\n', encoding="utf-8")
    code, out, _ = run(args, capsys)
    assert {s["key"]: s for s in json.loads(out)["sources"]}["tree"]["status"] != "outside"


# --- the commands -----------------------------------------------------------------------------------------
def test_config_show_prints_each_setting_its_value_and_where_it_came_from(
    user_file: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user_file.write_text("offline = true\n", encoding="utf-8")
    (project / "citedesk.toml").write_text('judge = "heuristic"\nfail_on = "error"\n', encoding="utf-8")
    code, out, err = run(["config", "show", str(chapter(project)), "--timeout", "45"], capsys)
    assert (code, err) == (0, "")
    rows = {line.split()[0]: re.split(r"\s{2,}", line)[1:] for line in out.splitlines()}
    assert list(rows) == list(config.KEYS)
    assert rows["judge"] == ['"heuristic"', f"project file {project / 'citedesk.toml'}"]
    assert rows["fail_on"] == ['"error"', f"project file {project / 'citedesk.toml'}"]
    assert rows["offline"] == ["true", f"user file {user_file}"]
    assert rows["timeout"] == ["45", "command line"]
    assert rows["dense"] == ["true", "default"]
    assert rows["store"] == ["(not set)", "default"]


def test_config_path_names_both_files(
    user_file: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user_file.unlink()
    code, out, _ = run(["config", "path", str(chapter(project))], capsys)
    assert code == 0
    assert f"user file:    {user_file} (none there)" in out
    assert "project file: none for" in out
    (project / "citedesk.toml").write_text("", encoding="utf-8")
    user_file.write_text("", encoding="utf-8")
    code, out, _ = run(["config", "path", str(chapter(project))], capsys)
    assert out == f"user file:    {user_file}\nproject file: {project / 'citedesk.toml'}\n"


def test_the_project_file_decides_the_audit(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A setting in the project file changes what `citedesk audit` does: the fail threshold."""
    doc = chapter(project)
    doc.write_text(
        "# Trees\n\nTrees grow [1].\n\n## References\n\n1. Smith. Trees. 2020.\n2. Jones. Roots. 2021.\n",
        encoding="utf-8",
    )
    args = ["audit", str(doc), "--no-sources", "--format", "json"]
    code, out, _ = run(args, capsys)
    assert code == 1
    assert json.loads(out)["findings"]
    (project / "citedesk.toml").write_text('fail_on = "error"\nformat = "markdown"\n', encoding="utf-8")
    code, out, _ = run(["audit", str(doc), "--no-sources"], capsys)
    assert code == 0
    assert out.startswith("#")  # the project's format
    code, _, _ = run([*args, "--fail-on", "warning"], capsys)  # the command line has the last word
    assert code == 1


def test_fix_takes_its_kinds_from_a_settings_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = chapter(project)
    doc.write_text(
        "# Trees\n\nTrees grow [1].\n\n## References\n\n1. Smith. Trees. 2020.\n2. Jones. Roots. 2021.\n",
        encoding="utf-8",
    )
    # plain `fix` applies every kind's safe fixes, as `ruff --fix` does (issue 43 #1)
    code, out, _ = run(["fix", str(doc), "--dry-run", "--no-sources"], capsys)
    assert code == 0
    assert "Jones" not in out
    assert "Smith" in out
    (project / "citedesk.toml").write_text('fix_kinds = ["fabricated"]\n', encoding="utf-8")
    code, out, err = run(["fix", str(doc), "--dry-run", "--no-sources"], capsys)  # narrowed by the project
    assert out == ""  # no fabricated citation: nothing to change, the orphan stays
    assert "Jones" not in err
    code, out, _ = run(["fix", str(doc), "--dry-run", "--no-sources", "--kinds", "orphan_reference"], capsys)
    assert code == 0
    assert "Jones" not in out


def test_documents_of_different_projects_are_audited_apart(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "citedesk.toml").write_text("", encoding="utf-8")
    stray = tmp_path / "elsewhere" / "note.md"
    stray.parent.mkdir()
    stray.write_text("# Note\n\nHello.\n", encoding="utf-8")
    code, _, err = run(["audit", str(chapter(project)), str(stray), "--no-sources"], capsys)
    assert code == 2
    assert "different project settings files" in err


def test_the_manuals_example_is_a_valid_project_file(project: Path) -> None:
    manual = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
    section = manual.read_text(encoding="utf-8").split("### Settings files", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    (project / "citedesk.toml").write_text(example, encoding="utf-8")
    (project / "sources").mkdir()
    loaded = config.load(chapter(project))
    assert loaded.notices == ()
    assert {name for name, origin in loaded.origins.items() if origin.layer == "project"} == {
        "judge",
        "timeout",
        "sources",
        "bibliography",
        "fail_on",
        "fix_kinds",
        "format",
    }
