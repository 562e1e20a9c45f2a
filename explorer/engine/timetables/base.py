"""The timetable protocol, shaped like ``airflow/timetables/base.py``.

Differences from Airflow, all deliberate: the scheduler's clock is an
argument (``now``) instead of a read of the wall clock, and the reference run
is one :class:`~explorer.engine.types.ReferenceRun` (Airflow passes the data
interval to most timetables and the whole run info to partitioned ones).
"""

from __future__ import annotations

from abc import abstractmethod
from datetime import datetime
from typing import Final

from explorer.engine.assets.condition import Condition
from explorer.engine.errors import ScheduleError
from explorer.engine.types import DagRunInfo, DataInterval, ReferenceRun, TimeRestriction

__all__ = ["Timetable", "TimetableError"]


class TimetableError(ScheduleError):
    """A timetable refused to answer (Airflow raises; the DAG stops being scheduled)."""


#: ``None``, by name: mypyc drops a literal ``None`` default of an attribute typed as a
#: union of several compiled classes and None (it counts only ``X | None`` as
#: optional), which would leave ``asset_condition`` undefined in the compiled build.
_NO_CONDITION: Final = None


class Timetable:
    """When a DAG runs automatically, and what a manual run covers.

    Not an ``ABC``: mypy still refuses to build a class whose abstract methods are
    not all defined, and a plain base lets mypyc compile every timetable as a native
    class that takes no weak references (adr/0013, mypyc/mypyc#1102).
    """

    #: Airflow's ``periodic``: runs come from the clock.
    periodic: bool = True
    #: Airflow's ``can_be_scheduled``: False for NullTimetable and its kin.
    can_be_scheduled: bool = True
    #: Runs carry partition keys instead of data intervals (TT-16, TT-17).
    partitioned: bool = False
    #: Tasks choose partition keys at run time (TT-18).
    partitioned_at_runtime: bool = False
    #: A cap the timetable imposes on active runs (ContinuousTimetable: 1).
    active_runs_limit: int | None = None
    #: Asset-driven timetables are handled by the asset rules, not by next_dagrun_info.
    asset_triggered: bool = False
    #: The condition of asset-driven timetables (AssetTriggered, AssetOrTime, Partitioned).
    asset_condition: Condition | None = _NO_CONDITION

    @property
    def name(self) -> str:
        """Airflow's class name, as a scenario spells it."""
        return type(self).__name__

    @property
    @abstractmethod
    def summary(self) -> str:
        """A short label (Airflow's ``summary``)."""

    @property
    def description(self) -> str:
        """A human sentence (Airflow's ``description``)."""
        return self.summary

    @abstractmethod
    def next_dagrun_info(
        self,
        *,
        last: ReferenceRun | None,
        restriction: TimeRestriction,
        now: datetime,
    ) -> DagRunInfo | None:
        """The next automatic run after ``last``, computed while the clock reads ``now``."""

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        """The interval of a manual run given a logical date (TT-19); exact by default."""
        return DataInterval.exact(run_after)

    def resolve_partition_date(self, partition_key: str) -> datetime | None:
        """The partition date a manual run with this key gets (PT-17)."""
        return None

    def next_changes_after(self, now: datetime) -> datetime | None:
        """The next instant after ``now`` at which ``next_dagrun_info`` may answer differently.

        Used by the scheduler to avoid simulating loops in which nothing can
        change; ``None`` means the answer no longer depends on the clock.
        Conservative default: it may change at any instant.
        """
        return now
