"""Asset events and the few pen-drawn marks (next-run ghosts, window members, links).

Events are many and batched like runs (:mod:`.batch`); the overlay marks are
few (one ghost per DAG, the members of pending partition keys, the events of
the selected run), so they are drawn with pens, one call each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6 import QtCore, QtGui

from explorer.document.timeline.timebase import fmt_span
from explorer.ui.timeline.batch import DECIMATE_ABOVE, DeviceMap
from explorer.ui.timeline.items import DeviceItem
from explorer.ui.timeline.lane_cache import LaneRange
from explorer.ui.timeline.style import qcolor

__all__ = ["BoxMark", "DoomMark", "EventsItem", "GhostMark", "LinkMark", "OverlayItem"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
_EMPTY_F: FloatArray = np.zeros(0)
_EMPTY_I: IntArray = np.zeros(0, dtype=np.int32)


class EventsItem(DeviceItem):
    """Asset events as ticks on asset lanes, coloured by source; highlighted ones ringed.

    Most steps add an event, to one asset lane: the picture is kept and only the
    lanes whose events changed are drawn again (:mod:`.lane_cache`).
    """

    cached = False
    lane_cached = True
    wide_bounds = True
    lane_margin_px = 4.0  # the highlight's pen

    def __init__(self) -> None:
        super().__init__()
        self.t = _EMPTY_F
        self.lane = _EMPTY_F
        self.source = _EMPTY_I
        self.wrote = _EMPTY_I
        self.highlight: IntArray = _EMPTY_I

    def set_events(
        self, t: FloatArray, lane: FloatArray, source: IntArray, wrote: IntArray
    ) -> None:
        """Show these events (copied: the caller's columns may change in place); only
        the lanes of rows that differ from the events shown are drawn again."""
        old_t, old_lane, old_source, old_wrote = self.t, self.lane, self.source, self.wrote
        keep = min(old_t.size, t.size)
        differs = (
            (old_t[:keep] != t[:keep])
            | (old_lane[:keep] != lane[:keep])
            | (old_source[:keep] != source[:keep])
            | (old_wrote[:keep] != wrote[:keep])
        )
        first = int(np.argmax(differs)) if differs.any() else keep
        if first == t.size == old_t.size:
            return  # a step that emitted no event: nothing to repaint
        self.t, self.lane = np.array(t, dtype=np.float64), np.array(lane, dtype=np.float64)
        self.source, self.wrote = np.array(source), np.array(wrote)
        shown = lane >= 0
        if shown.any():
            self._set_bounds(
                float(t[shown].min()), float(t[shown].max()), -0.5, float(lane[shown].max()) + 0.5
            )
        lanes = np.concatenate([old_lane[first:], self.lane[first:]])
        self.update_lanes({int(x) for x in np.unique(lanes).tolist() if x >= 0})

    def set_highlight(self, rows: Sequence[int]) -> None:
        highlight = np.asarray(list(rows), dtype=np.int32)
        if np.array_equal(highlight, self.highlight):
            return  # a step re-selects the selected run: the same rings
        lanes = {self._lane_of(row) for row in (*self.highlight.tolist(), *highlight.tolist())}
        self.highlight = highlight
        self.update_lanes(lane for lane in lanes if lane is not None)

    def _lane_of(self, row: int) -> int | None:
        if 0 <= row < self.lane.size and self.lane[row] >= 0:
            return int(self.lane[row])
        return None

    def draw_lanes(self, painter: QtGui.QPainter, lanes: LaneRange) -> None:
        if self.t.size == 0:
            return
        dm = self._begin(painter)
        if dm is None:
            return
        try:
            s = self.style
            pad = 8 * dm.px
            vis = (
                (self.lane >= 0)
                & (self.lane >= dm.ymin - 1)
                & (self.lane <= dm.ymax + 1)
                & (self.t >= dm.xmin - pad)
                & (self.t <= dm.xmax + pad)
            )
            # decided for the whole view, so that a few lanes drawn again look the same
            self._batch.decimate = int(np.count_nonzero(vis)) > DECIMATE_ABOVE
            if lanes is not None:
                vis &= np.any([(self.lane >= a) & (self.lane <= b) for a, b in lanes], axis=0)
            width = s.mark_px + 1.5
            for code, colour in enumerate(s.source_colours):
                for wrote, c in ((1, colour), (0, s.no_data)):
                    sub = vis & (self.source == code) & (self.wrote == wrote)
                    if sub.any():
                        x = dm.x(self.t[sub])
                        self._batch.fill(
                            painter,
                            c,
                            x - width / 2,
                            x + width / 2,
                            dm.y(self.lane[sub] - 0.40),
                            dm.y(self.lane[sub] + 0.40),
                            min_width=width,
                        )
            if self.highlight.size:
                painter.setPen(QtGui.QPen(QtGui.QColor(s.selection), 2))
                painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                for row in self.highlight:
                    lane = self._lane_of(int(row))
                    if lane is None or (
                        lanes is not None and not any(a <= lane <= b for a, b in lanes)
                    ):
                        continue
                    pt = dm.point(float(self.t[row]), float(self.lane[row]))
                    half = abs(dm.sy) * 0.46
                    painter.drawRect(QtCore.QRectF(pt.x() - 5, pt.y() - half, 10, 2 * half))
        finally:
            self._batch.decimate = None
            painter.restore()


@dataclass(frozen=True, slots=True)
class GhostMark:
    """A run the next-run cache promises: dashed interval and run_after (data coords)."""

    lane: float
    x0: float
    x1: float
    run_after: float
    #: An injected override waits for this run: 2 it will fail, 1 something else, 0 none.
    injected: int = 0


@dataclass(frozen=True, slots=True)
class DoomMark:
    """A queued or running run an injected override will still change."""

    lane: float
    x0: float
    x1: float
    fails: bool


@dataclass(frozen=True, slots=True)
class BoxMark:
    """A partition window member: ``status`` 0 arrived, 1 pending, 2 can never arrive."""

    lane: float
    x: float
    status: int
    slot: int  # stacking position inside the lane's lower band


@dataclass(frozen=True, slots=True)
class LinkMark:
    """A line from a consumed event to the run that consumed it (data coords)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str = ""


def _lanes_of(mark: GhostMark | BoxMark | LinkMark | DoomMark) -> range:
    """The lanes a mark is drawn on (a link: every lane between its two ends)."""
    if isinstance(mark, LinkMark):
        low, high = sorted((mark.y0, mark.y1))
    else:
        low = high = mark.lane
    if not (math.isfinite(low) and math.isfinite(high)):
        return range(0)
    return range(math.floor(low), math.ceil(high) + 1)


class OverlayItem(DeviceItem):
    """Few, pen-drawn marks: next-run ghosts, window-member boxes, consumed-event links."""

    #: The ghosts move with the clock on most steps, and they are few: drawn each time.
    cached = False
    wide_bounds = True

    def __init__(self) -> None:
        super().__init__()
        self.ghosts: list[GhostMark] = []
        self.boxes: list[BoxMark] = []
        self.links: list[LinkMark] = []
        self.doomed: list[DoomMark] = []

    def set_marks(
        self,
        ghosts: list[GhostMark] | None = None,
        boxes: list[BoxMark] | None = None,
        links: list[LinkMark] | None = None,
        doomed: list[DoomMark] | None = None,
    ) -> None:
        same = (
            (doomed is None or doomed == self.doomed)
            and (ghosts is None or ghosts == self.ghosts)
            and (boxes is None or boxes == self.boxes)
            and (links is None or links == self.links)
        )
        if same:  # the marks a step re-reads are often the ones drawn: keep the picture
            return
        before: tuple[list[Any], ...] = (self.ghosts, self.boxes, self.links, self.doomed)
        if doomed is not None:
            self.doomed = doomed
        if ghosts is not None:
            self.ghosts = ghosts
        if boxes is not None:
            self.boxes = boxes
        if links is not None:
            self.links = links
        xs = [g.x0 for g in self.ghosts] + [g.run_after for g in self.ghosts]
        xs += [b.x for b in self.boxes] + [link.x0 for link in self.links]
        xs += [link.x1 for link in self.links]
        xs = [x for x in xs if math.isfinite(x)]
        ys = [g.lane for g in self.ghosts] + [b.lane for b in self.boxes]
        ys += [link.y0 for link in self.links] + [link.y1 for link in self.links]
        bounds = self._bounds
        if xs and ys:
            self._set_bounds(min(xs), max(xs) + 1, min(ys) - 0.5, max(ys) + 0.5)
        if self._bounds != bounds:
            self.update()
            return
        # only the lanes of marks that came or went are repainted (a step moves a ghost or two)
        after: tuple[list[Any], ...] = (self.ghosts, self.boxes, self.links, self.doomed)
        lanes: set[int] = set()
        for old, new in zip(before, after, strict=True):
            for mark in set(old) ^ set(new):
                lanes.update(_lanes_of(mark))
        self.repaint_lanes(lanes)

    def draw(self, painter: QtGui.QPainter) -> None:
        dm = self._begin(painter)
        if dm is None:
            return
        try:
            self._paint_ghosts(painter, dm)
            self._paint_doomed(painter, dm)
            self._paint_boxes(painter, dm)
            self._paint_links(painter, dm)
        finally:
            painter.restore()

    def _paint_ghosts(self, p: QtGui.QPainter, dm: DeviceMap) -> None:
        s = self.style
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt * 0.85)
        font.setItalic(True)
        p.setFont(font)
        pen = QtGui.QPen(QtGui.QColor(s.ghost), max(1.0, s.mark_px / 2))
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        for g in self.ghosts:
            if g.run_after < dm.xmin - 1e9 or not (dm.ymin - 1 <= g.lane <= dm.ymax + 1):
                continue
            y0, y1 = sorted((float(dm.y(g.lane - 0.36)), float(dm.y(g.lane - 0.08))))
            p.setPen(pen)
            if math.isfinite(g.x0) and math.isfinite(g.x1):
                x0, x1 = float(dm.x(g.x0)), float(dm.x(g.x1))
                rect = QtCore.QRectF(x0, y0, max(x1 - x0, 2.0), y1 - y0)
                p.drawRect(rect)
                text = f"next: {fmt_span(timedelta(seconds=g.x1 - g.x0))}"
                if g.x1 > g.x0 and rect.width() > p.fontMetrics().horizontalAdvance(text) + 12:
                    p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)
            xa = float(dm.x(g.run_after))
            top, bottom = sorted((float(dm.y(g.lane - 0.44)), float(dm.y(g.lane + 0.44))))
            p.drawLine(QtCore.QPointF(xa, top), QtCore.QPointF(xa, bottom))
            if g.injected:
                self._paint_injected(p, dm, g, xa, top, bottom)
                p.setFont(font)

    def _injected_colour(self, fails: bool) -> QtGui.QColor:
        return qcolor(self.style.state_colours[3] if fails else self.style.run_after)

    def _paint_injected(
        self, p: QtGui.QPainter, dm: DeviceMap, g: GhostMark, xa: float, top: float, bottom: float
    ) -> None:
        """A future run an injected override waits for: hatched, outlined in the failed
        colour at its run_after, labelled, so the failure is seen before it happens."""
        colour = self._injected_colour(g.injected == 2)
        if math.isfinite(g.x0) and math.isfinite(g.x1):
            x0, x1 = sorted((float(dm.x(g.x0)), xa))
        else:
            x0, x1 = xa - 7, xa
        rect = QtCore.QRectF(x0, top, max(x1 - x0, 7.0), bottom - top)
        p.setBrush(QtGui.QBrush(colour, QtCore.Qt.BrushStyle.BDiagPattern))
        p.setPen(QtGui.QPen(colour, max(2.0, self.style.mark_px), QtCore.Qt.PenStyle.DashLine))
        p.drawRect(rect)
        p.setPen(QtGui.QPen(colour, max(2.0, self.style.mark_px)))
        p.drawLine(QtCore.QPointF(xa, top), QtCore.QPointF(xa, bottom))
        font = QtGui.QFont()
        font.setPointSizeF(self.style.font_pt * 0.85)
        font.setBold(True)
        p.setFont(font)
        text = "✗ will fail" if g.injected == 2 else "✎ injected"
        width = p.fontMetrics().horizontalAdvance(text) + 8
        label = QtCore.QRectF(xa + 3, top, width, p.fontMetrics().height() + 2)
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(qcolor("#ffffffe0"))
        p.drawRect(label)
        p.setPen(colour)
        p.drawText(label, QtCore.Qt.AlignmentFlag.AlignCenter, text)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)

    def _paint_doomed(self, p: QtGui.QPainter, dm: DeviceMap) -> None:
        for d in self.doomed:
            if not (dm.ymin - 1 <= d.lane <= dm.ymax + 1) or not math.isfinite(d.x0):
                continue
            colour = self._injected_colour(d.fails)
            x0 = float(dm.x(d.x0))
            x1 = float(dm.x(d.x1)) if math.isfinite(d.x1) else x0
            top, bottom = sorted((float(dm.y(d.lane - 0.44)), float(dm.y(d.lane + 0.44))))
            rect = QtCore.QRectF(x0 - 2, top, max(x1 - x0, 3.0) + 4, bottom - top)
            p.setBrush(QtGui.QBrush(colour, QtCore.Qt.BrushStyle.BDiagPattern))
            p.setPen(QtGui.QPen(colour, max(2.0, self.style.mark_px), QtCore.Qt.PenStyle.DashLine))
            p.drawRect(rect)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)

    def _paint_boxes(self, p: QtGui.QPainter, dm: DeviceMap) -> None:
        s = self.style
        lane_px = abs(dm.sy)
        size = max(6.0, min(14.0, lane_px * 0.28))
        for b in self.boxes:
            if not (dm.ymin - 1 <= b.lane <= dm.ymax + 1):
                continue
            centre = dm.point(b.x, b.lane + 0.26)
            rect = QtCore.QRectF(
                centre.x() - size / 2 + b.slot * 0.0, centre.y() - size / 2, size, size
            )
            colour = QtGui.QColor(s.box_colours[b.status])
            p.setPen(QtGui.QPen(colour.darker(140), 1))
            p.setBrush(colour if b.status != 1 else QtGui.QColor(colour.lighter(150)))
            p.drawRect(rect)
            if b.status == 2:  # can never arrive: crossed out
                p.setPen(QtGui.QPen(QtGui.QColor("#ffffff"), 1.5))
                p.drawLine(rect.topLeft(), rect.bottomRight())
                p.drawLine(rect.topRight(), rect.bottomLeft())

    def _paint_links(self, p: QtGui.QPainter, dm: DeviceMap) -> None:
        if not self.links:
            return
        pen = QtGui.QPen(QtGui.QColor(self.style.link), max(1.5, self.style.mark_px * 0.75))
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        for link in self.links:
            p.drawLine(dm.point(link.x0, link.y0), dm.point(link.x1, link.y1))
        labelled = [link for link in self.links if link.text]
        if not labelled or len(labelled) > 60:
            return
        font = QtGui.QFont()
        font.setPointSizeF(self.style.font_pt * 0.85)
        font.setBold(True)
        p.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        for link in labelled:
            a, b = dm.point(link.x0, link.y0), dm.point(link.x1, link.y1)
            width = metrics.horizontalAdvance(link.text) + 8
            if abs(b.x() - a.x()) < width * 0.6 and abs(b.y() - a.y()) < metrics.height():
                continue
            centre = (a + b) / 2
            rect = QtCore.QRectF(
                centre.x() - width / 2,
                centre.y() - metrics.height() / 2 - 1,
                width,
                metrics.height() + 2,
            )
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(qcolor("#ffffffe0"))
            p.drawRect(rect)
            p.setPen(qcolor(self.style.link))
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, link.text)
