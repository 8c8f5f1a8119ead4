"""The client's settings as the server layers them: `didChangeConfiguration` over the
`initializationOptions`, over the project's `citedesk.toml` (as the CLI reads it)."""

from __future__ import annotations

from pathlib import Path

from citedesk.lsp.settings import ClientSettings


def test_a_later_change_keeps_what_the_start_gave_and_wins_where_it_gives_again(tmp_path: Path) -> None:
    start = ClientSettings.parse({"offline": True, "judge": "heuristic"})
    change = ClientSettings.parse({"citedesk": {"judge": "none", "strongJudge": 3}})
    layered = change.over(start)
    assert dict(layered.given) == {"offline": True, "judge": "none"}
    assert layered.problems == ("setting `strongJudge`: expected a string; left out",)


def test_the_client_lies_over_the_project_file(tmp_path: Path) -> None:
    (tmp_path / "citedesk.toml").write_text('judge = "none"\noffline = true\n', encoding="utf-8")
    document = tmp_path / "draft.md"
    settings = ClientSettings.parse({"judge": "heuristic"}).configuration(document).settings
    assert (settings.judge, settings.offline) == ("heuristic", True)


def test_null_and_empty_values_are_settings_not_given(tmp_path: Path) -> None:
    """What VS Code sends for a section whose settings are left unset: the files decide."""
    (tmp_path / "citedesk.toml").write_text('judge = "none"\noffline = true\n', encoding="utf-8")
    given = ClientSettings.parse(
        {"citedesk": {"offline": None, "judge": "", "sources": "", "path": "citedesk"}}
    )
    assert not given.given
    assert not given.problems
    settings = given.configuration(tmp_path / "draft.md").settings
    assert (settings.judge, settings.offline) == ("none", True)
