"""The timeline's runs, drawn by one batched item (never one item per run).

Each item keeps numpy arrays and paints them in device pixels
(:mod:`explorer.ui.timeline.batch`): culled to the visible range, snapped
to pixels and de-duplicated when zoomed out, one ``drawRects`` per colour.

Lane geometry, in lane units around the lane's centre ``y`` (the view is
y-inverted, lane 0 on top)::

    y-0.44 ┬ logical_date mark ┬          run_after mark (full height)
    y-0.36 │ data interval bar │ colour = run type
    y-0.08 ┴                   ┴
    y+0.04 ┬ execution bar (start → end, or the clock) colour = state (failed: hatched too);
           │ created mark
    y+0.32 ┴ queued bar (created → start) thinner, inside it
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from explorer.document.timeline.timebase import fmt_span
from explorer.ui.timeline.batch import DECIMATE_ABOVE, DeviceMap, RectBatch
from explorer.ui.timeline.lane_cache import LaneCache, LaneRange, strips
from explorer.ui.timeline.paint_cache import PaintCache
from explorer.ui.timeline.style import NORMAL, TimelineStyle, failed_hatch, qcolor

__all__ = ["DeviceItem", "RunsItem", "RunsView", "TextByRow"]

_log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]

_EMPTY_F: FloatArray = np.zeros(0)
_EMPTY_I: IntArray = np.zeros(0, dtype=np.int32)
#: Draw "no interval" pills with text only when this few are visible.
_MAX_LABELS = 250


def _empty_f() -> FloatArray:
    return _EMPTY_F


def _empty_i() -> IntArray:
    return _EMPTY_I


class TextByRow(Protocol):
    """Anything indexable by row giving a string (a list, or a lazy lookup)."""

    def __getitem__(self, row: int, /) -> str: ...


@dataclass(slots=True)
class RunsView:
    """Arrays of the runs to draw (one entry per run; ``lane`` < 0 hides a run)."""

    lane: FloatArray = field(default_factory=_empty_f)
    ival_start: FloatArray = field(default_factory=_empty_f)
    ival_end: FloatArray = field(default_factory=_empty_f)
    logical: FloatArray = field(default_factory=_empty_f)
    run_after: FloatArray = field(default_factory=_empty_f)
    created: FloatArray = field(default_factory=_empty_f)
    start: FloatArray = field(default_factory=_empty_f)
    end: FloatArray = field(default_factory=_empty_f)
    state: IntArray = field(default_factory=_empty_i)
    type: IntArray = field(default_factory=_empty_i)
    no_interval: IntArray = field(default_factory=_empty_i)
    #: 1: the run has no task instances (RND-1); drawn as a crossed ring under its bar.
    no_task_instances: IntArray = field(default_factory=_empty_i)
    #: Text on a "no interval" pill (e.g. the partition key), by row; optional.
    badge_text: TextByRow | None = None
    now: float = math.nan

    def __len__(self) -> int:
        return int(self.lane.size)

    def extent(self, rows: npt.NDArray[np.intp] | None = None) -> tuple[FloatArray, FloatArray]:
        """Per run (of ``rows``, default all), the leftmost and rightmost x it draws at
        (the clock for running runs)."""
        pick: npt.NDArray[np.intp] | slice = slice(None) if rows is None else rows
        end = self.effective_end(rows)
        stack_l = np.vstack(
            [self.ival_start[pick], self.logical[pick], self.created[pick], self.run_after[pick]]
        )
        stack_r = np.vstack([self.ival_end[pick], self.run_after[pick], end, self.created[pick]])
        with warnings.catch_warnings():  # a row of NaNs is not an error here
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmin(stack_l, axis=0), np.nanmax(stack_r, axis=0)

    def effective_end(self, rows: npt.NDArray[np.intp] | None = None) -> FloatArray:
        """``end``, or the clock for a run that has started and not ended (of ``rows``)."""
        end = self.end.copy() if rows is None else self.end[rows]
        start = self.start if rows is None else self.start[rows]
        running = np.isnan(end) & ~np.isnan(start)
        end[running] = self.now
        return end


class DeviceItem(pg.GraphicsObject):  # type: ignore[misc]
    """Base: an item whose paint works in device pixels over a data bounding box.

    Subclasses implement :meth:`draw`; :meth:`paint` never lets an exception
    out: on PySide6 6.11 an exception escaping ``paint`` leaves the scene's
    painter broken and the next repaint crashes the process (seen: segfault).
    A failed paint is logged and the item is left blank for that frame.

    An item with :attr:`cached` keeps its last picture (:mod:`.paint_cache`):
    a repaint that changed neither its data nor its view copies pixels. Every
    data setter calls :meth:`update`, which drops the picture.
    """

    #: Keep the last picture between repaints (off for items whose data changes on
    #: every step: the copy would only add to their paint).
    cached = True
    #: Keep the picture and redraw only the lanes the data changed (:mod:`.lane_cache`):
    #: for items whose data changes on most steps, but in few lanes. Such an item
    #: implements :meth:`draw_lanes` and tells its changed lanes to :meth:`update_lanes`.
    lane_cached = False
    #: How far (device pixels) the marks of a lane may reach beyond its band.
    lane_margin_px = 8.0

    def paint(self, painter: QtGui.QPainter, *args: object) -> None:
        try:
            view = self.viewRect() if self.cached or self.lane_cached else None
            if view is None:
                self.draw(painter)
                return
            key = (id(self.style), view.x(), view.y(), view.width(), view.height())
            if self.lane_cached:
                self.lane_cache.paint(painter, view, key, self._draw_some, self.lane_margin)
            else:
                self.paint_cache.paint(painter, view, key, self.draw)
        except Exception:  # a blank item beats a dead application
            _log.exception("%s failed to paint", type(self).__name__)

    def update(self, *args: object) -> None:
        """Schedule a repaint that redraws (data changed), not one that copies the last picture."""
        self.paint_cache.clear()
        self.lane_cache.clear()
        super().update(*args)

    def update_lanes(self, lanes: Iterable[int]) -> None:
        """Schedule a repaint of these lanes only: their strips are drawn again, the rest of
        the picture is kept, and only their strips of the screen are repainted."""
        dirty = sorted({int(lane) for lane in lanes})
        if dirty:
            self.lane_cache.invalidate(dirty)
            self.repaint_lanes(dirty)

    def repaint_lanes(self, lanes: Iterable[int]) -> None:
        """Repaint only these lanes' strips of the screen (widened by :attr:`lane_margin_px`).

        The view paints every item under a repainted region: a whole-item update on a
        step repainted the stripes, the runs, the events and the labels of the whole
        view, although the step changed a few lanes.
        """
        dirty = sorted({int(lane) for lane in lanes})
        if not dirty:
            return
        view = self.viewRect()
        device = self.deviceTransform_()
        lane_px = abs(device.m22()) if device is not None else 0.0
        if view is None or lane_px <= 0:
            pg.GraphicsObject.update(self)
            return
        margin = 0.5 + (max(self.lane_margin(lane_px), 0.0) + 2) / lane_px
        x0, width = view.left(), view.width()
        for first, last in strips(dirty, 0):
            pg.GraphicsObject.update(
                self, QtCore.QRectF(x0, first - margin, width, last - first + 2 * margin)
            )

    def lane_margin(self, lane_px: float) -> float:
        """How far (device pixels) the drawing of a lane may pass the edges of its band
        when lanes are ``lane_px`` tall (0 or less: it stays inside)."""
        return self.lane_margin_px

    def draw(self, painter: QtGui.QPainter) -> None:
        if not self.lane_cached:
            raise NotImplementedError
        self.draw_lanes(painter, None)

    def _draw_some(self, painter: QtGui.QPainter, lanes: LaneRange) -> None:
        """A whole redraw goes through :meth:`draw`, a strip through :meth:`draw_lanes`."""
        if lanes is None:
            self.draw(painter)
        else:
            self.draw_lanes(painter, lanes)

    def draw_lanes(self, painter: QtGui.QPainter, lanes: LaneRange) -> None:
        """Draw these lanes (None: every lane in view); lane-cached items implement it."""
        raise NotImplementedError

    def __init__(self) -> None:
        super().__init__()
        self.style: TimelineStyle = NORMAL
        self._bounds = QtCore.QRectF(0, 0, 1, 1)
        self._batch = RectBatch()
        self.paint_cache = PaintCache()
        self.lane_cache = LaneCache()

    def set_style(self, style: TimelineStyle) -> None:
        self.style = style
        self.update()

    def boundingRect(self) -> QtCore.QRectF:
        return self._bounds

    #: Bounds spanning every usable instant: an item whose data grows with the clock
    #: then never announces a geometry change, which repaints its whole old bounds
    #: (the whole view on a step: :meth:`update_lanes` repaints only the lanes changed).
    wide_bounds = False

    def _set_bounds(self, x0: float, x1: float, y0: float, y1: float) -> None:
        if self.wide_bounds:
            x0, x1 = -1e11, 1e11
        if not all(math.isfinite(v) for v in (x0, x1, y0, y1)):
            x0, x1, y0, y1 = 0.0, 1.0, 0.0, 1.0
        bounds = QtCore.QRectF(x0, y0, max(x1 - x0, 1.0), max(y1 - y0, 1.0))
        if bounds == self._bounds:  # unchanged: no geometry change to announce (or repaint)
            return
        self.prepareGeometryChange()
        self._bounds = bounds

    def _begin(self, painter: QtGui.QPainter) -> DeviceMap | None:
        view = self.viewRect()
        if view is None:
            return None
        dm = DeviceMap.of(painter, view)
        xs = sorted((float(dm.x(dm.xmin)), float(dm.x(dm.xmax))))
        ys = sorted((float(dm.y(dm.ymin)), float(dm.y(dm.ymax))))
        self._batch.clip = (xs[0], xs[1], ys[0], ys[1])
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        return dm


def badge_labels(
    lanes: npt.NDArray[np.float64],
    keys: list[str],
    room: npt.NDArray[np.float64],
    width: Callable[[str], float],
) -> list[str | None]:
    """The text of each "no interval" badge (lane by lane, in time order), None for a square.

    "no interval" is said once per lane, on its first badge that has room; the
    others carry only their partition key (saying it on every run was clutter).
    """
    texts: list[str | None] = []
    said: set[float] = set()
    for i, key in enumerate(keys):
        lane = float(lanes[i])
        options: tuple[str, ...]
        if lane in said:
            options = (key,) if key else ()
        else:
            options = (f"no interval · {key}", "no interval") if key else ("no interval",)
        text = next((t for t in options if width(t) <= room[i]), None)
        if text is not None and text.startswith("no interval"):
            said.add(lane)
        texts.append(text)
    return texts


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the runs item decides from how many runs the whole view shows.

    Decided for the whole view even when only a few lanes are drawn again
    (:mod:`.lane_cache`), so that those lanes look as a whole redraw draws them.
    """

    #: Interval lengths written on their bars.
    lengths: bool
    #: "no interval" pills with text (else plain squares).
    labels: bool
    #: Crossed rings for runs without task instances (else plain squares).
    rings: bool
    #: Rectangles snapped to pixel columns and merged (:func:`.batch.decimate`).
    decimate: bool


class RunsItem(DeviceItem):
    """Every run's interval, execution and marks, plus the selected run's outline.

    The picture is kept between repaints and redrawn lane by lane (:mod:`.lane_cache`):
    a step changes the runs of a few lanes (those whose runs were created, changed, or
    are still running while the clock moves), and only those are drawn again.
    """

    cached = False
    lane_cached = True
    wide_bounds = True
    #: An outline's pen, a ring around run_after, a label's glyphs may pass the lane's edge.
    lane_margin_px = 8.0

    def __init__(self) -> None:
        super().__init__()
        self.view = RunsView()
        self._left = _EMPTY_F
        self._right = _EMPTY_F
        self._end = _EMPTY_F
        self.selected: int | None = None
        #: The lane the selected run's outline was drawn in (None: no outline).
        self._selected_lane: int | None = None
        self.drawn = 0  # rectangles in the last paint (tests and benchmarks read it)
        #: Width of each badge text in the badge font ("" holds that font's point size).
        self._badge_widths: dict[str, float] = {}
        #: Rows sorted by lane, and where each lane starts in that order (lane culling
        #: is then a slice, not a mask over every run).
        self._by_lane: IntArray = _EMPTY_I
        self._lane_start: npt.NDArray[np.intp] = np.zeros(1, dtype=np.intp)
        self._max_lane = -1
        #: The lanes ``_by_lane`` was made for, and the lanes in that order.
        self._lanes: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._sorted_lanes: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        #: Rows the last :meth:`set_view` sorted (tests read it: a step sorts its new runs).
        self.sorted_rows = 0
        #: Rows whose extent the last :meth:`set_view` computed (tests read it).
        self.measured_rows = 0

    def set_view(self, view: RunsView, changed: Sequence[int] | None = None) -> None:
        """Show ``view``; ``changed``: the rows, among those the previous view had, whose
        values may differ from it (a sync's re-read rows). None: any row may differ.

        With ``changed``, only those rows, the new ones and (when the clock moved) the
        unfinished ones are measured again, and only their lanes, and those of rows
        gone, are drawn again; the rest of the picture is kept.
        """
        before_lanes, before_now = self._lanes, self.view.now
        self.view = view
        lanes = view.lane.astype(np.int64)
        in_place = self._order_by_lane(lanes)
        self._max_lane = int(lanes.max()) if lanes.size else -1
        # _lane_start[k]: first position (in lane order) of a row of lane >= k, k = 0..max+1
        self._lane_start = np.searchsorted(self._sorted_lanes, np.arange(0, self._max_lane + 2))
        dirty = (
            None
            if changed is None or not in_place
            else self._measure(view, changed, before_lanes, before_now)
        )
        if dirty is None:
            self._left, self._right = view.extent() if len(view) else (_EMPTY_F, _EMPTY_F)
            self._end = view.effective_end() if len(view) else _EMPTY_F
            self.measured_rows = len(view)
        if len(view):
            shown = view.lane >= 0
            if shown.any():
                self._set_bounds(
                    float(np.nanmin(self._left[shown])),
                    float(np.nanmax(self._right[shown])),
                    -0.5,
                    float(view.lane[shown].max()) + 0.5,
                )
        outline = self._lane_of(self.selected)
        if dirty is None:
            self._selected_lane = outline
            self.update()
            return
        if outline != self._selected_lane:
            dirty.update(lane for lane in (outline, self._selected_lane) if lane is not None)
            self._selected_lane = outline
        if dirty:
            self.update_lanes(dirty)

    def _measure(
        self,
        view: RunsView,
        changed: Sequence[int],
        before_lanes: npt.NDArray[np.int64],
        before_now: float,
    ) -> set[int]:
        """Extents of the rows that may have changed; the lanes to draw again."""
        n, was = len(view), before_lanes.size
        keep = min(n, was)
        rows = np.asarray(changed, dtype=np.intp)
        rows = rows[rows < keep]
        if not (before_now == view.now or (math.isnan(before_now) and math.isnan(view.now))):
            # the clock moved: unfinished runs reach to it (running bars, queued bars)
            rows = np.union1d(rows, np.flatnonzero(np.isnan(view.end[:keep])))
        rows = np.concatenate([rows, np.arange(keep, n, dtype=np.intp)])
        if n != was:
            left, right, end = (np.empty(n) for _ in range(3))
            left[:keep], right[:keep], end[:keep] = (
                self._left[:keep],
                self._right[:keep],
                self._end[:keep],
            )
            self._left, self._right, self._end = left, right, end
        if rows.size:
            self._left[rows], self._right[rows] = view.extent(rows)
            self._end[rows] = view.effective_end(rows)
        self.measured_rows = int(rows.size)
        lanes = self._lanes
        touched = np.concatenate([lanes[rows], before_lanes[rows[rows < was]], before_lanes[keep:]])
        return {lane for lane in np.unique(touched).tolist() if lane >= 0}

    def _order_by_lane(self, lanes: npt.NDArray[np.int64]) -> bool:
        """``_by_lane``: the rows in a stable sort by lane, and ``_sorted_lanes`` their lanes.

        A step appends a few runs to the store and Back cuts it shorter, the lanes of
        the other rows unchanged: the new rows are merged into the previous order and
        cut rows dropped from it, instead of sorting every run again (50,000 runs 60
        days in). Any other change (lanes reordered, another simulation) sorts whole.
        Returns whether the rows kept their lanes (False: sorted whole).
        """
        before, count = self._lanes, lanes.size
        n = before.size
        in_place = True
        if n <= count and np.array_equal(lanes[:n], before):
            new = np.arange(n, count, dtype=np.int32)
            if new.size:
                self.sorted_rows = int(new.size)
                new = new[np.argsort(lanes[n:], kind="stable")]
                at = np.searchsorted(self._sorted_lanes, lanes[new], side="right")
                self._by_lane = np.insert(self._by_lane, at, new)
                self._sorted_lanes = np.insert(self._sorted_lanes, at, lanes[new])
            else:
                self.sorted_rows = 0
        elif count < n and np.array_equal(lanes, before[:count]):
            keep = self._by_lane < count
            self._by_lane = self._by_lane[keep]
            self._sorted_lanes = self._sorted_lanes[keep]
            self.sorted_rows = 0
        else:
            self._by_lane = np.argsort(lanes, kind="stable").astype(np.int32)
            self._sorted_lanes = lanes[self._by_lane]
            self.sorted_rows = int(lanes.size)
            in_place = False
        self._lanes = lanes
        return in_place

    def lane_margin(self, lane_px: float) -> float:
        """How far past its band a lane's marks reach, from the layout in the module's
        docstring (+1 px of antialiasing or rounding): an outline, a ring or a line of
        text can; a lane whose marks stay inside is drawn again alone."""
        s, v = self.style, self.view
        spill = 1.0 - 0.06 * lane_px  # ticks from -0.44 to +0.44 of a lane
        if self._selected_lane is not None:  # the outline, ±0.48, a 2 px pen
            spill = max(spill, 2.0 - 0.02 * lane_px)
        if v.no_task_instances.size and v.no_task_instances.any():  # rings at +0.24
            radius = max(4.0, s.mark_px * 3) + max(1.5, s.mark_px) / 2
            spill = max(spill, radius + 1.0 - 0.26 * lane_px)
        if lane_px >= 22:  # lengths and badge texts, centred at -0.22
            font = QtGui.QFont()
            font.setPointSizeF(s.font_pt * 0.85)
            spill = max(spill, QtGui.QFontMetricsF(font).height() / 2 + 1.0 - 0.28 * lane_px)
        return spill

    def _lane_of(self, row: int | None) -> int | None:
        """The lane a row's outline is drawn in (None: no row, or not shown)."""
        if row is None or not 0 <= row < self._lanes.size or self._lanes[row] < 0:
            return None
        return int(self._lanes[row])

    def set_selected(self, row: int | None) -> None:
        lane = self._lane_of(row)
        if row == self.selected and lane == self._selected_lane:
            return  # the same outline (a step re-selects the selected run)
        dirty = {x for x in (lane, self._selected_lane) if x is not None}
        self.selected = row
        self._selected_lane = lane
        self.update_lanes(dirty)

    def visible_rows(self, dm: DeviceMap, lanes: LaneRange = None) -> IntArray:
        """Rows of the visible lanes (slices of the lane order) that reach into the view,
        of the lane ranges ``lanes`` only when given."""
        pad = 12 * dm.px
        first_lane = max(math.floor(dm.ymin) - 1, 0)
        last_lane = min(math.ceil(dm.ymax) + 1, self._max_lane)
        starts = self._lane_start
        chunks = []
        for lo, hi in ((first_lane, last_lane),) if lanes is None else lanes:
            lo, hi = max(lo, first_lane), min(hi, last_lane)
            if hi >= lo:
                chunks.append(self._by_lane[starts[lo] : starts[hi + 1]])
        if not chunks:
            return _EMPTY_I
        rows = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
        with np.errstate(invalid="ignore"):
            keep = (self._right[rows] >= dm.xmin - pad) & (self._left[rows] <= dm.xmax + pad)
        return rows[keep]

    def _plan(self, dm: DeviceMap, rows: IntArray) -> _Plan:
        """The whole view's choices (``rows``: every visible row)."""
        v = self.view
        close = abs(dm.sy) >= 22
        rings = v.no_task_instances.size == v.lane.size and (
            int(np.count_nonzero(v.no_task_instances[rows] == 1)) <= _MAX_LABELS
        )
        return _Plan(
            lengths=close and int(np.count_nonzero(~np.isnan(v.ival_start[rows]))) <= _MAX_LABELS,
            labels=close and int(np.count_nonzero(v.no_interval[rows] == 1)) <= _MAX_LABELS,
            rings=rings,
            decimate=rows.size > DECIMATE_ABOVE,
        )

    def draw_lanes(self, painter: QtGui.QPainter, lanes: LaneRange) -> None:
        if not len(self.view):
            return
        dm = self._begin(painter)
        if dm is None:
            return
        try:
            rows = self.visible_rows(dm)
            plan = self._plan(dm, rows)
            if lanes is not None:
                rows = self.visible_rows(dm, lanes)
            self._batch.decimate = plan.decimate
            self.drawn = self._paint_rows(painter, dm, rows, plan, lanes)
        finally:
            self._batch.decimate = None
            painter.restore()

    def _paint_rows(
        self, p: QtGui.QPainter, dm: DeviceMap, rows: IntArray, plan: _Plan, lanes: LaneRange
    ) -> int:
        v, s, fill = self.view, self.style, self._batch.fill
        if rows.size == 0:
            return 0
        lane = v.lane[rows]
        mark = s.mark_px
        drawn = 0

        def band(lo: float, hi: float, sub: npt.NDArray[np.bool_]) -> tuple[FloatArray, FloatArray]:
            return dm.y(lane[sub] + lo), dm.y(lane[sub] + hi)

        # 1. data interval bars, by run type
        ival_s, ival_e = v.ival_start[rows], v.ival_end[rows]
        has = ~np.isnan(ival_s)
        kinds = v.type[rows]
        gx0, gx1 = dm.x(ival_s), dm.x(ival_e)
        wide = (gx1 - gx0) > 6  # leave a pixel between back-to-back intervals
        gx0 = np.where(wide, gx0 + 1, gx0)
        gx1 = np.where(wide, gx1 - 1, gx1)
        for code, colour in enumerate(s.type_colours):
            sub = has & (kinds == code)
            if sub.any():
                y0, y1 = band(-0.36, -0.08, sub)
                drawn += fill(p, colour, gx0[sub], gx1[sub], y0, y1, min_width=mark)
        # failed runs: a red rule under their interval, visible at any zoom
        failed = has & (v.state[rows] == 3)
        if failed.any():
            y0, y1 = band(-0.1, -0.02, failed)
            drawn += fill(p, s.state_colours[3], gx0[failed], gx1[failed], y0, y1, min_width=mark)
        if plan.lengths:
            self._lengths(p, dm, gx0[has], gx1[has], lane[has], ival_e[has] - ival_s[has])
        # 2. queued: created → start (or the clock)
        created, start = v.created[rows], v.start[rows]
        q_end = np.where(np.isnan(start), v.now, start)
        with np.errstate(invalid="ignore"):
            sub = (q_end - created) > 0
        if sub.any():
            y0, y1 = band(0.14, 0.22, sub)
            drawn += fill(p, s.state_colours[0], dm.x(created[sub]), dm.x(q_end[sub]), y0, y1)
        # 3. execution: start → end (or the clock), by state
        end = self._end[rows]
        states = v.state[rows]
        started = ~np.isnan(start)
        for code in (1, 2, 3):
            sub = started & (states == code)
            if sub.any():
                y0, y1 = band(0.04, 0.32, sub)
                x0, x1 = dm.x(start[sub]), dm.x(end[sub])
                drawn += fill(p, s.state_colours[code], x0, x1, y0, y1, min_width=mark)
                if code == 3:  # failed: hatched, so it never differs from success by hue alone
                    fill(p, failed_hatch(), x0, x1, y0, y1, min_width=mark)
        # 4. marks: logical_date (upper half), created_at (lower half + foot), run_after (full)
        drawn += self._ticks(p, dm, v.logical[rows], lane, -0.44, -0.08, mark * 1.5, s.logical)
        drawn += self._ticks(p, dm, created, lane, 0.04, 0.44, mark, s.created)
        foot = ~np.isnan(created)
        if foot.any():
            x = dm.x(created[foot])
            y = dm.y(lane[foot] + 0.44)
            drawn += fill(p, s.created, x - 2 * mark, x + 2 * mark, y - mark * 1.5, y)
        drawn += self._ticks(p, dm, v.run_after[rows], lane, -0.44, 0.44, mark, s.run_after)
        # 5. "no interval" badges (asset-triggered and partitioned runs)
        drawn += self._badges(p, dm, rows, plan.labels)
        drawn += self._no_task_instances(p, dm, rows, plan.rings)
        # 6. the selected run's outline
        outline = self._lane_of(self.selected)
        if outline is not None and (lanes is None or any(a <= outline <= b for a, b in lanes)):
            assert self.selected is not None
            self._outline(p, dm, self.selected)
        return drawn

    def _lengths(
        self,
        p: QtGui.QPainter,
        dm: DeviceMap,
        x0: FloatArray,
        x1: FloatArray,
        lane: FloatArray,
        seconds: FloatArray,
    ) -> None:
        """Write each interval's length on its bar (``23 h`` on a spring-forward day).

        Only when the whole view shows few of them, and lanes are tall enough
        (:meth:`_plan`)."""
        if x0.size == 0:
            return
        font = QtGui.QFont()
        font.setPointSizeF(self.style.font_pt * 0.85)
        metrics = QtGui.QFontMetricsF(font)
        p.setFont(font)
        p.setPen(qcolor(self.style.logical))
        left_edge = dm.x(dm.xmin)
        right_edge = dm.x(dm.xmax)
        for i in range(x0.size):
            text = fmt_span(timedelta(seconds=float(seconds[i])))
            a, b = max(float(x0[i]), float(left_edge)), min(float(x1[i]), float(right_edge))
            if b - a < metrics.horizontalAdvance(text) + 16:
                continue
            top, bottom = sorted((float(dm.y(lane[i] - 0.36)), float(dm.y(lane[i] - 0.08))))
            p.drawText(
                QtCore.QRectF(a, top, b - a, bottom - top),
                QtCore.Qt.AlignmentFlag.AlignCenter,
                text,
            )

    def _ticks(
        self,
        p: QtGui.QPainter,
        dm: DeviceMap,
        xs: FloatArray,
        lane: FloatArray,
        lo: float,
        hi: float,
        width: float,
        colour: str,
    ) -> int:
        sub = ~np.isnan(xs)
        if not sub.any():
            return 0
        x = dm.x(xs[sub])
        return self._batch.fill(
            p,
            colour,
            x - width / 2,
            x + width / 2,
            dm.y(lane[sub] + lo),
            dm.y(lane[sub] + hi),
            min_width=width,
        )

    def _badges(self, p: QtGui.QPainter, dm: DeviceMap, rows: IntArray, labels: bool) -> int:
        """A pill "no interval" (with the partition key when there is room), else a square
        (``labels`` False: the whole view shows too many, or lanes are too thin).

        The texts are chosen lane by lane (:func:`badge_labels`), and a lane is drawn
        only when its runs or the view changed (:mod:`.lane_cache`): never on a paint
        that changed neither."""
        v, s = self.view, self.style
        sub = rows[v.no_interval[rows] == 1]
        if sub.size == 0:
            return 0
        order = np.lexsort((v.run_after[sub], v.lane[sub]))
        sub = sub[order]
        x = dm.x(v.run_after[sub])
        y0 = dm.y(v.lane[sub] - 0.36)
        y1 = dm.y(v.lane[sub] - 0.08)
        size = s.mark_px * 3.5
        if not labels:
            return self._batch.fill(p, s.no_interval, x - size / 2, x + size / 2, y0, y1)
        # room up to the next badge on the same lane
        room = np.full(sub.size, np.inf)
        same = v.lane[sub][1:] == v.lane[sub][:-1]
        room[:-1][same] = (x[1:] - x[:-1])[same] - 6
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt * 0.85)
        p.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        # the same few texts on every paint (a step repaints them all): measured once
        widths = self._badge_widths
        if widths.get("") != font.pointSizeF() or len(widths) > 4096:
            widths.clear()
            widths[""] = font.pointSizeF()

        def width_of(text: str) -> float:
            found = widths.get(text)
            if found is None:
                found = widths[text] = metrics.horizontalAdvance(text) + 8
            return found

        squares: list[int] = []
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        keys = [v.badge_text[row] if v.badge_text is not None else "" for row in sub]
        texts = badge_labels(v.lane[sub], keys, room, width_of)
        for i, text in enumerate(texts):
            if text is None:
                squares.append(i)
                continue
            width = width_of(text)
            top, bottom = sorted((float(y0[i]), float(y1[i])))
            rect = QtCore.QRectF(float(x[i]) + 3, top, width, bottom - top)
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(qcolor(s.no_interval))
            p.drawRoundedRect(rect, 3, 3)
            p.setPen(QtGui.QColor("#ffffff"))
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        if squares:
            k = np.asarray(squares)
            self._batch.fill(p, s.no_interval, x[k] + 2, x[k] + 2 + size, y0[k], y1[k])
        return int(sub.size)

    def _no_task_instances(
        self, p: QtGui.QPainter, dm: DeviceMap, rows: IntArray, rings: bool
    ) -> int:
        """A crossed ring ("⊘") at run_after, in the lower half of the lane: the run had no
        task instances (RND-1), which is why it succeeded at once and emitted nothing."""
        v, s = self.view, self.style
        if v.no_task_instances.size != v.lane.size:
            return 0
        sub = rows[v.no_task_instances[rows] == 1]
        if sub.size == 0:
            return 0
        x = dm.x(v.run_after[sub])
        y = dm.y(v.lane[sub] + 0.24)
        radius = max(4.0, s.mark_px * 3)
        if not rings:  # too many in view to draw one by one: plain squares
            colour = s.no_task_instances
            return self._batch.fill(p, colour, x - radius, x + radius, y - radius, y + radius)
        pen = QtGui.QPen(qcolor(s.no_task_instances), max(1.5, s.mark_px))
        p.setPen(pen)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        for cx, cy in zip(x.tolist(), y.tolist(), strict=True):
            p.drawEllipse(QtCore.QPointF(cx, cy), radius, radius)
            d = radius * 0.7071
            p.drawLine(QtCore.QPointF(cx - d, cy + d), QtCore.QPointF(cx + d, cy - d))
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        return int(sub.size)

    def _outline(self, p: QtGui.QPainter, dm: DeviceMap, row: int) -> None:
        v = self.view
        left, right = float(self._left[row]), float(self._right[row])
        x0, x1 = float(dm.x(left)), float(dm.x(right))
        y0, y1 = sorted((float(dm.y(v.lane[row] - 0.48)), float(dm.y(v.lane[row] + 0.48))))
        pen = QtGui.QPen(QtGui.QColor(self.style.selection), 2)
        p.setPen(pen)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawRect(QtCore.QRectF(x0 - 4, y0, max(x1 - x0, 2) + 8, y1 - y0))
