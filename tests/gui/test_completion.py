"""`@` completion finds a work the way a writer remembers it: by its key, an author, the year or a
word of its title, ranked in that order, each shown as `key — Author (Year) Title` (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot

from citedesk.core.bibliographies.search import Candidate, ranked
from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow

pytestmark = pytest.mark.gui

BIBLIOGRAPHY = r"""@article{moreau2021,
  title = {Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities},
  author = {Moreau, L{\'e}a and Okafor, Tunde},
  year = {2021},
}

@article{li2019,
  title = {Urban Canopy Cover from Street Imagery},
  author = {Li, Wei and Moreau, L{\'e}a},
  year = {2019},
}

@report{canopy2018,
  title = {Canopy Targets for Towns},
  author = {{Regional Climate Office}},
  year = {2018},
}

@book{oke2021,
  title = {Urban Climates},
  author = {Oke, Tim and Mills, Gerald and Christen, Andreas},
  year = {2021},
}
"""

DOCUMENT = """---
title: Shade
bibliography: refs.bib
---

Street trees cool the streets below them [@moreau2021].
"""


def keys(found: list[Candidate]) -> list[str]:
    return [candidate.key for candidate in found]


CANDIDATES = [
    Candidate("moreau2021", "Tree Canopy and Afternoon Heat", ("Moreau, Léa", "Okafor, Tunde"), "2021"),
    Candidate("li2019", "Urban Canopy Cover from Street Imagery", ("Li, Wei", "Moreau, Léa"), "2019"),
    Candidate("canopy2018", "Canopy Targets for Towns", ("Regional Climate Office",), "2018"),
    Candidate("oke2021", "Urban Climates", ("Oke, Tim", "Mills, Gerald", "Christen, Andreas"), "2021"),
    Candidate("heat-2021-notes", "Notes"),
]


def test_ranking_puts_the_key_first_then_author_and_year_then_title_words() -> None:
    assert keys(ranked(CANDIDATES, "moreau")) == ["moreau2021", "li2019"]
    assert keys(ranked(CANDIDATES, "canopy")) == ["canopy2018", "li2019", "moreau2021"]
    # a year finds the works of that year, then keys that merely contain it
    assert keys(ranked(CANDIDATES, "2021")) == ["moreau2021", "oke2021", "heat-2021-notes"]
    # case and accents do not count; a brace opened for an odd key does not either
    assert keys(ranked(CANDIDATES, "LÉA")) == ["li2019", "moreau2021"]
    assert keys(ranked(CANDIDATES, "{Oke")) == ["oke2021"]
    assert ranked(CANDIDATES, "zzz") == []
    # nothing typed yet: every entry, by key, at most `limit`
    assert keys(ranked(CANDIDATES, "", limit=3)) == ["canopy2018", "heat-2021-notes", "li2019"]


def test_an_entry_is_shown_as_writers_cite_it() -> None:
    shown = [candidate.shown for candidate in CANDIDATES]
    assert shown == [
        "moreau2021 — Moreau & Okafor (2021) Tree Canopy and Afternoon Heat",
        "li2019 — Li & Moreau (2019) Urban Canopy Cover from Street Imagery",
        "canopy2018 — Regional Climate Office (2018) Canopy Targets for Towns",
        "oke2021 — Oke et al. (2021) Urban Climates",
        "heat-2021-notes — Notes",
    ]
    assert Candidate("bare").shown == "bare"
    assert Candidate.of(("cool2020", "Cool streets")) == Candidate("cool2020", "Cool streets")


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(AuditOptions(offline=True, judge="heuristic", dense=False), settings)
    win.document.confirm_discard = lambda: True
    qtbot.addWidget(win)
    win.show()
    return win


def _type(qtbot: QtBot, window: MainWindow, before: str, typed: str) -> list[str]:
    """Type `typed` after `before` at the end of the text; the rows the popup then shows."""
    cursor = window.editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    window.editor.setTextCursor(cursor)
    window.editor.insertPlainText(before)
    qtbot.keyClicks(window.editor, typed)
    popup = window.completion.completer.popup()
    assert popup is not None
    assert popup.isVisible()
    model = window.completion.completer.completionModel()
    return [model.index(row, 0).data() for row in range(model.rowCount())]


# the offscreen platform cannot raise a popup or give it the keyboard; a desktop does both
@pytest.mark.qt_log_ignore("This plugin does not support raise", "This plugin does not support grabbing")
def test_typing_an_author_a_title_word_or_a_year_offers_the_works_it_finds(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    (tmp_path / "refs.bib").write_text(BIBLIOGRAPHY, encoding="utf-8")
    (tmp_path / "shade.md").write_text(DOCUMENT, encoding="utf-8")
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
        window.load_file(tmp_path / "shade.md")
    popup = window.completion.completer.popup()
    assert popup is not None

    assert _type(qtbot, window, "\n\nShade helps [see ", "@moreau") == [
        "moreau2021 — Moreau & Okafor (2021) Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities",
        "li2019 — Li & Moreau (2019) Urban Canopy Cover from Street Imagery",
    ]
    with qtbot.waitSignal(window.completion.completed, timeout=5_000) as chosen:
        qtbot.keyClick(popup, Qt.Key.Key_Return)  # the key's own match comes first
    assert chosen.args == ["moreau2021"]

    assert _type(qtbot, window, "]. Cover is measured [", "@canopy") == [
        "canopy2018 — Regional Climate Office (2018) Canopy Targets for Towns",
        "li2019 — Li & Moreau (2019) Urban Canopy Cover from Street Imagery",
        "moreau2021 — Moreau & Okafor (2021) Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities",
    ]
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    with qtbot.waitSignal(window.completion.completed, timeout=5_000) as chosen:
        qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert chosen.args == ["li2019"]  # a title word found it; its key replaces the word typed

    assert _type(qtbot, window, "]. Recent work [", "@2021") == [
        "moreau2021 — Moreau & Okafor (2021) Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities",
        "oke2021 — Oke et al. (2021) Urban Climates",
    ]
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    text = window.editor.toPlainText()
    assert text.endswith("[see @moreau2021]. Cover is measured [@li2019]. Recent work [@2021")
