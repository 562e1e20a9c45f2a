"""A picture of an item, kept until the item or its view changes: repaints that change
nothing it shows cost one pixmap copy.

A simulation step repaints the timeline's whole view (the runs item spans it), and Qt
then paints every item under that region again: the axes, the lane stripes, the grid,
the DST days and the events, although a step rarely changes any of them (~20 ms of
unchanged drawing a step). Each such item keeps the pixels it drew
last, keyed on everything its drawing depends on besides its data (the painter's
transform, the visible range, the pixel ratio): a key that differs, or
:meth:`PaintCache.clear` (called by the item's ``update``, which every data setter
calls), redraws it.

Only on-screen (raster) painting uses the cache: an SVG or PDF export draws the item
itself, so its text and bars stay vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable

from PySide6 import QtCore, QtGui

__all__ = ["PaintCache", "device_area", "raster"]


def raster(painter: QtGui.QPainter) -> bool:
    """The painter draws pixels (a screen, an image): a kept picture may stand in.
    SVG and PDF exports draw the items themselves, as vectors and text."""
    engine = painter.paintEngine()
    return engine is not None and engine.type() == QtGui.QPaintEngine.Type.Raster


def device_area(painter: QtGui.QPainter, area: QtCore.QRectF) -> tuple[QtCore.QRect, float] | None:
    """The device pixels ``area`` (item coordinates) covers, cut to the device, and the
    device's pixel ratio; None when none of it is on the device.

    A pen drawn on the edge of ``area`` (an axis's tick ends there) reaches a pixel
    beyond it, and a direct paint is not clipped to the area: 2 pixels of margin.
    """
    device = painter.transform().mapRect(area).toAlignedRect().adjusted(-2, -2, 2, 2)
    target = painter.device()
    if target is not None:
        device = device.intersected(QtCore.QRect(0, 0, target.width(), target.height()))
    if device.isEmpty():
        return None
    return device, (target.devicePixelRatioF() if target is not None else 1.0)


class PaintCache:
    """One item's last picture (device pixels) and the key it was drawn for."""

    def __init__(self) -> None:
        self._key: Hashable | None = None
        self._pixmap: QtGui.QPixmap | None = None
        self._origin = QtCore.QPoint(0, 0)
        #: How many times the item was really drawn (tests and benchmarks read it).
        self.draws = 0

    def clear(self) -> None:
        self._key = None
        self._pixmap = None

    def paint(
        self,
        painter: QtGui.QPainter,
        area: QtCore.QRectF,
        key: Hashable,
        draw: Callable[[QtGui.QPainter], None],
    ) -> None:
        """Paint ``draw``'s picture of ``area`` (item coordinates), redrawn when ``key`` changes.

        ``draw`` gets a painter whose transform maps item coordinates to the
        picture exactly as ``painter``'s maps them to the device.
        """
        if not raster(painter):
            self.draws += 1
            draw(painter)
            return
        placed = device_area(painter, area)
        if placed is None:
            return
        device, ratio = placed
        t = transform = painter.transform()
        full_key = (
            key,
            t.m11(),
            t.m12(),
            t.m21(),
            t.m22(),
            t.dx(),
            t.dy(),
            device.x(),
            device.y(),
            device.width(),
            device.height(),
            ratio,
        )
        if self._pixmap is None or full_key != self._key:
            self._pixmap = self._draw(transform, device, ratio, draw)
            self._origin = device.topLeft()
            self._key = full_key
        painter.save()
        painter.resetTransform()
        painter.drawPixmap(self._origin, self._pixmap)
        painter.restore()

    def _draw(
        self,
        transform: QtGui.QTransform,
        device: QtCore.QRect,
        ratio: float,
        draw: Callable[[QtGui.QPainter], None],
    ) -> QtGui.QPixmap:
        self.draws += 1
        pixmap = QtGui.QPixmap(
            max(1, math.ceil(device.width() * ratio)), max(1, math.ceil(device.height() * ratio))
        )
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(QtCore.Qt.GlobalColor.transparent)
        inner = QtGui.QPainter(pixmap)
        try:
            inner.setTransform(transform * QtGui.QTransform.fromTranslate(-device.x(), -device.y()))
            # hatch patterns line up with the device's pixel grid, as when drawn directly
            inner.setBrushOrigin(QtCore.QPointF(-device.x(), -device.y()))
            draw(inner)
        finally:
            inner.end()
        return pixmap
