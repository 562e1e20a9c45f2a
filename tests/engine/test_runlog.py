"""The run log packs ended runs into columns; nothing a reader sees may change.

* a packed run reads back equal to the ``DagRun`` it was (hypothesis, over every
  field the packing encodes: run types, states, tasks, partitions, backfills,
  consumed events, inlet events, held tasks, unusual run_ids);
* the whole record of every bundled example is identical with packing on and off;
* identity holds while anybody holds a run; ``thaw`` keeps later changes;
* what does not fit (a history, a non-UTC instant, a task still owed a completion)
  stays a live object;
* checkpoints copy the log, and a restored copy is independent of the original.
"""

from __future__ import annotations

import copy
import gc
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.record import build_record
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runs import DagRun, TaskInstance, random_suffix
from explorer.engine.types import DataInterval
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "scenarios"
T0 = datetime(2024, 3, 10, 6, 0, tzinfo=UTC)
TRIGGERED_BY = {
    "scheduled": "timetable",
    "manual": "rest_api",
    "asset_triggered": "asset",
    "backfill": "backfill",
}


def _run(
    nth: int = 0,
    *,
    run_type: Any = "scheduled",
    state: Any = "success",
    tasks: int = 2,
    **fields: Any,
) -> DagRun:
    run_after = T0 + timedelta(hours=nth)
    run_id = (
        f"asset_triggered__{run_after.isoformat()}_{random_suffix('d', nth)}"
        if run_type == "asset_triggered"
        else f"{run_type}__{run_after.isoformat()}"
    )
    interval = None if run_type == "asset_triggered" else DataInterval(run_after, run_after)
    values: dict[str, Any] = {
        "dag_id": "d",
        "nth": nth,
        "run_id": run_id,
        "run_type": run_type,
        "triggered_by": TRIGGERED_BY[run_type],
        "logical_date": None if interval is None else interval.start,
        "data_interval": interval,
        "run_after": run_after,
        "created_at": run_after + timedelta(seconds=1),
        "state": state,
        "start_date": run_after + timedelta(seconds=2),
        "end_date": run_after + timedelta(minutes=30),
    }
    values.update(fields)
    run = DagRun(**values)
    if "tasks" not in fields:
        run.tasks = [
            TaskInstance(
                f"t{i}",
                "success",
                state="success",
                start_date=run.start_date,
                finish_at=run.end_date,
                end_date=run.end_date,
            )
            for i in range(tasks)
        ]
    return run


# ---------------------------------------------------------------------- round trip
instants = st.integers(0, 10**6).map(lambda s: T0 + timedelta(seconds=s, microseconds=s % 7))
task_strategy = st.builds(
    lambda task_id, outcome, state, start, length, held, inlets: TaskInstance(
        task_id,
        outcome,
        state=state,
        start_date=start,
        finish_at=start + timedelta(seconds=length),
        end_date=start + timedelta(seconds=length),
        held=held,
        inlet_events=inlets,
    ),
    st.sampled_from(["extract", "load", "t0"]),
    st.sampled_from(["success", "failed", "success_no_data"]),
    st.sampled_from(["success", "failed"]),
    instants,
    st.integers(0, 7200),
    st.booleans(),
    st.sampled_from([(), (None,), (3, None, 7)]),
)


@st.composite
def finished_runs(draw: st.DrawFn) -> DagRun:
    nth = draw(st.integers(0, 5000))
    run_type = draw(st.sampled_from(list(TRIGGERED_BY)))
    run = _run(nth, run_type=run_type, state=draw(st.sampled_from(["success", "failed"])))
    run.tasks = draw(st.lists(task_strategy, max_size=4))
    if draw(st.booleans()):
        run.start_date = None
    if draw(st.booleans()):
        run.partition_key = draw(st.sampled_from(["2024-03-10", "2024-03-10T05", "eu|x"]))
        run.partition_date = draw(st.none() | instants)
    if run_type == "backfill":
        run.backfill_id = draw(st.integers(0, 3))
        run.backfill_sort_ordinal = draw(st.none() | st.integers(1, 99))
    run.consumed_asset_events = tuple(draw(st.lists(st.integers(0, 10**6), max_size=5)))
    if draw(st.booleans()):
        run.run_id = f"{run.run_id}__custom"
    if run_type != "asset_triggered" and draw(st.booleans()):
        start = draw(instants)
        run.data_interval = DataInterval(start, start + timedelta(days=1))
        run.logical_date = start
    return run


@settings(max_examples=300, deadline=None)
@given(st.lists(finished_runs(), min_size=1, max_size=6))
def test_packed_runs_read_back_equal(runs: list[DagRun]) -> None:
    log = RunLog()
    expected = []
    for run in runs:
        log.append(run, derived_run_id=not run.run_id.endswith("__custom"))
        assert log.freeze(run)
        expected.append(copy.deepcopy(run))
    del runs, run
    gc.collect()
    assert log.packed == len(expected)
    with mock.patch.object(RunLog, "_unpack", side_effect=AssertionError("a run was built")):
        keys = [log.partition_key(i) for i in range(len(expected))]  # from the side table
    assert keys == [r.partition_key for r in expected]
    assert list(log) == expected
    assert [r.run_id for r in log] == [r.run_id for r in expected]
    assert log[-1] == expected[-1] and log[0:2] == expected[0:2]


# ---------------------------------------------------------------------- examples
def _record(path: Path, monkeypatch: pytest.MonkeyPatch | None) -> tuple[dict[str, Any], int]:
    if monkeypatch is not None:
        monkeypatch.setattr(RunLog, "freeze", lambda self, run: False)
    inputs = build_engine_inputs(load_scenario(path), source=path.name)
    sim = make_simulation(inputs)
    until = inputs.until or inputs.start + timedelta(days=3)
    sim.advance_to(until)
    record = build_record(sim, until=until)
    packed = sim.runs.packed
    if monkeypatch is not None:
        monkeypatch.undo()
    return record, packed


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_examples_give_the_same_record_packed_or_not(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, none_packed = _record(path, monkeypatch)
    packed, count = _record(path, None)
    assert none_packed == 0
    assert packed == live
    ended = sum(1 for r in live["runs"] if r["state"] in ("success", "failed"))
    assert ended == 0 or count > 0


# ---------------------------------------------------------------------- identity and thaw
def test_identity_while_held_and_equal_copy_after() -> None:
    log = RunLog()
    run = _run()
    log.append(run)
    assert log.freeze(run)
    assert log[0] is run  # still held by this test: the same object
    snapshot = copy.deepcopy(run)
    del run
    gc.collect()
    again = log[0]
    assert again == snapshot and again is log[0]


def test_thaw_keeps_later_changes() -> None:
    log = RunLog()
    run = _run()
    log.append(run)
    log.freeze(run)
    log.thaw(run)
    run.state = "failed"
    del run
    gc.collect()
    assert log[0].state == "failed"
    assert log.packed == 0


def test_dag_view_reads_through_the_log() -> None:
    log = RunLog()
    view = DagRuns(log)
    runs = [_run(i) for i in range(3)]
    for run in runs:
        log.append(run)
        view.append(run)
        log.freeze(run)
    expected = copy.deepcopy(runs)
    del runs, run
    gc.collect()
    assert list(view) == expected and list(reversed(view)) == expected[::-1]
    assert view[1] == expected[1] and view[-2:] == expected[-2:] and len(view) == 3


@pytest.mark.parametrize(
    "change",
    [
        lambda r: setattr(r, "state", "running"),
        lambda r: setattr(r, "history", [("queued", T0)]),
        lambda r: setattr(r, "triggered_by", "rest_api"),
        lambda r: setattr(r, "end_date", r.end_date.astimezone(ZoneInfo("Europe/London"))),
        lambda r: setattr(r.tasks[0], "state", "running"),
        lambda r: setattr(r.tasks[0], "finish_at", r.tasks[0].finish_at + timedelta(1)),
        lambda r: setattr(r, "end_date", r.end_date.replace(fold=1)),
        lambda r: setattr(r, "created_at", r.created_at.replace(tzinfo=None)),
        lambda r: setattr(r, "partition_date", T0.astimezone(ZoneInfo("Europe/London"))),
        lambda r: setattr(r.tasks[1], "start_date", r.tasks[1].start_date.replace(fold=1)),
        lambda r: setattr(r.tasks[1], "outcome", "skipped"),
    ],
    ids=[
        "running",
        "history",
        "triggered_by",
        "non_utc",
        "task_running",
        "task_timer",
        "fold",
        "naive",
        "zoned_partition_date",
        "task_fold",
        "unknown_outcome",
    ],
)
def test_what_does_not_fit_stays_live(change: Any) -> None:
    log = RunLog()
    log.append(_run(1))
    log.freeze(log[0])  # the memo knows the usual instants, equal to the changed ones
    before = log.columns()
    sizes = [len(before.codes), len(before.times), len(before.task_end)]
    run = _run()
    change(run)
    log.append(run)
    assert not log.freeze(run)
    assert log[1] is run and log.packed == 1
    after = log.columns()  # nothing of the refused run was appended
    assert [len(after.codes), len(after.times), len(after.task_end)] == sizes


def test_an_equal_zoned_instant_never_reads_a_utc_ones_memo_entry() -> None:
    """The memo of epoch microseconds holds UTC instants: an equal instant in another
    zone (equal and of equal hash) must not be packed through it."""
    log = RunLog()
    first, second = _run(0), _run(0)
    log.append(first)
    assert log.freeze(first)
    second.end_date = first.end_date.astimezone(ZoneInfo("Asia/Tokyo"))
    assert second.end_date == first.end_date
    log.append(second)
    assert not log.freeze(second) and log[1] is second


def test_a_task_whose_timer_equals_its_end_is_packed() -> None:
    """``finish_at`` equal to ``end_date`` but another object (a copy) still packs."""
    log = RunLog()
    run = _run(tasks=3)
    run.tasks[1].finish_at = copy.copy(run.tasks[1].end_date) + timedelta(0)
    log.append(run)
    expected = copy.deepcopy(run)
    assert log.freeze(run)
    del run
    gc.collect()
    assert log[0] == expected


def test_copies_are_independent() -> None:
    log = RunLog()
    runs = [_run(i) for i in range(2)]
    for run in runs:
        log.append(run)
    log.freeze(runs[0])
    twin = copy.deepcopy(log)
    runs[1].state = "failed"
    assert twin[1].state == "success" and twin[0] == log[0]
    assert twin[1] is not log[1]


def test_a_copy_packs_into_its_own_columns() -> None:
    """The compiled row sink writes the columns of the log it belongs to: a run ended
    in a checkpoint's copy is packed there alone, and the original packs its own."""
    log = RunLog()
    runs = [_run(i) for i in range(3)]
    for run in runs:
        log.append(run)
    log.freeze(runs[0])
    twin = copy.deepcopy(log)
    assert twin.freeze(twin[1])
    assert (log.packed, twin.packed) == (1, 2)
    assert log[1] is runs[1] and twin[1] == runs[1] and twin[1] is not runs[1]
    assert log.freeze(runs[2]) and (log.packed, twin.packed) == (2, 2)
    assert [r.nth for r in twin] == [0, 1, 2] and twin[2] is not runs[2]
    assert list(log.instants("run_after")) == [r.run_after for r in runs]


@settings(max_examples=100, deadline=None)
@given(st.lists(finished_runs(), min_size=1, max_size=6), st.data())
def test_instant_columns_equal_the_runs(runs: list[DagRun], data: st.DataObject) -> None:
    log = RunLog()
    view = DagRuns(log)
    for run in runs:
        log.append(run)
        view.append(run)
        if data.draw(st.booleans()):
            log.freeze(run)  # a mix of packed and live runs
    expected = copy.deepcopy(runs)
    del runs, run
    gc.collect()
    for name in ("logical_date", "run_after", "created_at", "start_date", "end_date"):
        assert list(view.instants(name)) == [getattr(r, name) for r in expected]
        kept = [getattr(r, name) for r in expected if r.run_type == "asset_triggered"]
        assert list(view.instants(name, "asset_triggered")) == kept
    # a script selector naming a run by partition key reads the side table, never a run
    with mock.patch.object(RunLog, "_unpack", side_effect=AssertionError("a run was built")):
        keys = list(view.partition_keys())
    assert keys == [r.partition_key for r in expected]


def test_states_read_from_the_columns_equal_the_runs() -> None:
    """Badges read each DAG's latest ended state from the log without building runs."""
    from explorer.graph.generate import synthetic_scenario

    inputs = build_engine_inputs(synthetic_scenario(120))
    sim = make_simulation(inputs)
    sim.advance_to(inputs.start + timedelta(days=2, hours=7, minutes=5))
    assert sim.runs.packed and len(sim.runs) > sim.runs.packed  # packed and live runs both
    expected = {
        dag_id: next((r.state for r in reversed(dag.runs) if not r.active), None)
        for dag_id, dag in sim.dags.items()
    }
    assert [sim.runs.state(i) for i in range(len(sim.runs))] == [r.state for r in sim.runs]
    with mock.patch.object(RunLog, "_unpack", side_effect=AssertionError("a run was built")):
        found = {dag_id: dag.runs.last_ended_state() for dag_id, dag in sim.dags.items()}
    assert found == expected and any(found.values())
