"""The script and its overrides: applying each action at its instant.

Part of the simulation (adr/0011-engine-parts.md). Owns ``SimState.script_index``,
``unmatched`` and, through :mod:`explorer.engine.overrides`, ``overrides``. The
actions reach the other parts through their functions: pauses and triggers the
DAG schedule (:mod:`explorer.engine.dagschedule`), task outcomes the run life
cycle (:mod:`explorer.engine.lifecycle`), deployments :mod:`explorer.engine.deployment`,
backfills :mod:`explorer.engine.backfill`, REST asset events the asset rules.
``Tick`` actions are the loop's (:mod:`explorer.engine.loop`), which calls
:func:`apply` for every other action, in script order (trace README 7.3).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from explorer.engine import actions as act
from explorer.engine import dagschedule, deployment, lifecycle
from explorer.engine.assets import scheduling as asset_rules
from explorer.engine.assets.store import EventSource
from explorer.engine.backfill import create_backfill
from explorer.engine.dagfile import RemoveDag
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.runs import DagRun
from explorer.engine.selection import select_run
from explorer.engine.types import DagRunInfo

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = [
    "apply",
    "apply_due",
    "check_action",
    "deploy_dag",
    "insert",
    "report_unmatched",
    "select",
]


def check_action(sim: Host, action: act.Action) -> None:
    dag_ids: tuple[str, ...] = ()
    if isinstance(action, deployment.DeploymentAction):
        if isinstance(action, RemoveDag):
            dag_ids = (action.dag_id,)
    elif isinstance(action, act.Deploy):
        dag_ids = action.dag_ids or ()
    elif isinstance(action, act.Pause | act.Unpause | act.Trigger | act.Backfill):
        dag_ids = (action.dag_id,)
    elif isinstance(action, act.TaskFinish | act.RunOutcome | act.Override):
        dag_ids = (action.run.dag_id,)
    for dag_id in dag_ids:
        if dag_id not in sim.state.dags:
            raise EngineError(f"unknown dag_id {dag_id!r} in a script action")


def apply(sim: Host, action: act.Action) -> None:
    """One script action at its instant (``Tick`` actions are the loop's: loop.py)."""
    st = sim.state
    st.dirty = True
    if isinstance(action, deployment.DeploymentAction):
        deployment.apply(sim, action)
    elif isinstance(action, act.Deploy):
        # Only files that exist are parsed (DEP-6: a removed DAG waits for its file).
        files = st.deployment.files
        ids = action.dag_ids or tuple(st.dags)
        parsed = [st.dags[dag_id] for dag_id in ids if dag_id in files]
        for dag in parsed:
            deploy_dag(sim, dag, action.at)
        asset_rules.activate_assets(sim, parsed, action.at)
        for dag in parsed:
            sim.emit("dag_parsed", dag.dag_id, detail="parse")
    elif isinstance(action, act.Pause | act.Unpause):
        dag = st.dags[action.dag_id]
        dagschedule.sync_parse(sim, dag, action.at)
        dag.is_paused = isinstance(action, act.Pause)
        _note_paused(sim, dag)
        dagschedule.reschedule(sim, dag)
        sim.emit("dag_paused" if dag.is_paused else "dag_unpaused", dag.dag_id)
    elif isinstance(action, act.Trigger):
        trigger(sim, action)
    elif isinstance(action, act.TaskFinish):
        task_finish(sim, action)
    elif isinstance(action, act.RunOutcome):
        run_outcome(sim, action)
    elif isinstance(action, act.Override):
        pending = st.overrides.add(action, st.seq)
        st.seq += 1
        # Only the named DAG's runs can match: read those, not every run of the log.
        dag = st.dags[action.run.dag_id]
        for run in dag.runs:
            st.overrides.resolve(run, dag, st.runs, only=pending)
    elif isinstance(action, act.ExternalEvent):
        asset_rules.record_event(
            sim,
            action.asset,
            source=EventSource("rest_api"),
            partition_key=action.partition_key,
            extra={**dict(action.extra), "from_rest_api": True},
        )
    elif isinstance(action, act.Backfill):
        create_backfill(sim, action)


def deploy_dag(sim: Host, dag: DagState, at: datetime) -> None:
    if not dag.deployed:
        dag.deployed = True
        dag.deployed_at = at
        dag.is_paused = dag.spec.is_paused_upon_creation
        _note_paused(sim, dag)
        sim.emit("dag_deployed", dag.dag_id)
    dagschedule.parse(sim, dag, at)


def _note_paused(sim: Host, dag: DagState) -> None:
    if dag.is_paused:
        sim.state.paused_ids.add(dag.dag_id)
    else:
        sim.state.paused_ids.discard(dag.dag_id)


def trigger(sim: Host, action: act.Trigger) -> None:
    """REST ``POST /dags/{dag_id}/dagRuns`` (TT-19, PT-17)."""
    dag = sim.state.dags[action.dag_id]
    now = action.at
    if not dag.deployed:
        sim.warn(f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} is not deployed")
        return
    dagschedule.sync_parse(sim, dag, now)
    table = dag.spec.timetable
    partition_date = None
    if action.partition_key is not None:
        if not (table.partitioned or table.partitioned_at_runtime):
            sim.warn(
                f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} is not "
                "partitioned (DagNotPartitionedError)"
            )
            return
        try:
            partition_date = table.resolve_partition_date(action.partition_key)
        except EngineError as exc:
            sim.warn(f"trigger at {now.isoformat()} refused: {exc}")
            return
    interval = None
    if action.logical_date is not None:
        if action.logical_date in dag.logical_dates:
            sim.warn(
                f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} already "
                f"has a run with logical_date {action.logical_date.isoformat()}"
            )
            return
        interval = table.infer_manual_data_interval(run_after=action.logical_date)
    info = DagRunInfo(now, interval, action.partition_key, partition_date)
    run_id, _ = lifecycle.make_run_id(sim, dag, "manual", info, len(dag.runs))
    if any(r.run_id == run_id for r in dag.active) or any(
        r.run_id == run_id for r in reversed(dag.runs[-50:])
    ):
        sim.warn(
            f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} already has a "
            f"run {run_id!r} (409 Conflict)"
        )
        return
    run = lifecycle.new_run(
        sim,
        dag,
        run_type="manual",
        triggered_by="rest_api",
        info=info,
        logical_date=action.logical_date,
        now=now,
    )
    sim.emit("run_created", dag.dag_id, run)


def select(sim: Host, selector: act.RunSelector, at: datetime) -> DagRun | None:
    """The run a script action names (selection.py)."""
    return select_run(sim.state.dags[selector.dag_id], selector, at)


def task_finish(sim: Host, action: act.TaskFinish) -> None:
    run = select(sim, action.run, action.at)
    task = (
        None if run is None else next((t for t in run.tasks if t.task_id == action.task_id), None)
    )
    if run is None or task is None or task.state != "running":
        unmatched(sim, action)
        return
    lifecycle.finish_task(sim, run, task, action.outcome, action)


def run_outcome(sim: Host, action: act.RunOutcome) -> None:
    run = select(sim, action.run, action.at)
    if run is None or run.state != "running":
        unmatched(sim, action)
        return
    for task in run.tasks:
        if task.state in ("running", "none"):
            lifecycle.finish_task(sim, run, task, action.outcome)


def unmatched(sim: Host, action: act.Action) -> None:
    kind = type(action).__name__
    selector = getattr(action, "run", None)
    what = selector.describe() if isinstance(selector, act.RunSelector) else ""
    message = f"{kind} at {action.at.isoformat()} matched no run ({what})"
    sim.state.unmatched.append(message)
    sim.warn(message)


def apply_due(sim: Host, t: datetime, tick: Callable[[Host, act.Tick], None]) -> None:
    """The script's actions at or before ``t``, in list order; a ``Tick`` action is a
    loop in its place among them, run by ``tick`` (the loop's)."""
    st = sim.state
    while st.script_index < len(sim.script) and sim.script[st.script_index].at <= t:
        action = sim.script[st.script_index]
        st.script_index += 1
        if isinstance(action, act.Tick):
            tick(sim, action)
        else:
            apply(sim, action)


def report_unmatched(sim: Host) -> None:
    """Report the overrides that never matched a run (contract section 2)."""
    for action in sim.state.overrides.unmatched():
        unmatched(sim, action)


def insert(sim: Host, script: list[act.Action], action: act.Action) -> None:
    """Add an action at or after the clock, after the actions already at its instant."""
    if action.at < sim.state.now:
        raise EngineError(
            f"cannot add an action at {action.at.isoformat()}: the clock is already at "
            f"{sim.state.now.isoformat()}"
        )
    check_action(sim, action)
    index = len(script)
    while index > sim.state.script_index and script[index - 1].at > action.at:
        index -= 1
    script.insert(index, action)
    sim.state.dirty = True
