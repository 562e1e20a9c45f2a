"""Drawing many rectangles at once, in device pixels, reduced to what pixels can show.

Two rules from ``stack-notes.md`` and one of our own:

* rectangles are drawn with ``QPainter.drawRects`` from a numpy-backed array
  (pyqtgraph's ``PrimitiveArray``, as its ``BarGraphItem`` does), with no
  outline pen — an outline costs 40x;
* when zoomed out, rectangles are snapped to pixel columns and duplicates
  (same lane band, colour and pixel span) are dropped, so 100,000 runs cost
  what the screen can show;
* everything is painted in *device* coordinates: items map their data
  arrays through the painter's transform and reset it. Data x values are
  epoch seconds (~1.7e9) and ``QSvgGenerator`` writes coordinates with six
  significant digits, which would move a bar by up to an hour in an SVG
  export; pixel coordinates survive that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from pyqtgraph.Qt import internals
from PySide6 import QtCore, QtGui

from explorer.ui.timeline.style import qcolor

__all__ = ["DeviceMap", "RectBatch", "decimate"]

FloatArray = npt.NDArray[np.float64]

#: Above this many rectangles in one colour, snap to pixels and drop duplicates.
DECIMATE_ABOVE = 3000


@dataclass(frozen=True, slots=True)
class DeviceMap:
    """The painter's data→device transform (no rotation), and the visible data range."""

    sx: float
    dx: float
    sy: float
    dy: float
    xmin: float
    xmax: float
    ymin: float
    ymax: float
    width_px: float

    @classmethod
    def of(cls, painter: QtGui.QPainter, view: QtCore.QRectF) -> DeviceMap:
        t = painter.transform()
        view = view.normalized()
        return cls(
            t.m11(),
            t.dx(),
            t.m22(),
            t.dy(),
            view.left(),
            view.right(),
            view.top(),
            view.bottom(),
            abs(t.m11()) * view.width(),
        )

    @property
    def px(self) -> float:
        """Data units per device pixel along x."""
        return 1.0 / abs(self.sx) if self.sx else 1.0

    def x(self, values: FloatArray | float) -> FloatArray:
        return np.asarray(values, dtype=np.float64) * self.sx + self.dx

    def y(self, values: FloatArray | float) -> FloatArray:
        return np.asarray(values, dtype=np.float64) * self.sy + self.dy

    def point(self, x: float, y: float) -> QtCore.QPointF:
        return QtCore.QPointF(x * self.sx + self.dx, y * self.sy + self.dy)


def decimate(
    x0: FloatArray,
    x1: FloatArray,
    y0: FloatArray,
    y1: FloatArray,
    *,
    above: int = DECIMATE_ABOVE,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Reduce device rectangles to what the pixels show: covered pixel runs per row band.

    All rectangles of a batch share one colour and, per lane, one vertical
    band, so on screen they are just "which pixel columns of which band are
    covered". That coverage is computed without sorting (a difference array
    per band, summed along the row), and each run of covered columns becomes
    one rectangle: back-to-back intervals of a zoomed-out lane become one bar,
    a dense row of marks one strip, duplicates vanish. Coordinates are clipped
    to a margin around the screen first (a bar reaching far outside the view is
    drawn to its edge). Bands are told apart by their top pixel row.
    """
    if x0.size <= above or x0.size == 0:
        return x0, x1, y0, y1
    lo, hi = float(-_PAD), float(_LIMIT - _PAD - 1)
    a = np.minimum(np.maximum(np.floor(x0), lo), hi)
    b = np.minimum(np.maximum(np.ceil(x1), a + 1), hi + 1)
    top = np.minimum(np.maximum(np.round(y0), lo), hi)
    bottom = np.minimum(np.maximum(np.round(y1), lo), hi)
    rows = (top + _PAD).astype(np.intp)
    present = np.zeros(_LIMIT, dtype=bool)
    present[rows] = True
    band_of_row = np.cumsum(present) - 1
    band = band_of_row[rows]
    bands = int(band_of_row[-1]) + 1
    top_of_band = np.flatnonzero(present).astype(np.float64) - _PAD
    bottom_of_band = np.empty(bands)
    bottom_of_band[band] = bottom
    first = int(a.min())
    width = int(b.max()) - first + 1
    start = band * width + (a - first).astype(np.intp)
    stop = band * width + (b - first).astype(np.intp)
    size = bands * width
    delta = np.bincount(start, minlength=size)[:size] - np.bincount(stop, minlength=size)[:size]
    covered = np.zeros((bands, width + 2), dtype=np.int8)
    covered[:, 1:-1] = np.cumsum(delta.reshape(bands, width), axis=1) > 0
    edges = np.diff(covered, axis=1)
    band_in, col_in = np.nonzero(edges == 1)
    _, col_out = np.nonzero(edges == -1)
    return (
        (col_in + first).astype(np.float64),
        (col_out + first).astype(np.float64),
        top_of_band[band_in],
        bottom_of_band[band_in],
    )


_LIMIT = 8192
_PAD = 64


class RectBatch:
    """One reusable native rectangle array; :meth:`fill` draws it with a single brush."""

    def __init__(self) -> None:
        self._array = internals.PrimitiveArray(QtCore.QRectF, 4)
        #: Device rectangle (left, right, top, bottom) rectangles are cut to. The view
        #: clips on screen, but QSvgGenerator ignores clipping: an export would show
        #: marks outside the plot.
        self.clip: tuple[float, float, float, float] | None = None
        #: Decimate (True) or not (False) whatever the count; None: above
        #: :data:`DECIMATE_ABOVE` rectangles. An item drawing a few lanes of its view
        #: decides for the whole view, so its lanes look as a whole redraw draws them.
        self.decimate: bool | None = None

    def fill(
        self,
        painter: QtGui.QPainter,
        colour: QtGui.QColor | QtGui.QBrush | str,
        x0: FloatArray,
        x1: FloatArray,
        y0: FloatArray,
        y1: FloatArray,
        *,
        min_width: float = 1.0,
    ) -> int:
        """Fill ``[x0, x1] x [y0, y1]`` (device pixels); returns how many were drawn."""
        if x0.size == 0:
            return 0
        lo = np.minimum(x0, x1)
        hi = np.maximum(np.maximum(x0, x1), lo + min_width)
        top = np.minimum(y0, y1)
        bottom = np.maximum(y0, y1)
        if self.clip is not None:
            left, right, upper, lower = self.clip
            lo, hi = np.maximum(lo, left), np.minimum(hi, right)
            top, bottom = np.maximum(top, upper), np.minimum(bottom, lower)
            keep = (hi > lo) & (bottom > top)
            if not keep.all():
                lo, hi, top, bottom = lo[keep], hi[keep], top[keep], bottom[keep]
                if lo.size == 0:
                    return 0
        if self.decimate is None or self.decimate:
            lo, hi, top, bottom = decimate(
                lo, hi, top, bottom, above=0 if self.decimate else DECIMATE_ABOVE
            )
        n = lo.size
        self._array.resize(n)
        memory = self._array.ndarray()
        memory[:, 0] = lo
        memory[:, 1] = top
        memory[:, 2] = hi - lo
        memory[:, 3] = bottom - top
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(qcolor(colour) if isinstance(colour, str) else colour)
        painter.drawRects(*self._array.drawargs())
        return n
