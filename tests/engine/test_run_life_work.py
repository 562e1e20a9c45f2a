"""The work of one run's life, from its creation to its end and its asset events.

* ``RunLog.freeze`` turns each instant of an ended run into epoch microseconds through
  a memo of recent instants: runs ending near one another share most of them (the
  loop's ticks, one cron minute across DAGs). Counted: far fewer conversions than
  instants packed; hypothesis: a run is packed exactly when every instant is a UTC,
  fold-0 one (an equal zoned or fold-1 instant must not find the memo's entry) and
  reads back with the same representation.
* An asset event re-evaluates a consumer's condition (AS-3) only when it adds the
  consumer's queue row (AS-2): the rows the condition reads are otherwise unchanged.
  Counted against the old behaviour (every listener evaluated at every event), with
  identical records.
* The run log's cache of held packed runs (``HeldRuns``) keeps what is held and sweeps
  what died, so it stays small without a callback per run.
* TT-21's random run-id tail, now one ``bytes.translate``: hypothesis against the
  letter-by-letter formula.

No test times anything.
"""

from __future__ import annotations

import copy
import gc
import hashlib
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine import runlog
from explorer.engine.assets import scheduling
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.dagstate import DagState
from explorer.engine.heldruns import HeldRuns
from explorer.engine.record import run_row
from explorer.engine.runlog import RunLog
from explorer.engine.runs import DagRun, TaskInstance, random_suffix
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import AssetTriggeredTimetable, timetable_from_schedule
from explorer.engine.types import DataInterval

START = datetime(2024, 3, 1, tzinfo=UTC)
LONDON = ZoneInfo("Europe/London")
ORDERS = AssetKey("orders", "s3://lake/orders")


# ---------------------------------------------------------------------- packing
def _fits(value: datetime | None) -> bool:
    """The packing rule, written out: null, or UTC itself with fold 0."""
    return value is None or (value.tzinfo is UTC and not value.fold)


#: One of a few instants (so that runs share them, as in a simulation), as it comes:
#: UTC, the equal instant in another zone, or UTC with fold=1 (equal, but a packed
#: copy would lose the fold).
_base = st.integers(0, 5).map(lambda h: START + timedelta(hours=h))
_instant = st.tuples(_base, st.sampled_from(["utc", "utc", "utc", "zoned", "fold"])).map(
    lambda p: (
        p[0]
        if p[1] == "utc"
        else p[0].astimezone(LONDON)
        if p[1] == "zoned"
        else p[0].replace(fold=1)
    )
)


@st.composite
def _ended_runs(draw: st.DrawFn) -> DagRun:
    start, end, created, begun, ended = (draw(_instant) for _ in range(5))
    tasks = []
    for i in range(draw(st.integers(0, 3))):
        task_end = draw(_instant)
        tasks.append(
            TaskInstance(
                f"t{i}", "success", "success", draw(st.none() | _instant), task_end, task_end
            )
        )
    return DagRun(
        "d",
        0,
        None,
        "scheduled",
        "timetable",
        start,
        DataInterval(start, end),
        end,
        created,
        None,
        draw(st.none() | _instant),
        "success",
        begun,
        ended,
        tasks,
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(_ended_runs(), min_size=1, max_size=8))
def test_packed_exactly_when_every_instant_is_utc_fold_0(runs: list[DagRun]) -> None:
    log = RunLog()
    expected: dict[int, tuple[DagRun, list[str]]] = {}
    for nth, run in enumerate(runs):
        run.nth = nth
        log.append(run, derived_run_id=True)
        fits = all(_fits(v) for v in _instants(run))
        assert log.freeze(run) is fits
        if fits:
            expected[run.id] = (copy.deepcopy(run), [repr(v) for v in _instants(run)])
    del runs, run
    gc.collect()  # nobody holds the packed runs: reading them unpacks the columns
    for run_id, (run, shown) in expected.items():
        back = log[run_id]
        assert back == run
        assert [repr(v) for v in _instants(back)] == shown  # same zone, same fold


def test_a_zoned_instant_equal_to_a_remembered_one_is_not_packed() -> None:
    log = RunLog()
    runs = []
    for nth, tz in enumerate([UTC, LONDON]):
        at = START.astimezone(tz)
        run = DagRun(
            "d", nth, None, "scheduled", "timetable", at, DataInterval(at, at), at, at,
            state="success", start_date=at, end_date=at,
        )  # fmt: skip
        log.append(run, derived_run_id=True)
        runs.append(run)
    assert log.freeze(runs[0])  # its instants are remembered now
    assert not log.freeze(runs[1])  # equal to them, but in London: stays live
    assert log[1] is runs[1]


def _producer_and_consumers(consumers: int, max_active_runs: int = 1) -> list[DagSpec]:
    """A producer every minute; consumers with a 25-minute task: after their first run
    they stay ready and at their max_active_runs while new events keep coming."""
    producer = DagSpec(
        dag_id="producer",
        timetable=timetable_from_schedule("* * * * *"),
        start_date=START - timedelta(days=1),
        tasks=(TaskSpec("write", duration=timedelta(seconds=5), outlets=(ORDERS,)),),
    )
    return [
        producer,
        *(
            DagSpec(
                dag_id=f"c{i:02d}",
                timetable=AssetTriggeredTimetable(AssetNode(ORDERS)),
                start_date=START - timedelta(days=1),
                max_active_runs=max_active_runs,
                tasks=(TaskSpec("t", duration=timedelta(minutes=25)),),
            )
            for i in range(consumers)
        ),
    ]


def test_instants_are_converted_once_while_remembered() -> None:
    sim = Simulation(_producer_and_consumers(10), start=START)
    sim.advance_to(START + timedelta(hours=6))
    log = sim.runs
    packed = [log[i] for i in range(len(log)) if log.state(i) in ("success", "failed")]
    assert log.packed == len(packed) > 300
    # the old packing converted every instant of every packed run
    every = sum(sum(v is not None for v in _instants(r)) for r in packed)
    assert every > 2_000
    assert 0 < log.instants_computed <= every // 4


def _instants(run: DagRun) -> list[datetime | None]:
    interval = run.data_interval
    values = [
        run.logical_date,
        None if interval is None else interval.start,
        None if interval is None else interval.end,
        run.run_after,
        run.created_at,
        run.start_date,
        run.end_date,
        run.partition_date,
    ]
    for task in run.tasks:
        values += [task.start_date, task.end_date]
    return values


def test_a_full_memo_starts_afresh_with_the_same_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def simulate() -> tuple[list[dict[str, Any]], int]:
        sim = Simulation(_producer_and_consumers(4), start=START)
        sim.advance_to(START + timedelta(hours=3))
        return [run_row(r) for r in sim.runs], sim.runs.instants_computed

    rows, computed = simulate()
    monkeypatch.setattr(runlog, "_MEMO_SIZE", 3)  # cleared every few instants
    small_rows, small_computed = simulate()
    assert small_rows == rows
    assert small_computed > computed


# ---------------------------------------------------------------------- readiness
def _simulate_readiness(*, every_event: bool) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The run rows and, per consumer, how often its condition was evaluated.

    ``every_event``: the old behaviour, every listener of an event evaluated again."""
    evaluated: Counter[str] = Counter()
    real_ready = scheduling.condition_ready
    real_record = scheduling._record  # every event's path (a task's outlet events too)

    def counting(sim: Any, dag: DagState) -> bool:
        evaluated[dag.dag_id] += 1
        return real_ready(sim, dag)

    def record_then_refresh(sim: Any, origin: Any, nth: int | None) -> int:
        event_id = real_record(sim, origin, nth)
        listeners = [sim.state.dags[d] for d in sim.listeners(origin.asset, origin.via_aliases)]
        scheduling.refresh_ready(
            sim, [d for d in listeners if d.deployed and not d.is_paused and d.adrq]
        )
        return event_id

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduling, "condition_ready", counting)
        if every_event:
            mp.setattr(scheduling, "_record", record_then_refresh)
        config = SchedulerConfig(loop_interval=timedelta(seconds=1))
        sim = Simulation(_producer_and_consumers(20), start=START, config=config)
        sim.advance_to(START + timedelta(hours=2))
        return [run_row(r) for r in sim.runs], evaluated


@pytest.mark.plain_only
def test_a_consumer_is_evaluated_when_an_event_adds_its_row() -> None:
    rows, evaluated = _simulate_readiness(every_event=False)
    reference_rows, reference = _simulate_readiness(every_event=True)
    assert rows == reference_rows
    consumers = [f"c{i:02d}" for i in range(20)]
    # 120 events; a consumer queues a row for the first event after each of its runs
    # (one every 25 minutes, so about five): a few evaluations each, where every event
    # evaluated every consumer before.
    assert all(reference[c] >= 115 for c in consumers)
    assert all(evaluated[c] <= 12 for c in consumers)
    assert sum(r["dag_id"] != "producer" for r in rows) >= 5 * len(consumers)


# ---------------------------------------------------------------------- held cache
class _Held:
    """A stand-in for a run (any object: no weak reference is taken)."""


def test_held_runs_keep_what_is_held_and_sweep_the_rest() -> None:
    cache = HeldRuns()
    held = {i: _Held() for i in range(0, 50_000, 1000)}
    for i in range(50_000):
        cache[i] = held.get(i) or _Held()  # all but the held ones die at once
    assert all(cache.get(i) is obj for i, obj in held.items())
    assert cache.get(1) is None and cache.pop(2) is None
    assert len(cache._refs) <= 2 * 4096  # swept as it grew: not one entry per run packed
    assert sorted(map(id, cache.values())) == sorted(map(id, held.values()))
    assert cache.pop(0) is held[0] and cache.get(0) is None


def test_held_runs_take_runs_that_refuse_weak_references() -> None:
    # a compiled DagRun has no weak-reference slot (adr/0013); the cache counts references
    cache = HeldRuns()
    unweakable = [object() for _ in range(3 * 4096)]  # object() refuses weak references too
    kept = unweakable[::100]
    for i, obj in enumerate(unweakable):
        cache[i] = obj
    del unweakable, obj  # the loop variable held the last one
    for i in range(3 * 4096, 6 * 4096):
        cache[i] = object()
    assert all(cache.get(100 * n) is obj for n, obj in enumerate(kept))
    assert len(cache._refs) <= 2 * 4096 + len(kept)
    assert len(cache) == len(kept)  # what nobody else holds is not counted either


# ---------------------------------------------------------------------- run id tails
def _suffix_by_letter(*parts: object, length: int = 8) -> str:
    """TT-21's deterministic tail as it was written: a generator step per letter."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(alphabet[b % len(alphabet)] for b in digest[:length])


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=30), st.integers(0, 10**7), st.integers(1, 32))
def test_random_suffix_translates_as_it_indexed(dag_id: str, nth: int, length: int) -> None:
    assert random_suffix(dag_id, nth, length=length) == _suffix_by_letter(
        dag_id, nth, length=length
    )


@pytest.mark.parametrize(
    "name", ["catchup_flood.json", "daily_and_weekly_feeds.json", "hourly_to_daily_rollup.json"]
)
@pytest.mark.plain_only
def test_a_timers_run_is_the_active_run_of_its_key(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``finish_due_tasks`` reads a due timer's run from ``SimState.active`` by (DAG,
    nth), not through the DAG's run log: the two are the same object for
    every timer that fires while its run is active."""
    from pathlib import Path

    from explorer.engine import lifecycle
    from explorer.scenario import build_engine_inputs, load_scenario
    from explorer.scenario.simulate import make_simulation

    path = Path(__file__).parents[2] / "resources" / "scenarios" / name
    inputs = build_engine_inputs(load_scenario(path), source=path.name)
    sim = make_simulation(inputs)
    real = lifecycle.finish_due_tasks
    checked = 0

    def finish(sim: Any, t: datetime) -> None:
        nonlocal checked
        st_ = sim.state
        for at, order, nth, _, _ in st_.completions:
            dag_id = sim.dag_ids[order]
            run = st_.active.get((dag_id, nth))
            if at <= t and run is not None:
                assert run is st_.dags[dag_id].runs[nth]
                checked += 1
        real(sim, t)

    monkeypatch.setattr(lifecycle, "finish_due_tasks", finish)
    sim.advance_to(inputs.until or inputs.start + timedelta(days=3))
    assert checked
