"""Data-interval timetables: a run covers one period and starts when it ends (TT-4, TT-7)."""

from __future__ import annotations

from abc import abstractmethod
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Protocol

from dateutil.relativedelta import relativedelta

from explorer.engine.cron import ZonedCron
from explorer.engine.timetables.base import Timetable, TimetableError
from explorer.engine.types import DagRunInfo, DataInterval, ReferenceRun, TimeRestriction
from explorer.engine.tz import get_zone

Delta = timedelta | relativedelta


class Steps(Protocol):
    """How a timetable moves between its boundaries (CronMixin's four primitives), and
    how they read.

    A :class:`~explorer.engine.cron.ZonedCron` for the cron timetables,
    :class:`DeltaSteps` for the delta ones. The timetables call it directly (no
    per-timetable wrapper methods: these calls are the scheduler's hot path).
    """

    @property
    def summary(self) -> str: ...

    @property
    def description(self) -> str: ...

    def next(self, current: datetime) -> datetime: ...

    def prev(self, current: datetime) -> datetime: ...

    def align_next(self, current: datetime) -> datetime: ...

    def align_prev(self, current: datetime) -> datetime: ...


class DeltaSteps:
    """Absolute steps of a delta in UTC; every instant is a boundary (TT-7, TT-8, DST-6)."""

    __slots__ = ("delta",)

    def __init__(self, delta: Delta) -> None:
        self.delta = delta

    @property
    def summary(self) -> str:
        return delta_summary(self.delta)

    @property
    def description(self) -> str:
        return self.summary

    def next(self, current: datetime) -> datetime:
        return (current + self.delta).astimezone(UTC)

    def prev(self, current: datetime) -> datetime:
        return (current - self.delta).astimezone(UTC)

    def align_next(self, current: datetime) -> datetime:
        return current

    def align_prev(self, current: datetime) -> datetime:
        return current


class SteppedTimetable(Timetable):
    """A timetable that moves between the boundaries of its ``steps``: a cron read in a
    zone (TT-1) or a delta in absolute time (TT-7, TT-8).

    The cron and delta kinds of both families (data-interval, trigger) derive from
    it alone, so every timetable has one chain of bases: what lets mypyc compile
    them as native classes that take no weak references (adr/0013).
    """

    steps: Steps
    # The cron kinds' cron, its zone and the zone's name (set by _use_cron only).
    cron: ZonedCron
    zone: tzinfo
    timezone_name: str
    expression: str

    def _use_cron(self, cron: str, timezone: str) -> None:
        """Step by ``cron`` read in ``timezone`` (the DAG's zone unless given, TT-1)."""
        self.timezone_name = timezone
        self.zone = get_zone(timezone)
        self.cron = ZonedCron(cron, self.zone)
        self.expression = self.cron.expression
        self.steps = self.cron

    @property
    def summary(self) -> str:
        return self.steps.summary

    @property
    def description(self) -> str:
        return self.steps.description


class _DataIntervalTimetable(SteppedTimetable):
    """``timetables/interval.py::_DataIntervalTimetable.next_dagrun_info`` (TT-4 steps 1-4)."""

    #: ``_skip_to_latest(earliest, now)`` starts its period strictly before ``now``
    #: (before the start date's alignment is applied): what lets ``next_dagrun_info``
    #: leave it out when the reference's next start is not before ``now``.
    skips_before_now = True

    @abstractmethod
    def _skip_to_latest(self, earliest: datetime | None, now: datetime) -> datetime: ...

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        steps = self.steps
        earliest = restriction.earliest
        interval = None if last is None else last.data_interval
        if not restriction.catchup and interval is not None and self.skips_before_now:
            start = steps.align_prev(interval.end)
            if start >= now and start > interval.start:
                # _skip_to_latest's period starts before now (the latest *complete*
                # one, TT-4 step 1), so it cannot move this start: only the start
                # date can (a run created when its period ends).
                if earliest is not None:
                    start = max(start, steps.align_next(earliest))
                if restriction.latest is not None and start > restriction.latest:
                    return None
                return DagRunInfo.interval(start, steps.next(start))
        if not restriction.catchup:
            earliest = self._skip_to_latest(earliest, now)
        elif earliest is not None:
            earliest = steps.align_next(earliest)
        if interval is None:
            if earliest is None:
                return None  # TT-4.2: catchup without a start date never schedules
            start = earliest
        else:
            start = steps.align_prev(interval.end)
            if earliest is not None and earliest > start:
                start = earliest
            if start <= interval.start:
                start = steps.next(start)
                if start <= interval.start:
                    # Airflow raises here (Lord_Howe half-hour DST, conformance README 2.6).
                    raise TimetableError(
                        f"{self.name} timetable did not advance past "
                        f"{interval.start.isoformat()} after one retry"
                    )
        if restriction.latest is not None and start > restriction.latest:
            return None  # TT-4.4: the test is on the interval *start*
        return DagRunInfo.interval(start, steps.next(start))


class CronDataIntervalTimetable(_DataIntervalTimetable):
    """``CronDataIntervalTimetable(cron, timezone)``: one cron period per run (TT-4)."""

    def __init__(self, cron: str, timezone: str = "UTC") -> None:
        self._use_cron(cron, timezone)
        # (earliest, now, answer) of the last _skip_to_latest: with catchup=False the
        # scheduler asks it at every call, mostly with the same clock.
        self._skip_memo: tuple[datetime | None, datetime, datetime] | None = None

    def _skip_to_latest(self, earliest: datetime | None, now: datetime) -> datetime:
        # CronDataIntervalTimetable._skip_to_latest: the latest *complete* period,
        # or the one starting now when now is exactly on a boundary.
        memo = self._skip_memo
        if (
            memo is not None
            and memo[0] == earliest
            and memo[1] == now
            and memo[1].tzinfo is now.tzinfo
            and memo[1].fold == now.fold
        ):
            return memo[2]
        last_start = self.cron.prev(now)
        next_start = self.cron.next(last_start)
        new_start = last_start if next_start == now else self.cron.prev(last_start)
        if earliest is not None:
            new_start = max(new_start, self.cron.align_next(earliest))
        self._skip_memo = (earliest, now, new_start)
        return new_start

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        end = self.cron.align_prev(run_after)
        return DataInterval(self.cron.prev(end), end)

    def next_changes_after(self, now: datetime) -> datetime | None:
        return self.cron.next(now)


def delta_seconds(delta: Delta) -> float:
    """A delta's length as Airflow measures it for epoch rounding (months as 30 days)."""
    if isinstance(delta, timedelta):
        return delta.total_seconds()
    return float(
        delta.years * 365 * 86400
        + delta.months * 30 * 86400
        + delta.days * 86400
        + delta.hours * 3600
        + delta.minutes * 60
        + delta.seconds
    )


def has_calendar_units(delta: Delta) -> bool:
    return isinstance(delta, relativedelta) and bool(delta.months or delta.years)


def delta_summary(delta: Delta) -> str:
    if isinstance(delta, timedelta):
        return str(delta)
    return repr(delta)


class DeltaDataIntervalTimetable(_DataIntervalTimetable):
    """``DeltaDataIntervalTimetable(delta)``: intervals stepped in absolute UTC time (TT-7)."""

    def __init__(self, delta: Delta) -> None:
        self.delta = delta
        if delta_seconds(delta) <= 0 and not has_calendar_units(delta):
            raise TimetableError(f"schedule interval must be positive, not {delta!r}")
        self.steps = DeltaSteps(delta)
        # Epoch multiples floor ``now``; calendar steps from the start date may not.
        self.skips_before_now = not has_calendar_units(delta)

    def _round(self, dt: datetime, anchor: datetime) -> datetime:
        """Floor ``dt`` to a boundary: months/years step from ``anchor``, else epoch multiples."""
        if has_calendar_units(self.delta):
            boundary = anchor
            while self.steps.next(boundary) <= dt:
                boundary = self.steps.next(boundary)
            return boundary
        seconds = delta_seconds(self.delta)
        stamp = dt.timestamp()
        return datetime.fromtimestamp(stamp - (stamp % seconds), tz=UTC)

    def _skip_to_latest(self, earliest: datetime | None, now: datetime) -> datetime:
        new_start = self.steps.prev(self._round(now, earliest or now))
        return new_start if earliest is None else max(new_start, earliest)

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        return DataInterval(self.steps.prev(run_after), run_after)

    def next_changes_after(self, now: datetime) -> datetime | None:
        if has_calendar_units(self.delta):
            return now
        seconds = delta_seconds(self.delta)
        stamp = now.timestamp()
        return datetime.fromtimestamp(stamp - (stamp % seconds) + seconds, tz=UTC)
