"""Asset watchers and the asset state store (WA-1..WA-4), and seeded random failures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.assets.watchers import SourceChange, WatcherSpec
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import AssetTriggeredTimetable, CronTriggerTimetable

START = datetime(2025, 1, 1, tzinfo=UTC)
LANDING = AssetKey("landing", "file:///data/landing")


def consumer(paused: bool = False) -> DagSpec:
    return DagSpec(
        "load",
        AssetTriggeredTimetable(AssetNode(LANDING)),
        start_date=START,
        is_paused_upon_creation=paused,
        tasks=(TaskSpec("t", timedelta(minutes=1)),),
    )


def watcher(*minutes: int) -> WatcherSpec:
    return WatcherSpec(
        "files",
        LANDING,
        timedelta(minutes=5),
        tuple(SourceChange(START + timedelta(minutes=m), f"f{m}.csv") for m in minutes),
    )


def test_a_poll_emits_one_event_per_landed_item_and_never_rescans() -> None:
    """Files at 00:02 and 00:03 are seen by the 00:05 poll (two events, from_trigger); the
    watermark moves to 00:03, so the 00:10 poll only sees the file of 00:07."""
    sim = Simulation([consumer()], start=START, watchers=[watcher(2, 3, 7)])
    sim.advance_to(START + timedelta(minutes=30))
    events = sim.state.assets.events
    assert [(e.timestamp - START, e.extra["payload"]["item"]) for e in events] == [
        (timedelta(minutes=5), "f2.csv"),
        (timedelta(minutes=5), "f3.csv"),
        (timedelta(minutes=10), "f7.csv"),
    ]
    assert all(e.extra["from_trigger"] is True and e.partition_key is None for e in events)
    assert all(e.source.kind == "watcher" for e in events)
    history = sim.state.watchers.history
    assert [value for _, _, value, _, _ in history] == [
        (START + timedelta(minutes=3)).isoformat(),
        (START + timedelta(minutes=7)).isoformat(),
    ]
    # the two 00:05 events coalesce into one run; the 00:10 one makes a second (AS-6)
    assert [r.run_after - START for r in sim.runs] == [timedelta(minutes=5), timedelta(minutes=10)]


def test_a_watcher_without_an_unpaused_consumer_does_not_run() -> None:
    """WA-2: the consumer is paused until 00:20; the file of 00:02 is picked up by the first
    poll after it is unpaused (the watermark was never moved)."""
    sim = Simulation(
        [consumer(paused=True)],
        start=START,
        watchers=[watcher(2)],
        script=[act.Unpause(at=START + timedelta(minutes=20), dag_id="load")],
    )
    sim.advance_to(START + timedelta(minutes=19))
    assert sim.state.assets.events == []
    sim.advance_to(START + timedelta(minutes=40))
    assert [e.timestamp - START for e in sim.state.assets.events] == [timedelta(minutes=20)]


def test_random_failures_are_reproducible_for_a_seed() -> None:
    dag = DagSpec(
        "h",
        CronTriggerTimetable("0 * * * *", timezone="UTC"),
        start_date=START,
        tasks=(TaskSpec("t", timedelta(minutes=5), failure_rate=0.3),),
    )

    def outcomes(seed: int) -> list[str]:
        sim = Simulation([dag], start=START, seed=seed)
        sim.advance_to(START + timedelta(days=2))
        return [r.state for r in sim.runs]

    first = outcomes(7)
    assert first == outcomes(7)
    assert 5 <= first.count("failed") <= 25
    assert first != outcomes(8)


def test_a_task_reads_the_latest_event_of_each_inlet_when_it_starts() -> None:
    """``inlet_events[asset][-1]``: the newest event of the inlet at the task's start."""
    orders = AssetKey("orders", "s3://lake/orders")
    reader = DagSpec(
        "report",
        CronTriggerTimetable("30 * * * *", timezone="UTC"),
        start_date=START,
        tasks=(TaskSpec("read", timedelta(minutes=5), inlets=(orders,)),),
    )
    script = [act.ExternalEvent(at=START + timedelta(minutes=m), asset=orders) for m in (10, 20)]
    sim = Simulation([reader], start=START, script=script)
    sim.advance_to(START + timedelta(hours=1))
    (run,) = [r for r in sim.runs if r.run_after == START + timedelta(minutes=30)]
    assert run.tasks[0].inlet_events == (1,)  # the 00:20 event, the second one
