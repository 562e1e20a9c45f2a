"""The bulk path (adr/0012) against the loop: identical records, both ways.

A hypothesis test (derandomized, like ``test_random_scenarios``) draws deployments
of free-running DAGs (cron, data-interval, delta and interval-trigger timetables in
UTC and DST zones, varied durations, outcomes, catchup, start/end dates,
max_active_runs), loop-only DAGs (asset producers and consumers, paused ones, DAGs
named by script actions) and small per-loop caps with many DAGs at the same instant,
so that caps do bind in some examples; every scenario is simulated with the bulk
path on and off and the whole record (runs, tasks, asset events, pending, alerts,
dags, warnings) must be identical. Focused tests: a DAG named by a script action is
never claimed, a window where a cap binds goes back to the loop, and the bulk path
does claim free-running DAGs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.bulk.path import claim
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.record import build_record
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    Timetable,
    timetable_from_schedule,
)
from tests.engine.strategies import clock_timetable, minutes
from tests.engine.test_random_scenarios import scenario_settings

START = datetime(2024, 3, 9, tzinfo=UTC)
SPAN = timedelta(days=2)
ZONES = ("UTC", "America/New_York", "Europe/London", "Asia/Kolkata")
ASSETS = tuple(AssetKey(name, f"s3://lake/{name}") for name in ("a", "b"))


@dataclass(frozen=True)
class Scenario:
    dags: tuple[DagSpec, ...]
    script: tuple[act.Action, ...]
    config: SchedulerConfig


@st.composite
def dag(draw: st.DrawFn, index: int, role: str) -> DagSpec:
    zone = draw(st.sampled_from(ZONES))
    timetable: Timetable = (
        AssetTriggeredTimetable(AssetNode(draw(st.sampled_from(ASSETS))))
        if role == "consumer"
        else draw(clock_timetable(zone))
    )
    outlets = (draw(st.sampled_from(ASSETS)),) if role == "producer" else ()
    start = START + draw(st.integers(-72, 30).map(lambda h: timedelta(hours=h)))
    end = start + draw(minutes(60, 4000)) if draw(st.integers(0, 4)) == 0 else None
    tasks = tuple(
        TaskSpec(
            f"t{i}",
            draw(minutes(0, 120)),
            draw(st.sampled_from(["success", "success", "failed", "success_no_data"])),
            outlets=outlets if i == 0 else (),
        )
        for i in range(draw(st.integers(1, 3)))
    )
    return DagSpec(
        dag_id=f"{role}{index}",
        timetable=timetable,
        start_date=start,
        end_date=end,
        timezone=zone,
        catchup=draw(st.booleans()),
        max_active_runs=draw(st.integers(1, 16)),
        is_paused_upon_creation=draw(st.integers(0, 7)) == 0,
        tasks=tasks,
    )


@st.composite
def action(draw: st.DrawFn, dag_ids: tuple[str, ...]) -> act.Action:
    at = START + draw(minutes(0, int(SPAN.total_seconds()) // 60))
    dag_id = draw(st.sampled_from(dag_ids))
    kind = draw(st.sampled_from(["pause", "unpause", "trigger", "event"]))
    if kind == "pause":
        return act.Pause(at=at, dag_id=dag_id)
    if kind == "unpause":
        return act.Unpause(at=at, dag_id=dag_id)
    if kind == "event":
        return act.ExternalEvent(at=at, asset=draw(st.sampled_from(ASSETS)))
    return act.Trigger(at=at, dag_id=dag_id)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    free = [draw(dag(i, "free")) for i in range(draw(st.integers(1, 12)))]
    loop_only = [draw(dag(i, "producer")) for i in range(draw(st.integers(0, 2)))]
    loop_only += [draw(dag(i, "consumer")) for i in range(draw(st.integers(0, 2)))]
    dags = [*free, *loop_only]
    order = draw(st.permutations(range(len(dags))))
    dags = [dags[i] for i in order]
    ids = tuple(d.dag_id for d in dags)
    script = sorted(draw(st.lists(action(ids), max_size=4)), key=lambda a: a.at)
    config = SchedulerConfig(
        loop_interval=draw(st.sampled_from([timedelta(minutes=1), timedelta(seconds=45)])),
        parse_interval=draw(st.sampled_from([timedelta(minutes=5), timedelta(seconds=30)])),
        # small caps with many DAGs due at once: they bind in some examples
        max_dagruns_to_create_per_loop=draw(st.integers(2, 10)),
        max_dagruns_per_loop_to_schedule=draw(st.integers(3, 20)),
    )
    return Scenario(tuple(dags), tuple(script), config)


def simulate(scenario: Scenario, **options: Any) -> tuple[Simulation, str]:
    """``scenario`` simulated over ``SPAN`` with these ``Simulation`` options (``bulk``,
    ``spill_rows``), and its record as canonical JSON."""
    sim = Simulation(
        list(scenario.dags),
        start=START,
        config=scenario.config,
        script=scenario.script,
        **options,
    )
    sim.advance_to(START + SPAN)
    sim.finish()
    record = build_record(sim, until=START + SPAN)
    return sim, json.dumps(record, sort_keys=True)


@scenario_settings(60)
@given(scenarios())
def test_bulk_and_loop_give_identical_records(scenario: Scenario) -> None:
    _, by_loop = simulate(scenario, bulk=False)
    _, by_bulk = simulate(scenario, bulk=True)
    assert by_bulk == by_loop


def daily(dag_id: str, **kwargs: Any) -> DagSpec:
    return DagSpec(
        dag_id=dag_id,
        timetable=timetable_from_schedule("0 * * * *", dag_timezone="UTC"),
        start_date=START - timedelta(days=1),
        tasks=(TaskSpec("t", timedelta(minutes=10)),),
        **kwargs,
    )


def test_free_running_dags_are_claimed_and_give_the_loops_record() -> None:
    dags = [daily(f"d{i}") for i in range(3)]
    scenario = Scenario(tuple(dags), (), SchedulerConfig())
    sim = Simulation(list(dags), start=START, config=SchedulerConfig())
    assert [s.dag.dag_id for s in claim(sim, START + SPAN)] == ["d0", "d1", "d2"]
    bulk_sim, by_bulk = simulate(scenario, bulk=True)
    assert bulk_sim._bulk_used
    assert by_bulk == simulate(scenario, bulk=False)[1]
    assert len(bulk_sim.runs) == 3 * 49  # 00:00 of each day and the horizon itself


def test_a_dag_named_by_a_script_action_is_never_claimed() -> None:
    dags = [daily("free"), daily("named")]
    script = [act.Trigger(at=START + timedelta(hours=3), dag_id="named")]
    sim = Simulation(dags, start=START, script=script)
    assert [s.dag.dag_id for s in claim(sim, START + SPAN)] == ["free"]
    scenario = Scenario(tuple(dags), tuple(script), SchedulerConfig())
    assert simulate(scenario, bulk=True)[1] == simulate(scenario, bulk=False)[1]


def test_too_many_claimable_dags_at_one_loop_are_left_to_the_loop() -> None:
    # twelve DAGs due at the same loop with room for ten: SCH-2 binds among them alone
    dags = [daily(f"d{i:02}") for i in range(12)]
    sim = Simulation(dags, start=START)
    assert claim(sim, START + SPAN) == []
    scenario = Scenario(tuple(dags), (), SchedulerConfig())
    bulk_sim, by_bulk = simulate(scenario, bulk=True)
    assert not bulk_sim._bulk_used
    assert by_bulk == simulate(scenario, bulk=False)[1]
    created = sorted({r.created_at for r in bulk_sim.runs if r.run_after == START})
    assert len(created) == 2, "ten DAGs in the first loop, two in the next (SCH-2)"


def test_a_cap_bound_with_the_loops_own_dags_goes_back_to_the_loop() -> None:
    # four claimable DAGs and eight the script names (loop-only), all due at every hour:
    # twelve DAGs at one loop with room for ten, so the claim must be given up
    free = [daily(f"free{i}") for i in range(4)]
    named = [daily(f"named{i}") for i in range(8)]
    script = [act.Unpause(at=START + timedelta(hours=5), dag_id=d.dag_id) for d in named]
    dags = [*free, *named]
    sim = Simulation(dags, start=START, script=script)
    assert [s.dag.dag_id for s in claim(sim, START + SPAN)] == [d.dag_id for d in free]
    scenario = Scenario(tuple(dags), tuple(script), SchedulerConfig())
    bulk_sim, by_bulk = simulate(scenario, bulk=True)
    assert not bulk_sim._bulk_used, "the cap bound: the loop simulated it all"
    assert by_bulk == simulate(scenario, bulk=False)[1]
    created = sorted({r.created_at for r in bulk_sim.runs if r.run_after == START})
    assert len(created) == 2, "ten DAGs in the first loop, two in the next (SCH-2)"


def test_going_on_after_a_bulk_advance_gives_the_loops_record() -> None:
    dags = [daily(f"d{i}") for i in range(3)]
    later = START + SPAN + timedelta(hours=5, minutes=3)
    by_bulk = Simulation(dags, start=START)
    by_bulk.advance_to(START + SPAN)
    assert by_bulk._bulk_used
    by_bulk.advance_to(later)  # the loop takes over: the stretch is simulated again
    assert not by_bulk._bulk_used
    by_loop = Simulation(dags, start=START, bulk=False)
    by_loop.advance_to(later)
    assert json.dumps(build_record(by_bulk, until=later)) == json.dumps(
        build_record(by_loop, until=later)
    )
