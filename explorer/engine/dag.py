"""A DAG as the engine sees it: a timetable plus the settings that steer the scheduler."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from explorer.engine.assets.condition import AliasNode, AssetKey, AssetNode, RefNode, walk
from explorer.engine.errors import EngineError
from explorer.engine.timetables.base import Timetable
from explorer.engine.types import TimeRestriction

__all__ = ["AliasEmission", "DagError", "DagSpec", "Outlet", "TaskOutcome", "TaskSpec"]

#: A task outlet: an asset, ``Asset.ref(...)`` or an ``AssetAlias`` (AS-1, AS-9, AS-10).
Outlet = AssetKey | RefNode | AliasNode

TaskOutcome = Literal["success", "failed", "success_no_data"]

#: ``[core] max_active_runs_per_dag`` (TT-1).
DEFAULT_MAX_ACTIVE_RUNS = 16


class DagError(EngineError):
    """A DAG Airflow would refuse to build."""


@dataclass(frozen=True, slots=True)
class AliasEmission:
    """An asset a task emits through an alias at run time (``outlet_events[alias].add``)."""

    alias: str
    asset: AssetKey
    extra: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """A task: how long it runs once its run is running, and how it ends.

    ``success_no_data`` is a success that wrote nothing: Airflow cannot tell
    the difference (AS-1), the record can. Tasks of a run start together once
    the run is running.
    """

    task_id: str
    duration: timedelta = timedelta(0)
    outcome: TaskOutcome = "success"
    outlets: tuple[Outlet, ...] = ()
    #: The task keeps running until a script action ends it (``duration`` is ignored).
    hold: bool = False
    #: Keys the task passes to ``add_partitions`` on success (PT-1); empty: the run's key.
    partition_keys: tuple[str, ...] = ()
    #: What the task emits through its alias outlets on success (AS-9).
    alias_events: tuple[AliasEmission, ...] = ()
    #: Probability that a run of this task fails, drawn from the simulation's seed.
    failure_rate: float = 0.0
    #: Assets the task reads (``inlets``): the record lists the latest event of each at
    #: the moment the task starts, what ``inlet_events[asset][-1]`` would return.
    inlets: tuple[Outlet, ...] = ()
    #: The task starts (and its ``duration`` counts) the moment its run becomes running,
    #: even while the run's logical date is in the future, where a scheduled task would
    #: wait for it (SCH-10). What the conformance traces' ``auto_tasks`` mean (their
    #: worker reports the outcome ``after_seconds`` after the run started, README 7.4).
    starts_with_run: bool = False

    def __post_init__(self) -> None:
        if self.duration < timedelta(0):
            raise DagError(f"task {self.task_id!r}: duration must not be negative")
        if not 0.0 <= self.failure_rate <= 1.0:
            raise DagError(f"task {self.task_id!r}: failure_rate must be between 0 and 1")


@dataclass(frozen=True, slots=True)
class DagSpec:
    """The parts of a DAG file the scheduler reads (TT-1, TT-2, SCH-5)."""

    dag_id: str
    timetable: Timetable
    start_date: datetime | None = None
    end_date: datetime | None = None
    timezone: str = "UTC"
    catchup: bool = False
    max_active_runs: int = DEFAULT_MAX_ACTIVE_RUNS
    is_paused_upon_creation: bool = False
    tasks: tuple[TaskSpec, ...] = field(default=())
    #: :attr:`restriction`, made once: the next-run cache reads it at every step of a
    #: DAG's schedule, and a spec never changes (``replace`` makes another).
    _restriction: TimeRestriction = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        restriction = TimeRestriction(self.start_date, self.end_date, self.catchup)
        object.__setattr__(self, "_restriction", restriction)
        if self.max_active_runs < 1:
            raise DagError(f"DAG {self.dag_id!r}: max_active_runs must be at least 1")
        limit = self.timetable.active_runs_limit
        if limit is not None and limit < self.max_active_runs:
            raise DagError(
                f"Invalid max_active_runs: {self.timetable.name} requires "
                f"max_active_runs <= {limit}"
            )
        # sdk/definitions/dag.py: catchup on a schedulable timetable needs a start date.
        if self.catchup and self.timetable.can_be_scheduled and self.start_date is None:
            raise DagError("start_date is required when catchup=True")
        ids = [t.task_id for t in self.tasks]
        if len(ids) != len(set(ids)):
            raise DagError(f"DAG {self.dag_id!r}: task ids must be unique")

    @property
    def direct_assets(self) -> frozenset[AssetKey]:
        """Assets the schedule names directly: their events are consumed (AS-5)."""
        cond = self.timetable.asset_condition
        if cond is None:
            return frozenset()
        return frozenset(n.key for n in walk(cond) if isinstance(n, AssetNode))

    @property
    def schedule_refs(self) -> tuple[RefNode, ...]:
        cond = self.timetable.asset_condition
        return () if cond is None else tuple(n for n in walk(cond) if isinstance(n, RefNode))

    @property
    def schedule_aliases(self) -> frozenset[str]:
        cond = self.timetable.asset_condition
        if cond is None:
            return frozenset()
        return frozenset(n.name for n in walk(cond) if isinstance(n, AliasNode))

    @property
    def restriction(self) -> TimeRestriction:
        """TT-2 with DAG-level dates only (scenarios carry no per-task dates)."""
        return self._restriction
