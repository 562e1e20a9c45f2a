"""DAG state and the next-run cache: parses (SCH-4b), the next run (TT-3), when a DAG
next needs a loop (SCH-2).

Part of the simulation (adr/0011-engine-parts.md). Owns, per DAG, ``parsed_at``,
``next_run`` and its memo, ``stalled_on``/``wake_at``, ``exceeds_max_active_runs``
and ``due_version``, and the ``due`` heap of ``SimState``. Parses are applied
lazily (adr/0003): :func:`sync_parse` applies the latest one at or before the
instant a DAG is touched.
"""

from __future__ import annotations

import heapq
from datetime import datetime
from typing import TYPE_CHECKING, Any

from explorer.engine import deployment
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.max_active_flag import parse_flag
from explorer.engine.timetables import CronDataIntervalTimetable, CronTriggerTimetable
from explorer.engine.types import ReferenceRun

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = [
    "compute_next_run",
    "due_at",
    "exceeds",
    "parse",
    "peek_due",
    "pop_due",
    "reschedule",
    "stable_until",
    "sync_parse",
]


def reschedule(sim: Host, dag: DagState) -> None:
    """Record when ``dag`` next needs a loop; older heap entries become stale."""
    dag.due_version += 1
    due = due_at(sim, dag)
    if due is not None:
        heapq.heappush(sim.state.due, (due, dag.order, dag.due_version, dag.dag_id))


def pop_due(sim: Host, now: datetime) -> list[DagState]:
    """The DAGs due at or before ``now``, earliest first, taken off the heap (stale
    entries, superseded by a later ``reschedule``, are dropped)."""
    st = sim.state
    due: list[DagState] = []
    while st.due and st.due[0][0] <= now:
        _, _, version, dag_id = heapq.heappop(st.due)
        dag = st.dags[dag_id]
        if dag.due_version == version:
            due.append(dag)
    return due


def peek_due(sim: Host) -> datetime | None:
    heap = sim.state.due
    while heap:
        due, _, version, dag_id = heap[0]
        if sim.state.dags[dag_id].due_version == version:
            return due
        heapq.heappop(heap)
    return None


def due_at(sim: Host, dag: DagState) -> datetime | None:
    """When this DAG next needs a loop to create a scheduled run (SCH-2)."""
    if not dag.deployed or dag.is_paused or dag.exceeds_max_active_runs or dag.is_stale:
        return None
    bulk = sim.state.bulk
    if bulk is not None and dag.dag_id in bulk.parked:
        return None  # claimed by the bulk path (adr/0012)
    if dag.stalled_on is not None:
        return dag.wake_at
    if dag.next_run is None:
        return None
    return dag.next_run.run_after


def sync_parse(sim: Host, dag: DagState, t: datetime) -> None:
    """Apply the latest periodic parse at or before ``t`` if it was not applied yet."""
    if not dag.deployed or dag.dag_id not in sim.state.deployment.files:
        return  # no file, no parse (DEP-6)
    p = sim.parses.at_or_before(t)
    if p is None or (dag.parsed_at is not None and p <= dag.parsed_at):
        return
    if dag.deployed_at is not None and p < dag.deployed_at:
        return
    parse(sim, dag, p)


def parse(sim: Host, dag: DagState, at: datetime) -> None:
    """A parse recomputes the next-run cache from TT-3's reference and refreshes the flag."""
    dag.parsed_at = at
    deployment.reparse(sim, dag)  # the file as it is now, under today's options (DEP-7)
    latest = dag.latest_automated
    reference = None if latest is None else ReferenceRun(latest.data_interval, latest.run_after)
    compute_next_run(sim, dag, reference, at)
    dag.exceeds_max_active_runs = parse_flag(dag, exceeds(sim, dag))
    reschedule(sim, dag)


def compute_next_run(
    sim: Host, dag: DagState, reference: ReferenceRun | None, now: datetime
) -> None:
    memo = dag.next_run_memo
    if (
        memo is not None
        and memo[1] <= now
        and (memo[2] is None or now < memo[2])
        and memo[0] == reference
    ):
        return  # the timetable would answer the same (see stable_until)
    previous = dag.next_run
    dag.next_run_memo = None
    try:
        dag.next_run = dag.spec.timetable.next_dagrun_info(
            last=reference, restriction=dag.spec.restriction, now=now
        )
        dag.next_run_error = None
        dag.next_run_memo = stable_until(dag, reference, now)
    except EngineError as exc:
        # Airflow logs the exception and the DAG has no next run (README 1.6).
        dag.next_run = None
        if dag.next_run_error != str(exc):
            sim.warn(f"DAG {dag.dag_id!r} stops being scheduled at {now.isoformat()}: {exc}")
        dag.next_run_error = str(exc)
    if dag.next_run != previous:
        dag.stalled_on = None
        dag.wake_at = None


def stable_until(
    dag: DagState, reference: ReferenceRun | None, now: datetime
) -> tuple[Any, datetime, datetime | None] | None:
    """For which clocks the answer just computed holds, for the timetables where that
    is certain: cron trigger / data-interval answers read the clock only through the
    cron period holding it (catchup=False) or not at all (catchup=True), except a
    first run without start date (CronTriggerTimetable's run_immediately buffer)."""
    table = dag.spec.timetable
    if type(table) not in (CronTriggerTimetable, CronDataIntervalTimetable):
        return None
    restriction = dag.spec.restriction
    if reference is None and restriction.earliest is None:
        return None
    if restriction.catchup:
        return (reference, now, None)
    # catchup=False: the latest-tick candidate only overtakes the answer once the clock
    # passes the tick after it (TT-4, TT-5), so the answer holds until then.
    answer = dag.next_run
    horizon = now if answer is None else max(now, answer.run_after)
    return (reference, now, table.next_changes_after(horizon))


def exceeds(sim: Host, dag: DagState) -> bool:
    return dag.active_runs(include_backfill=False) >= dag.spec.max_active_runs
