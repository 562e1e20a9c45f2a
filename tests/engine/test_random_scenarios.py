"""Random scenarios (hypothesis, derandomized: the same draws on every run) checked against
invariants the scheduler must keep whatever the deployment:

* it runs to the end without an exception;
* the same scenario gives the same record twice (runs, their states, events);
* a timetable that tiles time (cron / delta data intervals, plain cron triggers) never
  gives two scheduled runs overlapping intervals, when no manual run takes a date;
* no run is created before its ``run_after``;
* every event a run consumed was emitted at or before the run's ``run_after`` (AS-5).

The draws are of the kind of README 7.10's random traces, smaller: 1-4 DAGs, cron and
delta schedules in UTC and DST zones, catchup, start/end dates, max_active_runs,
pauses, manual runs with and without logical dates, failing tasks, asset consumers
(direct, ``Asset.ref``, alias, AND / OR) and REST events, over two days that hold New
York's spring-forward night.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.engine import actions as act
from explorer.engine.assets.condition import (
    AliasNode,
    AllOf,
    AnyOf,
    AssetKey,
    AssetNode,
    Condition,
    RefNode,
)
from explorer.engine.dag import AliasEmission, DagSpec, TaskSpec
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    CronDataIntervalTimetable,
    CronTriggerTimetable,
    Timetable,
)
from explorer.engine.timetables.interval import DeltaDataIntervalTimetable
from tests.engine.strategies import clock_timetable, minutes

START = datetime(2024, 3, 9, tzinfo=UTC)
SPAN = timedelta(days=2)
ZONES = ("UTC", "America/New_York", "Europe/London")
ASSETS = tuple(AssetKey(name, f"s3://lake/{name}") for name in ("a", "b", "c"))
#: Loops every minute and parses every 5 minutes keep a scenario to tens of milliseconds.
CONFIG = SchedulerConfig(loop_interval=timedelta(minutes=1), parse_interval=timedelta(minutes=5))
#: Timetables whose scheduled runs tile time: consecutive intervals never overlap.
TILING = (CronDataIntervalTimetable, DeltaDataIntervalTimetable, CronTriggerTimetable)


@dataclass(frozen=True)
class Scenario:
    dags: tuple[DagSpec, ...]
    script: tuple[act.Action, ...]


@st.composite
def condition(draw: st.DrawFn) -> Condition:
    def leaf(key: AssetKey) -> Condition:
        form = draw(st.sampled_from(["asset", "ref", "alias"]))
        if form == "ref":
            return RefNode(name=key.name)
        if form == "alias":
            return AliasNode(f"via_{key.name}")
        return AssetNode(key)

    keys = draw(st.lists(st.sampled_from(ASSETS), min_size=1, max_size=2, unique=True))
    leaves = tuple(leaf(k) for k in keys)
    if len(leaves) == 1:
        return leaves[0]
    return draw(st.sampled_from([AllOf(leaves), AnyOf(leaves)]))


@st.composite
def task(draw: st.DrawFn, task_id: str) -> TaskSpec:
    outlets: list[Any] = []
    emissions: list[AliasEmission] = []
    for key in draw(st.lists(st.sampled_from(ASSETS), max_size=2, unique=True)):
        if draw(st.booleans()):
            outlets.append(key)
        else:
            alias = f"via_{key.name}"
            outlets.append(AliasNode(alias))
            emissions.append(AliasEmission(alias, key))
    return TaskSpec(
        task_id,
        draw(minutes(0, 90)),
        draw(st.sampled_from(["success", "success", "failed"])),
        outlets=tuple(outlets),
        alias_events=tuple(emissions),
    )


@st.composite
def dag(draw: st.DrawFn, index: int) -> DagSpec:
    zone = draw(st.sampled_from(ZONES))
    asset_driven = index > 0 and draw(st.integers(0, 3)) == 0
    timetable: Timetable = (
        AssetTriggeredTimetable(draw(condition())) if asset_driven else draw(clock_timetable(zone))
    )
    start = START + draw(st.integers(-72, 30).map(lambda h: timedelta(hours=h)))
    end = start + draw(minutes(60, 4000)) if draw(st.integers(0, 4)) == 0 else None
    count = draw(st.integers(1, 2))
    return DagSpec(
        dag_id=f"dag{index}",
        timetable=timetable,
        start_date=start,
        end_date=end,
        timezone=zone,
        catchup=draw(st.booleans()),
        max_active_runs=draw(st.integers(1, 16)),
        is_paused_upon_creation=draw(st.integers(0, 5)) == 0,
        tasks=tuple(draw(task(f"t{i}")) for i in range(count)),
    )


@st.composite
def action(draw: st.DrawFn, dag_ids: tuple[str, ...]) -> act.Action:
    at = START + draw(
        st.integers(0, int(SPAN.total_seconds()) // 60).map(lambda m: timedelta(minutes=m))
    )
    at += timedelta(seconds=draw(st.sampled_from([0, 0, 17])))
    dag_id = draw(st.sampled_from(dag_ids))
    kind = draw(st.sampled_from(["pause", "unpause", "trigger", "trigger_dated", "event"]))
    if kind == "pause":
        return act.Pause(at=at, dag_id=dag_id)
    if kind == "unpause":
        return act.Unpause(at=at, dag_id=dag_id)
    if kind == "event":
        return act.ExternalEvent(at=at, asset=draw(st.sampled_from(ASSETS)))
    dated = kind == "trigger_dated"
    logical = at - draw(minutes(-120, 3000)) if dated else None
    return act.Trigger(at=at, dag_id=dag_id, logical_date=logical)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    count = draw(st.integers(1, 4))
    dags = tuple(draw(dag(i)) for i in range(count))
    dag_ids = tuple(d.dag_id for d in dags)
    script = draw(st.lists(action(dag_ids), max_size=8))
    return Scenario(dags, tuple(sorted(script, key=lambda a: a.at)))


def play(scenario: Scenario) -> Simulation:
    sim = Simulation(list(scenario.dags), start=START, config=CONFIG, script=scenario.script)
    sim.advance_to(START + SPAN)
    return sim


def record(sim: Simulation) -> list[Any]:
    runs = [
        (
            r.dag_id,
            r.nth,
            r.run_id,
            r.run_type,
            r.logical_date,
            r.data_interval,
            r.run_after,
            r.created_at,
            tuple(r.states),
            r.consumed_asset_events,
        )
        for r in sim.runs
    ]
    events = [
        (e.asset, e.timestamp, e.partition_key, e.via_aliases, e.source.dag_id)
        for e in sim.state.assets.events
    ]
    return [runs, events, sorted(sim.warnings)]


def scenario_settings(max_examples: int) -> settings:
    """Hypothesis settings for tests over whole random scenarios: a fixed sequence of
    examples (CI sees the same ones every run), no deadline and no example database (a
    scenario takes long to simulate), no health check on slow or large draws."""
    return settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@scenario_settings(250)
@given(scenarios())
def test_random_scenarios_keep_the_invariants(scenario: Scenario) -> None:
    sim = play(scenario)  # no crash
    assert record(sim) == record(play(scenario)), "same scenario, same record"

    events = sim.state.assets.events
    for run in sim.runs:
        assert run.created_at >= run.run_after, f"{run.run_id} created before its run_after"
        for event_id in run.consumed_asset_events:
            assert events[event_id].timestamp <= run.run_after, (
                f"{run.run_id} consumed an event from after its run_after"
            )

    triggered = {a.dag_id for a in scenario.script if isinstance(a, act.Trigger)}
    for spec in scenario.dags:
        if not isinstance(spec.timetable, TILING) or spec.dag_id in triggered:
            continue
        if isinstance(spec.timetable, CronTriggerTimetable) and spec.timetable.interval:
            continue  # a trigger with an interval overlaps by design
        intervals = sorted(
            (
                r.data_interval
                for r in sim.dags[spec.dag_id].runs
                if r.run_type == "scheduled" and r.data_interval is not None
            ),
            key=lambda i: (i.start, i.end),
        )
        for before, after in itertools.pairwise(intervals):
            assert before.end <= after.start, f"{spec.dag_id}: {before} overlaps {after}"
