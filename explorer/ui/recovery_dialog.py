"""The recovery question after a crash: every autosaved scenario listed, each kept until
the user recovers or discards it.

Recovering one leaves the others for later; a recovery file is deleted only when
the user discards that one; "Not now" keeps them all for the next start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.ui.autosave import Recovery

__all__ = ["RecoveryAnswer", "RecoveryDialog", "recovery_label"]


@dataclass
class RecoveryAnswer:
    """What the user chose: the one to recover (or None) and those to discard."""

    recover: Recovery | None = None
    discard: list[Recovery] = field(default_factory=list)


def recovery_label(recovery: Recovery) -> str:
    origin = f"from {recovery.original.name}" if recovery.original else "never saved"
    when = f"autosaved {recovery.saved_at}" if recovery.saved_at else "autosaved"
    label = f"{recovery.name} — {when} ({origin})"
    return label + (f"\n    {recovery.problem}" if recovery.problem else "")


class RecoveryDialog(QDialog):
    """A list of recovery files with Recover, Discard… and Not now."""

    def __init__(self, recoveries: list[Recovery], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recoveryDialog")
        self.setWindowTitle("Recover unsaved work?")
        self.answer = RecoveryAnswer()
        self.list = QListWidget(self)
        for recovery in recoveries:
            item = QListWidgetItem(recovery_label(recovery))
            item.setData(Qt.ItemDataRole.UserRole, recovery)
            item.setToolTip(str(recovery.path))
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _item: self._recover())
        buttons = QDialogButtonBox(self)
        self.recover_button = buttons.addButton("&Recover", QDialogButtonBox.ButtonRole.AcceptRole)
        self.discard_button = QPushButton("&Discard…", self)
        buttons.addButton(self.discard_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        later = buttons.addButton("&Not now", QDialogButtonBox.ButtonRole.RejectRole)
        self.recover_button.clicked.connect(self._recover)
        self.discard_button.clicked.connect(self._discard)
        later.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "Schedule Explorer did not close cleanly. Recover an autosaved scenario; "
                "the others are kept until you recover or discard them.",
                self,
                wordWrap=True,
            )
        )
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        self.resize(560, 300)

    def selected(self) -> Recovery | None:
        item = self.list.currentItem()
        if item is None:
            return None
        recovery: Recovery = item.data(Qt.ItemDataRole.UserRole)
        return recovery

    def _recover(self) -> None:
        self.answer.recover = self.selected()
        if self.answer.recover is not None:
            self.accept()

    def _discard(self) -> None:
        recovery = self.selected()
        if recovery is None:
            return
        sure = QMessageBox.question(
            self,
            "Discard autosaved work?",
            f"Delete the autosaved “{recovery.name}”? This cannot be undone.",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if sure != QMessageBox.StandardButton.Discard:
            return
        self.discard_now(recovery)

    def discard_now(self, recovery: Recovery) -> None:
        """Mark ``recovery`` for deletion and take it off the list (closes when empty)."""
        self.answer.discard.append(recovery)
        self.list.takeItem(self.list.currentRow())
        if self.list.count() == 0:
            self.reject()
