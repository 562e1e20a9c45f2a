"""The search popup behind quick-add (Tab) and Find (Ctrl+F).

A small panel over the canvas (a child widget, not a top-level popup
window: it needs no window manager and cannot be lost behind the main
window) with a filter line and a list: typing narrows the list, Up/Down
move, Enter chooses, Escape or a click elsewhere closes. The caller gives the
entries (key, label, tooltip) and gets the chosen key back through
:attr:`SearchPopup.chosen`; with ``free_text`` the typed text is offered too
(quick-add names the new node after it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["Entry", "SearchPopup"]


@dataclass(frozen=True)
class Entry:
    key: str
    label: str
    tooltip: str = ""


class SearchPopup(QFrame):
    #: (entry key, the text typed)
    chosen = Signal(str, str)

    def __init__(
        self,
        parent: QWidget,
        placeholder: str,
        entries: Sequence[Entry],
        free_text: Callable[[str], Sequence[Entry]] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("searchPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFrameShadow(QFrame.Shadow.Raised)
        self.setAutoFillBackground(True)
        self.entries = list(entries)
        self.free_text = free_text
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.line = QLineEdit(self)
        self.line.setPlaceholderText(placeholder)
        self.line.setToolTip(placeholder)
        self.line.setClearButtonEnabled(True)
        self.list = QListWidget(self)
        self.list.setToolTip("Enter to choose, Escape to close")
        layout.addWidget(self.line)
        layout.addWidget(self.list)
        self.resize(340, 280)
        self.line.textChanged.connect(self._filter)
        self.line.installEventFilter(self)
        self.list.itemActivated.connect(self._choose_item)
        self._filter("")

    def popup_at(self, pos: QPoint) -> None:
        """Show at ``pos`` (in the parent's coordinates), kept inside the parent."""
        parent = self.parentWidget()
        if parent is not None:
            x = max(0, min(pos.x(), parent.width() - self.width()))
            y = max(0, min(pos.y(), parent.height() - self.height()))
            pos = QPoint(x, y)
        self.move(pos)
        self.show()
        self.raise_()
        self.line.setFocus()
        QApplication.instance().focusChanged.connect(self._focus_changed)  # type: ignore[union-attr]

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if self.isVisible() and (new is None or not self.isAncestorOf(new)):
            self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        app = QApplication.instance()
        if app is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                app.focusChanged.disconnect(self._focus_changed)  # type: ignore[attr-defined]
        super().closeEvent(event)

    def _filter(self, text: str) -> None:
        self.list.clear()
        needle = text.strip().lower()
        shown = [e for e in self.entries if needle in e.label.lower() or needle in e.key.lower()]
        if needle and self.free_text is not None:
            shown = [*self.free_text(text.strip()), *shown]
        for entry in shown:
            item = QListWidgetItem(entry.label)
            item.setData(Qt.ItemDataRole.UserRole, entry.key)
            item.setToolTip(entry.tooltip or entry.label)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.line
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
        ):
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                row = self.list.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
                self.list.setCurrentRow(max(0, min(self.list.count() - 1, row)))
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.choose_current()
                return True
            if key == Qt.Key.Key_Escape:
                self.close()
                return True
        return super().eventFilter(watched, event)

    def choose_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._choose_item(item)

    def _choose_item(self, item: QListWidgetItem) -> None:
        key = str(item.data(Qt.ItemDataRole.UserRole))
        text = self.line.text().strip()
        self.close()
        self.chosen.emit(key, text)
