"""The status bar's sign that a big file is being opened: what happens now, and Cancel.

:class:`~explorer.ui.file_ops.FileOps` reads, checks and simulates a big file off
the GUI thread (:class:`~explorer.ui.workers.OpenJob`); this shows its
:attr:`~explorer.ui.file_ops.FileOps.loading` text with a busy bar, and hides
when the text is empty.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

__all__ = ["OpeningIndicator"]


class OpeningIndicator(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openingIndicator")
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy: reading and checking report no fraction
        self.bar.setMaximumWidth(120)
        self.bar.setTextVisible(False)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.setToolTip("Stop opening the file; the open document stays")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.hide()

    def show_text(self, text: str) -> None:
        self.label.setText(text)
        self.setVisible(bool(text))
