"""Small value types shared by timetables and the scheduler (Airflow's own shapes).

Mirrors ``airflow/timetables/base.py``: a run is described by its
``run_after`` and, for schedules that have one, a data interval whose start
is the run's ``logical_date``. Partitioned schedules carry a
``partition_key`` / ``partition_date`` instead (TT-16).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class DataInterval:
    """Half-open ``[start, end)`` data interval; both aware UTC datetimes."""

    start: datetime
    end: datetime

    @classmethod
    def exact(cls, at: datetime) -> DataInterval:
        return cls(at, at)


@dataclass(frozen=True, slots=True)
class TimeRestriction:
    """What limits automatic runs (TT-2): ``earliest``/``latest`` inclusive, and catchup."""

    earliest: datetime | None
    latest: datetime | None
    catchup: bool


@dataclass(frozen=True, slots=True)
class DagRunInfo:
    """A run a timetable proposes: when it may start and what it covers.

    ``logical_date`` is the data interval start (TT-5); ``None`` for
    partitioned runs, which have no data interval (TT-16).
    """

    run_after: datetime
    data_interval: DataInterval | None
    partition_key: str | None = None
    partition_date: datetime | None = None

    @property
    def logical_date(self) -> datetime | None:
        return None if self.data_interval is None else self.data_interval.start

    @classmethod
    def interval(cls, start: datetime, end: datetime) -> DagRunInfo:
        """A data-interval run: it may start once its interval has ended."""
        return cls(run_after=end, data_interval=DataInterval(start, end))

    @classmethod
    def exact(cls, at: datetime) -> DagRunInfo:
        return cls(run_after=at, data_interval=DataInterval(at, at))


@dataclass(frozen=True, slots=True)
class ReferenceRun:
    """The previous automatic run as the scheduler reads it back (TT-3).

    Trigger and data-interval timetables continue from ``data_interval``;
    ``CronPartitionTimetable`` continues from ``run_after``.
    """

    data_interval: DataInterval | None
    run_after: datetime

    @classmethod
    def of(cls, info: DagRunInfo) -> ReferenceRun:
        return cls(info.data_interval, info.run_after)
