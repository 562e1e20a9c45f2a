"""Scheduler-managed backfills, as Airflow 3.3.2 creates and runs them.

Mirrors ``airflow/models/backfill.py`` (``_create_backfill`` and its helpers) and
the scheduler's side of it (``jobs/scheduler_job_runner.py::_start_queued_dagruns``,
``_mark_backfills_complete``; ``models/dagrun.py::get_queued_dag_runs_to_set_running``).

A request (REST ``POST /backfills`` or ``airflow backfill create``) is handled in
one go at its instant ``now``:

1. Refusals, in Airflow's order: the DAG is not deployed (``DagNotFound``); its
   timetable is not periodic (``DagNonPeriodicScheduleException``: None, @once,
   @continuous, asset schedules); another backfill of the DAG is not yet marked
   complete (``AlreadyRunningBackfill``); ``from_date > to_date``
   (``InvalidBackfillDateRange``); both bounds at or after ``now``
   (``InvalidBackfillDate``); no run in the range (``NoBackfillRunsToCreate``).
   A refusal creates nothing; the simulator reports it as a warning.
2. The runs (``_get_info_list``): the timetable is walked with
   ``TimeRestriction(from_date, to_date, catchup=True)`` from no previous run
   (``SerializedDAG.iter_dagrun_infos_between``), so each timetable applies its
   own inclusive rule (data-interval timetables bound the interval *start*,
   trigger timetables the tick) and the DAG's start_date/end_date play no part.
   Non-partitioned runs are kept only if their data interval ended strictly
   before ``now``. ``CronPartitionTimetable`` walks its ticks instead
   (``iter_partition_dagrun_infos``, TT-16), with no ``now`` filter.
   ``run_backwards`` reverses the list; the position in it is the run's
   ``backfill_sort_ordinal`` (from 1).
3. Per run, the existing run of the DAG with that logical date (partitioned: the
   latest-started run with that partition date) decides
   (``_get_dag_run_no_create_reason``): queued/running → skipped ("in flight");
   finished and ``reprocess_behavior`` none → skipped ("already exists"); "failed"
   re-processes failed runs only; "completed" every finished run. A re-processed
   non-partitioned run is **not** created anew: ``_handle_clear_run`` clears it
   (back to queued, same run_id, run_after, interval) and relabels it
   ``run_type=backfill``. A re-processed partitioned run gets a new run alongside.
   Otherwise a new run: ``run_type``/``triggered_by`` "backfill", run_id
   ``backfill__<run_after>`` (TT-21), state queued, created at ``now``.
4. Backfill runs start under the backfill's own ``max_active_runs`` (the
   simulation counts running runs per ``(dag_id, backfill_id)``), after every
   non-backfill queued run, in sort-ordinal order; they never count toward the
   DAG's ``exceeds_max_non_backfill`` flag (SCH-5) and finishing one does not
   refresh it. They still need the DAG unpaused to start (SCH-6). A backfill run
   holds its logical date, so a scheduled run that later reaches that date is
   skipped and the schedule moves on from the backfill run (SCH-9), and
   backfill runs are TT-3 references at the next parse.
5. Completion: ``_mark_backfills_complete`` runs every 30 s in the scheduler loop
   and stamps ``completed_at`` on backfills with no queued/running run left.

The module works over the simulation's part interface (:class:`~explorer.engine.host.Host`)
and never imports the simulation.

The record: ``Simulation.state.backfills[backfill_id]`` is a dict with keys
``id``, ``dag_id``, ``from_date``, ``to_date``, ``reprocess_behavior``,
``max_active_runs``, ``run_backwards``, ``is_paused`` (always False: pausing a
backfill is not simulated), ``created_at``, ``dag_runs`` (one entry per run
info, Airflow's ``BackfillDagRun`` rows: ``sort_ordinal``, ``logical_date``,
``partition_key``, ``partition_date``, ``run_nth`` (None when skipped),
``cleared`` (True when an existing run was re-processed) and
``exception_reason``), ``runs_finished_at`` (when its last run finished) and
``completed_at`` (when Airflow marks it complete; set as soon as the last run
finishes, so it may lie up to 30 s after the clock).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from explorer.engine import actions as act
from explorer.engine.errors import EngineError, SimulationLimitError
from explorer.engine.runs import DagRun
from explorer.engine.timetables.trigger import CronPartitionTimetable
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction
from explorer.engine.tz import make_aware

if TYPE_CHECKING:
    from explorer.engine.dagstate import DagState
    from explorer.engine.host import Host

__all__ = ["BackfillRefused", "create_backfill", "dry_run", "is_active", "note_run_finished"]

NoCreateReason = Literal["in flight", "already exists"]

#: ``call_regular_interval(30, self._mark_backfills_complete)`` in the scheduler loop.
COMPLETION_CHECK_INTERVAL = timedelta(seconds=30)


class BackfillRefused(EngineError):
    """Airflow rejects the backfill request; the sentence says why."""


# --------------------------------------------------------------------------- entry points
def create_backfill(sim: Host, action: act.Backfill) -> None:
    """Apply a backfill request at ``action.at`` (``models/backfill.py::_create_backfill``)."""
    # Apply a pending parse first, so that it does not see the runs created below (TT-3).
    sim.sync_parse(sim.state.dags[action.dag_id], action.at)
    try:
        dag, infos = _plan(sim, action)
    except BackfillRefused as exc:
        sim.warn(f"backfill of {action.dag_id!r} at {action.at.isoformat()} refused: {exc}")
        return
    now = action.at
    st = sim.state
    entry: dict[str, Any] = {
        "id": len(st.backfills),
        "dag_id": dag.dag_id,
        "from_date": _coerce(action.from_date),
        "to_date": _coerce(action.to_date),
        "reprocess_behavior": action.reprocess_behavior,
        "max_active_runs": action.max_active_runs,
        "run_backwards": action.run_backwards,
        "is_paused": False,
        "created_at": now,
        "dag_runs": [],
        "runs_finished_at": None,
        "completed_at": None,
    }
    st.backfills.append(entry)
    if action.max_active_runs < 1:
        # BackfillPostBody accepts any int; the promotion check then never passes.
        sim.warn(
            f"backfill #{entry['id']} of {dag.dag_id!r} has max_active_runs "
            f"{action.max_active_runs}: Airflow accepts it, but its runs never start"
        )
    for ordinal, info in enumerate(infos, start=1):
        entry["dag_runs"].append(_create_or_clear(sim, dag, entry, info, ordinal, now))
    if not any(run.backfill_id == entry["id"] for run in dag.active):
        _mark_finished(sim, entry, now)


def dry_run(sim: Host, action: act.Backfill) -> list[DagRunInfo]:
    """The runs the request would create or re-process (``_do_dry_run``); raises BackfillRefused.

    Like Airflow's dry run it skips the "another backfill is running" check.
    """
    dag, infos = _plan(sim, action, check_active=False)
    return [
        info
        for info in infos
        if (run := _existing_run(dag, info)) is None
        or _no_create_reason(run, action.reprocess_behavior) is None
    ]


def is_active(sim: Host, entry: dict[str, Any]) -> bool:
    """Not yet marked complete at the clock (``Backfill.completed_at IS NULL``).

    Script actions at an instant come before that instant's scheduler loop, so a
    backfill marked at the loop of instant ``t`` is still active for a request at ``t``
    unless the loop has already run.
    """
    done: datetime | None = entry["completed_at"]
    now = sim.state.now
    if done is None or done > now:
        return True
    return done == now and sim.state.last_tick != now


def note_run_finished(sim: Host, run: DagRun, now: datetime) -> None:
    """Hook from the loop's step 5 (a run ends): done once no run of the backfill is active."""
    assert run.backfill_id is not None
    entry = sim.state.backfills[run.backfill_id]
    if entry["runs_finished_at"] is not None:
        return
    if any(r.backfill_id == run.backfill_id for r in sim.state.dags[run.dag_id].active):
        return
    _mark_finished(sim, entry, now)


# --------------------------------------------------------------------------- validation
def _plan(
    sim: Host, action: act.Backfill, *, check_active: bool = True
) -> tuple[DagState, list[DagRunInfo]]:
    """Refusals in ``_create_backfill``'s order, then ``_get_info_list``."""
    dag = sim.state.dags[action.dag_id]
    now = action.at
    if not dag.deployed:
        raise BackfillRefused(
            f"Could not find dag {dag.dag_id} (DagNotFound: it is not deployed yet)"
        )
    table = dag.spec.timetable
    if not table.periodic:
        raise BackfillRefused(
            f"{dag.dag_id} has a non-periodic schedule ({table.name}) that "
            "does not support backfills (DagNonPeriodicScheduleException)"
        )
    if check_active and any(
        b["dag_id"] == dag.dag_id and is_active(sim, b) for b in sim.state.backfills
    ):
        raise BackfillRefused(
            f"There is already a running backfill for dag {dag.dag_id}: "
            "there can be only one per DAG until the scheduler marks it "
            "complete (AlreadyRunningBackfill)"
        )
    from_date, to_date = _coerce(action.from_date), _coerce(action.to_date)
    if from_date > to_date:
        raise BackfillRefused(
            f"from_date ({from_date.isoformat()}) must not be after to_date "
            f"({to_date.isoformat()}) (InvalidBackfillDateRange)"
        )
    if from_date >= now and to_date >= now:
        raise BackfillRefused(
            "Backfill cannot be executed for future dates: both bounds are at "
            "or after the request (InvalidBackfillDate)"
        )
    infos = _info_list(sim, dag, from_date, to_date, now)
    if not infos:
        raise BackfillRefused(
            f"No runs to create for Dag {dag.dag_id} in the range "
            f"[{from_date.isoformat()}, {to_date.isoformat()}] "
            "(NoBackfillRunsToCreate)"
        )
    if action.run_backwards:
        infos.reverse()
    return dag, infos


def _coerce(value: datetime) -> datetime:
    """``timezone.coerce_datetime``: a naive bound is read as UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# --------------------------------------------------------------------------- the run infos
def _info_list(
    sim: Host, dag: DagState, earliest: datetime, latest: datetime, now: datetime
) -> list[DagRunInfo]:
    """``_get_info_list`` without the reversal."""
    table = dag.spec.timetable
    if table.partitioned:
        if not isinstance(table, CronPartitionTimetable):
            raise BackfillRefused(
                f"{table.name} is partitioned but does not implement iter_partition_dagrun_infos"
            )
        infos = list(_partition_infos(table, earliest, latest))
    else:
        infos = [
            info
            for info in _interval_infos(sim, dag, earliest, latest, now)
            if info.data_interval is not None and info.data_interval.end < now
        ]
    _check_limit(sim, len(infos), now)
    return infos


def _interval_infos(
    sim: Host, dag: DagState, earliest: datetime, latest: datetime, now: datetime
) -> Iterator[DagRunInfo]:
    """``SerializedDAG.iter_dagrun_infos_between``: each answer is the next call's previous run.

    Stops early (same result) once an interval starts at or after ``now``: its end,
    and every later one's, is not before ``now``, so ``_get_info_list`` drops them.
    """
    restriction = TimeRestriction(earliest, latest, catchup=True)
    info: DagRunInfo | None = None
    count = 0
    while True:
        try:
            nxt = dag.spec.timetable.next_dagrun_info(
                last=None if info is None else ReferenceRun.of(info),
                restriction=restriction,
                now=now,
            )
        except EngineError as exc:
            # Airflow logs "Failed to fetch run info" and keeps the runs listed so far.
            sim.warn(
                f"backfill of {dag.dag_id!r} at {now.isoformat()}: listing runs "
                f"stopped early ({exc}); Airflow keeps the runs listed before"
            )
            return
        if nxt is None or nxt == info:
            return
        if nxt.logical_date is not None and nxt.logical_date >= now:
            return
        info = nxt
        count += 1
        _check_limit(sim, count, now)
        yield info


def _partition_infos(
    table: CronPartitionTimetable, earliest: datetime, latest: datetime
) -> Iterator[DagRunInfo]:
    """``CronPartitionTimetable.iter_partition_dagrun_infos`` (TT-16).

    The bounds' wall-clock readings are re-read in the timetable's zone
    (``localize_partition_datetime``); each tick is its own partition date and
    run_after, with no run_offset.
    """
    current = table.cron.align_next(make_aware(earliest.replace(tzinfo=None), table.zone))
    last = make_aware(latest.replace(tzinfo=None), table.zone)
    while current <= last:
        yield DagRunInfo(
            run_after=current,
            data_interval=None,
            partition_key=table.format_key(current),
            partition_date=current,
        )
        current = table.cron.next(current)


def _check_limit(sim: Host, count: int, now: datetime) -> None:
    if len(sim.state.runs) + count > sim.run_limit:
        raise SimulationLimitError(
            f"the backfill at {now.isoformat()} would create more than {sim.run_limit:,} runs; "
            "raise the limit to simulate it"
        )


# --------------------------------------------------------------------------- one run
def _existing_run(dag: DagState, info: DagRunInfo) -> DagRun | None:
    """``_get_latest_dag_run_row_query``: by logical date, or by partition date for partitions,
    the latest-started run first (never-started runs last)."""
    if info.partition_date is None:
        assert info.logical_date is not None
        return dag.run_with_logical_date(info.logical_date)
    same = [
        r
        for r in dag.runs
        if r.partition_date == info.partition_date
        and (info.logical_date is None or r.logical_date == info.logical_date)
    ]
    started = [r for r in same if _start_date(r) is not None]
    if started:
        return max(reversed(started), key=lambda r: _start_date(r) or r.created_at)
    return same[-1] if same else None


def _start_date(run: DagRun) -> datetime | None:
    """The run's ``start_date`` as Airflow stores it: ``_create_backfill_dag_run_*`` passes
    ``start_date=utcnow()`` to ``create_dagrun``, so a new backfill run has one while queued."""
    if run.start_date is None and run.triggered_by == "backfill" and len(run.states) == 1:
        return run.created_at
    return run.start_date


def _no_create_reason(run: DagRun, behavior: str) -> NoCreateReason | None:
    """``_get_dag_run_no_create_reason``."""
    if run.state not in ("success", "failed"):
        return "in flight"
    if behavior == "none" or (behavior == "failed" and run.state != "failed"):
        return "already exists"
    return None


def _create_or_clear(
    sim: Host,
    dag: DagState,
    entry: dict[str, Any],
    info: DagRunInfo,
    ordinal: int,
    now: datetime,
) -> dict[str, Any]:
    """``_create_backfill_dag_run_non_partitioned`` / ``_partitioned``: one BackfillDagRun row."""
    row: dict[str, Any] = {
        "sort_ordinal": ordinal,
        "logical_date": info.logical_date,
        "partition_key": info.partition_key,
        "partition_date": info.partition_date,
        "run_nth": None,
        "cleared": False,
        "exception_reason": None,
    }
    existing = _existing_run(dag, info)
    if existing is not None:
        reason = _no_create_reason(existing, entry["reprocess_behavior"])
        if reason is not None:
            row["exception_reason"] = reason
            return row
        if not dag.spec.timetable.partitioned:
            _clear_run(sim, dag, existing, entry["id"], ordinal, now)
            row.update(run_nth=existing.nth, cleared=True)
            return row
        # Partitioned: a new run next to the old one, which stays as history.
    run = sim.new_run(
        dag,
        run_type="backfill",
        triggered_by="backfill",
        info=info,
        logical_date=info.logical_date,
        now=now,
        backfill_id=entry["id"],
        sort_ordinal=ordinal,
    )
    sim.emit("run_created", dag.dag_id, run)
    row["run_nth"] = run.nth
    return row


def _clear_run(
    sim: Host, dag: DagState, run: DagRun, backfill_id: int, ordinal: int, now: datetime
) -> None:
    """``_handle_clear_run``: ``dag.clear(run_id, dag_run_state=QUEUED)``, then the row is
    relabelled ``run_type=backfill``, ``triggered_by=backfill``, ``backfill_id``.

    ``clear_task_instances`` only touches the run when it has task instances: a run of a
    DAG without tasks keeps its finished state (and so needs nothing more). A cleared
    run keeps its run_id, run_after, logical date and data interval; its start and
    end dates are reset (``DagRun.set_state(QUEUED)``). Its tasks behave as declared
    again, with the script's overrides for that run applied again.
    """
    sim.clear_run(dag, run, now)  # the run log's part: lifecycle.clear_run
    run.run_type = "backfill"
    run.triggered_by = "backfill"
    run.backfill_id = backfill_id
    run.backfill_sort_ordinal = ordinal
    _note_reference(dag, run)


def _note_reference(dag: DagState, run: DagRun) -> None:
    """A re-processed manual run is now a backfill run, hence a TT-3 reference candidate
    (``_get_latest_runs_stmt``: latest scheduled/backfill run by logical date)."""
    best = dag.latest_automated
    if run.logical_date is not None and (
        best is None or best.logical_date is None or run.logical_date > best.logical_date
    ):
        dag.latest_automated = run


# --------------------------------------------------------------------------- completion
def _mark_finished(sim: Host, entry: dict[str, Any], at: datetime) -> None:
    entry["runs_finished_at"] = at
    entry["completed_at"] = _marked_complete_at(sim, at)


def _marked_complete_at(sim: Host, at: datetime) -> datetime | None:
    """The first scheduler loop at or after ``at`` in which the 30-s completion check runs.

    Timers run after the loop's scheduling, so a loop at ``at`` that finishes the last
    run can also mark the backfill. The timer is taken to fall due at ``start + k·30 s``
    (k >= 1), which is what a loop every second gives; Airflow re-arms it from the loop
    that ran it, so slower loops drift. ``None``: no loop ever comes (explicit ticks).
    """
    step = COMPLETION_CHECK_INTERVAL
    k = max(1, -((sim.start - at) // step))  # first k with start + k*step >= at
    for i in (k - 1, k):
        if i < 1:
            continue
        loop = sim.ticks.at_or_after(sim.start + i * step)
        if loop is not None and loop >= at:
            return loop
    return None
