"""The canvas's graphics items: DAG, asset, alias, ``Asset.ref`` and gate nodes, and edges.

Items only draw a :class:`~explorer.document.nodes.NodeView` and tell where their
ports are; they never touch the model. A node's position is its centre (the
file's ``layout`` stores centres). Colours come from the active palette
(:func:`explorer.ui.theme.canvas_colors`). Zoomed far out (the minimap, a
500-node overview) items draw a plain shape without text, so painting stays
cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from explorer.document.nodes import (
    ASSET_HEIGHT,
    DAG_HEADER,
    PARTITION_LINE,
    TASK_ROW,
    WATCHER_LINE,
    EdgeView,
    NodeView,
    node_size,
)
from explorer.ui.theme import CanvasColors

__all__ = [
    "AssetItem",
    "DagItem",
    "EdgeItem",
    "GateItem",
    "NodeItem",
    "Port",
    "make_node_item",
]

PORT_RADIUS = 5.5
#: How close (scene units at 100 %) a press must be to a port to start a connection.
PORT_HIT = 11.0
_LOD_TEXT = 0.4

NODE_Z = 10.0
EDGE_Z = 1.0


@dataclass(frozen=True, slots=True)
class Port:
    """A connection point: ``in`` (left: outlets arrive, schedules are fed) or ``out`` (right)."""

    node_id: str
    side: Literal["in", "out"]
    task_id: str | None = None


def _font(size_delta: float = 0.0, bold: bool = False) -> QFont:
    font = QFont()
    if font.pointSizeF() > 0:
        font.setPointSizeF(font.pointSizeF() + size_delta)
    font.setBold(bold)
    return font


def _lod(painter: QPainter, option: QStyleOptionGraphicsItem) -> float:
    return option.levelOfDetailFromTransform(painter.worldTransform())


class NodeItem(QGraphicsItem):
    """Base of every node: selection, moves, ports, edges that follow."""

    def __init__(self, view: NodeView, colors: CanvasColors) -> None:
        super().__init__()
        self.colors = colors
        self.edges: list[EdgeItem] = []
        self.view = view
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
            | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
        )
        self.setAcceptHoverEvents(True)
        self.setZValue(NODE_Z)
        # a node is painted once into a pixmap at the view's scale and blitted after that: a
        # drag repaints the nodes under every edge it moves (texts elided, ports, badges),
        # which was most of a drag's time on a 200-DAG canvas. ``update()`` (a new view, a
        # badge, hover, selection) paints it again.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._hover_port: Port | None = None
        self._highlight = False
        self._size = self.measure()
        #: Live state at the simulation clock (DAG nodes): (label, tone, detail), or None.
        self.live: tuple[str, str, str] | None = None
        self._live_cache: tuple[tuple[str, tuple[float, float]], QRectF] | None = None
        #: :meth:`boundingRect`, kept until the size or the badge changes: Qt asks every
        #: item's bounds at every repaint and the scene's bounds walk every node after a
        #: drag; measured each time that was most of a 200-DAG drag's Python time.
        self._bounds: QRectF | None = None
        self.setToolTip(view.tooltip)

    @property
    def node_id(self) -> str:
        return self.view.node_id

    # ----------------------------------------------------------------- content
    def set_view(self, view: NodeView) -> None:
        if view is self.view or view == self.view:
            return
        self.prepareGeometryChange()
        self._forget_scene_bounds()
        self.view = view
        self._size = self.measure()
        self._bounds = None
        self._update_tooltip()
        for edge in self.edges:
            edge.adjust()
        self.update()

    def set_live(self, live: tuple[str, str, str] | None) -> None:
        """The badge under the node: ``(label, tone, detail)``; tone is one of
        ``running``, ``failed``, ``waiting``, ``ok``, ``idle``."""
        if live == self.live:
            return
        self.prepareGeometryChange()
        self._forget_scene_bounds()
        self.live = live
        self._bounds = None
        self._update_tooltip()
        self.update()

    def _update_tooltip(self) -> None:
        tip = self.view.tooltip
        if self.live is not None:
            tip = f"{tip}\n\nAt the clock: {self.live[2]}" if tip else self.live[2]
        self.setToolTip(tip)

    def live_rect(self) -> QRectF | None:
        """The badge's box; measured once per label and size (Qt asks for the bounds of
        every item in view at every repaint)."""
        if self.live is None:
            return None
        key = (self.live[0], self._size)
        cached = self._live_cache
        if cached is not None and cached[0] == key:
            return QRectF(cached[1])
        r = self.body()
        width = QFontMetricsF(_font(-1, bold=True)).horizontalAdvance(self.live[0]) + 18
        rect = QRectF(r.left() + 8, r.bottom() + 4, min(max(width, 40.0), 420.0), 20)
        self._live_cache = (key, rect)
        return QRectF(rect)

    def set_colors(self, colors: CanvasColors) -> None:
        self.colors = colors
        self.update()

    def set_highlight(self, on: bool) -> None:
        """Marked as a valid (or invalid) drop target during a connection drag."""
        if on != self._highlight:
            self._highlight = on
            self.update()

    def measure(self) -> tuple[float, float]:
        return node_size(self.view)

    def body(self) -> QRectF:
        w, h = self._size
        return QRectF(-w / 2, -h / 2, w, h)

    def boundingRect(self) -> QRectF:
        bounds = self._bounds
        if bounds is None:
            bounds = self._bounds = self.measure_bounds()
        return QRectF(bounds)

    def measure_bounds(self) -> QRectF:
        """The body, its ports and the live badge (:meth:`boundingRect` keeps the result)."""
        m = PORT_RADIUS + 3
        bounds = self.body().adjusted(-m, -m, m, m)
        live = self.live_rect()
        return bounds if live is None else bounds.united(live.adjusted(-1, -1, 1, 1))

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self.body(), 8, 8)
        for port in self.ports():
            path.addEllipse(self.port_pos(port), PORT_RADIUS + 2, PORT_RADIUS + 2)
        return path

    # ----------------------------------------------------------------- ports
    def ports(self) -> list[Port]:
        return [Port(self.node_id, "in"), Port(self.node_id, "out")]

    def port_pos(self, port: Port) -> QPointF:
        r = self.body()
        return QPointF(r.left() if port.side == "in" else r.right(), 0.0)

    def scene_port_pos(self, port: Port) -> QPointF:
        return self.mapToScene(self.port_pos(port))

    def port_at(self, scene_pos: QPointF, reach: float = PORT_HIT) -> Port | None:
        local = self.mapFromScene(scene_pos)
        best: tuple[float, Port] | None = None
        for port in self.ports():
            d = (self.port_pos(port) - local).manhattanLength()
            if d <= reach and (best is None or d < best[0]):
                best = (d, port)
        return None if best is None else best[1]

    # ----------------------------------------------------------------- Qt hooks
    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: object) -> object:
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionChange:
            moving = getattr(self.scene(), "node_moving", None)
            if moving is not None:
                moving(self)
        elif change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            for edge in self.edges:
                edge.adjust()
            moved = getattr(self.scene(), "node_moved", None)
            if moved is not None:
                moved(self)
        elif change == QGraphicsItem.GraphicsItemChange.ItemVisibleHasChanged:
            self._forget_scene_bounds()
        return super().itemChange(change, value)

    def _forget_scene_bounds(self) -> None:
        """The scene keeps its items' bounds between changes (ScenarioScene.itemsBoundingRect)."""
        resized = getattr(self.scene(), "node_resized", None)
        if resized is not None:
            resized(self)

    def hoverMoveEvent(self, event: object) -> None:
        port = self.port_at(event.scenePos())  # type: ignore[attr-defined]
        if port != self._hover_port:
            self._hover_port = port
            self.setCursor(
                Qt.CursorShape.CrossCursor if port is not None else Qt.CursorShape.ArrowCursor
            )
            self.update()

    def hoverLeaveEvent(self, event: object) -> None:
        self._hover_port = None
        self.unsetCursor()
        self.update()

    # ----------------------------------------------------------------- painting
    def border_pen(self) -> QPen:
        c = self.colors
        if self.isSelected():
            return QPen(c.selection, 3.0)
        if self._highlight:
            return QPen(c.selection, 2.5, Qt.PenStyle.DashLine)
        pen = QPen(c.accent(self.view.kind), 1.6)
        if self.view.pending:
            pen.setStyle(Qt.PenStyle.DashLine)
        return pen

    def paint_ports(self, painter: QPainter) -> None:
        c = self.colors
        for port in self.ports():
            hot = port == self._hover_port
            painter.setPen(QPen(c.port, 1.4))
            painter.setBrush(QBrush(c.selection if hot else c.fill))
            radius = PORT_RADIUS + (1.5 if hot else 0.0)
            painter.drawEllipse(self.port_pos(port), radius, radius)

    def paint_problem_badge(self, painter: QPainter) -> None:
        if not self.view.problems:
            return
        r = self.body()
        center = QPointF(r.right() - 4, r.top() + 4)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.colors.problem)
        painter.drawEllipse(center, 8, 8)
        painter.setPen(QPen(QColor("white")))
        painter.setFont(_font(-1, bold=True))
        painter.drawText(
            QRectF(center.x() - 8, center.y() - 8, 16, 16), Qt.AlignmentFlag.AlignCenter, "!"
        )

    def paint_live_badge(self, painter: QPainter) -> None:
        rect = self.live_rect()
        if rect is None or self.live is None:
            return
        label, tone, _ = self.live
        fill = self.colors.live_tone(tone)
        painter.setPen(QPen(fill.darker(130), 1.0))
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 10, 10)
        ink = QColor("#111418") if fill.lightness() > 150 else QColor("#ffffff")
        self._text(
            painter,
            rect.adjusted(9, 0, -7, 0),
            label,
            _font(-1, bold=True),
            ink,
            Qt.AlignmentFlag.AlignCenter,
        )

    def paint_simple(self, painter: QPainter) -> None:
        painter.setPen(self.border_pen())
        painter.setBrush(self.colors.accent(self.view.kind))
        painter.drawRoundedRect(self.body(), 8, 8)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if _lod(painter, option) < _LOD_TEXT:
            self.paint_simple(painter)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.paint_body(painter)
        self.paint_ports(painter)
        self.paint_problem_badge(painter)
        self.paint_live_badge(painter)

    def paint_body(self, painter: QPainter) -> None:
        raise NotImplementedError

    def _text(
        self,
        painter: QPainter,
        rect: QRectF,
        text: str,
        font: QFont,
        color: QColor,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
    ) -> None:
        metrics = QFontMetricsF(font)
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        painter.setFont(font)
        painter.setPen(color)
        painter.drawText(rect, int(align), elided)


class DagItem(NodeItem):
    """A DAG: dag_id, its schedule in words, one row per task with its outlet port."""

    HEADER = DAG_HEADER
    ROW = TASK_ROW

    def _rows_top(self) -> float:
        return self.body().top() + self.HEADER + (PARTITION_LINE if self.view.partition else 0.0)

    def ports(self) -> list[Port]:
        ports = [Port(self.node_id, "in")]
        ports += [Port(self.node_id, "out", t.task_id) for t in self.view.tasks]
        return ports

    def port_pos(self, port: Port) -> QPointF:
        r = self.body()
        if port.side == "in":
            return QPointF(r.left(), r.top() + self.HEADER / 2)
        index = next((i for i, t in enumerate(self.view.tasks) if t.task_id == port.task_id), 0)
        return QPointF(r.right(), self._rows_top() + (index + 0.5) * self.ROW)

    def paint_body(self, painter: QPainter) -> None:
        c, r, v = self.colors, self.body(), self.view
        accent = c.accent("dag")
        painter.setPen(self.border_pen())
        painter.setBrush(c.fill)
        painter.drawRoundedRect(r, 8, 8)
        header = QRectF(r.left(), r.top(), r.width(), self.HEADER)
        clip = QPainterPath()
        clip.addRoundedRect(r, 8, 8)
        painter.save()
        painter.setClipPath(clip)
        painter.fillRect(header, c.header)
        painter.fillRect(QRectF(r.left(), r.top(), 5, r.height()), accent)
        painter.restore()
        pad = 12.0
        badge = "paused" if v.paused else (v.subtitle or "DAG")  # subtitle: @asset shorthand
        badge_width = 60.0 if len(badge) <= 7 else 84.0
        title_rect = QRectF(r.left() + pad, r.top() + 4, r.width() - 2 * pad - badge_width, 22)
        self._text(painter, title_rect, v.title, _font(1, bold=True), c.text)
        kind_rect = QRectF(r.right() - pad - badge_width, r.top() + 4, badge_width, 22)
        self._text(
            painter,
            kind_rect,
            badge,
            _font(-1.5),
            c.muted,
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
        )
        chip_font = _font(-1)
        chip_w = min(
            r.width() - 2 * pad, QFontMetricsF(chip_font).horizontalAdvance(v.chip or "–") + 16
        )
        chip = QRectF(r.left() + pad, r.top() + 27, chip_w, 18)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(c.chip_fill)
        painter.drawRoundedRect(chip, 9, 9)
        self._text(painter, chip.adjusted(8, 0, -6, 0), v.chip or "–", chip_font, c.chip_text)
        top = r.top() + self.HEADER
        if v.partition:
            part = QRectF(r.left() + pad, top + 1, r.width() - 2 * pad, 18)
            self._text(painter, part, f"◈ {v.partition}", _font(-1.5), c.accent("gate"))
            top += 20.0
        row_font, small = _font(-0.5), _font(-1.5)
        if not v.tasks:
            self._text(
                painter,
                QRectF(r.left() + pad, top, r.width() - 2 * pad, self.ROW),
                "no tasks",
                small,
                c.muted,
            )
        for i, task in enumerate(v.tasks):
            y = top + i * self.ROW
            if i:
                painter.setPen(QPen(c.grid, 1))
                painter.drawLine(QPointF(r.left() + pad, y), QPointF(r.right() - pad, y))
            label = (
                task.task_id if task.outcome == "success" else f"{task.task_id} ({task.outcome})"
            )
            self._text(
                painter,
                QRectF(r.left() + pad, y, r.width() * 0.62, self.ROW),
                label,
                row_font,
                c.text,
            )
            self._text(
                painter,
                QRectF(r.right() - pad - 70, y, 62, self.ROW),
                task.duration,
                small,
                c.muted,
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            )


class AssetItem(NodeItem):
    """An asset (name and normalized uri), an ``AssetAlias`` or an ``Asset.ref``."""

    def border_pen(self) -> QPen:
        pen = super().border_pen()
        if not self.isSelected() and not self._highlight:
            if self.view.kind == "alias":
                pen.setStyle(Qt.PenStyle.DashLine)
            elif self.view.kind == "ref":
                pen.setStyle(Qt.PenStyle.DotLine)
                pen.setWidthF(2.0)
        return pen

    def paint_body(self, painter: QPainter) -> None:
        c, r, v = self.colors, self.body(), self.view
        accent = c.accent(v.kind)
        painter.setOpacity(0.75 if v.pending else 1.0)
        painter.setPen(self.border_pen())
        painter.setBrush(c.fill)
        painter.drawRoundedRect(r, 14, 14)
        clip = QPainterPath()
        clip.addRoundedRect(r, 14, 14)
        painter.save()
        painter.setClipPath(clip)
        painter.fillRect(QRectF(r.left(), r.top(), 6, r.height()), accent)
        painter.restore()
        pad = 14.0
        kind_word = {"asset": "Asset", "alias": "AssetAlias", "ref": "Asset.ref"}.get(v.kind, "")
        title = QRectF(r.left() + pad, r.top() + 5, r.width() - 2 * pad - 58, 22)
        self._text(painter, title, v.title, _font(0.5, bold=True), c.text)
        self._text(
            painter,
            QRectF(r.right() - pad - 66, r.top() + 5, 62, 22),
            kind_word,
            _font(-2),
            accent,
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
        )
        sub = v.subtitle if v.kind != "alias" else ("not used yet" if v.pending else "")
        if v.kind == "ref":
            sub = f"{v.subtitle}" + (" · not used yet" if v.pending else "")
        self._text(
            painter,
            QRectF(r.left() + pad, r.top() + 27, r.width() - 2 * pad, 20),
            sub,
            _font(-1.5),
            c.muted,
        )
        for i, line in enumerate(v.watchers):
            y = r.top() + ASSET_HEIGHT - 4 + i * WATCHER_LINE
            self._text(
                painter,
                QRectF(r.left() + pad, y, r.width() - 2 * pad, WATCHER_LINE),
                f"◉ watcher {line}",
                _font(-1.5),
                accent,
            )
        painter.setOpacity(1.0)


class GateItem(NodeItem):
    """An AND (``all``) or OR (``any``) of a consumer's condition."""

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addEllipse(self.body())
        for port in self.ports():
            path.addEllipse(self.port_pos(port), PORT_RADIUS + 2, PORT_RADIUS + 2)
        return path

    def paint_simple(self, painter: QPainter) -> None:
        painter.setPen(self.border_pen())
        painter.setBrush(self.colors.accent("gate"))
        painter.drawEllipse(self.body())

    def paint_body(self, painter: QPainter) -> None:
        c, r = self.colors, self.body()
        accent = c.accent("gate")
        painter.setPen(self.border_pen() if self.isSelected() else QPen(accent, 2.2))
        fill = QColor(accent)
        fill.setAlpha(40)
        painter.setBrush(c.fill)
        painter.drawEllipse(r)
        painter.setBrush(fill)
        painter.drawEllipse(r)
        self._text(
            painter, r, self.view.title, _font(0, bold=True), c.text, Qt.AlignmentFlag.AlignCenter
        )


class UnresolvedItem(AssetItem):
    """Something the scenario names but that cannot be read (a problem to fix)."""

    def border_pen(self) -> QPen:
        if self.isSelected():
            return QPen(self.colors.selection, 3.0)
        return QPen(self.colors.problem, 2.0, Qt.PenStyle.DashLine)


def make_node_item(view: NodeView, colors: CanvasColors) -> NodeItem:
    if view.kind == "dag":
        return DagItem(view, colors)
    if view.kind == "gate":
        return GateItem(view, colors)
    if view.kind == "unresolved":
        return UnresolvedItem(view, colors)
    return AssetItem(view, colors)


class EdgeItem(QGraphicsPathItem):
    """An outlet (task -> asset), a condition input, an alias emission or a ref resolution."""

    def __init__(
        self, view: EdgeView, source: NodeItem, target: NodeItem, colors: CanvasColors
    ) -> None:
        super().__init__()
        self.view = view
        self.source = source
        self.target = target
        self.colors = colors
        self._hover = False
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(EDGE_Z)
        source.edges.append(self)
        target.edges.append(self)
        self.setToolTip(self._tooltip())
        self.adjust()

    def _tooltip(self) -> str:
        v, s, t = self.view, self.source.view.title, self.target.view.title
        if v.kind == "outlet":
            return f"outlet: task {v.task_id} of {s} writes {t} (select and press Delete to remove)"
        if v.kind == "input":
            into = f"{self.target.view.title} gate" if self.target.view.kind == "gate" else t
            return f"input: {s} feeds {into} (select and press Delete to remove)"
        if v.kind == "emits":
            return f"alias {s} adds {t} when its task succeeds (alias_events, AS-9)"
        return f"{t} resolves to {s} (AS-10)"

    def detach(self) -> None:
        for node in (self.source, self.target):
            if self in node.edges:
                node.edges.remove(self)

    def set_colors(self, colors: CanvasColors) -> None:
        self.colors = colors
        self.update()

    def endpoints(self) -> tuple[QPointF, QPointF]:
        v = self.view
        source_port = Port(self.source.node_id, "out", v.task_id if v.kind == "outlet" else None)
        return (
            self.source.scene_port_pos(source_port),
            self.target.scene_port_pos(Port(self.target.node_id, "in")),
        )

    def adjust(self) -> None:
        """Follow the nodes: the path, its bounds and the arrow's tip are computed here,
        once a move, not in every paint (a repaint of a big canvas paints every edge)."""
        start, end = self.endpoints()
        self._tip = QPointF(end.x() - PORT_RADIUS - 1, end.y())
        self.prepareGeometryChange()
        self.setPath(curve(start, self._tip))
        self._bounds = self.path().boundingRect().adjusted(-10, -10, 10, 10)

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(12)
        return stroker.createStroke(self.path())

    def boundingRect(self) -> QRectF:
        return self._bounds

    def hoverEnterEvent(self, event: object) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event: object) -> None:
        self._hover = False
        self.update()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        c, kind = self.colors, self.view.kind
        color = c.edge
        if kind == "outlet":
            color = c.accent("asset")
        elif kind == "emits":
            color = c.accent("alias")
        if self.isSelected():
            color = c.selection
        width = 3.2 if self.isSelected() or self._hover else 1.8
        pen = QPen(color, width)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        if kind == "emits":
            pen.setStyle(Qt.PenStyle.DashLine)
        elif kind == "resolves":
            pen.setStyle(Qt.PenStyle.DotLine)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path())
        end = self._tip
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawPolygon(
            QPolygonF([end, QPointF(end.x() - 10, end.y() - 5), QPointF(end.x() - 10, end.y() + 5)])
        )


def curve(start: QPointF, end: QPointF) -> QPainterPath:
    """A left-to-right cubic from an out port to an in port."""
    path = QPainterPath(start)
    dx = max(40.0, abs(end.x() - start.x()) * 0.5)
    path.cubicTo(QPointF(start.x() + dx, start.y()), QPointF(end.x() - dx, end.y()), end)
    return path
