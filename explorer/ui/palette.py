"""The node palette: click to add a node at the centre of the view, or drag it onto the canvas."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import QDrag, QMouseEvent
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget

from explorer.ui.canvas.editor import NODE_KINDS
from explorer.ui.canvas.view import PALETTE_MIME

__all__ = ["NodePalette"]


class _KindButton(QToolButton):
    def __init__(self, kind: str, label: str, tip: str) -> None:
        super().__init__()
        self.kind = kind
        self.setObjectName(f"palette:{kind}")
        self.setText(label)
        self.setToolTip(f"{tip} — click to add, or drag onto the canvas")
        self.setAccessibleName(f"Add {label}")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setSizePolicy(self.sizePolicy().horizontalPolicy(), self.sizePolicy().verticalPolicy())
        self.setMinimumWidth(110)
        self._press: QPoint | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if (
            self._press is not None
            and (event.position().toPoint() - self._press).manhattanLength() > 8
        ):
            self._press = None
            self.setDown(False)
            mime = QMimeData()
            mime.setData(PALETTE_MIME, self.kind.encode())
            drag = QDrag(self)
            drag.setMimeData(mime)
            drag.exec(Qt.DropAction.CopyAction)
            return
        super().mouseMoveEvent(event)


class NodePalette(QWidget):
    #: A node kind to add at the centre of the view.
    addRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("palette")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.buttons: dict[str, QToolButton] = {}
        for kind, (label, tip) in NODE_KINDS.items():
            button = _KindButton(kind, label, tip)
            button.clicked.connect(lambda _=False, k=kind: self.addRequested.emit(k))
            layout.addWidget(button)
            self.buttons[kind] = button
        layout.addStretch(1)
