"""A pyqtgraph plot set up for time lanes: zone/UTC time axes, lane names, x-only wheel zoom.

Shared by the timeline and the compare pane so they read and behave alike.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from explorer.ui.timeline.axes import LaneAxis, TimeAxis
from explorer.ui.timeline.style import TimelineStyle

__all__ = ["TimePlot"]


class _ViewBox(pg.ViewBox):  # type: ignore[misc]
    """Wheel zooms time only; Shift+wheel scrolls lanes; no pyqtgraph context menu."""

    def wheelEvent(self, ev: QtWidgets.QGraphicsSceneWheelEvent, axis: int | None = None) -> None:
        if ev.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier:
            (y0, y1) = self.viewRange()[1]
            step = (y1 - y0) * 0.15 * (-1 if ev.delta() > 0 else 1)
            self.setYRange(y0 + step, y1 + step, padding=0)
            ev.accept()
            return
        super().wheelEvent(ev, axis=0)


class TimePlot(pg.PlotWidget):  # type: ignore[misc]
    """Lanes top to bottom (y inverted), display-zone axis below, UTC above."""

    def __init__(self, style: TimelineStyle, parent: QtWidgets.QWidget | None = None) -> None:
        self.bottom_axis = TimeAxis("bottom", label_zone="UTC", tick_zone="UTC")
        self.top_axis = TimeAxis("top", label_zone="UTC", tick_zone="UTC")
        self.lane_axis = LaneAxis()
        self.viewbox = _ViewBox()
        super().__init__(
            parent,
            viewBox=self.viewbox,
            axisItems={"bottom": self.bottom_axis, "top": self.top_axis, "left": self.lane_axis},
            background=style.background,
        )
        item = self.getPlotItem()
        item.showAxis("top")
        item.hideButtons()
        item.setMenuEnabled(False)
        self.viewbox.setMenuEnabled(False)
        self.viewbox.invertY(True)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.apply_style(style)

    def grid_lines(self, x0: float, x1: float, width_px: float) -> tuple[list[float], list[float]]:
        """Major and minor tick instants of the lower axis (the grid drawn behind the lanes)."""
        levels = self.bottom_axis.tickValues(x0, x1, width_px)
        major = levels[0][1] if levels else []
        minor = levels[1][1] if len(levels) > 1 else []
        return major, minor

    def set_zone(self, name: str) -> None:
        """Lower axis labelled in ``name``; upper axis in UTC at the same (round, local) ticks."""
        self.bottom_axis.set_zones(label_zone=name, tick_zone=name)
        self.top_axis.set_zones(label_zone="UTC", tick_zone=name)

    def set_lanes(self, labels: list[str]) -> None:
        self.lane_axis.set_labels(labels)

    def apply_style(self, style: TimelineStyle) -> None:
        self.setBackground(style.background)
        font = QtGui.QFont()
        font.setPointSize(style.axis_font_pt)
        for axis in (self.bottom_axis, self.top_axis, self.lane_axis):
            axis.setStyle(tickFont=font)
            axis.setTextPen(pg.mkPen(style.foreground))
            axis.setPen(pg.mkPen(style.foreground))
        bold = QtGui.QFont(font)
        bold.setBold(True)
        self.lane_axis.setStyle(tickFont=bold)
        self.lane_axis.set_labels(self.lane_axis.labels)
        height = QtGui.QFontMetrics(font).height()
        self.top_axis.setHeight(int(height * 2.4))
        self.bottom_axis.setHeight(int(height * 2.6))
