"""Every question and message the app puts to the user, in one replaceable object.

The window asks :class:`Prompts` (save changes? recover? which file?) and
shows errors through it. Errors are non-blocking (``QMessageBox.open``), so
a bad file never stops the event loop; tests replace the questions with
canned answers, and find the error box as a child of the window.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from explorer.scenario import ScenarioError
from explorer.ui.autosave import Recovery
from explorer.ui.recovery_dialog import RecoveryAnswer, RecoveryDialog

__all__ = ["Prompts", "SaveAnswer", "scenario_error_text"]

SaveAnswer = Literal["save", "discard", "cancel"]
FILTER = "Schedule Explorer scenarios (*.json);;All files (*)"


def scenario_error_text(exc: ScenarioError) -> tuple[str, str]:
    """(short text, every problem) for a file that cannot be read: JSON path and message."""
    problems = exc.problems
    first = problems[0]
    where = "" if first.path in ("", "$") else f" at {first.path}"
    short = f"{first.message}{where}"
    if len(problems) > 1:
        short += f"\n(and {len(problems) - 1} more problem(s): see details)"
    details = "\n".join(f"{p.path}: {p.message}" for p in problems)
    return short, details


class Prompts:
    def __init__(self, parent: QWidget) -> None:
        self.parent = parent
        self.boxes: list[QMessageBox] = []

    def error(self, title: str, text: str, details: str = "") -> QMessageBox:
        """A non-blocking error box (window-modal); returned so callers and tests can see it."""
        return self._box(QMessageBox.Icon.Warning, "errorBox", title, text, details)

    def info(self, title: str, text: str) -> QMessageBox:
        return self._box(QMessageBox.Icon.Information, "infoBox", title, text, "")

    def _box(
        self, icon: QMessageBox.Icon, name: str, title: str, text: str, details: str
    ) -> QMessageBox:
        box = QMessageBox(self.parent)
        box.setObjectName(name)
        box.setIcon(icon)
        box.setWindowTitle(title)
        box.setText(title)
        box.setInformativeText(text)
        if details:
            box.setDetailedText(details)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.finished.connect(lambda _r, b=box: self._forget(b))
        self.boxes.append(box)
        box.open()
        return box

    def _forget(self, box: QMessageBox) -> None:
        if box in self.boxes:
            self.boxes.remove(box)
        box.deleteLater()

    def file_error(self, path: Path, exc: ScenarioError) -> QMessageBox:
        short, details = scenario_error_text(exc)
        return self.error(f"Cannot open {path.name}", short, details)

    def ask_save_changes(self, name: str) -> SaveAnswer:
        answer = QMessageBox.question(
            self.parent,
            "Unsaved changes",
            f"Save the changes to {name!r} before closing it?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return "save"
        if answer == QMessageBox.StandardButton.Discard:
            return "discard"
        return "cancel"

    def ask_recover(self, recoveries: list[Recovery]) -> RecoveryAnswer:
        dialog = RecoveryDialog(recoveries, self.parent)
        dialog.exec()
        return dialog.answer

    def open_path(self, folder: str) -> Path | None:
        name, _ = QFileDialog.getOpenFileName(self.parent, "Open scenario", folder, FILTER)
        return Path(name) if name else None

    def save_path(self, folder: str, suggested: str) -> Path | None:
        start = str(Path(folder) / suggested) if folder else suggested
        name, _ = QFileDialog.getSaveFileName(self.parent, "Save scenario as", start, FILTER)
        if not name:
            return None
        path = Path(name)
        return path if path.suffix else path.with_suffix(".json")
