"""Applying fixes in the editor: one checked plan, one undo step.

Every fix the window applies — one, or all of a kind — goes through the desk's repair plan (the
same as `citedesk fix`): conflicts resolved by meaning, the result re-parsed and refused if it would
change the prose or break a reference. The plan's edits are then made in one `QTextCursor` edit
block, so Ctrl+Z undoes the whole repair in one step, and the editor's text is compared with the
plan's result (they cannot differ unless Qt and Python disagree; if they do, it is undone).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from citedesk.core.findings import Finding, Fix
from citedesk.core.plan import RepairPlan
from citedesk.core.reports.report import Report
from citedesk.desk import DocumentSession
from citedesk.errors import CiteDeskError
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.qt import QObject, QPlainTextEdit, QTextCursor, Signal


class FixController(QObject):
    applied = Signal(object)  # RepairPlan
    message = Signal(str)

    def __init__(
        self,
        editor: QPlainTextEdit,
        session: Callable[[], DocumentSession],
        report: Callable[[], Report | None],
        audited_text: Callable[[], str | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.editor = editor
        self._session = session
        self._report = report
        self._audited_text = audited_text

    def ready(self) -> bool:
        """Fixes apply only to the text they were computed on (else it is audited again first)."""
        report = self._report()
        return report is not None and self.editor.toPlainText() == self._audited_text()

    def apply_fix(self, finding: Finding, fix: Fix | None = None) -> bool:
        chosen = fix or (finding.fixes[0] if finding.fixes else None)
        if chosen is None:
            return False
        return self.apply([chosen])

    def apply_all_of_kind(self, finding: Finding, findings: Sequence[Finding]) -> bool:
        """**Fix all of this kind**: the safe fixes only, as `citedesk fix` applies them. A judge's
        suggestion to verify (an unsafe fix) is applied only from its own finding."""
        same = [f for f in findings if f.kind is finding.kind]
        fixes = DocumentSession.fixes_of(same)
        suggested = sum(1 for f in same if f.fixes and not any(fx.safe for fx in f.fixes))
        if not fixes:
            if suggested:
                self.message.emit(
                    f"Nothing applied: the {_fixes(suggested)} of this kind are suggestions to verify;"
                    " apply each from its own finding after reading its evidence."
                )
            return False
        note = (
            f" Left out {suggested} suggestion{'' if suggested == 1 else 's'} to verify: apply each from its own finding."
            if suggested
            else ""
        )
        return self.apply(fixes, note=note)

    def apply(self, fixes: Sequence[Fix], *, note: str = "") -> bool:
        """Apply `fixes` together, as ONE checked plan and ONE undo step (`note` ends the message)."""
        report = self._report()
        if report is None or not fixes:
            return False
        session = self._session()
        try:  # one fix: its plan, or why not; several: as many as can go together
            plan, refused = (
                (session.plan(report, fixes), []) if len(fixes) == 1 else session.plan_most(report, fixes)
            )
        except CiteDeskError as exc:
            self.message.emit(f"Not applied: {exc.message}")
            return False
        if not plan.changed:
            self.message.emit("Nothing to change: the fixes are already in the text.")
            return False
        if not self._edit(plan):
            self.message.emit("Not applied: the editor and CiteDesk disagree on the text; nothing changed.")
            return False
        lines = plan.describe()
        left_out = "".join(f" Left out: {fix.title} ({why})." for fix, why in refused)  # named, as `fix` does
        self.message.emit(
            (
                f"Applied: {lines[0]}"
                if len(lines) == 1
                else f"Applied {_fixes(len(plan.fixes))}: " + "; ".join(lines)
            )
            + left_out
            + note
        )
        self.applied.emit(plan)
        return True

    def renumber(self) -> bool:
        """Number the reference list 1…n in its order (after removals leave gaps), every marker
        rewritten to match: one checked plan (each marker keeps pointing at the same work), one
        undo step."""
        report = self._report()
        if report is None:
            return False
        try:
            plan = self._session().plan(report, [], renumber=True)
        except CiteDeskError as exc:
            self.message.emit(f"Not renumbered: {exc.message}")
            return False
        if not plan.changed:
            self.message.emit("The reference list is numbered 1…n in its order already.")
            return False
        if not self._edit(plan):
            self.message.emit(
                "Not renumbered: the editor and CiteDesk disagree on the text; nothing changed."
            )
            return False
        notes = "; ".join(plan.describe())
        self.message.emit("Renumbered the reference list" + (f": {notes}" if notes else ""))
        self.applied.emit(plan)
        return True

    def _edit(self, plan: RepairPlan) -> bool:
        mapping = Utf16Map(plan.original)
        cursor = QTextCursor(self.editor.document())
        cursor.beginEditBlock()
        for edit in sorted(plan.edits, key=lambda e: (e.start, e.end), reverse=True):
            cursor.setPosition(mapping.to_qt(edit.start))
            cursor.setPosition(mapping.to_qt(edit.end), QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(edit.replacement)
        cursor.endEditBlock()
        if self.editor.toPlainText() != plan.result:  # cannot happen unless Qt and Python disagree
            self.editor.undo()
            return False
        return True


def _fixes(count: int) -> str:
    return f"{count} fix" if count == 1 else f"{count} fixes"
