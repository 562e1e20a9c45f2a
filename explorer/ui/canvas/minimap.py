"""A minimap in the canvas's corner for large graphs: the whole graph, the visible part framed.

It draws the whole graph's bounding rectangle scaled to fit, as a schematic:
each node a box in its kind's accent colour, each edge a line (node text
cannot be read at 1:60 anyway, and painting 2,000 real node items took half a
second a frame). The drawing is cached and redrawn only when the scene
changes; the main view's visible rectangle is framed on top, and pressing or
dragging in the minimap centres the main view there. It shows itself when
the graph no longer fits the main view (and the user has not turned it off:
View > Minimap, Ctrl+Shift+M), so small scenarios keep an uncluttered canvas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    QSizeF,
    Qt,
    QTimer,
)
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPen,
    QPixmap,
    QResizeEvent,
    QShowEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsView

if TYPE_CHECKING:
    from explorer.ui.canvas.view import CanvasView

__all__ = ["Minimap"]

_SIZE = (240, 160)
#: The largest share of the canvas's width or height the minimap may take.
_SHARE = 0.34
_MARGIN = 12
#: How much of the graph (screen pixels) may be cut at the view's edge without a minimap.
_SLACK_PX = 16


class Minimap(QGraphicsView):
    def __init__(self, main: CanvasView) -> None:
        super().__init__(main)
        self.main = main
        self.enabled_by_user = True
        self.setObjectName("minimap")
        self.setToolTip("Minimap: click or drag to move the canvas view (Ctrl+Shift+M hides it)")
        self.setAccessibleName("Minimap")
        #: The graph this minimap draws (the main view's scene); it views an empty scene of
        #: its own, in the same coordinates, and paints the cached schematic behind it.
        self.source = main.scene()
        self.setScene(QGraphicsScene(self))
        self._picture: QPixmap | None = None
        #: The bounds to draw the picture for at the next paint (None: it is up to date).
        self._redraw_due: QRectF | None = None
        self._picture_bounds = QRectF()
        self._picture_size = QSize()
        self._fitted: tuple[QRectF, QSize] | None = None
        self._placed: tuple[QRectF, QRectF, QSize] | None = None
        self._stale = QTimer(self)
        self._stale.setSingleShot(True)
        self._stale.setInterval(150)
        self._stale.timeout.connect(lambda: self._fit(force=True))
        if self.source is not None:
            self.source.changed.connect(self._source_changed)
        self._pending = True
        main.installEventFilter(self)
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
        self._fit_size()
        self.move(self._corner())
        self.refresh()

    def _fit_size(self) -> None:
        """At most :data:`_SHARE` of the canvas's width and height, never more than
        :data:`_SIZE`: at 1280x720 the canvas is under 300 pixels high, and a 160-pixel
        minimap covered most of it and the nodes in it."""
        viewport = self.main.viewport().size()
        scale = min(
            1.0,
            viewport.width() * _SHARE / _SIZE[0],
            viewport.height() * _SHARE / _SIZE[1],
        )
        size = QSize(max(60, round(_SIZE[0] * scale)), max(40, round(_SIZE[1] * scale)))
        if size != self.size():
            self.setFixedSize(size)

    def _corner(self) -> QPoint:
        """The corner of the canvas where the minimap covers the fewest nodes (bottom right
        when it covers none there): centred on a node, a fixed corner hid its neighbours."""
        w, h = self.width(), self.height()
        viewport = self.main.viewport().geometry()
        left, top = viewport.left() + _MARGIN, viewport.top() + _MARGIN
        right, bottom = viewport.right() - w - _MARGIN, viewport.bottom() - h - _MARGIN
        corners = [
            QPoint(right, bottom),
            QPoint(left, bottom),
            QPoint(right, top),
            QPoint(left, top),
        ]
        scene = self.source
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

    def graph_bounds(self, items: QRectF | None = None) -> QRectF:
        """The whole graph's bounding rectangle, as the minimap shows it (scene units);
        ``items`` is the scene's items' rectangle when the caller has it (at 2,000 DAGs
        each measure costs tens of milliseconds)."""
        scene = self.source
        if scene is None:
            return QRectF()
        bounds = scene.itemsBoundingRect() if items is None else items
        return QRectF() if bounds.isNull() else bounds.adjusted(-30, -30, 30, 30)

    def refresh(self) -> None:
        """Fit the whole graph, and show only when it does not fit the main view.

        While the canvas view is not on screen (a document being built) nothing is
        measured: the view's zoom, fit and scroll bars asked a dozen times, at a tenth
        of a second each for 2,000 DAGs; the view's Show event refreshes once.
        """
        if not self.main.isVisible():
            self._pending = True
            return
        self._pending = False
        scene = self.source
        if scene is None:
            self.hide()
            return
        if not shiboken6.isValid(scene):
            # the scene is being torn down (the scroll bars still signal): its kept bounds
            # would answer without Qt and the corner search would ask a deleted index
            return
        bounds = scene.itemsBoundingRect()
        if bounds.isNull():
            self.hide()
            return
        visible = self.main.mapToScene(self.main.viewport().rect()).boundingRect()
        # a few pixels of a node's shadow cut at the edge are no reason to cover the canvas
        slack = _SLACK_PX / max(self.main.transform().m11(), 1e-6)
        needed = not visible.adjusted(-slack, -slack, slack, slack).contains(bounds)
        self.setVisible(self.enabled_by_user and needed)
        # not isVisible(): while the window (or the canvas's pane) is still hidden the
        # minimap is not visible either, was never fitted, and showed a meaningless
        # 1:1 fragment of a 2,000-DAG graph once the window appeared
        if not self.isHidden():
            placed = (visible, bounds, self.main.viewport().size())
            if placed != self._placed:  # the corner search asks the scene's index 4 times
                self._placed = placed
                corner = self._corner()
                if corner != self.pos():
                    self.move(corner)
            self._fit(self.graph_bounds(bounds))
            self.viewport().update()

    def _fit(self, bounds: QRectF | None = None, *, force: bool = False) -> None:
        """Scale to the whole graph (again when the viewport's size changed: before the
        first show it is not yet its own), and redraw the picture when the graph changed."""
        if bounds is None:
            bounds = self.graph_bounds()
        own = self.scene()
        if bounds.isNull() or self.isHidden() or own is None:
            return
        size = self.viewport().size()
        if force or (bounds, size) != self._fitted:
            self._fitted = (bounds, size)
            own.setSceneRect(bounds)
            self.fitInView(bounds, Qt.AspectRatioMode.KeepAspectRatio)
        if (
            force
            or self._picture is None
            or bounds != self._picture_bounds
            or self._picture_size != size
        ):
            # drawn when next painted: the swap to a 2,000-DAG document resized the
            # minimap twice, and each size drew the whole schematic again
            self._redraw_due = bounds
            self.viewport().update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.main and event.type() == QEvent.Type.Show and self._pending:
            self.refresh()
        return super().eventFilter(watched, event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _source_changed(self, *_: object) -> None:
        if not self.isHidden():
            self._stale.start()  # a drag moves a node every event: redraw once it rests

    def _redraw(self, bounds: QRectF | None = None, *, repaint: bool = True) -> None:
        """Draw the schematic of the whole graph into the cached picture (``repaint``:
        and have it painted; not while it is being painted)."""
        if bounds is None:
            bounds = self.graph_bounds()
        self._picture_bounds = bounds
        if bounds.isNull():
            self._picture = None
            return
        self._picture_size = self.viewport().size()
        size = QSizeF(bounds.size()).scaled(
            QSizeF(self.viewport().size()), Qt.AspectRatioMode.KeepAspectRatio
        )
        ratio = self.devicePixelRatioF()
        picture = QPixmap(max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio)))
        picture.setDevicePixelRatio(ratio)
        colors = getattr(self.source, "colors", None)
        picture.fill(colors.background if colors is not None else QColor("white"))
        painter = QPainter(picture)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            scale = size.width() / bounds.width()
            painter.scale(scale, scale)
            painter.translate(-bounds.topLeft())
            self._paint_schematic(painter, scale)
        finally:
            painter.end()
        self._picture = picture
        if repaint:
            self.viewport().update()

    def _paint_schematic(self, painter: QPainter, scale: float) -> None:
        scene = self.source
        colors = getattr(scene, "colors", None)
        edge = QColor(colors.edge) if colors is not None else QColor("#888888")
        edge.setAlpha(150)
        painter.setPen(QPen(edge, 1.0 / scale))  # one pixel whatever the scale
        for item in getattr(scene, "edges", {}).values():
            if item.isVisible():
                path = item.path()
                painter.drawLine(
                    item.mapToScene(path.pointAtPercent(0.0)),
                    item.mapToScene(path.pointAtPercent(1.0)),
                )
        painter.setPen(Qt.PenStyle.NoPen)
        for node in getattr(scene, "nodes", {}).values():
            if not node.isVisible():
                continue
            kind = getattr(getattr(node, "view", None), "kind", "dag")
            painter.setBrush(colors.accent(kind) if colors is not None else QColor("#4a6fa5"))
            rect = node.sceneBoundingRect()
            # never thinner than a pixel and a half: a node must not vanish at 1:60
            least = 1.5 / scale
            painter.drawRect(
                QRectF(rect.topLeft(), QSizeF(max(rect.width(), least), max(rect.height(), least)))
            )

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        due, self._redraw_due = self._redraw_due, None
        if due is not None:
            self._redraw(due, repaint=False)
        colors = getattr(self.source, "colors", None)
        if colors is not None:
            painter.fillRect(rect, colors.background)
        if self._picture is not None and not self._picture_bounds.isNull():
            painter.drawPixmap(
                self._picture_bounds,
                self._picture,
                QRectF(QPointF(0, 0), QSizeF(self._picture.size())),
            )

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        colors = getattr(self.source, "colors", None)
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
