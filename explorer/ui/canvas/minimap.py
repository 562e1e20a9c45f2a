"""A minimap in the canvas's corner for large graphs: the whole scene, the visible part framed.

It is a second view of the same scene, scaled to fit, that draws the main
view's visible rectangle on top; pressing or dragging in it centres the main
view there. It shows itself when the graph no longer fits the main view (and
the user has not turned it off), so small scenarios keep an uncluttered
canvas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPen, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsView

if TYPE_CHECKING:
    from explorer.ui.canvas.view import CanvasView

__all__ = ["Minimap"]

_SIZE = (240, 160)
_MARGIN = 12


class Minimap(QGraphicsView):
    def __init__(self, main: CanvasView) -> None:
        super().__init__(main)
        self.main = main
        self.enabled_by_user = True
        self.setObjectName("minimap")
        self.setToolTip("Minimap: click or drag to move the canvas view")
        self.setAccessibleName("Minimap")
        self.setScene(main.scene())
        self.setInteractive(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.Box)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setRenderHints(QPainter.RenderHint.Antialiasing)
        self.setFixedSize(*_SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.hide()

    def place(self) -> None:
        self.move(self._corner())
        self.refresh()

    def _corner(self) -> QPoint:
        """The corner of the canvas where the minimap covers the fewest nodes (bottom right
        when it covers none there): centred on a node, a fixed corner hid its neighbours."""
        w, h = _SIZE
        viewport = self.main.viewport().geometry()
        left, top = viewport.left() + _MARGIN, viewport.top() + _MARGIN
        right, bottom = viewport.right() - w - _MARGIN, viewport.bottom() - h - _MARGIN
        corners = [
            QPoint(right, bottom),
            QPoint(left, bottom),
            QPoint(right, top),
            QPoint(left, top),
        ]
        scene = self.scene()
        if scene is None:
            return corners[0]
        nodes = set(getattr(scene, "nodes", {}).values())

        def covered(corner: QPoint) -> int:
            # the scene's index answers "what is under this rectangle" without a walk
            area = self.main.mapToScene(QRect(corner - viewport.topLeft(), self.size()))
            return sum(1 for item in scene.items(area.boundingRect()) if item in nodes)

        return min(corners, key=covered)  # ties: the first, bottom right

    def set_enabled_by_user(self, on: bool) -> None:
        self.enabled_by_user = on
        self.refresh()

    def refresh(self) -> None:
        """Fit the whole graph, and show only when it does not fit the main view."""
        scene = self.scene()
        if scene is None:
            self.hide()
            return
        bounds = scene.itemsBoundingRect()
        if bounds.isNull():
            self.hide()
            return
        visible = self.main.mapToScene(self.main.viewport().rect()).boundingRect()
        needed = not visible.contains(bounds)
        self.setVisible(self.enabled_by_user and needed)
        if self.isVisible():
            corner = self._corner()
            if corner != self.pos():
                self.move(corner)
            self.fitInView(bounds.adjusted(-30, -30, 30, 30), Qt.AspectRatioMode.KeepAspectRatio)
            self.viewport().update()

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        scene = self.scene()
        colors = getattr(scene, "colors", None)
        if colors is not None:
            painter.fillRect(rect, colors.background)

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        colors = getattr(self.scene(), "colors", None)
        if colors is None:
            return
        visible = self.main.mapToScene(self.main.viewport().rect()).boundingRect()
        color = QColor(colors.selection)
        painter.setPen(QPen(color, 0))
        color.setAlpha(40)
        painter.setBrush(color)
        painter.drawRect(visible)

    def _jump(self, event: QMouseEvent) -> None:
        self.main.centerOn(self.mapToScene(event.position().toPoint()))
        self.viewport().update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._jump(event)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._jump(event)
        event.accept()

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.accept()
