"""What the parts of the engine may ask of the simulation: one typed interface.

The parts (backfills, the asset rules and queues, partition requests, watchers,
the orphanage housekeeping, deployments) are called by the loop in
:mod:`explorer.engine.simulation` and need a few things back from it: the state,
the settings, and a handful of operations the loop owns (create a run, make a
run active, apply a pending parse, warn, tell observers). They name this
Protocol, never the ``Simulation`` class, so no part imports the simulation and
the engine's import graph has no cycle (``tests/engine/test_import_graph.py``,
adr/0011-engine-parts.md). Everything here is public: no part calls another's
private names.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.watchers import WatcherSpec
from explorer.engine.config import SchedulerConfig
from explorer.engine.dagstate import DagState
from explorer.engine.runs import DagRun, RunType, TriggeredBy
from explorer.engine.state import SimState
from explorer.engine.ticks import Cadence
from explorer.engine.types import DagRunInfo

__all__ = ["Host"]


class Host(Protocol):
    """The simulation as its parts see it."""

    @property
    def state(self) -> SimState: ...
    @property
    def start(self) -> datetime: ...
    @property
    def config(self) -> SchedulerConfig: ...
    @property
    def ticks(self) -> Cadence: ...
    @property
    def run_limit(self) -> int: ...
    @property
    def refresh_grid(self) -> bool: ...
    @property
    def watchers(self) -> Sequence[WatcherSpec]: ...
    @property
    def declared_assets(self) -> Sequence[AssetKey]: ...
    @property
    def script(self) -> Sequence[act.Action]: ...
    @property
    def parses(self) -> Cadence: ...
    @property
    def seed(self) -> int: ...
    @property
    def dag_ids(self) -> Sequence[str]: ...
    @property
    def observed(self) -> bool:
        """Somebody subscribed: the hot paths build a run's or a task's change for
        :meth:`emit` only then (a headless run has nobody to tell)."""
        ...

    # --- run creation and the run log
    def new_run(
        self,
        dag: DagState,
        *,
        run_type: RunType,
        triggered_by: TriggeredBy,
        info: DagRunInfo,
        logical_date: datetime | None,
        now: datetime,
        backfill_id: int | None = None,
        sort_ordinal: int | None = None,
    ) -> DagRun:
        """A new queued run, logged, active, with the script's overrides applied."""
        ...

    def activate(self, run: DagRun) -> None:
        """``run`` becomes active (created, or queued again by a backfill)."""
        ...

    def clear_run(self, dag: DagState, run: DagRun, now: datetime) -> None:
        """A backfill reprocesses ``run``: its tasks start over, it is queued again."""
        ...

    # --- DAG state and the next-run cache
    def sync_parse(self, dag: DagState, t: datetime) -> None:
        """Apply the latest periodic parse at or before ``t`` if not applied yet."""
        ...

    def deploy_dag(self, dag: DagState, at: datetime) -> None:
        """The DAG's file is parsed at ``at`` (deployed first if it was not)."""
        ...

    def reschedule(self, dag: DagState) -> None:
        """Record when ``dag`` next needs a loop."""
        ...

    # --- the asset listeners index
    def index_listeners(self) -> None:
        """Rebuild which DAGs an event on an asset can reach (after a deploy or removal)."""
        ...

    def listeners(self, key: AssetKey, via_aliases: tuple[str, ...]) -> list[str]:
        """The DAGs scheduled on ``key`` directly, by reference or through an alias."""
        ...

    # --- what observers and the record hear
    def warn(self, message: str) -> None: ...

    def emit(
        self, kind: str, dag_id: str | None = None, run: DagRun | None = None, detail: str = ""
    ) -> None: ...
