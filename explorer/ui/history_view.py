"""The History dock's list: every undo step readable in a narrow dock.

``QUndoView`` draws each entry on one line and cuts it at the dock's edge
("Edit schedule of ingest_hou…" said nothing about which step it was): here
entries wrap onto as many lines as they need, and the full text is also the
entry's tooltip.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["HistoryView"]


class HistoryView(QtWidgets.QUndoView):
    def __init__(self, stack: QtGui.QUndoStack, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(stack, parent)
        self.setWordWrap(True)
        self.setTextElideMode(QtCore.Qt.TextElideMode.ElideNone)
        self.setUniformItemSizes(False)
        self.setResizeMode(QtWidgets.QListView.ResizeMode.Adjust)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def entry_tooltip(self, pos: QtCore.QPoint) -> str | None:
        """The full text of the entry under ``pos`` (viewport coordinates)."""
        index = self.indexAt(pos)
        if not index.isValid():
            return None
        text = index.data(QtCore.Qt.ItemDataRole.DisplayRole)
        return str(text) if text else None

    def viewportEvent(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:
            assert isinstance(event, QtGui.QHelpEvent)
            text = self.entry_tooltip(event.pos())
            if text:
                QtWidgets.QToolTip.showText(event.globalPos(), text, self.viewport())
                return True
        return super().viewportEvent(event)
