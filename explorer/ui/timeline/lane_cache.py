"""A picture of a lane item kept between repaints, redrawn lane by lane where its data changed.

A clock step changes the runs of a few lanes (a run created, started or ended, the
clock extending the running ones), yet the timeline's runs and events were drawn
whole on every repaint: ~8 ms of the runs item and ~2 ms of the events item out of
a step's 50 ms budget (at 200 DAGs, 60 days in). An item with a
:class:`LaneCache` keeps its picture of the view (device pixels) and is told which
lanes its data changed (:meth:`LaneCache.invalidate`); the next paint clears the
strips of those lanes and draws again only the lanes that reach into them, then
copies the picture. A change of view (pan, zoom, resize, style) redraws it whole.

A strip is the lane's band widened by the item's ``margin_px`` (what a mark may
draw beyond its lane: an outline's pen, a ring, a label), and every lane whose own
widened band reaches into the strip is drawn into it, in the item's usual order, so
the strip holds exactly what a whole redraw would put there.

Only on-screen (raster) painting uses the picture: an SVG or PDF export draws the
item itself, so its text and bars stay vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable

from PySide6 import QtCore, QtGui

from explorer.ui.timeline.paint_cache import device_area, raster

__all__ = ["LaneCache", "LaneRange", "strips"]

#: Ranges of lanes ``(first, last)``, both included, to draw; None: every lane in view.
LaneRange = tuple[tuple[int, int], ...] | None

#: Below this lane height (device pixels) a change redraws the whole picture: lanes so
#: thin share pixel rows, and a strip would save nothing.
MIN_LANE_PX = 6.0


def strips(dirty: Iterable[int], reach: int) -> list[tuple[int, int]]:
    """Dirty lanes grouped into ranges ``(first, last)``; ranges whose redrawn lanes
    (``reach`` lanes either side) would overlap are merged, so no lane is drawn twice."""
    ranges: list[tuple[int, int]] = []
    for lane in sorted(set(dirty)):
        if ranges and lane - ranges[-1][1] <= 2 * reach + 1:
            ranges[-1] = (ranges[-1][0], lane)
        else:
            ranges.append((lane, lane))
    return ranges


class LaneCache:
    """One item's picture of its view, and the lanes whose strips must be drawn again."""

    def __init__(self) -> None:
        self._key: Hashable | None = None
        self._pixmap: QtGui.QPixmap | None = None
        self._origin = QtCore.QPoint(0, 0)
        #: Lanes changed since the picture was drawn; None: the whole picture.
        self._dirty: set[int] | None = None
        #: Whole redraws so far, and the lane ranges the last redraw drew strip by strip
        #: (tests and benchmarks read them: a step that changes one lane draws one range).
        self.full_draws = 0
        self.strip_draws: list[tuple[int, int]] = []

    def clear(self) -> None:
        """Draw the whole picture again at the next paint."""
        self._dirty = None

    def invalidate(self, lanes: Iterable[int]) -> None:
        """Draw these lanes again at the next paint (the rest is copied)."""
        if self._dirty is not None:
            self._dirty.update(int(lane) for lane in lanes)

    @property
    def pending(self) -> set[int] | None:
        """The lanes waiting to be drawn again (None: all of them)."""
        return None if self._dirty is None else set(self._dirty)

    def paint(
        self,
        painter: QtGui.QPainter,
        area: QtCore.QRectF,
        key: Hashable,
        draw: Callable[[QtGui.QPainter, LaneRange], None],
        margin: Callable[[float], float],
    ) -> None:
        """Paint ``draw``'s picture of ``area`` (item coordinates, lanes 1 unit apart).

        ``draw(painter, lanes)`` draws the given lanes (every lane for None) with the
        painter's transform mapping item coordinates as ``painter``'s does;
        ``margin(lane_px)``: how far (device pixels) a lane's drawing may pass the edges
        of its band, 0 or less when it stays inside.
        """
        if not raster(painter):
            draw(painter, None)
            return
        placed = device_area(painter, area)
        if placed is None:
            return
        device, ratio = placed
        t = transform = painter.transform()
        full_key = (key, t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy(), device, ratio)
        lane_px = abs(t.m22())
        whole = (
            self._pixmap is None
            or self._dirty is None
            or full_key != self._key
            or t.m12() != 0
            or t.m21() != 0
            or lane_px < MIN_LANE_PX
        )
        if whole:
            self._pixmap = self._redraw(transform, device, ratio, draw)
            self._origin = device.topLeft()
            self._key = full_key
            self._dirty = set()
        elif self._dirty:
            assert self._pixmap is not None
            self._redraw_lanes(self._pixmap, transform, device, draw, margin(lane_px))
            self._dirty = set()
        assert self._pixmap is not None
        painter.save()
        painter.resetTransform()
        painter.drawPixmap(self._origin, self._pixmap)
        painter.restore()

    @staticmethod
    def _begin(
        pixmap: QtGui.QPixmap, transform: QtGui.QTransform, device: QtCore.QRect
    ) -> QtGui.QPainter:
        inner = QtGui.QPainter(pixmap)
        inner.setTransform(transform * QtGui.QTransform.fromTranslate(-device.x(), -device.y()))
        # hatch patterns line up with the device's pixel grid, as when drawn directly
        inner.setBrushOrigin(QtCore.QPointF(-device.x(), -device.y()))
        return inner

    def _redraw(
        self,
        transform: QtGui.QTransform,
        device: QtCore.QRect,
        ratio: float,
        draw: Callable[[QtGui.QPainter, LaneRange], None],
    ) -> QtGui.QPixmap:
        self.full_draws += 1
        self.strip_draws = []
        pixmap = self._pixmap
        size = QtCore.QSize(
            max(1, math.ceil(device.width() * ratio)), max(1, math.ceil(device.height() * ratio))
        )
        if pixmap is None or pixmap.size() != size or pixmap.devicePixelRatio() != ratio:
            pixmap = QtGui.QPixmap(size)
            pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(QtCore.Qt.GlobalColor.transparent)
        inner = self._begin(pixmap, transform, device)
        try:
            draw(inner, None)
        finally:
            inner.end()
        return pixmap

    def _redraw_lanes(
        self,
        pixmap: QtGui.QPixmap,
        transform: QtGui.QTransform,
        device: QtCore.QRect,
        draw: Callable[[QtGui.QPainter, LaneRange], None],
        margin_px: float,
    ) -> None:
        """Clear the strips of the dirty lanes and draw every lane that reaches into them."""
        assert self._dirty is not None
        self.strip_draws = []
        lane_px = abs(transform.m22())
        # a lane draws within its band widened by margin_px (+1 for the strip's rounding):
        # lanes this many lanes away from a strip may reach into it. With no margin every
        # lane stays inside its band: a strip is then the pixel rows whose centres lie in
        # its lanes' bands, which no other lane's drawing covers.
        reach = math.ceil((2 * margin_px + 1) / lane_px) if margin_px > 0 else 0
        bounds = QtCore.QRect(0, 0, device.width(), device.height())
        region = QtGui.QRegion()
        ranges = []
        for first, last in strips(self._dirty, reach):
            ys = sorted(
                (
                    transform.m22() * (first - 0.5) + transform.dy(),
                    transform.m22() * (last + 0.5) + transform.dy(),
                )
            )
            if reach:
                top = math.floor(ys[0] - margin_px) - device.y()
                bottom = math.ceil(ys[1] + margin_px) - device.y()
            else:
                top = round(ys[0]) - device.y()
                bottom = round(ys[1]) - device.y()
            strip = QtCore.QRect(0, top, device.width(), bottom - top).intersected(bounds)
            if not strip.isEmpty():
                region = region.united(strip)
                ranges.append((first - reach, last + reach))
        if not ranges:
            return
        self.strip_draws = ranges
        inner = self._begin(pixmap, transform, device)
        try:
            # one pass for every strip: each drawing call costs the same for few marks
            base = inner.transform()
            inner.setTransform(QtGui.QTransform())
            inner.setClipRegion(region)
            inner.setCompositionMode(QtGui.QPainter.CompositionMode.CompositionMode_Clear)
            inner.fillRect(bounds, QtCore.Qt.GlobalColor.transparent)  # the clip: the strips
            inner.setCompositionMode(QtGui.QPainter.CompositionMode.CompositionMode_SourceOver)
            inner.setTransform(base)
            draw(inner, tuple(ranges))
        finally:
            inner.end()
