"""The status bar: what the audit found, what it could check, and with which judge — at a glance.

"12 citations · 7 checked · 2 misattributed · 3 not checked (offline)", then the judge and what it
is worth ("word-level judge, limited accuracy…"), the review progress, and a Legend button. Every
text sits in its own `ElidedLabel` in one layout, so nothing is ever drawn over anything else
(QStatusBar's temporary messages were painted under the permanent widgets): a text too long for
its place ends in "…" and shows in full as a tooltip. Messages replace the stage text for a while,
then the audit's summary comes back.

With a cascade (issue 27) a label beside the summary says what the strong judge is doing in the
background: "checking with MiniCheck… 3/12" while it re-reads the report shown, then what it did
("strong judge MiniCheck re-read 12 of 12 within 30 s", the cascade's clause of the judge note).
"""

from __future__ import annotations

from citedesk.core.findings import Kind
from citedesk.core.reports.report import Report
from citedesk.desk.state import Checking
from citedesk.gui.qt import (
    QHBoxLayout,
    QLabel,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QProgressBar,
    QPushButton,
    QResizeEvent,
    QSize,
    QSizePolicy,
    QStatusBar,
    Qt,
    QTimer,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)

MESSAGE_MS = 8000
COUNTED_KINDS = (
    (Kind.FABRICATED, "fabricated"),
    (Kind.MISATTRIBUTED, "misattributed"),
    (Kind.NUMBER_MISMATCH, "wrong number"),
    (Kind.DIRECTION_MISMATCH, "wrong direction"),
    (Kind.UNKNOWN_KEY, "unknown key"),
)
"""Citation problems counted in the summary line, with the word used there."""
CHECKING_DETAIL = (
    "The strong judge re-reads, in the background, what the fast judge flagged or was unsure "
    "about; its verdicts replace these in place. Until it is done, Fix all leaves the judge's "
    "fixes (the strong judge is still checking them); keep writing: an edit checks again."
)


def cascade_clause(note: str) -> str:
    """The cascade's part of a report's judge note ("strong judge X re-read 3 of 4 within 30 s"),
    or "" when no strong judge was asked."""
    return next((part for part in note.split("; ") if part.startswith("strong judge")), "")


class ElidedLabel(QLabel):
    """A one-line label that never asks for more room than it has: it ends in "…" when cut, and its
    tooltip then says it all. `text()` is the full text."""

    clicked = Signal()

    def __init__(self, text: str = "", parent: QWidget | None = None, *, keep: int = 3) -> None:
        super().__init__(text, parent)
        self._detail = ""
        self._keep = keep
        """How many characters it keeps showing, at least, when room is short."""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._update_tip()

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self._update_tip()
        self.updateGeometry()

    def set_detail(self, detail: str) -> None:
        """A tooltip with more than the text (it is shown whether or not the text is cut)."""
        self._detail = detail
        self._update_tip()

    def elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def shown_text(self) -> str:
        """The text as painted: cut with "…" when it does not fit."""
        return self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width()
        )

    def _update_tip(self) -> None:
        tip = self._detail or (self.text() if self.elided() else "")
        if self._detail and self.elided() and self.text() not in self._detail:
            tip = f"{self.text()}\n\n{self._detail}"
        self.setToolTip(tip)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self.text()) + 8, hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        metrics = self.fontMetrics()
        least = min(metrics.horizontalAdvance(self.text()), metrics.averageCharWidth() * self._keep) + 8
        return QSize(least, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        flags = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        painter.drawText(self.contentsRect(), int(flags), self.shown_text())
        painter.end()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)


def coverage_line(report: Report) -> tuple[str, str]:
    """("12 citations · 7 checked · 2 misattributed · 3 not checked (offline)", the details)."""
    coverage = report.coverage_or_count()
    if not coverage.citations:
        return "no citations", "The text cites nothing yet."
    noun = "citation" if coverage.citations == 1 else "citations"
    parts = [f"{coverage.citations} {noun}", f"{coverage.checked} checked"]
    for kind, word in COUNTED_KINDS:
        count = sum(1 for f in report.findings if f.kind is kind)
        if count:
            parts.append(f"{count} {word}")
    if coverage.unchecked:
        reasons = coverage.reasons
        why = next(iter(reasons)) if len(reasons) == 1 else ", ".join(f"{r} {n}" for r, n in reasons.items())
        parts.append(f"{len(coverage.unchecked)} not checked ({why})")
    detail = [coverage.headline() + "."]
    if coverage.offline:
        detail.append("The machine seems to be offline: no source could be fetched.")
    if coverage.unchecked:
        detail.append(
            "Citations not checked are marked in the text (grey dash-dot-dot): hover one to attach a file."
        )
    return " · ".join(parts), "\n".join(detail)


class StatusBar:
    """The window's status bar, built into a QStatusBar with one layout (no temporary messages)."""

    def __init__(self, bar: QStatusBar) -> None:
        self.bar = bar
        self.stage = ElidedLabel("Ready", keep=16)
        self.coverage = ElidedLabel("", keep=28)
        self.checking = ElidedLabel("", keep=12)
        """What the cascade's strong judge is doing, or did, for the report shown."""
        self.checking.setVisible(False)
        self._checking_now = False
        self._judge_note = ""
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(140)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.working = QLabel("")
        """What the window's slow work is doing (`gui.ops`), shown only once it takes a while."""
        self.working.setVisible(False)
        self.review = QLabel("")
        self.assist = QLabel("")
        self.assist.setVisible(False)
        self.judge = QLabel("")
        self.judge_note = ElidedLabel("", keep=6)
        self.judge_note.setCursor(Qt.CursorShape.PointingHandCursor)
        self.legend_button = QToolButton()
        self.legend_button.setText("Legend")
        self.legend_button.setToolTip("What each mark in the text means")
        self.legend_button.setAutoRaise(True)
        row = QWidget()
        rows = QVBoxLayout(row)
        rows.setContentsMargins(4, 0, 4, 0)
        rows.setSpacing(0)
        # two lines, so that at the window's default size nothing is cut (issue 43): above, what is
        # going on (a stage, a message such as "Applied: …", the strong judge's progress); below, the
        # state of the document (coverage, review, judge). When there is still too little room, the
        # elided labels give way (down to a few characters), the short fixed ones never do
        now = QHBoxLayout()
        now.setSpacing(10)
        now.addWidget(self.stage)
        now.addWidget(self.progress)
        now.addWidget(self.cancel_button)
        now.addWidget(self.working)
        now.addWidget(self.checking)
        now.addStretch(1)
        state = QHBoxLayout()
        state.setSpacing(10)
        state.addWidget(self.coverage)
        state.addStretch(1)
        state.addWidget(self.review)
        state.addWidget(self.assist)
        state.addWidget(self.judge)
        state.addWidget(self.judge_note)
        state.addWidget(self.legend_button)
        rows.addLayout(now)
        rows.addLayout(state)
        bar.addWidget(row, 1)
        bar.setSizeGripEnabled(False)
        self._summary = "Ready"
        self._message_timer = QTimer(bar)
        self._message_timer.setSingleShot(True)
        self._message_timer.setInterval(MESSAGE_MS)
        self._message_timer.timeout.connect(lambda: self.stage.setText(self._summary))

    def set_summary(self, text: str) -> None:
        """What the stage says when no message is shown (e.g. "3 findings"); a message being shown
        stays its full time, then this comes back."""
        self._summary = text
        self.set_state(text)

    def set_state(self, text: str) -> None:
        """What is going on now ("Checking…", a stage's progress), unless a message is being shown."""
        if not self._message_timer.isActive():
            self.stage.setText(text)

    def message(self, text: str) -> None:
        """Say something for a while (MESSAGE_MS); then the summary comes back."""
        self.stage.setText(text)
        self.stage.set_detail("")
        self._message_timer.start()

    def busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    def set_working(self, what: str) -> None:
        """Show what slow work is under way ("" when none is)."""
        self.working.setText(what)
        self.working.setVisible(bool(what))

    def show_staged(self, count: int) -> None:
        """What the running audit has found so far (its report replaces this when it is done)."""
        self.coverage.setText(f"{count} finding{'s' if count != 1 else ''} so far")
        self.coverage.set_detail(
            "Found so far by the structural and source checks; the judge's verdicts come with the report."
        )

    def show_checking(self, checking: Checking | None) -> None:
        """The strong judge re-reads the report shown ("checking with NAME… 3/12"); None: it is
        done (its report says what it did) or stopped (`check_ended`)."""
        self._checking_now = checking is not None
        if checking is None:
            self._show_cascade()
            return
        self.checking.setText(checking.describe())
        self.checking.set_detail(CHECKING_DETAIL)
        self.checking.setVisible(True)

    def _show_cascade(self) -> None:
        """What the strong judge did for the report shown (nothing, without one)."""
        clause = cascade_clause(self._judge_note)
        self.checking.setText(clause)
        self.checking.set_detail(self._judge_note if clause else "")
        self.checking.setVisible(bool(clause))

    def check_ended(self, why: str) -> None:
        """The strong judge's re-read ended without its report (`why`, said for a while)."""
        self._checking_now = False
        self.checking.setVisible(False)
        self.message(why)

    def show_report(self, report: Report) -> None:
        self._judge_note = report.judge_note
        if not self._checking_now:
            self._show_cascade()
        line, detail = coverage_line(report)
        self.coverage.setText(line)
        self.coverage.set_detail(detail)
        self.judge.setText(f"judge: {report.judge}" if report.judge else "")
        # the note's first clause is shown ("word-level judge, limited accuracy"); all of it, and
        # what a click does, in its tooltip
        self.judge_note.setText(report.judge_note.split(":", 1)[0])
        self.judge_note.set_detail(
            f"{report.judge_note}\nClick to download a judge model." if report.judge_note else ""
        )
        self.judge_note.setVisible(bool(report.judge_note))
