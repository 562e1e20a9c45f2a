"""Axes of the timeline: wall time in a display zone below, UTC above, lanes on the left.

pyqtgraph's ``DateAxisItem`` labels in the machine's local zone; a schedule
has to be read in *its* zone and in UTC at once. :class:`TimeAxis` places
ticks on round wall-clock times of the display zone (local midnights for
days, so a 23-hour day shows as a shorter gap) and labels them in its own
zone: the bottom axis in the display zone, the top axis in UTC, at the same
instants, so ``00:00 EST`` sits above ``05:00Z`` and the shift after a DST
change is visible on the axis itself.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, tzinfo

import pyqtgraph as pg
from PySide6 import QtGui

from explorer.document.timeline.timebase import zone_of
from explorer.engine.tz import make_aware
from explorer.ui.timeline.paint_cache import PaintCache

__all__ = ["LaneAxis", "TimeAxis", "tick_instants"]

_MIN = 60
_HOUR = 3600
_DAY = 86400
#: Candidate spacings (seconds); days and longer are counted in local days.
_STEPS = (
    1,
    5,
    15,
    30,
    _MIN,
    5 * _MIN,
    15 * _MIN,
    30 * _MIN,
    _HOUR,
    2 * _HOUR,
    3 * _HOUR,
    6 * _HOUR,
    12 * _HOUR,
    _DAY,
    2 * _DAY,
    7 * _DAY,
    14 * _DAY,
    30 * _DAY,
    91 * _DAY,
    365 * _DAY,
)


def _choose(span: float, pixels: float, min_px: float) -> int:
    for step in _STEPS:
        if pixels * step / max(span, 1e-9) >= min_px:
            return step
    return _STEPS[-1]


def tick_instants(x0: float, x1: float, step: int, zone: tzinfo) -> list[float]:
    """Round wall times of ``zone`` every ``step`` seconds in ``[x0, x1]`` (epoch seconds).

    Steps under a day walk the wall clock and keep only readings that exist
    (a skipped 02:00 is not a tick, a repeated 01:00 is one tick); a day or
    more walks local midnights, so ticks stay on midnights across DST.
    """
    if not (math.isfinite(x0) and math.isfinite(x1)) or x1 <= x0:
        return []
    lo = datetime.fromtimestamp(x0, UTC).astimezone(zone).replace(tzinfo=None)
    out: list[float] = []
    if step < _DAY:
        seconds = lo.hour * 3600 + lo.minute * 60 + lo.second
        wall = lo.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(
            seconds=seconds - seconds % step
        )
        delta = timedelta(seconds=step)
    else:
        days = step // _DAY
        wall = lo.replace(hour=0, minute=0, second=0, microsecond=0)
        if days >= 365:
            wall = wall.replace(month=1, day=1)
        elif days >= 28:
            wall = wall.replace(day=1)
        elif days == 7 or days == 14:
            wall -= timedelta(days=wall.weekday())
        delta = timedelta(days=days)
    for _ in range(2000):
        instant = make_aware(wall, zone)
        x = instant.timestamp()
        if x > x1:
            break
        local = instant.astimezone(zone).replace(tzinfo=None)
        if x >= x0 and local == wall and (not out or x != out[-1]):
            out.append(x)
        wall = _next_wall(wall, delta, step)
    return out


def _next_wall(wall: datetime, delta: timedelta, step: int) -> datetime:
    days = step // _DAY
    if days >= 365:
        return wall.replace(year=wall.year + 1)
    if days >= 28:
        months = max(1, round(days / 30))
        month = wall.month - 1 + months
        return wall.replace(year=wall.year + month // 12, month=month % 12 + 1)
    return wall + delta


class _KeptAxis(pg.AxisItem):  # type: ignore[misc]
    """An axis that keeps its last picture (:mod:`.paint_cache`) while its range, size,
    font and pens stay: a clock step repaints the view under the axes, which did not move.
    pyqtgraph calls :meth:`update` on every change it knows of, which drops the picture."""

    def __init__(self, orientation: str) -> None:
        self.paint_cache = PaintCache()
        super().__init__(orientation)

    def update(self, *args: object) -> None:
        self.paint_cache.clear()
        super().update(*args)

    def paint_key(self) -> tuple[object, ...]:
        view = self.linkedView()
        ranges = tuple(tuple(r) for r in view.viewRange()) if view is not None else None
        font = self.style.get("tickFont")
        return (
            ranges,
            font.key() if font is not None else None,
            self.pen().color().rgba(),
            self.textPen().color().rgba(),
        )

    def paint(self, p: QtGui.QPainter, *args: object) -> None:
        self.paint_cache.paint(p, self.boundingRect(), self.paint_key(), self.draw)

    def draw(self, p: QtGui.QPainter) -> None:
        super().paint(p, None, None)


class TimeAxis(_KeptAxis):
    """A time axis labelled in one zone, ticked on round times of another (the display zone)."""

    def __init__(self, orientation: str, *, label_zone: str, tick_zone: str) -> None:
        super().__init__(orientation)
        self.label_zone = label_zone
        self.tick_zone = tick_zone
        self._step = _HOUR
        self._levels: dict[tuple[object, ...], list[tuple[float, list[float]]]] = {}
        self._labels: dict[tuple[object, ...], list[str]] = {}
        self.setStyle(tickTextOffset=4, autoExpandTextSpace=True)

    def paint_key(self) -> tuple[object, ...]:
        return (*super().paint_key(), self.label_zone, self.tick_zone)

    def draw(self, p: QtGui.QPainter) -> None:
        """Draw straight onto the given painter (the view's, or the kept picture's).

        pyqtgraph records an axis into a ``QPicture`` and replays it; a time axis
        changes on every pan, so the recording is never reused and the replay
        (text laid out a second time) doubled the axis's share of a pan. Draw
        specs are *not* kept between paints: reusing them (pens, rectangles made
        for another paint) crashed ``QPainter.restore`` in the test suite. The
        Python side (tick instants and labels) is memoised instead, see
        :meth:`tickValues`.
        """
        p.save()
        try:
            font = self.style.get("tickFont")
            if font:
                p.setFont(font)
            specs = self.generateDrawSpecs(p)
            if specs is not None:
                self.drawPicture(p, *specs)
        except Exception:  # an exception escaping paint crashes PySide6 6.11 (items.py)
            logging.getLogger(__name__).exception("time axis failed to paint")
        finally:
            p.restore()

    def set_zones(self, *, label_zone: str | None = None, tick_zone: str | None = None) -> None:
        if label_zone is not None:
            self.label_zone = label_zone
        if tick_zone is not None:
            self.tick_zone = tick_zone
        self.picture = None
        self._levels.clear()
        self._labels.clear()
        self.update()

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        """Round wall times of the display zone (memoised: a repaint that did not move
        the view, a clock step for instance, asks again with the same range)."""
        font_px = QtGui.QFontMetricsF(self.style.get("tickFont") or QtGui.QFont()).height()
        key = (minVal, maxVal, size, font_px, self.tick_zone)
        cached = self._levels.get(key)
        if cached is not None:
            self._step = int(cached[0][0])
            return cached
        if len(self._levels) > 64:
            self._levels.clear()
            self._labels.clear()
        major = _choose(maxVal - minVal, size, max(90.0, font_px * 8))
        minor = _choose(maxVal - minVal, size, 36.0)
        self._step = major
        zone = zone_of(self.tick_zone)
        majors = tick_instants(minVal, maxVal, major, zone)
        minors = [] if minor >= major else tick_instants(minVal, maxVal, minor, zone)
        taken = set(majors)
        levels = [(float(major), majors), (float(minor), [m for m in minors if m not in taken])]
        self._levels[key] = levels
        return levels

    def tickStrings(self, values: Sequence[float], scale: float, spacing: float) -> list[str]:
        if spacing != float(self._step):
            return ["" for _ in values]
        key = (tuple(values), spacing, self.label_zone)
        cached = self._labels.get(key)
        if cached is None:
            cached = self._labels[key] = self._strings(values)
        return list(cached)

    def _strings(self, values: Sequence[float]) -> list[str]:
        zone = zone_of(self.label_zone)
        utc = self.label_zone in ("UTC", "Etc/UTC")
        out = []
        previous_day = None
        for value in values:
            local = datetime.fromtimestamp(value, UTC).astimezone(zone)
            clock = local.strftime("%H:%MZ") if utc else f"{local:%H:%M} {local.tzname()}"
            day = local.strftime("%a %d %b")
            if self._step >= _DAY:
                out.append(f"{day}\n{clock}")
            elif day != previous_day:
                out.append(f"{clock}\n{day}")
            else:
                out.append(clock)
            previous_day = day
        return out


class LaneAxis(_KeptAxis):
    """Lane names on the left: DAG ids, then assets (prefixed with a diamond)."""

    def __init__(self) -> None:
        super().__init__("left")
        self.labels: list[str] = []
        self.setStyle(tickLength=0, tickTextOffset=6, autoExpandTextSpace=False)

    def set_labels(self, labels: list[str]) -> None:
        self.labels = labels
        metrics = QtGui.QFontMetricsF(self.style.get("tickFont") or QtGui.QFont())
        lines = [line for label in labels for line in label.split("\n")]  # a label may wrap
        widest = max((metrics.horizontalAdvance(line) for line in lines), default=40.0)
        self.setWidth(int(min(widest + 18, 320)))
        self.picture = None
        self.update()

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        first = max(0, math.ceil(min(minVal, maxVal)))
        last = min(len(self.labels) - 1, math.floor(max(minVal, maxVal)))
        return [(1.0, [float(i) for i in range(first, last + 1)])]

    def paint_key(self) -> tuple[object, ...]:
        return (*super().paint_key(), id(self.labels))

    def tickStrings(self, values: Sequence[float], scale: float, spacing: float) -> list[str]:
        out = []
        for value in values:
            i = round(value)
            out.append(self.labels[i] if 0 <= i < len(self.labels) else "")
        return out
