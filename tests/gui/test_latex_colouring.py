"""LaTeX colouring in the editor: commands, comments (not `\\%`) and math in their muted colours,
the finding marks painted over them keeping both, and Markdown left uncoloured."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette, QTextCharFormat
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Finding, Kind, Severity
from citedesk.gui.editor.editor import Editor
from citedesk.gui.editor.highlighter import STYLES, Marks
from citedesk.gui.editor.latex_syntax import COMMAND, COMMENT, DARK, LIGHT, MATH, TEXT, scan_line

pytestmark = pytest.mark.gui

TEXT_OF_LINE = r"\section{Heat} Streets are 3\% hotter \cite{moreau2021}. % TODO \cite{old}"


def _kinds(line: str, state: int = TEXT) -> tuple[list[tuple[str, str]], int]:
    spans, end = scan_line(line, state)
    return [(line[s : s + n], kind) for s, n, kind in spans], end


def test_commands_comments_and_math_are_found_and_an_escaped_percent_is_text() -> None:
    assert _kinds(TEXT_OF_LINE) == (
        [("\\section", COMMAND), ("\\cite", COMMAND), ("% TODO \\cite{old}", COMMENT)],
        TEXT,
    )
    assert _kinds(r"costs \$5 and $x^2$ here")[0] == [("$", MATH), ("x^2$", MATH)]
    assert _kinds(r"\verb|% \cite{no}| then \emph{yes}")[0] == [("\\verb|", COMMAND), ("\\emph", COMMAND)]


def test_math_and_verbatim_carry_over_lines_and_a_blank_line_ends_inline_math() -> None:
    spans, state = _kinds(r"Energy \begin{equation}")
    assert spans == [("\\begin{equation}", COMMAND)]
    assert _kinds("E = mc^2 % why", state) == ([("E = mc^2 ", MATH), ("% why", COMMENT)], state)
    assert _kinds(r"\end{equation} after", state) == ([("\\end{equation}", COMMAND)], TEXT)
    _spans, state = _kinds(r"\begin{verbatim}")
    assert _kinds(r"% \cite{x} not read", state) == ([], state)
    assert _kinds(r"\end{verbatim}", state)[1] == TEXT
    _spans, state = _kinds("an open $x")
    assert _kinds("", state) == ([], TEXT)


def test_offsets_are_qt_units_past_an_emoji() -> None:
    spans, _state = scan_line("🙂 \\cite{a}", TEXT)
    assert spans == [(3, 5, COMMAND)]  # the emoji is two UTF-16 units


def _format_at(editor: Editor, block: int, column: int) -> QTextCharFormat:
    spans = editor.document().findBlockByNumber(block).layout().formats()
    for span in spans:
        if span.start <= column < span.start + span.length:
            return QTextCharFormat(span.format)  # a copy: the list's own goes with it
    return QTextCharFormat()


def test_a_latex_document_is_coloured_and_a_mark_over_it_keeps_both(qtbot: QtBot) -> None:
    editor = Editor()
    qtbot.addWidget(editor)
    editor.highlighter.set_latex(True, repaint=False)
    editor.setPlainText(TEXT_OF_LINE + "\nMore text.")
    comment = TEXT_OF_LINE.index("% TODO")
    cite = TEXT_OF_LINE.index("\\cite")
    colours = DARK if editor.highlighter._dark else LIGHT
    assert _format_at(editor, 0, comment + 3).foreground().color().name() == colours.comment
    assert _format_at(editor, 0, comment + 3).fontItalic()
    assert _format_at(editor, 0, 1).foreground().color().name() == colours.command
    escaped = TEXT_OF_LINE.index("\\%")
    assert _format_at(editor, 0, escaped + 1).foreground().style().name == "NoBrush"  # \% is text

    # a finding over `\cite{moreau2021}`: its underline and tint, and the command still coloured
    end = TEXT_OF_LINE.index("}", cite) + 1
    finding = Finding(Kind.FABRICATED, cite, end, "no such key", Severity.ERROR)
    editor.highlighter.set_marks(Marks(findings=[(cite, end, finding)]))
    editor.highlighter.finish()
    on_command = _format_at(editor, 0, cite + 1)
    assert on_command.underlineStyle() == STYLES[Kind.FABRICATED].underline
    assert on_command.foreground().color().name() == colours.command
    on_key = _format_at(editor, 0, cite + 7)
    assert on_key.underlineStyle() == STYLES[Kind.FABRICATED].underline
    assert on_key.background().color().alpha() > 0  # an error: tinted
    assert _format_at(editor, 0, comment + 3).fontItalic()  # the comment beyond the mark: as it was

    editor.highlighter.set_latex(False)  # Markdown: no colour at all, only marks
    assert _format_at(editor, 0, comment + 3).foreground().style().name == "NoBrush"
    assert _format_at(editor, 0, cite + 7).underlineStyle() == STYLES[Kind.FABRICATED].underline


def test_the_colours_follow_a_dark_theme_chosen_while_open(qtbot: QtBot) -> None:
    editor = Editor()
    qtbot.addWidget(editor)
    editor.highlighter.set_latex(True, repaint=False)
    editor.setPlainText(TEXT_OF_LINE)
    light = editor.palette()
    assert light.color(QPalette.ColorRole.Base).lightness() >= 128  # the default: light
    assert _format_at(editor, 0, 1).foreground().color().name() == LIGHT.command
    dark = QPalette(light)
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e6e6e6"))
    editor.setPalette(dark)  # what apply_theme("dark") does through the application
    assert editor.highlighter._dark
    assert _format_at(editor, 0, 1).foreground().color().name() == DARK.command
