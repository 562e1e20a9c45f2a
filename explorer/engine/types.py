"""Small value types shared by timetables and the scheduler (Airflow's own shapes).

Mirrors ``airflow/timetables/base.py``: a run is described by its
``run_after`` and, for schedules that have one, a data interval whose start
is the run's ``logical_date``. Partitioned schedules carry a
``partition_key`` / ``partition_date`` instead (TT-16).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class DataInterval:
    """Half-open ``[start, end)`` data interval; both aware UTC datetimes."""

    start: datetime
    end: datetime

    # A timetable builds one or two of these per answer, millions in a simulation: the
    # frozen dataclass __init__ (object.__setattr__ per field) cost several times what
    # setting the slots directly costs. Same fields, same frozen value semantics.
    def __init__(self, start: datetime, end: datetime) -> None:
        _interval_start(self, start)
        _interval_end(self, end)

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

    def __init__(  # see DataInterval.__init__
        self,
        run_after: datetime,
        data_interval: DataInterval | None,
        partition_key: str | None = None,
        partition_date: datetime | None = None,
    ) -> None:
        _info_run_after(self, run_after)
        _info_data_interval(self, data_interval)
        _info_partition_key(self, partition_key)
        _info_partition_date(self, partition_date)

    @property
    def logical_date(self) -> datetime | None:
        return None if self.data_interval is None else self.data_interval.start

    @classmethod
    def interval(cls, start: datetime, end: datetime) -> DagRunInfo:
        """A data-interval run: it may start once its interval has ended."""
        # Built slot by slot, without the two __init__ frames: timetables answer with
        # this millions of times (equal to ``cls(end, DataInterval(start, end))``).
        interval = _NEW(DataInterval)
        _interval_start(interval, start)
        _interval_end(interval, end)
        info = _NEW(cls)
        _info_run_after(info, end)
        _info_data_interval(info, interval)
        _info_partition_key(info, None)
        _info_partition_date(info, None)
        return info

    @classmethod
    def exact(cls, at: datetime) -> DagRunInfo:
        return cls.interval(at, at)


@dataclass(frozen=True, slots=True)
class ReferenceRun:
    """The previous automatic run as the scheduler reads it back (TT-3).

    Trigger and data-interval timetables continue from ``data_interval``;
    ``CronPartitionTimetable`` continues from ``run_after``.
    """

    data_interval: DataInterval | None
    run_after: datetime

    def __init__(self, data_interval: DataInterval | None, run_after: datetime) -> None:
        _reference_data_interval(self, data_interval)  # see DataInterval.__init__
        _reference_run_after(self, run_after)

    @classmethod
    def of(cls, info: DagRunInfo) -> ReferenceRun:
        reference = _NEW(cls)  # see DagRunInfo.interval
        _reference_data_interval(reference, info.data_interval)
        _reference_run_after(reference, info.run_after)
        return reference


_NEW = object.__new__


def _setter(cls: type, name: str) -> Any:
    """The slot descriptor's setter: the way into a frozen slotted class (see above)."""
    return cls.__dict__[name].__set__


# The setters the methods above use (the descriptors exist once dataclass(slots=True)
# has made the class).
_interval_start = _setter(DataInterval, "start")
_interval_end = _setter(DataInterval, "end")
_info_run_after = _setter(DagRunInfo, "run_after")
_info_data_interval = _setter(DagRunInfo, "data_interval")
_info_partition_key = _setter(DagRunInfo, "partition_key")
_info_partition_date = _setter(DagRunInfo, "partition_date")
_reference_data_interval = _setter(ReferenceRun, "data_interval")
_reference_run_after = _setter(ReferenceRun, "run_after")
