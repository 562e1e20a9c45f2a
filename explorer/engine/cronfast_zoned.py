"""A cron stepped in a time zone on epoch seconds: Airflow's DST rules on integers.

:class:`explorer.engine.cron.ZonedCron` answers Airflow's questions on aware
datetimes the way Airflow does (``timetables/_cron.py``): the wall reading of
the instant, croniter's next/previous matching reading, the instant of that
reading. Each of those steps builds datetimes and converts between zones, which
costs several microseconds. :class:`ZonedSeconds` does the same on integers:

* an instant is its epoch second ``u``; its wall reading is ``u + offset``,
  the offset of ``u``'s span in :mod:`explorer.engine.tzspans` (DST-1);
* the next/previous matching reading comes from
  :class:`~explorer.engine.cronfast.WallClockCron`'s integer stepping;
* a coarse cron's reading ``t`` becomes the instant ``t - offset`` with the
  offset of ``t``'s *wall* span, which shifts gap readings forward and gives a
  repeated reading its later instant (DST-1, DST-3); a cron that fires every
  hour instead subtracts the offset of the question's instant, i.e. it adds the
  wall-clock step to the instant (DST-2).

The last spans used are kept as cursors, so a question costs two comparisons
and a bisection or two. :meth:`ZonedSeconds.next_seconds` answers a whole
chain at once (each answer the next question) as long as no transition is
near; the caller asks one at a time across transitions.

Every method answers None where it cannot answer exactly (outside the tables'
years, an answer more than a year away, a cron croniter must step itself):
the caller then asks the datetime way, which also raises croniter's errors.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import UTC, tzinfo
from zoneinfo import ZoneInfo

from explorer.engine.cronfast import WallClockCron
from explorer.engine.tzspans import ZoneSpans, spans_of

__all__ = ["ZonedSeconds"]

_FOREVER = 1 << 62  # UTC's one span: every epoch second


class ZonedSeconds:
    """next/prev of one cron in one zone, on epoch seconds (see the module docstring)."""

    __slots__ = (
        "_spans",
        "_utc_hi",
        "_utc_lo",
        "_utc_off",
        "_wall",
        "_wall_hi",
        "_wall_lo",
        "_wall_off",
        "every_hour",
    )

    def __init__(self, wall: WallClockCron, zone: tzinfo, *, every_hour: bool) -> None:
        self._wall = wall
        self.every_hour = every_hour
        # Instants [_utc_lo, _utc_hi) have offset _utc_off; wall readings
        # [_wall_lo, _wall_hi) resolve with _wall_off. Empty until first asked.
        self._spans: ZoneSpans | None = None
        self._utc_lo = self._utc_hi = self._wall_lo = self._wall_hi = 0
        self._utc_off = self._wall_off = 0
        if not wall.tabled:
            return  # every question goes the datetime way
        if zone is UTC:
            self._utc_lo = self._wall_lo = -_FOREVER
            self._utc_hi = self._wall_hi = _FOREVER
        elif isinstance(zone, ZoneInfo):
            self._spans = spans_of(zone)

    def _utc_offset(self, second: int) -> int | None:
        """The offset of instant ``second`` (its span becomes the cursor)."""
        if not self._utc_lo <= second < self._utc_hi:
            if self._spans is None:
                return None
            self._utc_lo, self._utc_hi, self._utc_off = self._spans.utc_span(second)
        return self._utc_off

    def _wall_offset(self, wall: int) -> int:
        """The offset that resolves reading ``wall`` (its span becomes the cursor)."""
        if not self._wall_lo <= wall < self._wall_hi:
            assert self._spans is not None  # UTC's span covers every reading
            self._wall_lo, self._wall_hi, self._wall_off = self._spans.wall_span(wall)
        return self._wall_off

    def next_second(self, second: int) -> int | None:
        """The first tick strictly after instant ``second`` (CronMixin._get_next)."""
        offset = self._utc_offset(second)
        if offset is None:
            return None
        wall = self._wall.next_wall_second(second + offset)
        if wall is None:
            return None
        return wall - (offset if self.every_hour else self._wall_offset(wall))

    def prev_second(self, second: int) -> int | None:
        """The last tick strictly before instant ``second`` (CronMixin._get_prev)."""
        offset = self._utc_offset(second)
        if offset is None:
            return None
        wall = self._wall.prev_wall_second(second + offset, False)
        if wall is None:
            return None
        return wall - (offset if self.every_hour else self._wall_offset(wall))

    def next_seconds(self, second: int, count: int) -> tuple[list[int], list[bool]]:
        """A chain: ``next_second(second)``, the next of that, ... (at most ``count``).

        With each answer, whether its ``prev_second`` is the one before it (for the
        first: ``second``). Stops early where a transition is near (an empty list:
        ask :meth:`next_second`).
        """
        offset = self._utc_offset(second)
        if offset is None:
            return [], []
        start = second + offset
        walls = self._wall.next_wall_seconds(start, count)
        if not walls:
            return [], []
        if self.every_hour:
            usable = len(walls)
        else:
            if self._wall_offset(walls[0]) != offset:
                return [], []  # the readings resolve with another offset: a transition
            usable = bisect_left(walls, self._wall_hi)  # readings resolved with `offset`
        answers = [wall - offset for wall in walls[:usable]] if offset else walls[:usable]
        # Answer k+1 is the next of answer k only while answer k's wall reading is its
        # reading here, i.e. while answer k lies in this instant span.
        inside = bisect_left(answers, self._utc_hi)
        del answers[inside + 1 :]
        # prev of an answer inside the span is the answer before it: its reading is the
        # one before. For the first, that reading must be `start`, which resolves back
        # to `second` (for a coarse cron: when `start` resolves with this offset).
        prevs = [True] * len(answers)
        prevs[0] = self._wall.prev_wall_second(walls[0], False) == start and (
            self.every_hour or self._wall_lo <= start < self._wall_hi
        )
        if inside < len(answers):
            prevs[inside] = False  # past the span: its reading is not the one here
        return answers, prevs
