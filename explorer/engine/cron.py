"""Cron expressions stepped on a zone's wall clock, as Airflow 3.3.2 steps them.

Airflow (``timetables/_cron.py``) converts an instant to the naive wall-clock
reading of the timetable's zone, asks croniter for the next/previous matching
reading, and makes the result aware again (DST-1). Crons whose hour field is
``*`` instead add the wall-clock step to the instant as an exact duration, so
every real hour is covered once (DST-2). Everything else (coarser crons)
shifts gap readings forward and resolves repeated readings to the later
instant (DST-3).

croniter is the authority on what an expression means and on its error
messages; it is used here for parsing and validation. Stepping is done by
:class:`explorer.engine.cronfast.WallClockCron`, which expands the expression
once and then steps through precomputed readings (croniter costs about
150 us a call; the engine needs a few microseconds a tick). Whole-second UTC
questions are answered on epoch seconds (:mod:`explorer.engine.cronfast_zoned`,
:mod:`explorer.engine.tzspans`), the rest on datetimes; see :class:`ZonedCron`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from itertools import repeat

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterError, croniter

from explorer.engine.describe import describe_cron
from explorer.engine.errors import ScheduleError
from explorer.engine.tz import local, make_aware
from explorer.engine.tzspans import spans_of

__all__ = ["CRON_PRESETS", "CronError", "ZonedCron", "resolve_preset", "validate_cron"]

# utils/dates.py::cron_presets (TT-1). ``@annually`` and ``@midnight`` are not in
# Airflow's table: they are kept as written and croniter reads them itself.
CRON_PRESETS: dict[str, str] = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
}


_from_second = datetime.fromtimestamp
#: A run's first element before any question: no caller holds this object.
_NO_TICK = datetime(1, 1, 1, tzinfo=UTC)
#: Later than any instant (an empty window starts here).
_NEVER = datetime.max.replace(tzinfo=UTC)
#: The most ticks a run computes ahead (a few KB per cron at most).
_MAX_BATCH = 32
#: More than any DST shift of the tz database (ZonedCron.before_shifts).
_SHIFT_BOUND = timedelta(hours=3)
_SHIFT_SECONDS = _SHIFT_BOUND // timedelta(seconds=1)


class CronError(ScheduleError):
    """An expression croniter refuses; the message is croniter's own."""


def resolve_preset(expression: str) -> str:
    return CRON_PRESETS.get(expression, expression)


def validate_cron(expression: str) -> None:
    """Raise :class:`CronError` with croniter's message if ``expression`` is invalid."""
    _parse(resolve_preset(expression))


@lru_cache(maxsize=4096)
def _parse(expression: str) -> croniter:
    try:
        return croniter(expression)
    except (CroniterBadCronError, CroniterBadDateError, CroniterError) as exc:
        raise CronError(str(exc)) from exc
    except (
        ValueError,
        TypeError,
        KeyError,
        IndexError,
    ) as exc:  # croniter leaks these on odd input
        raise CronError(f"[{expression}] is not acceptable: {exc}") from exc


class ZonedCron:
    """One cron expression in one time zone, with Airflow's four primitives.

    All instants in and out are aware UTC datetimes.

    Two ways to the same answers. The reference way is Airflow's own steps on
    datetimes: the wall reading (:func:`~explorer.engine.tz.local`), the next
    matching reading (:class:`~explorer.engine.cronfast.WallClockCron`), the
    instant of that reading (:func:`~explorer.engine.tz.make_aware`). The fast
    way (:class:`~explorer.engine.cronfast_zoned.ZonedSeconds`) does the same on
    epoch seconds for whole-second UTC instants; whatever it cannot answer
    (microseconds, another tzinfo on the input, a cron croniter must step
    itself, an answer more than a year away) goes the reference way.

    The scheduler asks in chains: the next tick after the tick it was given last
    (a trigger timetable), or the previous tick of that tick and then its next
    (a data-interval timetable aligning the last interval's end). So the fast
    way's answers are kept as a *run*: ticks computed ahead, each the next of
    the one before, handed out when the question is the very object handed out
    before. ``tests/engine/test_zoned_fast.py`` holds all of it equal to the
    reference way.
    """

    __slots__ = (
        "_align_next_memo",
        "_align_prev_memo",
        "_batch",
        "_fast",
        "_next_memo",
        "_reference",
        "_run",
        "_run_pos",
        "_run_prev",
        "_run_second",
        "_steady",
        "_wall",
        "every_hour",
        "expression",
        "zone",
    )

    def __init__(self, expression: str, zone: tzinfo, *, reference: bool = False) -> None:
        """``reference``: step the reference way only (no spans, no run, no memo), the
        steps the fast way is held to; the tests build one to compare (a subclass
        cannot do it: this class is compiled in the bundle, adr/0013)."""
        from explorer.engine.cronfast import WallClockCron
        from explorer.engine.cronfast_zoned import ZonedSeconds

        self.expression = resolve_preset(expression)
        self.zone = zone
        self._reference = reference
        parsed = _parse(self.expression)
        # _cron.py::_covers_every_hour: croniter normalises an all-hours field to "*".
        self.every_hour: bool = parsed.expanded[1] == ["*"]
        self._wall = WallClockCron(self.expression)
        self._fast = ZonedSeconds(self._wall, zone, every_hour=self.every_hour)
        # align_next is asked again and again for the same start date (TT-2's earliest),
        # align_prev for the same clock when catchup is off.
        self._align_next_memo: tuple[datetime, datetime] | None = None
        self._align_prev_memo: tuple[datetime, datetime] | None = None
        # The last next() asked that the run does not hold.
        self._next_memo: tuple[datetime, datetime] | None = None
        # The run: _run[k + 1] is next(_run[k]); _run_prev[k] says prev(_run[k]) is
        # _run[k - 1]; _run_pos is where the last question was; _run_second the epoch
        # second of the last tick (None: the run cannot grow); _batch how many ticks
        # the next growth computes (doubling while the chain goes on).
        self._run: list[datetime] = [_NO_TICK]
        self._run_prev: list[bool] = [False]
        self._run_pos = 0
        self._run_second: int | None = None
        self._batch = 2
        # Instants lo <= t < hi whose 3 h before hold one UTC offset: there
        # before_shifts answers the tick itself, two comparisons (none at first).
        self._steady: tuple[datetime, datetime] = (_NEVER, _NO_TICK)

    # ------------------------------------------------------------------ the run
    def _start_run(self, tick: datetime, second: int | None) -> None:
        """A new run that starts at ``tick`` (a next() answer) and may grow from it."""
        self._run = [tick]
        self._run_prev = [False]
        self._run_pos = 0
        self._run_second = second
        self._batch = 2

    def _grow_run(self) -> bool:
        """Replace the run by its last tick and the ticks after it; False if none."""
        second = self._run_second
        if second is None:
            return False
        seconds, prevs = self._fast.next_seconds(second, self._batch)
        if not seconds:
            return False
        self._run = [self._run[-1], *map(_from_second, seconds, repeat(UTC))]
        self._run_prev = [False, *prevs]
        self._run_pos = 0
        self._run_second = seconds[-1]
        self._batch = min(2 * self._batch, _MAX_BATCH)
        return True

    # ------------------------------------------------------------------ how it reads
    @property
    def summary(self) -> str:
        """The expression, presets resolved (Airflow's ``summary`` of a cron timetable)."""
        return self.expression

    @property
    def description(self) -> str:
        """A sentence for the expression, as cron-descriptor writes it (``description``)."""
        return describe_cron(self.expression)

    # ------------------------------------------------------------------ the primitives
    def next(self, current: datetime) -> datetime:
        """The first tick strictly after ``current`` (CronMixin._get_next)."""
        if self._reference:
            return self.reference_next(current)
        run = self._run
        pos = self._run_pos
        if current is run[pos] and (pos + 1 < len(run) or self._grow_run()):
            # (_grow_run starts the run again at the question: position 0.)
            self._run_pos = pos = self._run_pos + 1
            return self._run[pos]
        if pos and current is run[pos - 1]:
            # The tick before, asked again: a timetable asks next(reference end) after
            # the memo asked next(answer) (dagschedule.stable_until), which moved on.
            return run[pos]
        memo = self._next_memo
        if memo is not None and _same_reading(memo[0], current):
            return memo[1]
        found, found_second = self._search_next(current)
        self._start_run(found, found_second)
        return found

    def _search_next(self, current: datetime) -> tuple[datetime, int | None]:
        """The first tick after ``current`` searched (by whole UTC seconds when it is
        one, else by the reference stepping) and remembered; with its second."""
        second = _whole_utc_second(current)
        found_second = None if second is None else self._fast.next_second(second)
        found = (
            self.reference_next(current)
            if found_second is None
            else _from_second(found_second, UTC)
        )
        self._next_memo = (current, found)
        return found, found_second

    def prev(self, current: datetime) -> datetime:
        """The last tick strictly before ``current`` (CronMixin._get_prev)."""
        if self._reference:
            return self.reference_prev(current)
        pos = self._run_pos
        if current is self._run[pos] and self._run_prev[pos]:
            return self._run[pos - 1]
        if pos > 1 and current is self._run[pos - 1] and self._run_prev[pos - 1]:
            return self._run[pos - 2]  # the tick before, asked again (see next)
        second = _whole_utc_second(current)
        found = None if second is None else self._fast.prev_second(second)
        if found is None:
            return self.reference_prev(current)
        return _from_second(found, UTC)

    def align_next(self, current: datetime) -> datetime:
        """``current`` if it is a tick, else the next tick (CronMixin._align_to_next)."""
        if self._reference:
            nxt = self.reference_next(current)
            return current if self.reference_prev(nxt) == current else nxt
        memo = self._align_next_memo
        if memo is not None and memo[0] == current:
            return memo[1]
        nxt = self.next(current)
        aligned = current if self.prev(nxt) == current else nxt
        self._align_next_memo = (current, aligned)
        return aligned

    def align_prev(self, current: datetime) -> datetime:
        """``current`` if it is a tick, else the previous tick (CronMixin._align_to_prev)."""
        if self._reference:
            prv = self.reference_prev(current)
            return current if self.reference_next(prv) == current else prv
        pos = self._run_pos
        if current is self._run[pos] and self._run_prev[pos]:
            return current  # prev is the run's tick before, whose next is this one
        if pos > 1 and current is self._run[pos - 1] and self._run_prev[pos - 1]:
            return current  # the tick before, asked again (see next)
        memo = self._align_prev_memo
        if memo is not None and _same_reading(memo[0], current):
            return memo[1]
        prv = self.prev(current)
        aligned = current if self._next_keeping_run(prv) == current else prv
        self._align_prev_memo = (current, aligned)
        return aligned

    def _next_keeping_run(self, current: datetime) -> datetime:
        """:meth:`next` without starting a run at its answer: align_prev's check of a
        tick (``next(prev(t)) == t``) would otherwise throw away the run that ``t``
        came from, and the timetable's ``next(t)`` right after would search again (a
        data-interval timetable aligning the last interval's end, TT-4)."""
        run = self._run
        pos = self._run_pos
        if current is run[pos] and pos + 1 < len(run):
            return run[pos + 1]
        if pos and current is run[pos - 1]:
            return run[pos]
        memo = self._next_memo
        if memo is not None and _same_reading(memo[0], current):
            return memo[1]
        return self._search_next(current)[0]

    def before_shifts(self, tick: datetime) -> datetime:
        """``tick``, or 3 h before it when the zone's offset changes in those 3 h.

        Near a transition ``align_prev(now)`` can be *after* now (DST-3: a reading in
        the gap is shifted forward, a repeated one resolves to the later instant), so
        an answer holding "until the next tick" (the next-run memo, SCH-4b) may
        change before the clock reaches the tick; ending 3 h early (more than any
        DST shift of the tz database, Antarctica/Troll's 2 h) leaves such windows out.
        """
        zone = self.zone
        if zone is UTC:
            return tick
        lo, hi = self._steady
        if lo <= tick < hi:
            return tick
        second = _whole_utc_second(tick)
        if second is not None:
            # The zone's offset spans (tzspans, asked of the zone itself) answer on
            # integers, and the span found serves every later tick inside it.
            span_lo, span_hi, _offset = spans_of(zone).utc_span(second)
            if span_lo + _SHIFT_SECONDS <= second:
                self._steady = (
                    _from_second(span_lo + _SHIFT_SECONDS, UTC),
                    _from_second(span_hi, UTC),
                )
                return tick
        earlier = tick - _SHIFT_BOUND
        if earlier.astimezone(zone).utcoffset() == tick.astimezone(zone).utcoffset():
            return tick
        return earlier

    # ------------------------------------------------------------------ the reference way
    def reference_next(self, current: datetime) -> datetime:
        """:meth:`next` the reference way, on datetimes (see the class docstring)."""
        if self.zone is UTC and current.tzinfo is UTC:
            # In UTC the wall reading is the instant (no gap, no fold: DST-1 to DST-3
            # coincide), so the tables step the aware instant itself.
            try:
                return self._wall.next_after(current, UTC)
            except (CroniterError, ValueError, OverflowError) as exc:
                raise CronError(f"[{self.expression}] failed to find next date: {exc}") from exc
        naive = local(current, self.zone)
        try:
            scheduled = self._wall.next_after(naive)
        except (CroniterError, ValueError, OverflowError) as exc:
            raise CronError(f"[{self.expression}] failed to find next date: {exc}") from exc
        if self.every_hour:
            return current + (scheduled - naive)
        return make_aware(scheduled, self.zone)

    def reference_prev(self, current: datetime) -> datetime:
        """:meth:`prev` the reference way, on datetimes (see the class docstring)."""
        if self.zone is UTC and current.tzinfo is UTC:  # see reference_next
            try:
                return self._wall.prev_before(current, UTC)
            except (CroniterError, ValueError, OverflowError) as exc:
                raise CronError(f"[{self.expression}] failed to find previous date: {exc}") from exc
        naive = local(current, self.zone)
        try:
            scheduled = self._wall.prev_before(naive)
        except (CroniterError, ValueError, OverflowError) as exc:
            raise CronError(f"[{self.expression}] failed to find previous date: {exc}") from exc
        if self.every_hour:
            return current - (naive - scheduled)
        return make_aware(scheduled, self.zone)


def _same_reading(kept: datetime, current: datetime) -> bool:
    """A memo's question is this one: the same instant, read in the same zone and fold
    (equal aware datetimes in other zones or folds may have other answers, DST-1/DST-3)."""
    return kept == current and kept.tzinfo is current.tzinfo and kept.fold == current.fold


def _whole_utc_second(instant: datetime) -> int | None:
    """The epoch second of a whole-second UTC instant (what the fast way takes), else None."""
    if instant.tzinfo is not UTC or instant.microsecond:
        return None
    return int(instant.timestamp())  # exact for a whole second
