"""Naive wall-clock stepping of a cron expression, equal to croniter 7.0.0 but fast.

Airflow asks croniter for every tick (``croniter(expr, start_time=wall).get_next``),
which costs about 150 us a call; the engine makes millions of such calls. Here
the expression is parsed once *by croniter* (so its dialect, aliases and error
messages stay the authority) and its expansion is turned into two tables:

* the sorted seconds-of-day at which the expression fires, and
* per calendar year, the sorted ordinals of the days on which it fires (built
  lazily, one year at a time).

A step is then a bisect in the day's times, or a bisect for the next matching
day. The same stepping is offered on integers (wall-clock seconds since
1970-01-01 00:00, :meth:`WallClockCron.next_wall_second` and kin) for the
epoch-second path of :mod:`explorer.engine.cronfast_zoned`. The differential
tests in ``tests/engine/test_cronfast.py`` hold the result equal to croniter's;
every construct whose croniter semantics are not reproduced here is routed to
croniter itself (see :func:`_compile`).
"""

from __future__ import annotations

import calendar
import re
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from functools import lru_cache

from croniter import CroniterBadDateError, croniter

__all__ = ["WallClockCron"]

# croniter turns a naive reading into a float timestamp and back; the round trip
# keeps microseconds exact only between 1698 and 2241, and outside that range
# croniter's own arithmetic would have to be imitated. The fast path covers the
# years a schedule is simulated in; anything else is answered by croniter.
_FIRST_YEAR, _LAST_YEAR = 1800, 2200
# croniter gives up (CroniterBadDateError) once its search has moved this many
# calendar years away from the start (``max_years_between_matches``' default).
_MAX_YEARS = 50
# A whole field of the form H, R, H(a-b)/n...: hashed or random values. Without a
# hash id, H is an error and R is drawn afresh by every croniter construction,
# which only croniter itself can reproduce.
_HASHED = re.compile(r"^[hr](\(\d+-\d+\))?(/\d+)?$", re.ASCII)
_FIELD = re.compile(r"\S+", re.ASCII)  # croniter's field splitting
_DAY = 86400
_UNIX_ORDINAL = date(1970, 1, 1).toordinal()  # wall seconds count from 1970-01-01 00:00


@dataclass(slots=True)
class _Plan:
    """The expansion of one expression, ready for stepping."""

    times: tuple[int, ...]  # sorted seconds of the day at which it fires
    step: int  # 60 for 5 fields (minute resolution), 1 when a seconds field exists
    months: frozenset[int]
    dom: frozenset[int]  # listed days of month (1..31); empty when ``dom_any``
    dom_any: bool
    dom_last: bool  # 'L': the last day of the month
    dow: frozenset[int]  # listed weekdays, 0 = Sunday; empty when ``dow_any``
    dow_any: bool
    nth: dict[int, frozenset[int | str]]  # weekday -> {n, or 'l' for the last one}
    years: frozenset[int] | None  # the 7th field, None when absent or '*'
    #: Per year, the matching days as a packed ``array('i')``: a year of 10,000 daily
    #: DAGs' plans held as lists of int objects cost about 13 KB each (36 B a day).
    cache: dict[int, array[int]] = field(default_factory=dict)

    def days(self, year: int) -> array[int]:
        """Sorted ordinals of the matching days of ``year`` (computed once per year)."""
        found = self.cache.get(year)
        if found is None:
            found = self.cache[year] = self._build(year)
        return found

    def _build(self, year: int) -> array[int]:
        """Scan the year month by month; a few hundred microseconds, once per year."""
        out = array("i")
        if self.years is not None and year not in self.years:
            return out
        for month in sorted(self.months):
            first = date(year, month, 1).toordinal()
            last = calendar.monthrange(year, month)[1]
            # ordinal % 7 is cron's weekday: ordinal 1 (0001-01-01) was a Monday.
            first_dow = first % 7
            for day in self._month_days(last, first_dow):
                out.append(first + day - 1)
        return out

    def _month_days(self, last: int, first_dow: int) -> list[int]:
        """The matching days (1-based) of a month of ``last`` days starting on ``first_dow``."""
        if self.nth:
            # croniter replaces the weekday test by the nth-weekday one: listed plain
            # weekdays next to a '#' are ignored (``1#2,1`` is the second Monday only).
            picked: set[int] = set()
            for wday, ordinals in self.nth.items():
                start = 1 + (wday - first_dow) % 7
                for n in ordinals:  # 1..5, or "l" for the last one of the month
                    day = start + 7 * ((last - start) // 7 if n == "l" else int(n) - 1)
                    if day <= last:
                        picked.add(day)
            return sorted(picked)

        def on_dom(day: int) -> bool:
            return self.dom_any or day in self.dom or (self.dom_last and day == last)

        def on_dow(day: int) -> bool:
            return self.dow_any or (first_dow + day - 1) % 7 in self.dow

        if not self.dom_any and not self.dow_any:  # both restricted: croniter's day_or=True
            return [d for d in range(1, last + 1) if on_dom(d) or on_dow(d)]
        return [d for d in range(1, last + 1) if on_dom(d) and on_dow(d)]


def _values(field_values: list[int | str], low: int, high: int) -> list[int]:
    """The integer values a field allows.

    croniter keeps a ``*`` written inside a list (``*,5`` expands to ``['*', 5]``)
    and then treats the whole field as unrestricted, so any ``*`` means all values.
    """
    if "*" in field_values:
        return list(range(low, high + 1))
    return [v for v in field_values if isinstance(v, int)]


@lru_cache(maxsize=4096)
def _compile(expression: str) -> _Plan | None:
    """The fast plan for ``expression``, or None where croniter must answer itself.

    Remembered: a plan depends on the expression only and its year cache is a pure
    memo, so timetables with the same expression share it (the GUI reads every
    DAG's schedule again at each edit; croniter's parse is most of that).

    Routed to croniter: expressions croniter refuses (it raises the same error at
    every call), hashed/random fields (``H``, ``R``), nearest-weekday ``15W``,
    and ``#``/``L`` day-of-week forms combined with a restricted day of month
    (croniter then intersects both sides and raises when that is empty, an
    outcome that depends on its search window).
    """
    if any(_HASHED.match(part) for part in _FIELD.findall(expression.lower())):
        return None
    try:
        parsed = croniter(expression, start_time=0.0)  # a fixed start: no wall-clock read
    except Exception:  # croniter leaks several exception types; it raises them again later
        return None
    expanded: list[list[int | str]] = parsed.expanded
    nth_raw: dict[int, set[int | str]] = parsed.nth_weekday_of_month
    if getattr(parsed, "nearest_weekday", None):
        return None
    dom_field, dow_field = expanded[2], expanded[4]
    dom_any, dow_any = "*" in dom_field, "*" in dow_field
    if nth_raw and not dom_any:
        return None
    seconds = _values(expanded[5], 0, 59) if len(expanded) > 5 else [0]
    times = sorted(
        h * 3600 + m * 60 + s
        for h in _values(expanded[1], 0, 23)
        for m in _values(expanded[0], 0, 59)
        for s in seconds
    )
    years = None
    if len(expanded) == 7 and "*" not in expanded[6]:
        years = frozenset(_values(expanded[6], 1970, 2099))
    return _Plan(
        times=tuple(times),
        step=1 if len(expanded) > 5 else 60,
        months=frozenset(_values(expanded[3], 1, 12)),
        dom=frozenset() if dom_any else frozenset(_values(dom_field, 1, 31)),
        dom_any=dom_any,
        dom_last="l" in dom_field,
        dow=frozenset() if dow_any else frozenset(_values(dow_field, 0, 6)),
        dow_any=dow_any,
        nth={int(k): frozenset(v) for k, v in nth_raw.items()},
        years=years,
    )


def _on(ordinal: int, seconds: int, tz: tzinfo | None = None) -> datetime:
    """The reading ``seconds`` into day ``ordinal`` (naive unless ``tz``).

    Built with the constructor: ``datetime.replace`` with keywords costs several
    times more, and this sits on the hot path.
    """
    day = date.fromordinal(ordinal)
    hour, rest = divmod(seconds, 3600)
    minute, second = divmod(rest, 60)
    return datetime(day.year, day.month, day.day, hour, minute, second, 0, tz)


class WallClockCron:
    """Next/previous naive readings matching ``expression`` (croniter's dialect).

    Results equal ``croniter(expression, start_time=wall).get_next(datetime)``
    (resp. ``get_prev``), including ``CroniterBadDateError`` when croniter finds
    nothing within its 50-year search window. Aware readings, years outside
    1800-2200 and the constructs :func:`_compile` declines go to croniter.
    """

    __slots__ = ("_days", "_plan", "_year", "_year_end", "_year_start", "expression")

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self._plan = _compile(expression)
        # The year the integer stepping last looked at: its wall seconds [start, end)
        # and matching days (an empty range: nothing looked at yet).
        self._year = 0
        self._year_start = self._year_end = 0
        self._days: array[int] = array("i")

    @property
    def tabled(self) -> bool:
        """True when the tables answer (else every question goes to croniter)."""
        return self._plan is not None

    def _enter_year(self, wall: int) -> bool:
        """Point the cursor at the year of wall second ``wall``; False outside the tables."""
        year = date.fromordinal(wall // _DAY + _UNIX_ORDINAL).year
        if not _FIRST_YEAR < year < _LAST_YEAR or self._plan is None:
            return False
        self._year = year
        self._year_start = (date(year, 1, 1).toordinal() - _UNIX_ORDINAL) * _DAY
        self._year_end = (date(year + 1, 1, 1).toordinal() - _UNIX_ORDINAL) * _DAY
        self._days = self._plan.days(year)
        return True

    def _locate(self, wall: int) -> tuple[_Plan, array[int], int, int] | None:
        """The plan, the matching days of ``wall``'s year, ``wall``'s day (since 1970) and
        the index of the first matching day not before it; None outside the tables."""
        if not self._year_start <= wall < self._year_end and not self._enter_year(wall):
            return None
        plan = self._plan
        assert plan is not None
        day = wall // _DAY
        return plan, self._days, day, bisect_left(self._days, day + _UNIX_ORDINAL)

    def next_wall_second(self, wall: int) -> int | None:
        """:meth:`next_after` on integers: the first matching reading after ``wall``.

        Readings are wall-clock seconds since 1970-01-01 00:00 (no zone), ``wall``
        a whole second. None when the answer is not within this year or the next
        (or outside the tables): the caller then asks :meth:`next_after`, which
        also raises croniter's errors.
        """
        located = self._locate(wall)
        if located is None:
            return None
        plan, days, day, i = located
        times = plan.times
        ordinal = day + _UNIX_ORDINAL
        if i < len(days) and days[i] == ordinal:
            j = bisect_right(times, wall - day * _DAY)
            if j < len(times):
                return day * _DAY + times[j]
            i += 1
        if i < len(days):
            return (days[i] - _UNIX_ORDINAL) * _DAY + times[0]
        following = plan.days(self._year + 1)
        if following:
            return (following[0] - _UNIX_ORDINAL) * _DAY + times[0]
        return None

    def next_wall_seconds(self, wall: int, count: int) -> list[int]:
        """Up to ``count`` successive matching readings after ``wall``, within its year.

        Each is :meth:`next_wall_second` of the one before (the first of ``wall``);
        fewer (or none) where the year ends or outside the tables.
        """
        located = self._locate(wall)
        if located is None:
            return []
        plan, days, day, i = located
        times = plan.times
        ordinal = day + _UNIX_ORDINAL
        found: list[int] = []
        if i < len(days) and days[i] == ordinal:
            base = day * _DAY
            j = bisect_right(times, wall - base)
            found = [base + t for t in times[j : j + count]]
            i += 1
        while len(found) < count and i < len(days):
            base = (days[i] - _UNIX_ORDINAL) * _DAY
            found += [base + t for t in times[: count - len(found)]]
            i += 1
        return found

    def prev_wall_second(self, wall: int, fraction: bool) -> int | None:
        """:meth:`prev_before` on integers (see :meth:`next_wall_second`).

        ``fraction``: the reading had microseconds, so ``wall`` (its whole second)
        is itself before it and may be the answer.
        """
        located = self._locate(wall)
        if located is None:
            return None
        plan, days, day, i = located
        times = plan.times
        ordinal = day + _UNIX_ORDINAL
        if i < len(days) and days[i] == ordinal:
            j = (bisect_right if fraction else bisect_left)(times, wall - day * _DAY)
            if j:
                return day * _DAY + times[j - 1]
        if i:
            return (days[i - 1] - _UNIX_ORDINAL) * _DAY + times[-1]
        preceding = plan.days(self._year - 1)
        if preceding:
            return (preceding[-1] - _UNIX_ORDINAL) * _DAY + times[-1]
        return None

    def next_after(self, wall: datetime, tz: tzinfo | None = None) -> datetime:
        """The first matching reading after ``wall``, carrying ``tz``.

        ``tz`` lets a UTC caller pass an aware UTC instant and get one back: its
        fields are its wall reading, so the two ``replace`` calls a round trip
        through a naive reading costs are saved on the hot path.
        """
        plan = self._plan
        year = wall.year
        if plan is None or wall.tzinfo is not tz or not _FIRST_YEAR <= year <= _LAST_YEAR:
            return self._croniter(wall, tz, forward=True)
        # croniter searches from floor(wall) + one step; every firing time is a
        # multiple of the step, so "at or after that" is "strictly after wall's
        # whole seconds" and microseconds never matter.
        secs = wall.hour * 3600 + wall.minute * 60 + wall.second
        today = wall.toordinal()
        days = plan.cache.get(year) or plan.days(year)
        i = bisect_left(days, today)
        times = plan.times
        if i < len(days) and days[i] == today:
            j = bisect_right(times, secs)
            if j < len(times):
                hour, rest = divmod(times[j], 3600)
                minute, second = divmod(rest, 60)
                return datetime(year, wall.month, wall.day, hour, minute, second, 0, tz)
            i += 1
        # croniter's window is counted from the year it starts searching in.
        last_step = wall.month == 12 and wall.day == 31 and secs >= _DAY - plan.step
        start_year = year + 1 if last_step else year
        while i == len(days):
            year += 1
            if year - start_year > _MAX_YEARS:
                raise CroniterBadDateError("failed to find next date")
            days = plan.days(year)
            i = 0
        return _on(days[i], times[0], tz)

    def prev_before(self, wall: datetime, tz: tzinfo | None = None) -> datetime:
        """The last matching reading before ``wall``, carrying ``tz`` (see :meth:`next_after`)."""
        plan = self._plan
        year = wall.year
        if plan is None or wall.tzinfo is not tz or not _FIRST_YEAR <= year <= _LAST_YEAR:
            return self._croniter(wall, tz, forward=False)
        # croniter searches back from floor(wall - 1 us): firing times strictly
        # before ``wall``, where a reading with microseconds is after its own second.
        secs = wall.hour * 3600 + wall.minute * 60 + wall.second
        today = wall.toordinal()
        days = plan.cache.get(year) or plan.days(year)
        i = bisect_left(days, today)
        times = plan.times
        if i < len(days) and days[i] == today:
            j = (bisect_right if wall.microsecond else bisect_left)(times, secs)
            if j:
                hour, rest = divmod(times[j - 1], 3600)
                minute, second = divmod(rest, 60)
                return datetime(year, wall.month, wall.day, hour, minute, second, 0, tz)
        first_step = secs == 0 and not wall.microsecond and wall.month == 1 and wall.day == 1
        start_year = year - 1 if first_step else year
        while i == 0:
            year -= 1
            if start_year - year > _MAX_YEARS:
                raise CroniterBadDateError("failed to find prev date")
            days = plan.days(year)
            i = len(days)
        return _on(days[i - 1], times[-1], tz)

    def _croniter(self, wall: datetime, tz: tzinfo | None, *, forward: bool) -> datetime:
        """croniter's own answer, for what the tables do not cover.

        With ``tz`` given, croniter reads the naive reading of ``wall`` (as the naive
        path does) and the answer is given ``tz``; without, ``wall`` goes as it is.
        """
        start = wall if tz is None else wall.replace(tzinfo=None)
        it = croniter(self.expression, start_time=start)
        value = it.get_next(datetime) if forward else it.get_prev(datetime)
        assert isinstance(value, datetime)
        return value if tz is None else value.replace(tzinfo=tz)
