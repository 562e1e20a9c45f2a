"""Observers hear every run's and task's change while subscribed, and only then does
the engine build those changes (``Host.observed``: a headless run pays nothing)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import Change, Simulation
from explorer.engine.timetables import CronTriggerTimetable

START = datetime(2024, 3, 1, tzinfo=UTC)


def _sim() -> Simulation:
    spec = DagSpec(
        "hourly",
        CronTriggerTimetable("0 * * * *", timezone="UTC"),
        start_date=START,
        tasks=(TaskSpec("extract", timedelta(minutes=10)), TaskSpec("load", timedelta(minutes=5))),
    )
    return Simulation([spec], start=START)


def test_each_subscriber_hears_each_change_until_it_unsubscribes() -> None:
    sim = _sim()
    assert not sim.observed
    first: list[Change] = []
    second: list[Change] = []
    stop_first = sim.subscribe(first.append)
    stop_second = sim.subscribe(second.append)
    assert sim.observed
    sim.advance_to(START + timedelta(hours=3))
    kinds = Counter(c.kind for c in first)
    runs = list(sim.state.runs)
    ended = [r for r in runs if r.state in ("success", "failed")]
    assert len(runs) == 4 and len(ended) == 3  # 00:00 .. 03:00; 15 minutes each
    assert kinds["run_created"] == len(runs)
    assert kinds["task_state"] == sum(len(r.tasks) for r in ended)
    states = Counter(c.detail for c in first if c.kind == "run_state")
    assert states["running"] == len(runs) and states["success"] == len(ended)
    assert [c.kind for c in second] == [c.kind for c in first]
    stop_first()
    assert sim.observed  # the second still listens
    heard = len(first)
    sim.advance_to(START + timedelta(hours=4))
    assert len(first) == heard and any(c.kind == "run_created" for c in second[heard:])
    stop_second()
    assert not sim.observed
    before = len(second)
    sim.advance_to(START + timedelta(hours=5))
    assert len(second) == before
