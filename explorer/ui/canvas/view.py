"""The canvas view: zoom, pan, fit, keyboard, drops, and the minimap in its corner.

The wheel zooms under the cursor (Ctrl+wheel too, for habit); the middle
button, or Space with the left button, pans. Keys that act on the canvas
only (Tab for quick-add, arrows to nudge, Escape) are handled here, so they
never steal keys from the inspector's fields. Dropped scenario files are
passed on as :attr:`filesDropped`; dropped palette entries as
:attr:`paletteDropped` with the scene position.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QEvent, QLineF, QPoint, QPointF, QRect, QRectF, Qt, QUrl, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsView, QWidget

from explorer.ui.canvas.minimap import Minimap
from explorer.ui.canvas.scene import ScenarioScene

__all__ = ["PALETTE_MIME", "CanvasView"]

#: MIME type of a palette entry being dragged onto the canvas (its payload: the node kind).
PALETTE_MIME = "application/x-schedule-explorer-node"
MIN_ZOOM, MAX_ZOOM = 0.05, 4.0
#: Below this zoom items drop their text (items.py): opening a file never goes lower.
READABLE_ZOOM = 0.6
#: Presentation mode magnifies a small graph up to this zoom (screen sharing).
PRESENT_ZOOM = 1.75
_STEP = 1.2
_NUDGE = 10.0


class CanvasView(QGraphicsView):
    quickAddRequested = Signal(QPointF)
    filesDropped = Signal(list)
    paletteDropped = Signal(str, QPointF)
    zoomChanged = Signal(float)
    #: Right click: (global position, whether it was on a node or connection).
    contextMenuRequested = Signal(QPoint, bool)

    def __init__(self, scene: ScenarioScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setObjectName("canvas")
        self.setAccessibleName("Scenario canvas")
        self.setToolTip(
            "The scenario canvas: drag from a port to connect, drag on empty space to select, "
            "Tab to add a node, wheel to zoom, middle button to pan"
        )
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        # the grid is drawn once per zoom and scroll and blitted after that: a node drag
        # repainted the grid under every region it exposed (a third of a drag's paint);
        # a palette change resets it (ScenarioScene.set_palette invalidates the layer)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAcceptDrops(True)
        self._pan_from: QPoint | None = None
        self._space = False
        #: The zoom and centre before presentation mode, restored when it ends.
        self._before_present: tuple[float, QPointF] | None = None
        self.minimap = Minimap(self)
        self.horizontalScrollBar().valueChanged.connect(self.minimap.refresh)
        self.verticalScrollBar().valueChanged.connect(self.minimap.refresh)
        scene.synced.connect(self._after_sync)

    @property
    def canvas(self) -> ScenarioScene:
        scene = self.scene()
        assert isinstance(scene, ScenarioScene)
        return scene

    # ----------------------------------------------------------------- zoom
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, factor: float) -> None:
        factor = min(MAX_ZOOM, max(MIN_ZOOM, factor))
        current = self.zoom()
        if not math.isclose(factor, current):
            self.scale(factor / current, factor / current)
            self.zoomChanged.emit(factor)
            self.minimap.refresh()

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * _STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / _STEP)

    def zoom_reset(self) -> None:
        self.set_zoom(1.0)

    def present(self, on: bool) -> None:
        """Presentation mode: the whole graph, magnified up to :data:`PRESENT_ZOOM` so that
        a screen share can read it; leaving gives back the zoom and centre the user had."""
        if on:
            if self._before_present is None:
                centre = self.mapToScene(self.viewport().rect().center())
                self._before_present = (self.zoom(), centre)
            bounds = self.canvas.itemsBoundingRect()
            if bounds.isNull():
                return
            bounds = bounds.adjusted(-30, -30, 30, 30)
            self.fitInView(bounds, Qt.AspectRatioMode.KeepAspectRatio)
            self.set_zoom(min(self.zoom(), PRESENT_ZOOM))
            self.centerOn(bounds.center())
        elif self._before_present is not None:
            zoom, centre = self._before_present
            self._before_present = None
            self.set_zoom(zoom)
            self.centerOn(centre)
        self.zoomChanged.emit(self.zoom())
        self.minimap.refresh()

    def fit(self, *, readable: bool = False) -> None:
        """Show every node; never magnify beyond 100 % (a lone node is not blown up).

        ``readable`` (when a file opens): never shrink below the zoom at which
        node text is still drawn; a larger graph shows its upper left (where
        its producers are) and the minimap gives the rest.
        """
        bounds = self.canvas.itemsBoundingRect()
        if bounds.isNull():
            return
        bounds = bounds.adjusted(-40, -40, 40, 40)
        self.fitInView(bounds, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.0:
            self.set_zoom(1.0)
            self.centerOn(bounds.center())
        if readable and self.zoom() < READABLE_ZOOM:
            self.set_zoom(READABLE_ZOOM)
            visible = self.mapToScene(self.viewport().rect()).boundingRect()
            self.centerOn(bounds.left() + visible.width() / 2, bounds.top() + visible.height() / 2)
        if self.zoom() < MIN_ZOOM:
            self.set_zoom(MIN_ZOOM)
        self.zoomChanged.emit(self.zoom())
        self.minimap.refresh()

    def center_on_node(self, node_id: str) -> None:
        item = self.canvas.node_item(node_id)
        if item is not None:
            self.centerOn(item)

    def _after_sync(self) -> None:
        self.minimap.refresh()

    # ----------------------------------------------------------------- events
    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta().y()
        if delta == 0 or event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)
            return
        self.set_zoom(self.zoom() * (_STEP ** (delta / 120.0)))
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        pan = event.button() == Qt.MouseButton.MiddleButton or (
            self._space and event.button() == Qt.MouseButton.LeftButton
        )
        if pan:
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            now = event.position().toPoint()
            delta = now - self._pan_from
            self._pan_from = now
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab belongs to quick-add while the canvas has focus (F6 leaves the canvas)."""
        return False

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Tab
            and not event.modifiers()
        ):
            self.request_quick_add()
            return True
        return super().event(event)

    def request_quick_add(self) -> None:
        cursor = self.mapFromGlobal(self.cursor().pos())
        if self.viewport().rect().contains(cursor):
            pos = self.mapToScene(cursor)
        else:
            pos = self.mapToScene(self.viewport().rect().center())
        self.quickAddRequested.emit(pos)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        arrows = {
            Qt.Key.Key_Left: (-_NUDGE, 0.0),
            Qt.Key.Key_Right: (_NUDGE, 0.0),
            Qt.Key.Key_Up: (0.0, -_NUDGE),
            Qt.Key.Key_Down: (0.0, _NUDGE),
        }
        if key in arrows and self.canvas.selected_ids():
            dx, dy = arrows[key]  # type: ignore[index]
            step = 5.0 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1.0
            self.canvas.nudge(dx * step, dy * step)
            event.accept()
            return
        if key == Qt.Key.Key_Escape:
            if not self.canvas.cancel_interaction():
                self.canvas.clearSelection()
            event.accept()
            return
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().unsetCursor()
        super().keyReleaseEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Right click selects what is under the cursor (unless it is already selected)."""
        scene_pos = self.mapToScene(event.pos())
        item = self.canvas.node_at(scene_pos)
        target = item if item is not None else self.canvas.edge_at(scene_pos)
        if target is not None and not target.isSelected():
            self.canvas.clearSelection()
            target.setSelected(True)
        self.contextMenuRequested.emit(event.globalPos(), target is not None)
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.minimap.place()

    # ----------------------------------------------------------------- drops
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        mime = event.mimeData()
        if mime.hasFormat(PALETTE_MIME) or _scenario_files(mime.urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        mime = event.mimeData()
        if mime.hasFormat(PALETTE_MIME) or _scenario_files(mime.urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        if mime.hasFormat(PALETTE_MIME):
            kind = bytes(mime.data(PALETTE_MIME).data()).decode()
            self.paletteDropped.emit(kind, self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
            return
        files = _scenario_files(mime.urls())
        if files:
            self.filesDropped.emit(files)
            event.acceptProposedAction()
            return
        event.ignore()

    # ----------------------------------------------------------------- background
    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        colors = self.canvas.colors
        painter.fillRect(rect, colors.background)
        if self.zoom() < 0.45:
            return
        step = 40.0
        pen = QPen(colors.grid, 0)
        painter.setPen(pen)
        left = math.floor(rect.left() / step) * step
        top = math.floor(rect.top() / step) * step
        x = left
        lines = []
        while x < rect.right():
            lines.append(QLineF(x, rect.top(), x, rect.bottom()))
            x += step
        y = top
        while y < rect.bottom():
            lines.append(QLineF(rect.left(), y, rect.right(), y))
            y += step
        painter.drawLines(lines)


def _scenario_files(urls: list[QUrl]) -> list[Path]:
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile()]
