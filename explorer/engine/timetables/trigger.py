"""Trigger timetables: a run *at* each tick, its interval looking back.

TT-5, TT-6, TT-8, TT-9 and TT-16.
"""

from __future__ import annotations

from abc import abstractmethod
from datetime import UTC, datetime, timedelta

from explorer.engine.timetables.base import Timetable, TimetableError
from explorer.engine.timetables.interval import (
    Delta,
    DeltaSteps,
    SteppedTimetable,
    delta_seconds,
)
from explorer.engine.types import DagRunInfo, DataInterval, ReferenceRun, TimeRestriction
from explorer.engine.tz import make_aware

RunImmediately = bool | timedelta

_ONE_US = timedelta(microseconds=1)


class _TriggerTimetable(SteppedTimetable):
    """``timetables/trigger.py::_TriggerTimetable.next_dagrun_info`` (TT-5)."""

    interval: Delta
    #: The reference run's instant the next tick follows: its interval's end, or its
    #: run_after for CronPartitionTimetable (whose runs have no interval, TT-16).
    continues_from_run_after = False

    @abstractmethod
    def _first_run(self, now: datetime) -> datetime: ...

    def _continue_from(self, last: ReferenceRun) -> datetime:
        if self.continues_from_run_after:
            return last.run_after
        assert last.data_interval is not None
        return last.data_interval.end

    def _next_tick(
        self, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> datetime | None:
        steps = self.steps
        if restriction.catchup:
            if last is not None:
                tick = steps.next(self._continue_from(last))
            elif restriction.earliest is None:
                tick = self._first_run(now)
            else:
                tick = steps.align_next(restriction.earliest)
        else:
            if last is not None:
                following = steps.next(self._continue_from(last))
                if following > now:
                    # align_prev(now) <= now < following: the latest-tick candidate
                    # cannot win (TT-5), so it is not computed (a run created on time).
                    if restriction.earliest is not None:
                        following = max(following, steps.align_next(restriction.earliest))
                    tick = following
                    if restriction.latest is not None and restriction.latest < tick:
                        return None
                    return tick
            candidates = [steps.align_prev(now)]
            if last is not None:
                candidates.append(following)
            elif restriction.earliest is None:
                candidates.append(self._first_run(now))
            if restriction.earliest is not None:
                candidates.append(steps.align_next(restriction.earliest))
            tick = max(candidates)
        if restriction.latest is not None and restriction.latest < tick:
            return None  # run_after <= end_date, inclusive
        return tick

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        interval_of_last = None if last is None else last.data_interval
        if (
            restriction.catchup
            and interval_of_last is not None
            and not self.continues_from_run_after
        ):
            # _next_tick's first branch, written out: the scheduler's chain of calls.
            tick = self.steps.next(interval_of_last.end)
            latest = restriction.latest
            if latest is not None and latest < tick:
                return None
        else:
            found = self._next_tick(last, restriction, now)
            if found is None:
                return None
            tick = found
        interval = self.interval
        if not interval and tick.tzinfo is UTC:
            return DagRunInfo.interval(tick, tick)  # TT-5: a zero interval ends where it starts
        return DagRunInfo.interval((tick - interval).astimezone(UTC), tick)

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        return DataInterval((run_after - self.interval).astimezone(UTC), run_after)


class CronTriggerTimetable(_TriggerTimetable):
    """``CronTriggerTimetable(cron, *, timezone, interval=0, run_immediately=False)``."""

    def __init__(
        self,
        cron: str,
        *,
        timezone: str = "UTC",
        interval: Delta = timedelta(0),
        run_immediately: RunImmediately = False,
    ) -> None:
        self._use_cron(cron, timezone)
        self.interval = interval
        self.run_immediately = run_immediately

    def _first_run(self, now: datetime) -> datetime:
        """TT-6: without start date or previous run. ``False`` behaves like ``None``."""
        past = self.cron.align_prev(now)
        upcoming = self.cron.align_next(now)
        if self.run_immediately is True:
            return past
        if isinstance(self.run_immediately, timedelta):
            buffer = self.run_immediately
        else:
            buffer = max((upcoming - past) / 10, timedelta(minutes=5))
        return past if now - past <= buffer else upcoming

    def next_changes_after(self, now: datetime) -> datetime | None:
        return self.cron.next(now)


class DeltaTriggerTimetable(_TriggerTimetable):
    """``DeltaTriggerTimetable(delta, *, interval=0)``: ticks anywhere in time (TT-8)."""

    def __init__(self, delta: Delta, *, interval: Delta = timedelta(0)) -> None:
        if delta_seconds(delta) <= 0:
            raise TimetableError(f"schedule interval must be positive, not {delta!r}")
        self.delta = delta
        self.steps = DeltaSteps(delta)
        self.interval = interval

    def _first_run(self, now: datetime) -> datetime:
        return now


class MultipleCronTriggerTimetable(Timetable):
    """``MultipleCronTriggerTimetable(*crons, timezone, interval, run_immediately)`` (TT-9)."""

    def __init__(
        self,
        *crons: str,
        timezone: str = "UTC",
        interval: Delta = timedelta(0),
        run_immediately: RunImmediately = False,
    ) -> None:
        if not crons:
            raise TimetableError("cron expression required")
        self.timetables = [
            CronTriggerTimetable(
                c, timezone=timezone, interval=interval, run_immediately=run_immediately
            )
            for c in crons
        ]
        self.timezone_name = timezone
        # The arguments and sub-answers of the latest next_dagrun_info, read back by
        # holds_until for the same question (the next-run memo asks right after).
        self._last: tuple[object, object, datetime, list[DagRunInfo | None]] | None = None

    @property
    def summary(self) -> str:
        return ", ".join(t.summary for t in self.timetables)

    @property
    def description(self) -> str:
        return ", ".join(t.description for t in self.timetables)

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        infos = [
            t.next_dagrun_info(last=last, restriction=restriction, now=now) for t in self.timetables
        ]
        self._last = (last, restriction, now, infos)
        stamp = now.timestamp()

        def key(info: DagRunInfo | None) -> float:
            if info is None or info.logical_date is None:
                return float("inf")
            ts = info.logical_date.timestamp()
            if restriction.catchup:
                return ts
            return -ts if ts <= stamp else ts

        return min(infos, key=key)  # first of equals wins, as Python's min

    def holds_until(
        self, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> datetime:
        """With catchup=False and a reference run or a start date: the clock until which
        ``next_dagrun_info(last, restriction, now)`` gives the same answer.

        Each cron's own answer holds until the clock passes the tick after it (TT-5:
        ``align_prev(now)`` is a candidate, as for one CronTriggerTimetable), and TT-9's
        pick among them changes only when the clock reaches a logical date still ahead
        (past ones are ranked latest first, future ones earliest first). The end is
        set a microsecond before that date: the pick compares float timestamps, which
        keep apart instants two microseconds apart.
        """
        kept = self._last
        if kept is not None and kept[0] is last and kept[1] is restriction and kept[2] is now:
            infos = kept[3]
        else:
            infos = [
                t.next_dagrun_info(last=last, restriction=restriction, now=now)
                for t in self.timetables
            ]
        ends: list[datetime] = []
        for table, info in zip(self.timetables, infos, strict=True):
            tick = table.cron.next(now if info is None or info.run_after < now else info.run_after)
            ends.append(table.cron.before_shifts(tick))
        dates = [info.logical_date for info in infos if info is not None]
        ahead = [d for d in dates if d is not None and d > now]
        if ahead and len(ahead) == len(dates):
            # All ahead: the pick is the earliest, and it stays the pick when the clock
            # reaches it (the only one past then, with any equal to it); the next one
            # reached would overtake it.
            first = min(ahead)
            ahead = [d for d in ahead if d != first]
        ends.extend(d - _ONE_US for d in ahead)
        return min(ends)

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        intervals = [t.infer_manual_data_interval(run_after=run_after) for t in self.timetables]
        return min(intervals, key=lambda i: i.start)

    def next_changes_after(self, now: datetime) -> datetime | None:
        return min(t.cron.next(now) for t in self.timetables)


class CronPartitionTimetable(CronTriggerTimetable):
    """``CronPartitionTimetable``: cron ticks that carry partition keys, no interval (TT-16)."""

    partitioned = True

    def __init__(
        self,
        cron: str,
        *,
        timezone: str = "UTC",
        run_offset: int | None = None,
        run_immediately: RunImmediately = False,
        key_format: str = "%Y-%m-%dT%H:%M:%S",
    ) -> None:
        super().__init__(cron, timezone=timezone, run_immediately=run_immediately)
        if isinstance(run_offset, bool) or not isinstance(run_offset, int | None):
            raise TimetableError("Run offset other than integer not supported yet.")
        self.run_offset = run_offset or 0
        self.key_format = key_format

    continues_from_run_after = True  # next_dagrun_info_v2 continues from run_after

    def partition_date_for(self, run_date: datetime) -> datetime:
        step = self.cron.next if self.run_offset > 0 else self.cron.prev
        partition_date = run_date
        for _ in range(abs(self.run_offset)):
            partition_date = step(partition_date)
        return partition_date

    def format_key(self, partition_date: datetime) -> str:
        return partition_date.astimezone(self.zone).strftime(self.key_format)

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        tick = self._next_tick(last, restriction, now)
        if tick is None:
            return None
        partition_date = self.partition_date_for(tick)
        return DagRunInfo(
            run_after=tick,
            data_interval=None,
            partition_key=self.format_key(partition_date),
            partition_date=partition_date,
        )

    def resolve_partition_date(self, partition_key: str) -> datetime | None:
        """strptime with key_format, read as wall time in the zone (PT-17, README A.4)."""
        try:
            naive = datetime.strptime(partition_key, self.key_format)  # noqa: DTZ007 (wall time)
        except ValueError as exc:
            raise TimetableError(
                f"Partition key {partition_key!r} does not match the timetable's "
                f"key_format {self.key_format!r}: {exc}"
            ) from exc
        if naive.tzinfo is not None:
            raise TimetableError(
                f"Partition key {partition_key!r}: key_format {self.key_format!r} yields an "
                "aware time, which cannot be localized"
            )
        return make_aware(naive, self.zone)
