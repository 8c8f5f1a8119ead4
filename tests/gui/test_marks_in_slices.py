"""Marks on a long document (issue 26): repainted in slices, the part on screen first, so the
window never stops for the whole document; and what the text holds in the end is the marks."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from citedesk.core.findings import Finding, Kind, Severity
from citedesk.gui.editor.editor import Editor
from citedesk.gui.editor.highlighter import AT_ONCE, Marks

PARAGRAPHS = 3 * AT_ONCE
PARAGRAPH = "A claim that cites nothing at all [9]."


def _marked(block: int) -> Finding:
    start = block * (len(PARAGRAPH) + 2)  # each paragraph, then a blank line
    return Finding(
        Kind.FABRICATED, start + len(PARAGRAPH) - 4, start + len(PARAGRAPH) - 1, "no [9]", Severity.ERROR
    )


def _formatted(editor: Editor) -> list[int]:
    """The numbers of the blocks that carry a mark."""
    document, numbers = editor.document(), []
    block = document.firstBlock()
    while block.isValid():
        if block.layout().formats():
            numbers.append(block.blockNumber())
        block = block.next()
    return numbers


def test_a_long_documents_marks_are_painted_on_screen_first_then_all(qtbot: QtBot) -> None:
    editor = Editor()
    qtbot.addWidget(editor)
    editor.resize(600, 400)
    editor.show()
    editor.setPlainText("\n\n".join([PARAGRAPH] * PARAGRAPHS))
    findings = [_marked(n) for n in range(PARAGRAPHS)]
    highlighter = editor.highlighter
    highlighter.set_marks(Marks(findings=[(f.start, f.end, f) for f in findings]))
    assert highlighter.pending() > 0  # the rest is left for the next turns of the event loop
    painted = _formatted(editor)
    assert 0 in painted  # the top of the text, on screen, is marked at once
    assert len(painted) < PARAGRAPHS

    qtbot.waitUntil(lambda: highlighter.pending() == 0, timeout=10_000)
    assert _formatted(editor) == [2 * n for n in range(PARAGRAPHS)]  # every paragraph, no blank line

    # fewer marks: the blocks that lost theirs are repainted too
    highlighter.set_marks(Marks(findings=[(f.start, f.end, f) for f in findings[:3]]))
    qtbot.waitUntil(lambda: highlighter.pending() == 0, timeout=10_000)
    assert _formatted(editor) == [0, 2, 4]


def test_marks_set_after_an_edit_leave_no_mark_where_the_text_moved(qtbot: QtBot) -> None:
    editor = Editor()
    qtbot.addWidget(editor)
    editor.setPlainText("\n\n".join([PARAGRAPH] * 5))
    first = _marked(0)
    editor.highlighter.set_marks(Marks(findings=[(first.start, first.end, first)]))
    assert _formatted(editor) == [0]
    cursor = editor.textCursor()
    cursor.setPosition(0)
    cursor.insertText("A new opening paragraph.\n\n")  # the marked paragraph moves down two blocks
    editor.highlighter.set_marks(Marks())  # the next audit finds nothing
    editor.highlighter.finish()
    assert _formatted(editor) == []
