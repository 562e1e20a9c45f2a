"""Run creation and the run log: a run is created, made active, and ended.

Part of the simulation (adr/0011-engine-parts.md). Owns ``SimState.runs`` (the
run log, adr/0006), ``active``/``activation``, the task timers ``completions``
and ``seq``. Every run, whoever asks for it (the loop's step 2, a trigger, a
partition request, an asset condition, a backfill), is made by :func:`new_run`,
which applies the script's overrides through their one path
(:mod:`explorer.engine.overrides`). A run ends in :func:`finish_run`, which packs
it into the log.
"""

from __future__ import annotations

import hashlib
import heapq
from datetime import datetime
from typing import TYPE_CHECKING, Any

from explorer.engine import actions as act
from explorer.engine import dagschedule
from explorer.engine.assets import scheduling as asset_rules
from explorer.engine.backfill import note_run_finished
from explorer.engine.dag import TaskOutcome, TaskSpec
from explorer.engine.dagstate import DagState
from explorer.engine.errors import SimulationLimitError
from explorer.engine.max_active_flag import refreshes_on_finish
from explorer.engine.runs import (
    DagRun,
    RunType,
    TaskInstance,
    TriggeredBy,
    random_suffix,
    standard_run_id,
)
from explorer.engine.task_instances import has_task_instances
from explorer.engine.types import DagRunInfo

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = [
    "activate",
    "cancel_task_timers",
    "clear_run",
    "finish_due_tasks",
    "finish_run",
    "finish_task",
    "make_run_id",
    "new_run",
    "start_timer",
    "start_timers",
    "task_outcome",
]


def new_run(
    sim: Host,
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
    st = sim.state
    if len(st.runs) >= sim.run_limit:
        raise SimulationLimitError(
            f"the scenario would create more than {sim.run_limit:,} runs "
            f"(at {now.isoformat()}); raise the limit to simulate it"
        )
    nth = len(dag.runs)
    # TT-21: a standard id is derived from the run when first read (DagRun.run_id):
    # the loop never reads it, the record does once.
    standard = _standard_run_id(dag, run_type)
    # RND-1 / DEP-3: a task inherits the DAG's start/end dates; outside them the run
    # gets no task instances (a cron trigger DAG whose start_date moved later).
    tasks = (
        [  # positional: the slots' order (runs.TaskInstance), without keyword matching
            TaskInstance(
                t.task_id,
                t.outcome if t.failure_rate <= 0 else task_outcome(sim, dag.dag_id, nth, t),
                "none",
                None,
                None,
                None,
                t.hold,
            )
            for t in dag.spec.tasks
        ]
        if has_task_instances(dag.spec, logical_date, run_type)
        else []
    )
    # Created queued (``DagRun.set_state("queued")`` on a new run sets nothing else);
    # positional, in DagRun.__init__'s order.
    run = DagRun(
        dag.dag_id,
        nth,
        None if standard else make_run_id(sim, dag, run_type, info, nth)[0],
        run_type,
        triggered_by,
        logical_date,
        info.data_interval,
        info.run_after,
        now,
        info.partition_key,
        info.partition_date,
        "queued",
        None,
        None,
        tasks,
        backfill_id,
        sort_ordinal,
    )
    st.runs.append(run, derived_run_id=standard)
    dag.note_created(run)
    _activate_new(sim, dag, run)
    st.dirty = True
    if st.overrides.names(dag.dag_id):  # most DAGs: no override names them
        st.overrides.resolve(run, dag, st.runs)  # the one override path (overrides.py)
    return run


def _activate_new(sim: Host, dag: DagState, run: DagRun) -> None:
    """:func:`activate` for a run just created: its key (DAG, ``nth``) is new, so no
    index holds it yet and there is nothing to move to the end or drop (the usual case:
    :func:`new_run` calls it directly)."""
    st = sim.state
    key = (run.dag_id, run.nth)
    st.active[key] = run
    st.pending[key] = run
    st.activations += 1
    st.activation[key] = st.activations
    dagschedule.note_changed(sim, dag)  # its next parse may differ


def activate(sim: Host, run: DagRun) -> None:
    """``run`` becomes active (created, or queued again by a backfill)."""
    st = sim.state
    key = (run.dag_id, run.nth)
    # out of the indexes, so that it goes in at their ends again
    st.active.pop(key, None)
    st.pending.pop(key, None)
    st.touched.pop(key, None)  # queued (again): nothing for step 5 until it runs
    _activate_new(sim, st.dags[run.dag_id], run)


def clear_run(sim: Host, dag: DagState, run: DagRun, now: datetime) -> None:
    """``clear_task_instances`` then ``DagRun.set_state(QUEUED)`` (a backfill reprocesses
    ``run``): the run is thawed (runlog); when it has task instances they behave as
    declared again, with the script's overrides for the run applied again (the one
    override path), their timers are dropped and the run is queued and active again.
    A run without task instances keeps its finished state."""
    st = sim.state
    # The backfill makes it a reference candidate (TT-3) even without task instances.
    dagschedule.note_changed(sim, dag)
    st.runs.thaw(run)  # the cleared run changes again (runlog)
    if not run.tasks:
        return
    run.tasks = [TaskInstance(t.task_id, t.outcome, held=t.hold) for t in dag.spec.tasks]
    st.overrides.reapply(run, dag)
    # A task ended early by the script may still have its timer queued: drop it.
    cancel_task_timers(sim, run)
    run.requeue(now)
    activate(sim, run)
    dag.active.append(run)
    st.dirty = True
    if sim.observed:
        sim.emit("run_state", dag.dag_id, run, "queued")


def start_timer(sim: Host, run: DagRun, task_index: int, finish_at: datetime) -> None:
    """The task at ``task_index`` of ``run`` ends at ``finish_at`` (its outcome then)."""
    st = sim.state
    run.tasks[task_index].finish_at = finish_at
    st.seq += 1
    heapq.heappush(
        st.completions, (finish_at, st.dags[run.dag_id].order, run.nth, task_index, st.seq)
    )


def start_timers(sim: Host, run: DagRun, timers: list[tuple[int, datetime]]) -> None:
    """:func:`start_timer` for each (task index, finish instant) of ``run``, in order:
    the tasks a loop starts together (SCH-10), without a call and a DAG lookup each."""
    st = sim.state
    tasks = run.tasks
    order = st.dags[run.dag_id].order
    nth = run.nth
    completions = st.completions
    seq = st.seq
    push = heapq.heappush
    for task_index, finish_at in timers:
        tasks[task_index].finish_at = finish_at
        seq += 1
        push(completions, (finish_at, order, nth, task_index, seq))
    st.seq = seq


def finish_due_tasks(sim: Host, t: datetime) -> None:
    """The task timers due at or before ``t`` fire (a held task waits for the script).

    Every task of every run ends here (339,000 in the 30-day deployment), so
    :func:`finish_task` is inlined for a timer: the task ends with its own outcome, no
    script action; and a task whose spec has neither outlets nor alias emissions (most)
    does not call :func:`~explorer.engine.assets.scheduling.emit_task_events` (AS-1)."""
    st = sim.state
    completions = st.completions
    dags = st.dags
    dag_ids = sim.dag_ids
    touched = st.touched
    active = st.active
    pop = heapq.heappop
    while completions and completions[0][0] <= t:
        _, order, nth, task_index, _ = pop(completions)
        dag_id = dag_ids[order]
        dag = dags[dag_id]
        # A running task's run is active: read by key, not through the DAG's run log
        # view; the log only for a run that is not (a script ended it).
        run = active.get((dag_id, nth)) or dag.runs[nth]
        tasks = run.tasks
        task = tasks[task_index]
        if task.state != "running" or task.held:
            continue
        # --- finish_task(sim, run, task, task.outcome, task_index=task_index), inline
        state = task.state = "failed" if task.outcome == "failed" else "success"
        task.end_date = task.finish_at = st.now  # one instant: freeze checks `is` first
        for other in tasks:  # all finished: the run waits for step 5 (see finish_task)
            if other.state != "success" and other.state != "failed":
                break
        else:
            touched[(run.dag_id, nth)] = run
        if sim.observed:
            sim.emit("task_state", run.dag_id, run, f"{task.task_id}:{state}")
        if state != "success":  # only SUCCESS emits (AS-1)
            continue
        specs = dag.spec.tasks
        if task_index < len(specs):
            spec = specs[task_index]
            if spec.task_id == task.task_id and not spec.outlets and not spec.alias_events:
                continue  # AS-1: no outlet, no alias emission: no event (most tasks)
        asset_rules.emit_task_events(sim, run, task, None, None, task_index)


def cancel_task_timers(sim: Host, run: DagRun) -> None:
    """Drop the queued task completions of ``run`` (a backfill clears and requeues it)."""
    st = sim.state
    order = st.dags[run.dag_id].order
    st.completions = [c for c in st.completions if (c[1], c[2]) != (order, run.nth)]
    heapq.heapify(st.completions)


def task_outcome(sim: Host, dag_id: str, nth: int, task: TaskSpec) -> TaskOutcome:
    """The declared outcome, or a seeded random failure at ``failure_rate``."""
    if task.failure_rate <= 0:
        return task.outcome
    draw = (
        int.from_bytes(
            hashlib.sha256(f"{sim.seed}|{dag_id}|{nth}|{task.task_id}".encode()).digest()[:8],
            "big",
        )
        / 2**64
    )
    return "failed" if draw < task.failure_rate else task.outcome


def make_run_id(
    sim: Host, dag: DagState, run_type: RunType, info: DagRunInfo, nth: int
) -> tuple[str, bool]:
    """TT-21 / TT-16: the suffix is run_after; CronPartition DAGs add a random tail.

    The flag: the id is :func:`standard_run_id`'s, which the run log can rebuild.
    """
    if not _standard_run_id(dag, run_type):
        key = f"__{info.partition_key}" if run_type != "manual" and info.partition_key else ""
        stamp = info.run_after.isoformat()
        return f"{run_type}__{stamp}{key}__{random_suffix(dag.dag_id, nth)}", False
    return standard_run_id(run_type, info.run_after, dag.dag_id, nth), True


def _standard_run_id(dag: DagState, run_type: RunType) -> bool:
    """Is the run's id :func:`standard_run_id`'s? Not a CronPartition DAG's own runs."""
    table = dag.spec.timetable
    return run_type == "asset_triggered" or not (table.partitioned and table.periodic)


def finish_run(sim: Host, run: DagRun, state: Any, now: datetime) -> None:
    st = sim.state
    run.set_state(state, now)
    dag = st.dags[run.dag_id]
    key = (run.dag_id, run.nth)
    st.active.pop(key, None)
    st.activation.pop(key, None)
    st.touched.pop(key, None)  # ended: nothing for step 5
    # by identity: DagRun's dataclass __eq__ builds two 18-field tuples per comparison;
    # the oldest active run usually ends first, so the first place is tried first
    active = dag.active
    if active[0] is run:
        del active[0]
    else:
        del active[next(i for i, r in enumerate(active) if r is run)]
    asset_rules.note_limit_changed(sim, dag)  # a slot below max_active_runs (AS-4)
    dagschedule.sync_parse(sim, dag, now)
    # --- backfill hook: _schedule_dag_run refreshes the flag only when a scheduled,
    # manual or asset-triggered run ends, never a backfill run (SCH-5).
    if run.run_type != "backfill" and refreshes_on_finish(dag):  # RND-4
        dag.exceeds_max_active_runs = dagschedule.exceeds(sim, dag)
    if run.backfill_id is not None:
        note_run_finished(sim, run, now)  # completion (backfill.py, step 5)
    # --- end backfill hook
    dagschedule.reschedule(sim, dag)
    if sim.observed:
        sim.emit("run_state", run.dag_id, run, state)
    st.runs.freeze(run)  # nothing changes an ended run again (runlog)


def finish_task(
    sim: Host,
    run: DagRun,
    task: TaskInstance,
    outcome: str,
    action: act.TaskFinish | None = None,
    *,
    task_index: int | None = None,
) -> None:
    """``task`` ends with ``outcome`` now; a success emits its asset events (AS-1).
    ``task_index``: its place in ``run.tasks``, where its spec usually is too."""
    state = task.state = "failed" if outcome == "failed" else "success"
    task.outcome = outcome  # type: ignore[assignment]
    task.end_date = task.finish_at = sim.state.now  # one instant: freeze checks `is` first
    if action is not None:
        sim.state.dirty = True  # a script step: the loop looks again (trace README 7.3)
    # Only a run whose tasks have all finished waits for step 5; the loop that examines
    # it is the reason to run one (loop.earliest_reason). A task's end changes nothing
    # else a loop acts on: its asset events are reasons of their own (AS-3, PT-3), and
    # tasks do not wait for one another here (a loop after every task's end
    # was a third of the loops run, each examining 20 runs for nothing).
    for other in run.tasks:
        if other.state != "success" and other.state != "failed":
            break
    else:
        sim.state.touched[(run.dag_id, run.nth)] = run
    if sim.observed:
        sim.emit("task_state", run.dag_id, run, f"{task.task_id}:{state}")
    if state == "success":  # only SUCCESS emits (AS-1)
        if action is None:  # the timer's end: the spec says what is emitted
            asset_rules.emit_task_events(sim, run, task, None, None, task_index)
        else:
            asset_rules.emit_task_events(
                sim, run, task, action.partition_keys, action.alias_events, task_index
            )
