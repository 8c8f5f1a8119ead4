"""How a finding reads: the evidence pane beside the findings, and the tooltip over a highlight.

Pure HTML built from a finding's typed fields (`Evidence`, `Verdict`, `Suggestion`); the pane is a
read-only browser whose links open in the system browser.
"""

from __future__ import annotations

import html

from citedesk.core.findings import Evidence, Finding
from citedesk.core.review import Review
from citedesk.gui.qt import QDesktopServices, QTextBrowser, QWidget

PLACEHOLDER = "<p>Select a finding to see why, and its evidence.</p>"


class EvidenceView(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.anchorClicked.connect(QDesktopServices.openUrl)
        self.setHtml(PLACEHOLDER)

    def show_finding(self, finding: Finding | None, review: Review | None = None) -> None:
        if finding is None:
            self.setHtml(PLACEHOLDER)
            return
        decided = ""
        if review is not None:
            note = f": {html.escape(review.note)}" if review.note else ""
            decided = f"<p><i>Your review: {review.decision.label}{note}</i></p>"
        self.setHtml(evidence_html(finding) + decided)


def hover_html(findings: list[Finding]) -> str:
    """The tooltip over a highlight: each finding's message, its score and a piece of its evidence."""
    parts = []
    for finding in findings[:3]:
        line = f"<b>{html.escape(finding.kind.label)}</b>: {html.escape(finding.message)}"
        if finding.verdict is not None:
            judge = html.escape(finding.verdict.judge or "")
            line += f"<br><i>support {finding.verdict.score:.2f} ({judge})</i>"
        passage = finding.evidence.passage if finding.evidence else ""
        if passage:
            shown = passage if len(passage) <= 280 else passage[:277] + "…"
            line += f"<br>Evidence: “{html.escape(shown)}”"
        parts.append(line)
    return "<hr>".join(parts)


def evidence_html(finding: Finding) -> str:
    parts = [f"<h3>{html.escape(finding.kind.label)}</h3><p>{html.escape(finding.message)}</p>"]
    if finding.evidence:
        parts.append(_evidence_block("Evidence", finding.evidence))
    offered = finding.suggestion
    if offered is not None and offered.evidence is not None and finding.verdict is not None:
        parts.append(_evidence_block(f"Reference [{offered.key}] says", offered.evidence))
    if finding.verdict is not None:
        judge = html.escape(finding.verdict.judge or "")
        parts.append(f"<p>Support score {finding.verdict.score:.2f} {f'({judge})' if judge else ''}.</p>")
    elif offered is not None:
        parts.append(f"<p>Support score {offered.score:.2f}.</p>")
    if finding.fixes:
        parts.append("<p><b>Fixes</b>: " + "; ".join(html.escape(f.title) for f in finding.fixes) + "</p>")
    return "".join(parts)


def _evidence_block(heading: str, evidence: Evidence) -> str:
    passage = html.escape(evidence.passage)
    window = html.escape(evidence.window)
    marked = f"<span style='background-color:#fff1a8'>{passage}</span>"
    shown = window.replace(passage, marked) if passage and passage in window else marked
    title = html.escape(evidence.title or f"[{evidence.source}]")
    location = evidence.location or ""
    if location.startswith(("http://", "https://")):
        link = f" — <a href='{html.escape(location)}'>{html.escape(location)}</a>"
    else:
        link = f" — {html.escape(location)}" if location else ""
    page = f", page {evidence.page}" if evidence.page else ""
    return f"<p><b>{html.escape(heading)}</b> ({title}{link}{page}):</p><blockquote>{shown}</blockquote>"
