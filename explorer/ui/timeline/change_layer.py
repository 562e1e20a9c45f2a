"""What a deployment change did, drawn on the main timeline.

The marks come from :mod:`explorer.engine.change_marks` (the one behavioural
diff, ADR 0009, of the scenario against itself without its change actions);
this layer only draws them on the DAG lanes and finds the one under the mouse:

- a dashed vertical line at each change instant, labelled with what changed;
- ``skipped``: a red hatched box over the time no run covers any more;
- ``run_twice``: an orange hatched box over the time covered twice;
- ``shifted``: a purple arrow from where the run was to where it is;
- ``catchup``: a teal bracket from run_after to the run's creation at the change;
- ``added`` / ``removed``: a green ``+`` / a grey ``×`` at the run_after;
- ``events_dropped`` / ``events_kept``: a dashed line from the queue row to the
  deploy, ending in a red ``✕`` / a green ``✓``;
- ``stale``: a grey band over the lane while a removed file freezes the DAG.

Each mark carries a short label in a pill at the top of its lane (drawn when it
does not cover another); the full sentence with its DEP rule is the tooltip.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from explorer.document.timeline.timebase import fmt_local, zone_of
from explorer.engine.change_marks import (
    ChangeMark,
    DeployChange,
    DeployReport,
    change_instants,
    marks_between,
)
from explorer.engine.errors import EngineError
from explorer.scenario.build import EngineInputs
from explorer.ui.timeline.batch import DeviceMap
from explorer.ui.timeline.items import DeviceItem

__all__ = [
    "COLOURS",
    "ChangeLayer",
    "ChangeMarksItem",
    "PlacedMark",
    "deploy_report_of",
    "mark_html",
]

#: One colour per kind (also the legend's).
COLOURS: dict[str, str] = {
    "skipped": "#c62828",
    "run_twice": "#e65100",
    "shifted": "#6a1b9a",
    "catchup": "#00838f",
    "added": "#2e7d32",
    "removed": "#616161",
    "events_dropped": "#c62828",
    "events_kept": "#2e7d32",
    "stale": "#757575",
}
_DEPLOY = "#00695c"
#: Where each kind is drawn inside its lane (lane units around the lane's centre).
_BANDS: dict[str, tuple[float, float]] = {
    "skipped": (-0.40, -0.04),
    "run_twice": (-0.40, -0.04),
    "stale": (-0.48, 0.48),
    "shifted": (-0.5, -0.41),
    "added": (-0.5, -0.41),
    "removed": (-0.5, -0.41),
    "catchup": (0.38, 0.5),
    "events_dropped": (0.05, 0.35),
    "events_kept": (0.05, 0.35),
}


@dataclass(frozen=True, slots=True)
class PlacedMark:
    """A mark on a lane (data coordinates: x in epoch seconds, y the lane index)."""

    mark: ChangeMark
    lane: float
    x0: float
    x1: float


def mark_html(mark: ChangeMark, zone_name: str) -> str:
    """The tooltip / explain text of a mark: title, sentence, rule."""
    zone = zone_of(zone_name)
    text = mark.explain(lambda t: fmt_local(t, zone))
    colour = COLOURS.get(mark.kind, "#333")
    return (
        f"<b style='color:{colour}'>{mark.title()}</b> — {mark.label}<br>"
        f"{text}.<br><i>Change at {fmt_local(mark.change.at, zone)}: {mark.change.label}</i>"
        f" · rule <b>{mark.rule}</b>"
    )


def deploy_report_of(inputs: EngineInputs, until: datetime) -> tuple[DeployReport | None, str]:
    """The marks of ``inputs``' change actions up to ``until``, or why there are none."""
    if not change_instants(inputs.script):
        return None, ""
    from explorer.analysis.deploy_marks import deploy_report_for

    try:
        return deploy_report_for(inputs, until), ""
    except EngineError as exc:  # the simulation without the change cannot run: say so
        return None, f"No deploy marks: the scenario without its changes fails ({exc})"


class ChangeMarksItem(DeviceItem):
    """Pen-drawn change marks (few: one per changed run at most)."""

    #: Its paint records where the labels went (``label_rects``, for picking): drawn
    #: every time, so those are viewport pixels and not a cached picture's.
    cached = False

    def __init__(self) -> None:
        super().__init__()
        self.placed: list[PlacedMark] = []
        self.selected: ChangeMark | None = None
        #: Device rectangles of the labels drawn last (for picking a label).
        self.label_rects: list[tuple[QtCore.QRectF, ChangeMark]] = []

    def set_marks(self, placed: list[PlacedMark]) -> None:
        if placed == self.placed:
            return  # a step that reached no new mark: the view need not be repainted
        self.placed = placed
        if placed:
            self._set_bounds(
                min(p.x0 for p in placed),
                max(p.x1 for p in placed) + 1,
                min(p.lane for p in placed) - 0.5,
                max(p.lane for p in placed) + 0.5,
            )
        self.update()

    def set_selected(self, mark: ChangeMark | None) -> None:
        self.selected = mark
        self.update()

    def draw(self, painter: QtGui.QPainter) -> None:
        self.label_rects = []
        if not self.placed:
            return
        dm = self._begin(painter)
        if dm is None:
            return
        try:
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
            shown = [
                p
                for p in self.placed
                if dm.ymin - 1 <= p.lane <= dm.ymax + 1
                and p.x1 >= dm.xmin - 60 * dm.px
                and p.x0 <= dm.xmax + 60 * dm.px
            ]
            for p in sorted(shown, key=lambda p: p.mark.kind != "stale"):
                self._paint(painter, dm, p)
            self._paint_labels(painter, dm, shown)
        finally:
            painter.restore()

    # ------------------------------------------------------------------ shapes
    def _paint(self, p: QtGui.QPainter, dm: DeviceMap, placed: PlacedMark) -> None:
        mark = placed.mark
        colour = QtGui.QColor(COLOURS.get(mark.kind, "#333"))
        lane = placed.lane
        x0, x1 = float(dm.x(placed.x0)), float(dm.x(placed.x1))
        width = max(self.style.mark_px, 1.5)
        selected = self.selected is not None and self.selected == mark
        pen = QtGui.QPen(colour, width * (2 if selected else 1))
        if mark.kind in ("skipped", "run_twice"):
            top, bottom = sorted((float(dm.y(lane - 0.40)), float(dm.y(lane - 0.04))))
            rect = QtCore.QRectF(x0, top, max(x1 - x0, 3.0), bottom - top)
            fill = QtGui.QColor(colour)
            fill.setAlpha(60)
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawRect(rect)
            p.setBrush(QtGui.QBrush(colour, QtCore.Qt.BrushStyle.BDiagPattern))
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawRect(rect)
        elif mark.kind == "stale":
            top, bottom = sorted((float(dm.y(lane - 0.48)), float(dm.y(lane + 0.48))))
            rect = QtCore.QRectF(x0, top, max(x1 - x0, 3.0), bottom - top)
            fill = QtGui.QColor(colour)
            fill.setAlpha(45)
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawRect(rect)
            hatch = QtGui.QColor(colour)
            hatch.setAlpha(120)
            p.setBrush(QtGui.QBrush(hatch, QtCore.Qt.BrushStyle.FDiagPattern))
            p.drawRect(rect)
        elif mark.kind == "shifted":
            y = float(dm.y(lane - 0.455))
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(QtCore.QPointF(x0, y), QtCore.QPointF(x1, y))
            toward = mark.toward.timestamp() if mark.toward else placed.x1
            tip = x1 if abs(toward - placed.x1) <= abs(toward - placed.x0) else x0
            back = -7.0 if tip == x1 else 7.0
            p.setPen(QtGui.QPen(colour, width))
            p.setBrush(colour)
            p.drawPolygon(
                QtGui.QPolygonF(
                    [
                        QtCore.QPointF(tip, y),
                        QtCore.QPointF(tip + back, y - 4),
                        QtCore.QPointF(tip + back, y + 4),
                    ]
                )
            )
        elif mark.kind == "catchup":
            y = float(dm.y(lane + 0.46))
            p.setPen(pen)
            p.drawLine(QtCore.QPointF(x0, y), QtCore.QPointF(x1, y))
            p.drawLine(QtCore.QPointF(x1, y - 4), QtCore.QPointF(x1, y))
            self._glyph(p, x0, y, "↻", colour)  # due here, created at the change (x1)
        elif mark.kind in ("events_dropped", "events_kept"):
            y = float(dm.y(lane + 0.2))
            pen.setStyle(QtCore.Qt.PenStyle.DotLine)
            p.setPen(pen)
            p.drawLine(QtCore.QPointF(x0, y), QtCore.QPointF(x1, y))
            self._glyph(p, x1, y, "✕" if mark.kind == "events_dropped" else "✓", colour)
        elif mark.kind in ("added", "removed"):
            y = float(dm.y(lane - 0.455))
            self._glyph(p, x0, y, "+" if mark.kind == "added" else "×", colour)

    def _glyph(
        self, p: QtGui.QPainter, x: float, y: float, text: str, colour: QtGui.QColor
    ) -> None:
        font = QtGui.QFont()
        font.setPointSizeF(self.style.font_pt * 1.1)
        font.setBold(True)
        p.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        w, h = metrics.horizontalAdvance(text) + 4, metrics.height()
        rect = QtCore.QRectF(x - w / 2, y - h / 2, w, h)
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(QtGui.QColor("#ffffffd0"))
        p.drawRect(rect)
        p.setPen(colour)
        p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)

    def _paint_labels(self, p: QtGui.QPainter, dm: DeviceMap, shown: Sequence[PlacedMark]) -> None:
        """A pill per mark at the top of its lane, left to right, skipped where it would
        cover another label (the tooltip still says it)."""
        font = QtGui.QFont()
        font.setPointSizeF(self.style.font_pt * 0.85)
        font.setBold(True)
        p.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        height = metrics.height() + 2
        taken: list[QtCore.QRectF] = []
        left = float(dm.x(dm.xmin))
        for placed in sorted(shown, key=lambda q: (q.lane, q.x0)):
            mark = placed.mark
            width = metrics.horizontalAdvance(mark.label) + 10
            x0, x1 = float(dm.x(placed.x0)), float(dm.x(placed.x1))
            centre = (x0 + x1) / 2
            top = float(min(dm.y(placed.lane - 0.5), dm.y(placed.lane + 0.5))) + 1
            if mark.kind in ("catchup", "stale"):
                top = float(max(dm.y(placed.lane - 0.5), dm.y(placed.lane + 0.5))) - height - 1
            elif mark.kind in ("skipped", "run_twice"):  # inside its box
                top = float(dm.y(placed.lane - 0.22)) - height / 2
            rect = QtCore.QRectF(max(centre - width / 2, left + 2), top, width, height)
            if any(rect.intersects(other) for other in taken):
                continue
            taken.append(rect)
            colour = QtGui.QColor(COLOURS.get(mark.kind, "#333"))
            p.setPen(QtGui.QPen(colour, 1))
            p.setBrush(QtGui.QColor("#fffffff0"))
            p.drawRoundedRect(rect, 4, 4)
            p.setPen(colour)
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, mark.label)
            self.label_rects.append((rect, mark))


class ChangeLayer:
    """The change marks and the deploy lines of one timeline's view box."""

    def __init__(self, viewbox: pg.ViewBox) -> None:
        self.viewbox = viewbox
        self.item = ChangeMarksItem()
        self.item.setZValue(-4.5)
        viewbox.addItem(self.item, ignoreBounds=True)
        self.report: DeployReport | None = None
        self.lines: list[pg.InfiniteLine] = []
        self.placed: list[PlacedMark] = []
        self.zone_name = "UTC"

    # ------------------------------------------------------------------ API
    def set_report(self, report: DeployReport | None) -> None:
        self.report = report
        for line in self.lines:
            self.viewbox.removeItem(line)
        self.lines = []
        if report is not None:
            for change in report.changes:
                self.lines.append(self._line(change))
        self.place_labels()

    def place_labels(self) -> None:
        """Each deploy line's label on the side of the line with room (right half: left)."""
        (x0, x1), _ = self.viewbox.viewRange()
        for line in self.lines:
            anchor = (1, 0) if line.value() > (x0 + x1) / 2 else (0, 0)
            line.label.anchors = [anchor, anchor]
            line.label.updatePosition()

    def changes(self) -> tuple[DeployChange, ...]:
        return () if self.report is None else self.report.changes

    def show(self, now: datetime, lanes: Mapping[str, int]) -> None:
        """Draw the marks the clock has reached, on the lanes shown."""
        placed = []
        if self.report is not None:
            for mark in marks_between(self.report.marks, now):
                lane = lanes.get(mark.dag_id)
                if lane is not None:
                    placed.append(
                        PlacedMark(mark, float(lane), mark.start.timestamp(), mark.end.timestamp())
                    )
        self.placed = placed
        self.item.set_marks(placed)

    def set_zone(self, zone_name: str) -> None:
        self.zone_name = zone_name

    def mark_at(
        self, x: float, y: float, tolerance: float, *, label_pos: QtCore.QPointF | None = None
    ) -> ChangeMark | None:
        """The mark under (x, y): a label pill first, else the narrowest span on that lane."""
        if label_pos is not None:
            for rect, mark in self.item.label_rects:
                if rect.contains(label_pos):
                    return mark
        lane = math.floor(y + 0.5)
        within = y - lane
        hits = [
            p
            for p in self.placed
            if p.lane == lane
            and p.x0 - tolerance <= x <= p.x1 + tolerance
            and _BANDS[p.mark.kind][0] - 0.04 <= within <= _BANDS[p.mark.kind][1] + 0.04
        ]
        if not hits:
            return None
        return min(hits, key=lambda p: p.x1 - p.x0).mark

    def marks_of_run(self, dag_id: str, run_id: str) -> list[ChangeMark]:
        return [] if self.report is None else self.report.marks_of_run(dag_id, run_id)

    # ------------------------------------------------------------------ internals
    def _line(self, change: DeployChange) -> pg.InfiniteLine:
        line = pg.InfiniteLine(
            pos=change.at.timestamp(),
            angle=90,
            movable=False,
            pen=pg.mkPen(_DEPLOY, width=2, style=QtCore.Qt.PenStyle.DashLine),
            label=f" {change.label} ",
            labelOpts={
                "position": 0.04,
                "color": _DEPLOY,
                "fill": "#ffffffe8",
                "anchors": [(0, 0), (0, 0)],
            },
        )
        font = QtGui.QFont()
        font.setBold(True)
        line.label.setFont(font)
        line.setZValue(8)
        line.setToolTip(f"Change deployed at {change.at.isoformat()}: {change.label}")
        self.viewbox.addItem(line, ignoreBounds=True)
        return line
