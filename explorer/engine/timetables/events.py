"""``EventsTimetable``: runs exactly at listed instants (TT-10).

Modelled on the scheduler-side class ``airflow.timetables.events.EventsTimetable``;
the Task SDK's class of the same name cannot be serialized by Airflow 3.3.2
(conformance README 2.6), which the scenario validator warns about.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from datetime import datetime

from explorer.engine.timetables.base import Timetable
from explorer.engine.types import DagRunInfo, DataInterval, ReferenceRun, TimeRestriction


class EventsTimetable(Timetable):
    def __init__(
        self,
        event_dates: Iterable[datetime],
        restrict_to_events: bool = False,
        presorted: bool = False,
        description: str | None = None,
    ) -> None:
        self.event_dates = list(event_dates)
        if not presorted:
            self.event_dates.sort()
        self.presorted = presorted
        self.restrict_to_events = restrict_to_events
        self._description = description
        # With presorted=True Airflow trusts the list order; scanning then stays linear.
        self._sorted = all(
            a <= b for a, b in zip(self.event_dates, self.event_dates[1:], strict=False)
        )

    @property
    def summary(self) -> str:
        return self._description or f"{len(self.event_dates)} events"

    @property
    def description(self) -> str:
        if self._description is not None:
            return self._description
        if not self.event_dates:
            return "No events"
        first, last = self.event_dates[0], self.event_dates[-1]
        return f"{len(self.event_dates)} events between {first.isoformat()} and {last.isoformat()}"

    def next_dagrun_info(
        self, *, last: ReferenceRun | None, restriction: TimeRestriction, now: datetime
    ) -> DagRunInfo | None:
        earliest = restriction.earliest
        if not restriction.catchup and (earliest is None or now > earliest):
            earliest = now  # TT-10: catchup=False skips every past event
        floor = None if last is None or last.data_interval is None else last.data_interval.end
        event = self._first_event(earliest, floor)
        if event is None:
            return None
        if restriction.latest is not None and event > restriction.latest:
            return None
        return DagRunInfo.exact(event)

    def _first_event(self, earliest: datetime | None, floor: datetime | None) -> datetime | None:
        """The first event, in list order, not before ``earliest`` and after ``floor``."""
        if self._sorted:
            index = 0
            if earliest is not None:
                index = bisect_left(self.event_dates, earliest)
            if floor is not None:
                index = max(index, bisect_right(self.event_dates, floor))
            return self.event_dates[index] if index < len(self.event_dates) else None
        for event in self.event_dates:
            if earliest is not None and event < earliest:
                continue
            if floor is not None and event <= floor:
                continue
            return event
        return None

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        if not self.restrict_to_events or not self.event_dates:
            return DataInterval.exact(run_after)
        if run_after < self.event_dates[0]:
            return DataInterval.exact(self.event_dates[0])
        for event in reversed(self.event_dates):
            if event <= run_after:
                return DataInterval.exact(event)
        return DataInterval.exact(self.event_dates[0])  # unreachable for sorted lists

    def next_changes_after(self, now: datetime) -> datetime | None:
        index = bisect_right(self.event_dates, now) if self._sorted else 0
        return self.event_dates[index] if index < len(self.event_dates) else None
