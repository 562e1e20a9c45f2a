"""Timed actions of a scenario's script (contract section 2), as engine values.

A run is named by a :class:`RunSelector`, which may point at a run that does
not exist yet; the engine resolves it when the action takes effect and
reports an action whose selector never matched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from explorer.engine.assets.condition import AssetKey
from explorer.engine.dag import AliasEmission, TaskOutcome
from explorer.engine.dagfile import BundleRefresh, DeployDag, RemoveDag, SetOption

__all__ = [
    "Action",
    "Backfill",
    "Deploy",
    "ExternalEvent",
    "Override",
    "Pause",
    "RunOutcome",
    "RunSelector",
    "TaskFinish",
    "Tick",
    "Trigger",
    "Unpause",
]


@dataclass(frozen=True, slots=True)
class RunSelector:
    """Which run of ``dag_id``: the ``nth`` (from 0, creation order), the one with a
    ``logical_date`` or ``partition_key``, or ``next`` = the DAG's next run created
    at or after the action's instant."""

    dag_id: str
    nth: int | None = None
    logical_date: datetime | None = None
    partition_key: str | None = None
    next: bool = False

    def describe(self) -> str:
        if self.nth is not None:
            return f"{self.dag_id} run #{self.nth}"
        if self.logical_date is not None:
            return f"{self.dag_id} run with logical_date {self.logical_date.isoformat()}"
        if self.partition_key is not None:
            return f"{self.dag_id} run with partition_key {self.partition_key!r}"
        return f"{self.dag_id} next run"


@dataclass(frozen=True, slots=True)
class Deploy:
    """Parse DAG files (``parse`` in the traces): the first parse deploys a DAG (SCH-4b)."""

    at: datetime
    dag_ids: tuple[str, ...] | None = None  # None: every DAG


@dataclass(frozen=True, slots=True)
class Pause:
    at: datetime
    dag_id: str


@dataclass(frozen=True, slots=True)
class Unpause:
    at: datetime
    dag_id: str


@dataclass(frozen=True, slots=True)
class Trigger:
    """A manual run through the REST API (TT-19): ``logical_date`` may be None."""

    at: datetime
    dag_id: str
    logical_date: datetime | None = None
    partition_key: str | None = None


@dataclass(frozen=True, slots=True)
class TaskFinish:
    """A task of a running run finishes at ``at`` with ``outcome``.

    On success its outlets emit (AS-1): one event per distinct key of
    ``partition_keys`` (the task called ``add_partitions``) or one carrying the
    run's own key (PT-1), plus ``alias_events`` emitted through aliases (AS-9).
    ``None`` keeps what the task declares.
    """

    at: datetime
    run: RunSelector
    task_id: str
    outcome: TaskOutcome = "success"
    partition_keys: tuple[str, ...] | None = None
    alias_events: tuple[AliasEmission, ...] | None = None


@dataclass(frozen=True, slots=True)
class ExternalEvent:
    """``POST /assets/events``: an event on ``asset`` at ``at`` (AS-1b); ``extra`` gets
    ``from_rest_api: true``."""

    at: datetime
    asset: AssetKey
    partition_key: str | None = None
    extra: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """Every unfinished task of the run finishes at ``at`` (``run_success`` / ``run_failed``)."""

    at: datetime
    run: RunSelector
    outcome: Literal["success", "failed"] = "success"


@dataclass(frozen=True, slots=True)
class Override:
    """From ``at`` on, change how the selected run's task(s) will end once it runs.

    ``outcome`` replaces the declared outcome; ``delay`` is added to the declared
    duration (a task that runs long or late); ``hold`` keeps the task running
    until a :class:`TaskFinish` / :class:`RunOutcome` ends it. ``task_id`` None
    means every task of the run.
    """

    at: datetime
    run: RunSelector
    task_id: str | None = None
    outcome: TaskOutcome | None = None
    delay: timedelta = timedelta(0)
    hold: bool = False


@dataclass(frozen=True, slots=True)
class Backfill:
    """A scheduler-managed backfill (``airflow/models/backfill.py``)."""

    at: datetime
    dag_id: str
    from_date: datetime
    to_date: datetime
    reprocess_behavior: Literal["none", "failed", "completed"] = "none"
    max_active_runs: int = 10
    run_backwards: bool = False


@dataclass(frozen=True, slots=True)
class Tick:
    """One scheduler loop at ``at``, in its place among the script's actions.

    The loop cadence (``Simulation(ticks=...)``) runs its loops after every action of
    an instant, at most one per instant. A ``Tick`` action is for scripts that say
    exactly where a loop falls: before another action of the same instant, or twice
    at one instant (two loops; conformance README 7.3, ``tick`` steps). It does not
    repeat a cadence loop: the cadence skips an instant that already had one.
    """

    at: datetime


Action = (
    Deploy
    | Pause
    | Unpause
    | Trigger
    | TaskFinish
    | RunOutcome
    | Override
    | Backfill
    | ExternalEvent
    # changing deployments (dagfile.py, DEP-1..DEP-8)
    | DeployDag
    | RemoveDag
    | SetOption
    | BundleRefresh
    | Tick
)
