"""Everything that changes as the simulated clock moves, in one record copied whole for
checkpoints (``Simulation.checkpoint`` / ``restore`` / ``adopt``).

The fields are grouped by the part that owns them (adr/0011-engine-parts.md): a
part writes only its own group and reads the others
(``tests/engine/test_part_ownership.py`` checks it). Checkpoints stay one
``deepcopy`` of this record, which is why the groups share one dataclass rather
than living in each part's object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from explorer.engine.assets.partition_requests import PartitionRequest
from explorer.engine.assets.store import AssetStore
from explorer.engine.assets.watchers import WatcherState
from explorer.engine.dagstate import DagState
from explorer.engine.deployment_state import DeploymentState
from explorer.engine.examine import Rotation
from explorer.engine.overrides import Overrides
from explorer.engine.runlog import RunLog
from explorer.engine.runs import DagRun

__all__ = ["SimState"]


@dataclass(slots=True)
class SimState:
    """Everything that changes as the clock moves; copied whole for checkpoints."""

    # --- the loop (loop.py): the clock and what the next loop must look at
    now: datetime
    #: DAG state and its next-run cache, by dag_id (dagstate.py; parses in dagschedule.py).
    dags: dict[str, DagState]
    # --- run creation and the run log
    #: Every run in creation order; ended runs are packed (``runlog``).
    runs: RunLog = field(default_factory=RunLog)
    #: Queued and running runs of every DAG by (dag_id, nth), in activation order.
    active: dict[tuple[str, int], DagRun] = field(default_factory=dict)
    #: The active runs that are queued or may still have tasks not started, in ``active``
    #: order (pruned lazily): what the loop scans instead of every active run.
    pending: dict[tuple[str, int], DagRun] = field(default_factory=dict)
    #: Runs a task of which ended (or that started with nothing left to run) since the
    #: last loop: step 5's only candidates.
    touched: dict[tuple[str, int], DagRun] = field(default_factory=dict)
    #: Position of each active run in ``active`` order (step 5 ends runs in that order).
    activation: dict[tuple[str, int], int] = field(default_factory=dict)
    activations: int = 0
    #: (due instant, DAG order, version, dag_id): when a DAG next needs a loop (SCH-2).
    due: list[tuple[datetime, int, int, str]] = field(default_factory=list)
    #: DAGs found due by a loop and left for a later one (over SCH-2's cap), already
    #: parsed at ``waiting_parse``: a heap in SCH-2's order (run_after, DAG order,
    #: version, dag_id); an entry is current while ``waiting_ids`` holds its DAG (any
    #: ``reschedule`` drops it). A loop looks only at as many as it takes, and at all of
    #: them again only once a newer parse is due (dagschedule.take_due).
    waiting: list[tuple[datetime, int, int, str]] = field(default_factory=list)
    waiting_ids: set[str] = field(default_factory=set)
    waiting_parse: datetime | None = None
    #: When each waiting DAG must be looked at again by a parse (the parse instant from
    #: which its parse may change something: next-run memo expired, runs changed): a
    #: heap (instant, DAG order, version, dag_id), current like ``waiting``; a DAG
    #: without an entry is unchanged by any parse. Kept while the options in force are
    #: ``waiting_options`` (DEP-7: other options, every waiting DAG is looked at).
    waiting_recheck: list[tuple[datetime, int, int, str]] = field(default_factory=list)
    waiting_options: Any = None
    # --- the script and its overrides (script.py, overrides.py)
    script_index: int = 0
    #: The DAGs paused now (``DagState.is_paused``): the paused sweep (RND-4) reads their
    #: runs instead of every run waiting for step 5.
    paused_ids: set[str] = field(default_factory=set)
    # --- task timers (lifecycle.py): (finish_at, DAG order, nth, task index, seq), a heap
    completions: list[tuple[datetime, int, int, int, int]] = field(default_factory=list)
    overrides: Overrides = field(default_factory=Overrides)
    # --- the loop (loop.py): the latest loop; "something changed" (every part sets it)
    last_tick: datetime | None = None
    dirty: bool = True
    # --- the facade's warnings (Host.warn), the script's unmatched actions
    warnings: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    # --- backfills (backfill.py)
    backfills: list[dict[str, Any]] = field(default_factory=list)
    #: One sequence for the overrides' order and the task timers' ties.
    seq: int = 0
    # --- the asset queues (assets/scheduling.py, assets/orphanage.py)
    assets: AssetStore = field(default_factory=AssetStore)
    #: DAGs with asset queue rows (AS-2), and those whose condition they satisfy (AS-3).
    asset_queued: set[str] = field(default_factory=set)
    asset_ready: set[str] = field(default_factory=set)
    #: ``asset_ready`` split for the loop: DAGs set aside at their max_active_runs until
    #: a run of theirs ends (``asset_full``), and the others (``asset_open``).
    asset_open: set[str] = field(default_factory=set)
    asset_full: set[str] = field(default_factory=set)
    #: Airflow's audit-log entries about partitioned consumers (PT-2, PT-3).
    audit_log: list[dict[str, Any]] = field(default_factory=list)
    # --- watchers (assets/watching.py)
    watchers: WatcherState = field(default_factory=WatcherState)
    # --- partition requests (assets/partitioned.py)
    #: Partition requests (APDR), every one ever opened, and the newest per (DAG, key).
    partition_requests: list[PartitionRequest] = field(default_factory=list)
    partition_latest: dict[tuple[str, str], PartitionRequest] = field(default_factory=dict)
    #: The requests whose readiness must be evaluated (again) at a loop, in no order and
    #: with repeats (pruned at each loop): step 1 looks at these, not at every request
    #: ever opened, which grows with the horizon. Holds at least every request
    #: without a run whose ``evaluated`` is False.
    partition_unevaluated: list[PartitionRequest] = field(default_factory=list)
    #: Requests opened so far: a request's ``opened`` is its place in creation order.
    partition_opened: int = 0
    # --- deployment (deployment.py)
    #: Options in force and DAG files present (DEP-6, DEP-7).
    deployment: DeploymentState = field(default_factory=DeploymentState)
    # --- step 5's examination order (examine.py)
    #: Step 5's examination order (RND-6), and the latest cadence instant whose loop
    #: (run or skipped) it has seen.
    rotation: Rotation = field(default_factory=Rotation)
    examined_upto: datetime | None = None
