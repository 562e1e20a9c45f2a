"""The trivial timetables: None, @once, @continuous, PartitionedAtRuntime (TT-11..TT-14, TT-18)."""

from __future__ import annotations

from datetime import datetime

from explorer.engine.assets.condition import Condition
from explorer.engine.timetables.base import Timetable, TimetableError
from explorer.engine.types import DagRunInfo, DataInterval, ReferenceRun, TimeRestriction


class NullTimetable(Timetable):
    """``schedule=None``: never schedules; manual runs only (TT-13)."""

    periodic = False
    can_be_scheduled = False

    @property
    def summary(self) -> str:
        return "None"

    @property
    def description(self) -> str:
        return "Never, external triggers only"

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        return None

    def next_changes_after(self, now: datetime) -> datetime | None:
        return None


class PartitionedAtRuntime(NullTimetable):
    """Never scheduled; its tasks choose partition keys at run time (TT-18, PT-15)."""

    partitioned_at_runtime = True

    @property
    def summary(self) -> str:
        return "Partitioned at runtime"


class OnceTimetable(Timetable):
    """``@once``: one run at start_date (or now), whatever catchup says (TT-11)."""

    periodic = False

    @property
    def summary(self) -> str:
        return "@once"

    @property
    def description(self) -> str:
        return "Once, as soon as possible"

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        if last is not None:
            return None
        run_after = restriction.earliest or now
        if restriction.latest is not None and run_after > restriction.latest:
            return None
        return DagRunInfo.exact(run_after)


class ContinuousTimetable(Timetable):
    """``@continuous``: [previous end, now], one run at a time (TT-12)."""

    periodic = False
    active_runs_limit: int | None = 1

    @property
    def summary(self) -> str:
        return "@continuous"

    @property
    def description(self) -> str:
        return "As frequently as possible, but only one run at a time."

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        start_date = restriction.earliest or now
        interval = None if last is None else last.data_interval
        if interval is not None:
            if interval.end > now:
                start = start_date
                end = start + (interval.end - interval.start)
            else:
                start, end = interval.end, now
        else:
            start, end = start_date, max(start_date, now)
        if restriction.latest is not None and end > restriction.latest:
            return None
        return DagRunInfo.interval(start, end)


class AssetTriggeredTimetable(NullTimetable):
    """Asset-driven DAGs: ``next_dagrun_info`` is always None; the asset rules run them (TT-14).

    Like NullTimetable it never schedules by the clock; manual runs are exact.
    """

    asset_triggered = True

    def __init__(self, condition: Condition) -> None:
        self.asset_condition = condition

    @property
    def summary(self) -> str:
        return "Asset"

    @property
    def description(self) -> str:
        return "Triggered by assets"


class AssetOrTimeSchedule(Timetable):
    """``AssetOrTimeSchedule(timetable=..., assets=...)``: the clock side is the inner
    timetable's, the asset side follows the AS rules (TT-15)."""

    asset_triggered = True

    def __init__(self, *, timetable: Timetable, assets: Condition) -> None:
        if timetable.asset_triggered:
            raise TimetableError("AssetOrTimeSchedule cannot nest an asset-driven timetable")
        self.timetable = timetable
        self.asset_condition = assets
        self.periodic = timetable.periodic
        self.can_be_scheduled = timetable.can_be_scheduled
        self.active_runs_limit = timetable.active_runs_limit

    @property
    def summary(self) -> str:
        return f"Asset or {self.timetable.summary}"

    @property
    def description(self) -> str:
        return f"Triggered by assets or {self.timetable.description}"

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        return self.timetable.next_dagrun_info(last=last, restriction=restriction, now=now)

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        return self.timetable.infer_manual_data_interval(run_after=run_after)

    def next_changes_after(self, now: datetime) -> datetime | None:
        return self.timetable.next_changes_after(now)
