"""Acting where the problem is: the hover card, the context menu and the keyboard on a highlight;
what the marks cover; the legend; the evidence pane's fix buttons.

Tests drive the real window (offscreen) and wait on its public signals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QTextCharFormat
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Finding, Kind
from citedesk.core.review import Decision
from citedesk.gui.editor.hover_card import ATTACH, DISMISS, NEEDS_SOURCE, SHOW_EVIDENCE
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES
from tests.gui.helpers import audited, audited_copy, hover, point_of, settled

pytestmark = pytest.mark.gui

OFFLINE_SENTENCE = "Paris doubled the canopy of its school yards between 2018 and 2023 [4]."
OFFLINE_REFERENCE = (
    "4. City of Paris (2023). *Oasis schoolyards*. https://www.paris.fr/pages/les-cours-oasis-7389\n"
)
REVIEW_LABELS = [DISMISS, NEEDS_SOURCE, SHOW_EVIDENCE]


def evidence_document(folder: Path, *, offline_citation: bool = False) -> Path:
    """The evidence sample (a citation of [3] that only [2] supports), optionally with a sentence
    citing a web page, which an offline audit cannot check."""
    shutil.copytree(SAMPLES / "sources", folder / "sources")
    text = (SAMPLES / "evidence.md").read_text(encoding="utf-8")
    if offline_citation:
        text = (
            text.replace("\n\n## References", f" {OFFLINE_SENTENCE}\n\n## References", 1) + OFFLINE_REFERENCE
        )
    document = folder / "evidence.md"
    document.write_text(text, encoding="utf-8")
    return document


def misattributed(window: MainWindow) -> Finding:
    assert window.report is not None
    return next(f for f in window.report.findings if f.kind is Kind.MISATTRIBUTED and f.reference == "3")


def test_the_hover_card_names_each_fix_and_applies_the_one_clicked(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    hover(window, point_of(window, wrong.start, wrong.end))
    card = window.editor.card
    assert card.isVisible()
    assert card.labels() == ["Cite [2] instead of [3] (verify first)", *REVIEW_LABELS]
    assert card.current() is wrong
    assert wrong.message in card.text()
    assert wrong.verdict is not None
    assert wrong.verdict.strength() in card.text()  # "support 0.23": the score read the right way
    assert wrong.evidence is not None
    assert wrong.evidence.passage.split()[1] in card.text()  # a piece of the evidence
    button = card.button("Cite [2] instead of [3] (verify first)")
    assert button is not None
    assert "Read the evidence before applying it" in button.toolTip()  # a suggestion to verify
    audited(qtbot, window, lambda: qtbot.mouseClick(button, Qt.MouseButton.LeftButton))
    assert "less than 10% canopy [2]." in window.editor.toPlainText()
    assert not card.isVisible()
    assert not [f for f in window.report.findings if f.kind is Kind.MISATTRIBUTED and f.reference == "3"]  # type: ignore[union-attr]


def test_the_card_stays_inside_the_text_area_at_its_right_edge(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    window.resize(700, 600)
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    editor = window.editor
    shown = editor.show_card_at(
        Utf16Map(editor.toPlainText()).to_qt(wrong.start), x=editor.viewport().width() - 5
    )
    assert shown
    assert editor.card.isVisible()
    assert editor.viewport().geometry().contains(editor.card.geometry())  # not under the scroll bar or frame


def test_hovering_the_words_a_finding_is_about_shows_its_card_too(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    assert window.report is not None
    sentence = window.report.document.claim_by_id[wrong.claim_id or ""].sentence
    words = window.report.document.text.index("tree canopy", sentence.start)
    hover(window, point_of(window, words, words + len("tree canopy")))
    assert window.editor.card.isVisible()
    assert window.editor.card.current() is wrong
    # away from every mark the card goes (after a short delay that lets the mouse reach it)
    hover(window, point_of(window, 2, 4))  # the title's words: nothing marked there
    with qtbot.waitSignal(window.editor.card.hide_timer.timeout, timeout=5000):
        pass
    assert not window.editor.card.isVisible()


def test_dismissing_from_the_card_hides_the_finding_and_keeps_the_place(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited_copy(qtbot, window, tmp_path / "problems.md")
    assert window.report is not None
    total = len(window.report.findings)
    fabricated = next(f for f in window.report.findings if f.kind is Kind.FABRICATED)
    hover(window, point_of(window, fabricated.start, fabricated.end))
    where = window.editor.textCursor().position()
    scrolled = window.editor.verticalScrollBar().value()
    button = window.editor.card.button(DISMISS)
    assert button is not None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # no audit: the decision applies once kept
    settled(qtbot, window)
    assert fabricated not in window.report.findings
    assert all(
        f.kind is not Kind.FABRICATED or f.start != fabricated.start for f in window.findings.model.findings()
    )
    assert window.review_label.text() == f"1 of {total} reviewed"
    assert [r.decision for r in window.report.reviews.values()] == [Decision.FALSE_ALARM]
    assert window.editor.textCursor().position() == where  # the writer stays where they were
    assert window.editor.verticalScrollBar().value() == scrolled
    assert not window.editor.card.isVisible()


@pytest.mark.qt_log_ignore("does not support grabbing the keyboard", "does not support raise")
def test_right_click_on_a_highlight_puts_the_same_actions_first(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    point = point_of(window, wrong.start, wrong.end)
    expected = ["Cite [2] instead of [3]", *REVIEW_LABELS]

    # the real right-click: the menu that pops up
    seen: list[str] = []

    def read_and_close() -> None:
        popup = QApplication.activePopupWidget()
        assert isinstance(popup, QMenu)
        seen.extend(a.text() for a in popup.actions())
        popup.close()

    QTimer.singleShot(0, read_and_close)
    viewport = window.editor.viewport()
    QApplication.sendEvent(
        viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, viewport.mapToGlobal(point))
    )
    assert seen[: len(expected)] == expected
    assert seen[len(expected)] == ""  # a separator, then the editor's own actions
    assert any("Copy" in text for text in seen[len(expected) :])

    # the same menu, used: "Needs a source" records the decision
    position = window.editor.cursorForPosition(point).position()
    menu = window.editor.context_menu_at(position)
    action = next(a for a in menu.actions() if a.text() == NEEDS_SOURCE)
    action.trigger()
    settled(qtbot, window)
    assert window.report is not None
    review = window.report.review_of(wrong)
    assert review is not None
    assert review.decision is Decision.NEEDS_SOURCE
    # the menu key opens the same menu at the cursor
    seen.clear()
    cursor = window.editor.textCursor()
    cursor.setPosition(position)
    window.editor.setTextCursor(cursor)
    QTimer.singleShot(0, read_and_close)
    at = window.editor.cursorRect().center()
    QApplication.sendEvent(
        window.editor,
        QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, at, window.editor.viewport().mapToGlobal(at)),
    )
    assert seen[: len(expected)] == expected
    # away from any mark, the menu is the editor's alone
    plain = window.editor.context_menu_at(0)
    assert not {a.text() for a in plain.actions()} & {*expected, ATTACH}


def test_the_keyboard_opens_the_card_at_the_cursor_and_uses_it(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited_copy(qtbot, window, tmp_path / "problems.md")
    assert window.report is not None
    fabricated = next(f for f in window.report.findings if f.kind is Kind.FABRICATED and f.fixes)
    cursor = window.editor.textCursor()
    cursor.setPosition(Utf16Map(window.report.document.text).to_qt(fabricated.start))
    window.editor.setTextCursor(cursor)
    window.activateWindow()
    window.editor.setFocus()
    card = window.editor.card
    qtbot.keyClick(window.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.AltModifier)
    assert card.isVisible()
    assert card.has_keyboard()
    assert card.labels()[0] == fabricated.fixes[0].title
    # "[2, 7]": [7] cannot be checked (no such reference: nothing to attach), [2] was not (offline)
    assert "[7] was not checked: no such reference." in card.text()
    assert "[2] was not checked: offline." in card.text()
    assert card.labels()[-1] == "Attach a file for [2]…"
    assert ATTACH not in card.labels()
    # Escape closes the card, not the audit, and gives the keyboard back to the editor
    with qtbot.assertNotEmitted(window.audits.audit_cancelled):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert not card.isVisible()
    assert window.editor.hasFocus()
    # again, and Enter applies the fix that has the keyboard (the first)
    original = window.editor.toPlainText()
    qtbot.keyClick(window.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.AltModifier)
    audited(qtbot, window, lambda: qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return))
    assert window.editor.toPlainText() != original
    assert "[7]" not in window.editor.toPlainText().split("## References")[0]


def test_the_words_of_a_claim_and_unchecked_citations_have_their_own_marks(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    document = evidence_document(tmp_path, offline_citation=True)
    audited(qtbot, window, lambda: window.load_file(document))
    report = window.report
    assert report is not None
    wrong = misattributed(window)
    sentence = report.document.claim_by_id[wrong.claim_id or ""].sentence
    editor = window.editor
    assert (
        sentence.start,
        sentence.end,
        wrong,
    ) in editor.highlighter.claim_spans()  # plain text: Qt = Python

    def format_at(position: int) -> QTextCharFormat:
        block = editor.document().findBlock(position)
        offset = position - block.position()
        ranges = block.layout().formats()
        found = next(r for r in ranges if r.start <= offset < r.start + r.length)
        return QTextCharFormat(found.format)  # a copy: the ranges are temporaries

    words = format_at(sentence.start + 3)
    marker = format_at(wrong.start + 1)
    assert words.underlineStyle() == QTextCharFormat.UnderlineStyle.SingleUnderline
    assert words.underlineColor().alpha() < 255  # light
    assert marker.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline  # the kind's style
    assert words.underlineColor().rgb() == marker.underlineColor().rgb()  # the kind's colour

    # the citation of a web page, offline: not checked, marked in its own subdued style
    assert report.coverage is not None
    [unchecked] = report.coverage.unchecked
    assert (unchecked.key, unchecked.reason.value) == ("4", "offline")
    grey = format_at(unchecked.start + 1)
    assert grey.underlineStyle() == QTextCharFormat.UnderlineStyle.DashDotDotLine
    assert grey.underlineColor().rgb() != marker.underlineColor().rgb()
    hover(window, point_of(window, unchecked.start, unchecked.end))
    card = editor.card
    assert card.labels() == [ATTACH]
    assert "[4] was not checked: offline." in card.text()

    # "Attach a file…" asks for the file, attaches it, and the citation is checked
    copy = tmp_path / "oasis.txt"
    copy.write_text(
        "Paris turned its school yards into shaded oases, doubling their canopy.\n", encoding="utf-8"
    )
    asked: list[str] = []
    window.sources.choose_file = lambda key: asked.append(key) or str(copy)  # type: ignore[func-returns-value]
    button = card.button(ATTACH)
    assert button is not None
    audited(qtbot, window, lambda: qtbot.mouseClick(button, Qt.MouseButton.LeftButton))
    assert asked == ["4"]
    assert window.document.session.attachments() == {"4": str(copy.resolve())}
    assert window.report is not None
    assert window.report.coverage is not None
    assert window.report.coverage.unchecked == ()
    assert not editor.highlighter.unchecked_spans()


def test_the_status_bar_counts_citations_and_names_the_judge_without_overlap(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path, offline_citation=True)))
    report = window.report
    assert report is not None
    assert report.coverage is not None
    coverage = report.coverage
    assert coverage.checked + len(coverage.unchecked) == coverage.citations
    line = window.status.coverage.text()
    assert line.startswith(f"{coverage.citations} citations · {coverage.checked} checked · ")
    assert "1 misattributed" in line
    assert line.endswith(" · 1 not checked (offline)")
    assert window.judge_label.text() == "judge: heuristic:words"
    assert report.judge_note.startswith("word-level judge, limited accuracy")
    assert window.status.judge_note.text() == "word-level judge, limited accuracy"
    assert report.judge_note in window.status.judge_note.toolTip()

    # a long message, a narrow window: everything is elided in its own place, nothing overlaps
    window.resize(700, 500)
    long = "Fetching the sources of every reference again, one by one, " * 4
    window.show_message(long)
    qtbot.waitUntil(lambda: window.stage.shown_text().endswith("…"), timeout=5000)
    assert window.stage.text() == long
    assert window.stage.toolTip() == long
    shown = [
        w
        for w in (
            window.stage,
            window.status.coverage,
            window.review_label,
            window.judge_label,
            window.status.judge_note,
            window.status.legend_button,
        )
        if w.isVisible()
    ]
    rects = [w.geometry() for w in shown]
    for i, first in enumerate(rects):
        for second in rects[i + 1 :]:
            assert not first.intersects(second)
    assert all(r.right() <= window.statusBar().width() for r in rects)


@pytest.mark.qt_log_ignore("does not support raise")  # the offscreen platform's notice
def test_the_legend_opens_from_the_status_bar(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.mouseClick(window.status.legend_button, Qt.MouseButton.LeftButton)
    legend = window.legend
    assert legend is not None
    assert legend.isVisible()
    meanings = legend.meanings()
    assert "Misattributed citation — orange wavy, tinted: an error" in meanings
    assert "A citation that was not checked — grey dash-dot-dot on a grey tint" in meanings
    assert any(m.startswith("The sentence a finding is about") for m in meanings)
    text = legend.view.toPlainText()
    assert all(m in text for m in meanings)
    legend.close()


def test_the_evidence_pane_offers_the_fixes_as_buttons(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    window.findings.select(wrong)
    buttons = window.evidence.fix_buttons()
    assert [f.title for f in wrong.fixes] == ["Cite [2] instead of [3]"]
    assert [b.text() for b in buttons] == ["Cite [2] instead of [3] (verify first)"]  # word-level: unsafe
    assert window.findings.fix_button.text() == "Apply: Cite [2] instead of [3] (verify first)"
    audited(qtbot, window, lambda: qtbot.mouseClick(buttons[0], Qt.MouseButton.LeftButton))
    assert "less than 10% canopy [2]." in window.editor.toPlainText()


def test_the_list_is_in_document_order_says_what_is_wrong_and_follows_the_cursor(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited_copy(qtbot, window, tmp_path / "problems.md")
    model = window.findings.model
    rows = [model.finding_at(model.index(r, 0)) for r in range(model.rowCount())]
    assert rows == model.findings()
    assert [f.start for f in rows if f] == sorted(f.start for f in rows if f)  # document order
    fabricated = next(f for f in rows if f and f.kind is Kind.FABRICATED)
    assert model.index_of(fabricated).data() == f"Fabricated citation [{fabricated.reference}]"

    editor = window.editor
    text = editor.toPlainText()
    for finding in (fabricated, next(f for f in rows if f and f.kind is Kind.UNCITED)):
        cursor = editor.textCursor()
        cursor.setPosition((finding.start + finding.end) // 2)  # plain ASCII: Qt = Python offsets
        editor.setTextCursor(cursor)
        assert window.selected_finding() is finding
        assert finding.kind.label in window.evidence.toPlainText()
        assert editor.textCursor().position() == (finding.start + finding.end) // 2  # the editor stays put
        assert not editor.textCursor().hasSelection()
    assert editor.toPlainText() == text

    # grouped by kind (View ▸ Group findings by kind), the selection stays
    selected = window.selected_finding()
    window.group_action.trigger()
    assert model.grouped
    assert window.selected_finding() is selected
    assert model.rowCount() == len({f.kind for f in model.findings()})
    window.group_action.trigger()
    assert not model.grouped
    assert window.selected_finding() is selected
