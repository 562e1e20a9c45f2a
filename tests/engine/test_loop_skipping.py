"""Skipping loops changes nothing: the loop against a loop run at every grid instant.

The simulator runs a scheduler loop only where one may change something
(adr/0003): ``loop.next_needed_tick`` reads the reasons (a dirty state, DAGs due,
queued runs, asset-ready DAGs, runs waiting for step 5) and the loops in between
are skipped, their step 5 examinations replayed (RND-6). Every such shortcut is a
claim that the loops it skips would have done nothing else. The reference here
makes no claim at all: it runs every loop of the grid. A hypothesis test draws
random deployments (:func:`tests.engine.strategies.scenarios`: small per-loop caps
that bind, producers, consumers, pauses, triggers, external events) and requires
identical records both ways; focused tests
pin two of these claims: a task's end that leaves its run unfinished is no
reason for a loop, and a run whose tasks have all finished is a reason only at the
loop whose examination reaches it.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given

from explorer.engine import loop
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.host import Host
from explorer.engine.record import build_record
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule
from tests.engine.strategies import SPAN, START, Scenario, scenarios
from tests.engine.test_random_scenarios import scenario_settings


def every_loop(sim: Host) -> datetime | None:
    """The next loop of the grid, whatever the state: no loop is ever skipped."""
    st = sim.state
    if st.last_tick is not None and st.now <= st.last_tick:
        return sim.ticks.after(st.last_tick)
    return sim.ticks.at_or_after(st.now)


def simulate(
    scenario: Scenario, monkeypatch: Any, *, skip: bool, span: timedelta = SPAN
) -> tuple[dict[str, Any], int]:
    """The record of ``scenario`` over ``span``, and the number of loops run."""
    loops = {"n": 0}
    tick = loop.tick

    def counted(sim: Host, now: datetime) -> None:
        loops["n"] += 1
        tick(sim, now)

    with monkeypatch.context() as patch:
        patch.setattr(loop, "tick", counted)
        if not skip:
            patch.setattr(loop, "next_needed_tick", every_loop)
        sim = Simulation(
            list(scenario.dags),
            start=START,
            config=scenario.config,
            script=scenario.script,
        )
        sim.advance_to(START + span)
    sim.finish()
    return build_record(sim, until=START + span), loops["n"]


@scenario_settings(40)
@given(scenarios())
def test_skipping_loops_gives_the_every_loop_record(scenario: Scenario) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        skipped, _ = simulate(scenario, monkeypatch, skip=True)
        reference, _ = simulate(scenario, monkeypatch, skip=False)
    assert json.dumps(skipped, sort_keys=True) == json.dumps(reference, sort_keys=True)


def _busy_deployment(n: int) -> list[DagSpec]:
    """``n`` DAGs every five minutes, two tasks of different lengths each: more runs
    running than step 5 examines at a loop (RND-6), and every run's first task ends
    before its second."""
    return [
        DagSpec(
            dag_id=f"d{i:03d}",
            timetable=timetable_from_schedule("*/5 * * * *"),
            start_date=START - timedelta(days=1),
            max_active_runs=4,
            tasks=(
                TaskSpec("short", duration=timedelta(seconds=30 + 11 * (i % 7))),
                TaskSpec("long", duration=timedelta(minutes=3, seconds=i % 13)),
            ),
        )
        for i in range(n)
    ]


@pytest.mark.plain_only
def test_loops_run_only_where_a_run_can_end(monkeypatch: Any) -> None:
    """60 DAGs, up to 120 runs running, 20 examined a loop: the every-loop reference runs
    all 3,600 loops of the hour; the loop runs only those that create, start or end a
    run, and the records are identical."""
    scenario = Scenario(
        tuple(_busy_deployment(60)),
        (),
        SchedulerConfig(loop_interval=timedelta(seconds=1)),
    )
    span = timedelta(hours=1)

    def run(skip: bool) -> tuple[list[Any], int]:
        record, loops = simulate(scenario, monkeypatch, skip=skip, span=span)
        return record["runs"], loops

    runs, loops = run(skip=True)
    reference_runs, reference_loops = run(skip=False)
    assert runs == reference_runs
    assert len(runs) >= 60 * 12
    assert reference_loops == 3600 + 1
    # Without these two shortcuts a loop ran at every task's end and at every loop until
    # the rotation reached a finished run: 877 loops for these 730 runs (measured).
    # Now a loop runs where a run is created, started or ended: 301 (measured).
    assert loops < len(runs) // 2
