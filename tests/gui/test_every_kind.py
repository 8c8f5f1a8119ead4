"""Every kind of finding can be shown: a mark, a colour in the list, a card, a legend line.

A new kind once reached the window with no style, and the first document that produced it
crashed the highlighter (found by opening a writer's own pandoc chapter under Xvfb): the style
table is checked against the enum here, and a chapter that produces the new kinds is opened in
the real window.
"""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.gui.editor.highlighter import STYLES
from citedesk.gui.editor.legend import legend_rows
from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited, point_of

CHAPTER = """---
title: Chapter 3
bibliography: refs.bib
---

# Cities in summer [@smith2020]

In this chapter I argue that cities must plan for heat.

Streets with mature trees were two degrees cooler than open streets on summer afternoons [@smiht2020].

Ridership on the bus network rose by 12% in 2023 [@transit2023].
"""
BIB = """@report{transit2023, title={Annual transit report 2023}, author={Authority, Transit}, year={2023}, file={transit.txt}}
@article{smith2020, title={Urban heat and street trees}, author={Smith, Jane}, year={2020}, file={heat.txt}}
"""
TRANSIT = """Annual transit report 2023

Ridership on the city's bus network fell by 12% in 2023 compared with the year before, the transit authority reported.
"""
HEAT = """Urban heat and street trees

Across forty cities, streets with mature trees were two degrees cooler than open streets on summer afternoons.
"""


def test_every_kind_has_a_style_and_a_line_in_the_legend() -> None:
    assert set(STYLES) == set(Kind)
    said = " ".join(meaning for _, _, meaning in legend_rows())
    assert [kind for kind in Kind if kind.label not in said] == []


def test_a_chapter_with_a_typo_key_and_a_direction_flip_is_shown(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    for name, text in (("refs.bib", BIB), ("transit.txt", TRANSIT), ("heat.txt", HEAT)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    document = tmp_path / "chapter.md"
    document.write_text(CHAPTER, encoding="utf-8")
    audited(qtbot, window, lambda: window.load_file(document))
    by_kind = {f.kind: f for f in window.findings.model.findings()}
    assert {Kind.UNKNOWN_KEY, Kind.DIRECTION_MISMATCH} <= set(by_kind)
    assert "unknown key" in window.status.coverage.text()
    assert "wrong direction" in window.status.coverage.text()
    typo = by_kind[Kind.UNKNOWN_KEY]
    window.findings.select(typo)
    assert window.findings.fix_button.text() == "Apply: Cite @smith2020"  # safe: one candidate
    point_of(window, typo.start, typo.end)  # its mark is on the screen, painted with its style


def test_a_1024_px_window_shows_the_counts_that_matter(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    for name, text in (("refs.bib", BIB), ("transit.txt", TRANSIT), ("heat.txt", HEAT)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    document = tmp_path / "chapter.md"
    document.write_text(CHAPTER, encoding="utf-8")
    window.resize(1024, 700)
    audited(qtbot, window, lambda: window.load_file(document))
    qtbot.wait(50)  # the status bar laid out at its width
    shown = window.status.coverage.shown_text()
    for count in ("3 citations", "1 checked", "1 wrong direction", "1 unknown key", "2 not checked"):
        assert count in shown, shown  # any cut comes after the counts (a reason's words)
