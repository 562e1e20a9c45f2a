"""A zone's UTC offsets as integer spans, for stepping crons on epoch seconds.

Converting an aware instant to a zone's wall reading and back
(``astimezone`` + ``replace``, :func:`explorer.engine.tz.local` /
:func:`~explorer.engine.tz.make_aware`) costs several microseconds; the fast
cron path (:mod:`explorer.engine.cron`) does the same work on integers: an
instant is its epoch second ``u``, its wall reading is ``u + offset(u)``, and a
wall reading ``t`` is the instant ``t - offset`` of the span it falls in.

The offsets are not read from the zone files here: they are *asked of the zone
itself* (``datetime.fromtimestamp(p, zone).utcoffset()``), so whatever
``zoneinfo`` answers (the pinned tzdata, explicit transitions or the POSIX rule
after them) is what the spans hold. A year is probed once a day; where two
probes differ, a bisection on whole seconds finds the transition. That finds
every transition as long as two offset changes are never less than a day
apart: in the pinned tzdata (2026f) the closest pair is 7 days apart
(``tests/engine/test_tzspans.py`` checks this for every zone).

Two kinds of spans, both clipped to one calendar year (a cursor that misses
asks again, which happens a few times a year):

* :meth:`ZoneSpans.utc_span`: the stretch of instants sharing one offset, for
  instant -> wall reading (DST-1's first half).
* :meth:`ZoneSpans.wall_span`: the stretch of wall readings resolved with one
  offset, for wall reading -> instant the way Airflow resolves it (DST-1,
  conformance README 1.4): a reading in a spring-forward gap is shifted forward
  by the gap and a repeated reading takes the later instant. For a transition
  at instant ``T`` from offset ``a`` to ``b``, both rules give offset ``b`` to
  every reading from ``T + b`` on and ``a`` before it, so the wall spans are
  the instant spans moved by their own offset.
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import cache

__all__ = ["Span", "ZoneSpans", "spans_of", "year_of"]

#: ``(lo, hi, offset)``: seconds ``lo <= s < hi`` share ``offset`` (seconds east of UTC).
Span = tuple[int, int, int]

_DAY = 86400
_UNIX_ORDINAL = date(1970, 1, 1).toordinal()
_ONE_SECOND = timedelta(seconds=1)
# A window reaches this far past its year on both sides, further than any UTC offset
# (at most a day), so that a wall reading of the year sees every transition that
# decides its offset.
_MARGIN = 2 * _DAY


def year_of(seconds: int) -> int:
    """The calendar year of epoch second ``seconds`` (read as UTC or as a wall reading)."""
    return date.fromordinal(seconds // _DAY + _UNIX_ORDINAL).year


def _year_start(year: int) -> int:
    return (date(year, 1, 1).toordinal() - _UNIX_ORDINAL) * _DAY


class _Year:
    """The transitions within one year's window, as instants and as wall readings."""

    __slots__ = ("after", "before", "end", "instants", "start", "walls")

    def __init__(self, zone: tzinfo, year: int) -> None:
        self.start = _year_start(year)
        self.end = _year_start(year + 1)

        def offset(second: int) -> int:
            value = datetime.fromtimestamp(second, zone).utcoffset()
            assert value is not None  # a zone's reading always has an offset
            return value // _ONE_SECOND

        lo = self.start - _MARGIN
        probe, current = lo, offset(lo)
        self.before = current  # the offset in force when the window opens
        self.instants: list[int] = []  # T: the first second of each new offset
        self.after: list[int] = []  # b: that offset
        last = self.end + _MARGIN
        while probe < last:
            following = min(probe + _DAY, last)
            changed = offset(following)
            if changed != current:
                # One change between the two probes (see the module docstring):
                # the first second at which the new offset holds.
                low, high = probe, following
                while high - low > 1:
                    middle = (low + high) // 2
                    if offset(middle) == changed:
                        high = middle
                    else:
                        low = middle
                self.instants.append(high)
                self.after.append(changed)
                current = changed
            probe = following
        # T + b: the first wall reading resolved with offset b (DST-1, see above).
        self.walls = [t + b for t, b in zip(self.instants, self.after, strict=True)]

    def span(self, bounds: list[int], second: int) -> Span:
        """The span of ``second`` in ``bounds`` (instants or walls), clipped to the year."""
        k = bisect_right(bounds, second) - 1
        off = self.before if k < 0 else self.after[k]
        lo = self.start if k < 0 else max(bounds[k], self.start)
        hi = self.end if k + 1 == len(bounds) else min(bounds[k + 1], self.end)
        return lo, hi, off


class ZoneSpans:
    """The offsets of one zone, probed a year at a time as they are asked for."""

    __slots__ = ("_years", "zone")

    def __init__(self, zone: tzinfo) -> None:
        self.zone = zone
        self._years: dict[int, _Year] = {}

    def _year(self, second: int) -> _Year:
        year = year_of(second)
        found = self._years.get(year)
        if found is None:
            found = self._years[year] = _Year(self.zone, year)
        return found

    def utc_span(self, instant: int) -> Span:
        """The instants around epoch second ``instant`` that share its UTC offset."""
        year = self._year(instant)
        return year.span(year.instants, instant)

    def wall_span(self, wall: int) -> Span:
        """The wall readings around ``wall`` that Airflow resolves with one offset (DST-1)."""
        year = self._year(wall)
        return year.span(year.walls, wall)


@cache
def spans_of(zone: tzinfo) -> ZoneSpans:
    """One :class:`ZoneSpans` per zone, shared by every cron read in it."""
    if zone is UTC:
        raise ValueError("UTC has no transitions; callers use offset 0")
    return ZoneSpans(zone)
