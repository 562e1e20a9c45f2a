"""Checkpoints share what never changes and copy what does (Back restores one as it is).

A checkpoint must stay what the state was when it was taken, however far the live
simulation goes on; restoring it (copied, or given up by its owner) must continue
exactly as a fresh simulation would."""

from __future__ import annotations

import copy
import inspect
from dataclasses import fields
from datetime import UTC, datetime, timedelta

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.dagstate import DagState
from explorer.engine.runs import DagRun, TaskInstance
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import CronTriggerTimetable

START = datetime(2024, 3, 1, tzinfo=UTC)
END = START + timedelta(days=2)


def specs() -> list[DagSpec]:
    return [
        DagSpec(
            dag_id,
            CronTriggerTimetable(cron, timezone="UTC"),
            start_date=START,
            max_active_runs=2,
            tasks=(TaskSpec("t", timedelta(minutes=50)), TaskSpec("u", timedelta(minutes=70))),
        )
        for dag_id, cron in (("a", "0 * * * *"), ("b", "*/20 * * * *"))
    ]


def script() -> list[act.Action]:
    return [act.Override(START + timedelta(hours=20), act.RunSelector("a", next=True), "failed")]


def record(sim: Simulation) -> list[tuple[object, ...]]:
    return [
        (r.dag_id, r.run_id, r.state, r.start_date, r.end_date, [t.state for t in r.tasks])
        for r in sim.runs
    ]


def fresh(until: datetime) -> list[tuple[object, ...]]:
    sim = Simulation(specs(), start=START, script=script())
    sim.advance_to(until)
    return record(sim)


def test_a_checkpoint_stays_as_it_was_while_the_simulation_goes_on() -> None:
    sim = Simulation(specs(), start=START, script=script())
    middle = START + timedelta(hours=17, minutes=30)
    sim.advance_to(middle)
    assert sim.state.active, "live runs (mutable objects) are in the checkpoint"
    snapshot = sim.checkpoint()
    sim.advance_to(END)  # ends the runs that were live, queues others, packs them
    sim.restore(snapshot)
    assert sim.now == middle and record(sim) == fresh(middle)
    sim.advance_to(END)
    assert record(sim) == fresh(END)


def test_a_snapshot_given_up_is_restored_without_a_copy_and_replays_nothing() -> None:
    sim = Simulation(specs(), start=START, script=script(), checkpoint_every=10)
    sim.advance_to(START + timedelta(hours=30))
    snapshot = sim.checkpoint()
    sim.advance_to(END)
    created: list[object] = []
    sim.subscribe(lambda c: created.append(c) if c.kind == "run_created" else None)
    sim.rewind_to(snapshot.now, snapshot=snapshot)
    assert sim.state is snapshot and not created
    assert record(sim) == fresh(START + timedelta(hours=30))
    sim.advance_to(END)
    assert record(sim) == fresh(END)


def test_a_live_run_and_its_dag_share_one_copy() -> None:
    sim = Simulation(specs(), start=START)
    sim.advance_to(START + timedelta(hours=3, minutes=10))
    copied = sim.checkpoint()
    for dag_id in ("a", "b"):
        dag = copied.dags[dag_id]
        assert dag.active, "a running run"
        for run in dag.active:
            assert copied.active[(run.dag_id, run.nth)] is run
            assert copied.runs[run.id] is run
            assert run is not sim.state.runs[run.id]
            assert run.tasks[0] is not sim.state.runs[run.id].tasks[0]
        assert dag.runs._ids is not sim.state.dags[dag_id].runs._ids


def test_every_field_is_either_shared_or_copied() -> None:
    """A field added to DagState or DagRun is shared by checkpoints unless it is listed as
    copied: this list makes adding one a decision (a mutable container must be copied)."""
    assert {f.name for f in fields(DagState)} - {
        "runs", "logical_dates", "active", "latest_automated", "adrq", "asset_run_afters"
    } == {
        "spec", "order", "deployed", "deployed_at", "is_paused", "next_run", "next_run_error",
        "exceeds_max_active_runs", "parsed_at", "stalled_on", "wake_at", "next_run_memo",
        "due_version", "due_entry", "assets_first_seen", "is_stale", "refs_dropped",
        "direct_assets", "schedule_refs", "schedule_aliases", "dag_id",
    }  # fmt: skip
    assert {f.name for f in fields(DagRun)} - {"tasks", "history"} == {
        "dag_id", "nth", "_run_id", "run_type", "triggered_by", "logical_date", "data_interval",
        "run_after", "created_at", "partition_key", "partition_date", "state", "start_date",
        "end_date", "backfill_id", "backfill_sort_ordinal", "consumed_asset_events", "id",
        "last_scheduling_decision",
    }  # fmt: skip
    assert {f.name for f in fields(TaskInstance)} == {
        "task_id", "outcome", "state", "start_date", "finish_at", "end_date", "held",
        "inlet_events",
    }  # fmt: skip
    run = DagRun("a", 0, "r", "scheduled", "timetable", START, None, START, START)
    run.tasks.append(TaskInstance("t", "success"))
    run.history = [("queued", START)]
    twin = copy.deepcopy(run)
    assert twin == run and twin.tasks[0] is not run.tasks[0] and twin.history is not run.history
    # every field, compared or not, given a value of its own: the copy names each one
    run.id, run.last_scheduling_decision, run.backfill_id = 7, START, 3
    run.backfill_sort_ordinal, run.consumed_asset_events, run.partition_key = 2, (5,), "k"
    run.partition_date, run.start_date, run.end_date, run.state = START, START, START, "failed"
    twin = copy.deepcopy(run)
    assert all(getattr(twin, f.name) == getattr(run, f.name) for f in fields(DagRun))


def test_task_instance_init_takes_every_field_in_order() -> None:
    """TaskInstance's ``__init__`` is written out (a compiled build would otherwise run the
    generated one interpreted): it takes every field, in field order, with its default."""
    parameters = list(inspect.signature(TaskInstance).parameters.values())
    assert [p.name for p in parameters] == [f.name for f in fields(TaskInstance)]
    defaults = {f.name: f.default for f in fields(TaskInstance)}
    assert all(p.default == defaults[p.name] for p in parameters if p.default is not p.empty)
    task = TaskInstance("t", "failed", "running", START, START, START, True, (1, None))
    assert [getattr(task, f.name) for f in fields(TaskInstance)] == [
        "t",
        "failed",
        "running",
        START,
        START,
        START,
        True,
        (1, None),
    ]
    assert TaskInstance("t", "success") == TaskInstance("t", "success", "none")


def test_make_asset_answers_the_same_however_often_it_is_asked() -> None:
    """make_asset is remembered (every edit checks every asset node): a caller that changes
    the warnings it got back changes nothing for the next caller (URI-3)."""
    from explorer.engine.assets.uri import make_asset

    first, warnings = make_asset(None, "s3://user:secret@bucket/key")
    assert warnings, "a password dropped from the uri is a warning"
    warnings.clear()
    again, warnings_again = make_asset(None, "s3://user:secret@bucket/key")
    assert again == first and warnings_again and warnings_again is not warnings
