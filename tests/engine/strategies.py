"""Hypothesis strategies shared by the random-scenario tests (the invariants in
``test_random_scenarios``, the loop-skipping and run-log spilling comparisons), so all
draw clock timetables and deployments the same way.

:func:`scenarios` draws deployments of free-running DAGs (cron, data-interval, delta and
interval-trigger timetables in UTC and DST zones, varied durations, outcomes, catchup,
start/end dates, max_active_runs), asset producers and consumers, script actions and
small per-loop caps with many DAGs due at once, so that caps bind in some examples.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.record import build_record
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    CronTriggerTimetable,
    Timetable,
    timetable_from_schedule,
)
from explorer.engine.timetables.interval import DeltaDataIntervalTimetable

__all__ = [
    "CRONS",
    "SPAN",
    "START",
    "Scenario",
    "clock_timetable",
    "daily",
    "minutes",
    "scenarios",
    "simulate",
]

#: Hourly, sub-hourly, a DST-night hour (02:30), every third hour and midnight.
CRONS = ("0 * * * *", "*/20 * * * *", "30 2 * * *", "15 */3 * * *", "0 0 * * *", "@hourly")


def minutes(lo: int, hi: int) -> st.SearchStrategy[timedelta]:
    return st.integers(lo, hi).map(lambda m: timedelta(minutes=m))


@st.composite
def clock_timetable(draw: st.DrawFn, zone: str) -> Timetable:
    """A time-driven timetable in ``zone``: a plain cron (CronTriggerTimetable), a cron
    with data intervals, a timedelta, or a cron trigger with an interval."""
    kind = draw(st.sampled_from(["cron", "data_interval", "delta", "interval_trigger"]))
    if kind == "delta":
        return DeltaDataIntervalTimetable(draw(minutes(20, 360)))
    cron = draw(st.sampled_from(CRONS))
    if kind == "data_interval":
        return timetable_from_schedule(cron, dag_timezone=zone, create_cron_data_intervals=True)
    if kind == "interval_trigger":
        return CronTriggerTimetable(cron, timezone=zone, interval=draw(minutes(30, 240)))
    return timetable_from_schedule(cron, dag_timezone=zone)


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
    """``scenario`` simulated over ``SPAN`` with these ``Simulation`` options
    (``spill_rows``), and its record as canonical JSON."""
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


def daily(dag_id: str, **kwargs: Any) -> DagSpec:
    return DagSpec(
        dag_id=dag_id,
        timetable=timetable_from_schedule("0 * * * *", dag_timezone="UTC"),
        start_date=START - timedelta(days=1),
        tasks=(TaskSpec("t", timedelta(minutes=10)),),
        **kwargs,
    )
