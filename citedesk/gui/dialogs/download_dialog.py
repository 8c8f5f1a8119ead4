"""Offering a judge model on first use, and downloading it with a progress bar and Cancel.

With no NLI model installed, the window judges with the word-level heuristic (limited accuracy).
On the first start where the model hub answers — checked in a worker thread, as the check can
block for seconds — the window offers the recommended models (name, size and published figure),
once: the offer is remembered in the settings, and stays reachable from Settings ▸ "Download a
judge model…". The download runs in a worker thread; its progress reaches the QProgressDialog
through a signal (queued to the GUI thread), and Cancel sets a `threading.Event` the download
polls between chunks, so nothing half-downloaded is ever installed (the desk guarantees it).

The worker threads touch no widget; `shutdown` cancels and joins them when the window closes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from citedesk.desk import models
from citedesk.errors import CiteDeskError
from citedesk.gui.qt import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QObject,
    QProgressDialog,
    QPushButton,
    QSettings,
    QVBoxLayout,
    QWidget,
    Signal,
)

OFFER_MADE = "model_offer_made"
"""Settings key: the first-use offer was shown (it is not shown again)."""
DOWNLOAD = "Download"
NOT_NOW = "Not now"
STEPS = 1000
"""The progress dialog counts in thousandths (a byte count would overflow Qt's int)."""


def offer_line(offer: models.Offer) -> str:
    return f"{offer.name} — {offer.size_mb:,} MB — {offer.figure}"


class OfferDialog(QDialog):
    """Which model to download, with its size and published figure; Download or Not now."""

    def __init__(self, offers: list[models.Offer], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Download a judge model")
        self.offers = offers
        intro = QLabel(
            "CiteDesk is judging citations with its word-level judge, which has limited accuracy. "
            "A grounding model reads each source the way a careful reader does. It runs on this "
            "machine: your text is never sent anywhere."
        )
        intro.setWordWrap(True)
        self.choice = QComboBox()
        for offer in offers:
            self.choice.addItem(offer_line(offer), offer.name)
        buttons = QDialogButtonBox()
        self.download_button = buttons.addButton(DOWNLOAD, QDialogButtonBox.ButtonRole.AcceptRole)
        self.later_button = buttons.addButton(NOT_NOW, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.choice)
        layout.addWidget(
            QLabel("Figures as published by each model's authors (balanced accuracy on LLM-AggreFact).")
        )
        layout.addWidget(buttons)

    def chosen(self) -> str:
        return str(self.choice.currentData())


class ModelDownloads(QObject):
    """The first-use offer and the downloads; results as public signals."""

    hub_checked = Signal(bool)  # the hub answered (and no model is installed)
    offer_shown = Signal(object)  # OfferDialog
    progress = Signal(int, int)  # bytes done, bytes in all
    finished = Signal(object)  # models.Pulled
    failed = Signal(str)
    cancelled = Signal()
    message = Signal(str)

    def __init__(self, settings: QSettings, parent: QWidget) -> None:
        super().__init__(parent)
        self.settings = settings
        self.window = parent
        self.dialog: OfferDialog | None = None
        self.progress_dialog: QProgressDialog | None = None
        self._threads: list[threading.Thread] = []
        self._cancel = threading.Event()
        self._shown = -1
        self.hub_checked.connect(self._on_checked)
        self.progress.connect(self._on_progress)
        self.finished.connect(self._on_finished)
        self.failed.connect(self._on_failed)
        self.cancelled.connect(self._on_cancelled)

    @property
    def downloading(self) -> bool:
        return self.progress_dialog is not None

    # the offer ------------------------------------------------------------------------------------------
    def check_first_use(self, offline: bool) -> bool:
        """Start checking, off the GUI thread, whether to offer a model (False: not even checked)."""
        if offline or bool(self.settings.value(OFFER_MADE, False, type=bool)):
            return False
        self._run(self._check, "citedesk-hub-check")
        return True

    def _check(self) -> None:
        try:
            wanted = not models.installed() and models.hub_reachable()
        except Exception:  # a check that fails means "do not offer", never a crash
            wanted = False
        self.hub_checked.emit(wanted)

    def _on_checked(self, wanted: bool) -> None:
        self._forget_finished()
        if wanted and not self.settings.value(OFFER_MADE, False, type=bool):
            self.settings.setValue(OFFER_MADE, True)
            self.offer()

    def offer(self) -> OfferDialog | None:
        """Show the offer (Settings ▸ Download a judge model… comes here directly)."""
        if self.downloading:
            self.message.emit("A model is being downloaded already.")
            return None
        offers = models.download_offers()
        if not offers:
            self.message.emit("No model is offered for download.")
            return None
        self.dialog = OfferDialog(offers, self.window)
        self.dialog.accepted.connect(lambda: self.download(self.dialog.chosen() if self.dialog else ""))
        self.dialog.open()
        self.offer_shown.emit(self.dialog)
        return self.dialog

    # the download -------------------------------------------------------------------------------------------
    def download(self, name: str) -> None:
        if not name or self.downloading:
            return
        self._cancel.clear()
        self._shown = -1
        dialog = QProgressDialog(f"Downloading {name}…", "Cancel", 0, STEPS, self.window)
        dialog.setWindowTitle("Downloading a judge model")
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setValue(0)
        dialog.canceled.connect(self.cancel)
        dialog.show()
        self.progress_dialog = dialog

        def pull() -> None:
            try:
                pulled = models.pull_model(name, progress=self.progress.emit, cancelled=self._cancel.is_set)
            except CiteDeskError as exc:
                if self._cancel.is_set():
                    self.cancelled.emit()
                else:
                    self.failed.emit(exc.message)
            except Exception as exc:  # a bug: say so rather than leave the dialog hanging
                self.failed.emit(f"the download failed unexpectedly: {exc}")
            else:
                self.finished.emit(pulled)

        self._run(pull, "citedesk-model-download")

    def cancel(self) -> None:
        """Stop the download (it stops between chunks; nothing is installed)."""
        self._cancel.set()
        if self.progress_dialog is not None:
            self.progress_dialog.setLabelText("Cancelling…")

    def _on_progress(self, done: int, total: int) -> None:
        dialog = self.progress_dialog
        if dialog is None:
            return
        value = min(STEPS, done * STEPS // total) if total > 0 else 0
        if value != self._shown:  # only real changes reach the screen
            self._shown = value
            dialog.setValue(value)
            if self._cancel.is_set():
                return
            if total > 0 and done >= total:
                dialog.setLabelText("Downloaded; checking that the model reads known pairs the right way…")
            else:
                dialog.setLabelText(models.progress_text(done, total))

    def _on_finished(self, pulled: models.Pulled) -> None:
        self._close_progress()
        try:
            models.set_default(pulled.name)
        except CiteDeskError as exc:
            self.message.emit(f"Installed {pulled.name}, but it could not be made the default: {exc.message}")
            return
        self.message.emit(
            f"Installed {pulled.name} ({pulled.megabytes:,.0f} MB; {pulled.right}/{pulled.pairs} known pairs "
            "right): it judges from the next audit"
        )

    def _on_failed(self, why: str) -> None:
        self._close_progress()
        self.message.emit(f"The model was not downloaded: {why}")

    def _on_cancelled(self) -> None:
        self._close_progress()
        self.message.emit("Download cancelled; nothing was installed.")

    def _close_progress(self) -> None:
        self._forget_finished()
        if self.progress_dialog is not None:
            self.progress_dialog.canceled.disconnect(self.cancel)
            self.progress_dialog.close()
            self.progress_dialog.deleteLater()
            self.progress_dialog = None

    # threads ---------------------------------------------------------------------------------------------
    def _run(self, work: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=work, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _forget_finished(self) -> None:
        """Drop the workers that are done (on the GUI thread: never wait for one still running)."""
        self._threads = [t for t in self._threads if t.is_alive()]

    def _join(self, timeout: float) -> None:
        for thread in list(self._threads):
            if thread is not threading.current_thread():
                thread.join(timeout)
            if not thread.is_alive():
                self._threads.remove(thread)

    def shutdown(self, timeout: float = 10.0) -> None:
        """The window closes: cancel a download and wait for the workers."""
        self._cancel.set()
        self._join(timeout)

    def cancel_button(self) -> QPushButton | None:
        """The progress dialog's Cancel button (while downloading)."""
        dialog = self.progress_dialog
        return dialog.findChild(QPushButton) if dialog is not None else None
