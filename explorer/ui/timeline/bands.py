"""Behind the runs: alternating lane stripes and DST days as shaded bands.

The band covers the whole local day that DST reshapes (23 h or 25 h), with a
line at the instant the offset changes. The labels are a second instance
drawn *above* the runs (``labels=True``), at the bottom of the view, so that
no lane's bars can hide them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtGui

from explorer.document.timeline.dst import DstTransition
from explorer.ui.timeline.items import DeviceItem
from explorer.ui.timeline.style import qcolor

__all__ = ["BOTTOM_STRIP", "TOP_STRIP", "BandsItem", "paused_label_x"]

#: Lane units kept free above lane 0 (DST labels) and below the last lane (the clock's label).
TOP_STRIP = 0.6
BOTTOM_STRIP = 0.5


def paused_label_x(
    start: float, end: float, left: float, right: float, width: float
) -> float | None:
    """Where the "paused" label of a span from ``start`` to ``end`` (pixels) goes in a view
    from ``left`` to ``right``: inside the span and the view, or nowhere. A span that ended
    before the view starts has no label (it read "paused" on days after the unpause)."""
    x = max(start, left) + 4
    if x + width > min(end, right):
        return None
    return x


class BandsItem(DeviceItem):
    def __init__(self, *, labels: bool = False) -> None:
        super().__init__()
        self.labels = labels
        self.lane_count = 0
        self.transitions: list[DstTransition] = []
        #: (lane, start x, end x or None = up to the clock, clock x): paused DAGs.
        self.paused: list[tuple[float, float, float]] = []
        #: Where the vertical grid lines go: (x0, x1, width px) -> (major, minor) instants.
        self.grid_source: Callable[[float, float, float], tuple[list[float], list[float]]] | None
        self.grid_source = None

    def set_bands(self, lane_count: int, transitions: list[DstTransition]) -> None:
        self.lane_count = lane_count
        self.transitions = transitions
        # Stripes and hatches span every x: the bounds are the whole usable epoch range.
        self._set_bounds(-1e11, 1e11, -1.0, max(lane_count, 1) + 1.0)
        self.update()

    def set_paused(self, spans: list[tuple[float, float, float]]) -> None:
        """Lanes of paused DAGs are hatched from the pause to the unpause (or the clock)."""
        if spans == self.paused:  # a step that paused nothing: keep the picture
            return
        self.paused = spans
        self.update()

    def draw(self, painter: QtGui.QPainter) -> None:
        dm = self._begin(painter)
        if dm is None:
            return
        try:
            if self.labels:
                self._paint_labels(painter, dm)
            else:
                self._paint_bands(painter, dm)
        finally:
            painter.restore()

    def _span(self, dm: object) -> tuple[float, float, float, float]:
        from explorer.ui.timeline.batch import DeviceMap

        assert isinstance(dm, DeviceMap)
        left, right = float(dm.x(dm.xmin)), float(dm.x(dm.xmax))
        top = float(min(dm.y(dm.ymin), dm.y(dm.ymax)))
        bottom = float(max(dm.y(dm.ymin), dm.y(dm.ymax)))
        return left, right, top, bottom

    def _paint_bands(self, painter: QtGui.QPainter, dm: object) -> None:
        from explorer.ui.timeline.batch import DeviceMap

        assert isinstance(dm, DeviceMap)
        s = self.style
        left, right, top, bottom = self._span(dm)
        first = max(0, math.floor(dm.ymin))
        last = min(self.lane_count - 1, math.ceil(dm.ymax))
        stripes = np.arange(first - first % 2 + 1, last + 1, 2, dtype=np.float64)
        if stripes.size:
            self._batch.fill(
                painter,
                s.stripe,
                np.full(stripes.size, left),
                np.full(stripes.size, right),
                dm.y(stripes - 0.5),
                dm.y(stripes + 0.5),
            )
        hatch = QtGui.QBrush(qcolor(s.ghost), QtCore.Qt.BrushStyle.BDiagPattern)
        for lane, start, end in self.paused:
            if not (dm.ymin - 1 <= lane <= dm.ymax + 1):
                continue
            a, b = float(dm.x(start)), float(dm.x(end))
            y0, y1 = sorted((float(dm.y(lane - 0.5)), float(dm.y(lane + 0.5))))
            painter.fillRect(QtCore.QRectF(a, y0, max(b - a, 2), y1 - y0), hatch)
        if self.grid_source is not None:
            # Grid lines as 1 px rectangles in one batch each: the axis's own grid (long
            # semi-transparent lines, one call each) cost a third of a pan.
            major, minor = self.grid_source(dm.xmin, dm.xmax, max(right - left, 1.0))
            for values, colour in ((minor, s.stripe), (major, s.grid)):
                if values:
                    xs = np.floor(dm.x(np.asarray(values, dtype=np.float64)))
                    self._batch.fill(
                        painter, colour, xs, xs + 1, np.full(xs.size, top), np.full(xs.size, bottom)
                    )
        for tr in self.transitions:
            x0 = float(dm.x(tr.day_start.timestamp()))
            x1 = float(dm.x(tr.day_end.timestamp()))
            if x1 < left - 2 or x0 > right + 2:
                continue
            painter.fillRect(QtCore.QRectF(x0, top, x1 - x0, bottom - top), qcolor(s.dst_band))
            xt = float(dm.x(tr.at.timestamp()))
            painter.fillRect(QtCore.QRectF(xt - 1, top, 2, bottom - top), qcolor(s.dst_line))

    def _paint_labels(self, painter: QtGui.QPainter, dm: object) -> None:
        from explorer.ui.timeline.batch import DeviceMap

        assert isinstance(dm, DeviceMap)
        s = self.style
        left, right, top, _ = self._span(dm)
        # The strip above lane 0 (TOP_STRIP lane units, see the pane) holds the labels;
        # scrolled away, they stay at the top of the view.
        strip = float(dm.y(-0.5 - TOP_STRIP / 2))
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt)
        font.setBold(True)
        painter.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        width = metrics.horizontalAdvance("paused")
        for lane, start, end in self.paused:
            x = paused_label_x(float(dm.x(start)), float(dm.x(end)), left, right, width)
            if x is not None and dm.ymin - 0.5 <= lane <= dm.ymax + 0.5:
                painter.setPen(qcolor(s.ghost))
                painter.drawText(QtCore.QPointF(x, float(dm.y(lane + 0.45)) - 2), "paused")
        for i, tr in enumerate(self.transitions):
            x0 = float(dm.x(tr.day_start.timestamp()))
            x1 = float(dm.x(tr.day_end.timestamp()))
            if x1 < left - 2 or x0 > right + 2:
                continue
            room = min(x1, right) - max(x0, left) - 8
            text = tr.label
            if metrics.horizontalAdvance(text) > room:
                text = tr.title
            if metrics.horizontalAdvance(text) > room + 40:
                continue
            width = metrics.horizontalAdvance(text) + 10
            height = metrics.height() + 4
            y = max(strip, top + height / 2 + 1) - height / 2 + (i % 2) * height
            rect = QtCore.QRectF(max(x0, left) + 4, y, width, height)
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(qcolor("#fffdf2e6"))
            painter.drawRoundedRect(rect, 3, 3)
            painter.setPen(qcolor(s.dst_text))
            painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)
