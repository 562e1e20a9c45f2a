"""The rules random scenarios found (SEMANTICS section 11, RND-1 .. RND-7), one test each.

Plus the script model they needed (a ``Tick`` action in its place, a task that starts
with its run) and the asset-orphanage activation the traces leave out (README 7.10).
Loops run on an explicit one-minute grid and nothing is parsed unless a test says so,
so every instant in an assertion is one the scenario names.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from explorer.engine import actions as act
from explorer.engine.assets.condition import AliasNode, AllOf, AssetKey, AssetNode, RefNode
from explorer.engine.dag import AliasEmission, DagSpec, TaskSpec
from explorer.engine.partitions import IdentityMapper
from explorer.engine.simulation import Simulation
from explorer.engine.ticks import ExplicitCadence, GridCadence, NoCadence
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    CronTriggerTimetable,
    NullTimetable,
)
from explorer.engine.timetables.partitioned import PartitionedAssetTimetable

T0 = datetime(2025, 1, 2, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
A = AssetKey("a", "s3://bucket/a")
HELD = (TaskSpec("work", hold=True),)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def simulate(dags: list[DagSpec], script: list[act.Action], *, ticks: object = None) -> Simulation:
    """Deployed at T0, a loop every minute (or the given cadence), no periodic parse."""
    return Simulation(
        dags,
        start=T0,
        script=script,
        ticks=ticks or GridCadence(T0, MINUTE),  # type: ignore[arg-type]
        parses=NoCadence(),
    )


def manual_dag(**kwargs: object) -> DagSpec:
    fields: dict[str, object] = {
        "dag_id": "d",
        "timetable": NullTimetable(),
        "start_date": datetime(2025, 1, 1, tzinfo=UTC),
        "tasks": HELD,
    }
    fields.update(kwargs)
    return DagSpec(**fields)  # type: ignore[arg-type]


def states(sim: Simulation, dag_id: str, nth: int) -> list[tuple[str, datetime]]:
    return list(sim.dags[dag_id].runs[nth].states)


class TestRnd1NoTaskInstances:
    """RND-1: a logical date outside start_date .. end_date gives a run no task instances;
    it succeeds in the loop that starts it and emits nothing."""

    def test_manual_run_before_start_date_succeeds_at_once_and_emits_nothing(self) -> None:
        dag = manual_dag(tasks=(TaskSpec("work", hold=True, outlets=(A,)),))
        early = datetime(2024, 12, 1, tzinfo=UTC)
        sim = simulate([dag], [act.Trigger(at=at(0.5), dag_id="d", logical_date=early)])
        sim.advance_to(at(3))
        run = sim.dags["d"].runs[0]
        assert run.tasks == []
        assert states(sim, "d", 0) == [("queued", at(0.5)), ("running", at(1)), ("success", at(1))]
        assert sim.state.assets.events == []

    def test_manual_run_after_end_date_has_no_task_instances(self) -> None:
        dag = manual_dag(end_date=datetime(2025, 1, 1, 12, tzinfo=UTC))
        sim = simulate([dag], [act.Trigger(at=at(0), dag_id="d", logical_date=at(-60))])
        sim.advance_to(at(2))
        assert sim.dags["d"].runs[0].tasks == []
        assert sim.dags["d"].runs[0].state == "success"

    def test_run_inside_the_dates_keeps_its_tasks(self) -> None:
        sim = simulate([manual_dag()], [act.Trigger(at=at(0), dag_id="d", logical_date=at(-60))])
        sim.advance_to(at(2))
        run = sim.dags["d"].runs[0]
        assert [t.task_id for t in run.tasks] == ["work"] and run.state == "running"

    def test_interval_trigger_whose_logical_date_precedes_start_date(self) -> None:
        """CronTriggerTimetable(interval=2h): logical date = run_after - 2 h, before the
        start date for the first run after it."""
        dag = DagSpec(
            "d",
            CronTriggerTimetable("0 * * * *", timezone="UTC", interval=timedelta(hours=2)),
            start_date=at(30),
            tasks=HELD,
        )
        sim = simulate([dag], [], ticks=ExplicitCadence([at(60), at(61)]))
        sim.advance_to(at(61))
        run = sim.dags["d"].runs[0]
        assert run.logical_date == at(-60) and run.tasks == []
        assert run.states[-1] == ("success", at(60))

    def test_run_whose_logical_date_is_ahead_waits_for_it(self) -> None:
        """Without task instances and with a future logical date, the run is running
        but not ended before the first loop at or after its logical date."""
        dag = manual_dag(start_date=at(30))
        sim = simulate([dag], [act.Trigger(at=at(0), dag_id="d", logical_date=at(10))])
        sim.advance_to(at(20))
        assert states(sim, "d", 0) == [("queued", at(0)), ("running", at(0)), ("success", at(10))]


def test_rnd2_one_missing_key_audit_row_names_every_partitioned_consumer() -> None:
    """RND-2: an un-keyed event reaching two partitioned consumers writes one row."""
    consumers = [
        DagSpec(name, PartitionedAssetTimetable(assets=AssetNode(A)), tasks=HELD)
        for name in ("zeta", "alpha")
    ]
    sim = simulate(consumers, [act.ExternalEvent(at=at(1), asset=A)])
    sim.advance_to(at(2))
    rows = [e for e in sim.state.audit_log if e["event"] == "missing partition key"]
    assert [r["dag_ids"] for r in rows] == [["alpha", "zeta"]]


def test_rnd3_partition_runs_start_in_request_order() -> None:
    """RND-3: requests for "b" (older) and "a" fire in one loop; nth follows the key
    order, but under max_active_runs=1 the older request's run starts first."""
    consumer = DagSpec(
        "c",
        PartitionedAssetTimetable(assets=AssetNode(A), default_partition_mapper=IdentityMapper()),
        max_active_runs=1,
        tasks=HELD,
    )
    script: list[act.Action] = [
        act.ExternalEvent(at=at(0.2), asset=A, partition_key="b"),
        act.ExternalEvent(at=at(0.4), asset=A, partition_key="a"),
    ]
    sim = simulate([consumer], script, ticks=ExplicitCadence([at(1), at(2)]))
    sim.advance_to(at(2))
    runs = {r.partition_key: r for r in sim.dags["c"].runs}
    assert (runs["a"].nth, runs["b"].nth) == (0, 1)
    assert runs["b"].state == "running" and runs["a"].state == "queued"


class TestRnd4PausedSweepLeavesTheFlag:
    """RND-4: a run the paused-DAG sweep ends does not refresh max_active_runs' flag."""

    def setup_sim(self, *, parse_at: datetime | None) -> Simulation:
        dag = DagSpec(
            "h",
            CronTriggerTimetable("0 * * * *", timezone="UTC"),
            start_date=at(-30),
            max_active_runs=1,
            tasks=HELD,
        )
        script: list[act.Action] = [
            act.Deploy(at=T0),
            act.Pause(at=at(10), dag_id="h"),
            act.TaskFinish(at=at(20), run=act.RunSelector("h", nth=0), task_id="work"),
            act.Unpause(at=at(30), dag_id="h"),
        ]
        if parse_at is not None:
            script.append(act.Deploy(at=parse_at, dag_ids=("h",)))
        # the clock starts at T0 = a cron tick: run 0 is created (and sets the flag) then
        return simulate([dag], script)

    def test_flag_stays_set_after_unpause(self) -> None:
        sim = self.setup_sim(parse_at=None)
        sim.advance_to(at(130))
        assert states(sim, "h", 0)[-1] == ("success", at(20))
        assert sim.dags["h"].exceeds_max_active_runs
        assert len(sim.dags["h"].runs) == 1  # 01:00 and 02:00 were due: nothing created

    def test_next_parse_refreshes_it(self) -> None:
        sim = self.setup_sim(parse_at=at(70))
        sim.advance_to(at(69))
        assert len(sim.dags["h"].runs) == 1
        sim.advance_to(at(80))  # the parse clears the flag; the 01:00 run follows at once
        assert [(r.run_after, r.created_at) for r in sim.dags["h"].runs] == [
            (at(0), at(0)),
            (at(60), at(70)),
        ]


def test_rnd5_one_event_per_asset_with_each_alias_named_once() -> None:
    """RND-5: the same asset added twice through one alias (same extra) is one event."""
    out = AssetKey("out", "s3://bucket/out")
    emission = AliasEmission("exports", out, (("batch", 1),))
    producer = manual_dag(
        tasks=(TaskSpec("work", outlets=(AliasNode("exports"),), alias_events=(emission,) * 2),)
    )
    sim = simulate([producer], [act.Trigger(at=at(0), dag_id="d")])
    sim.advance_to(at(2))
    (event,) = sim.state.assets.events
    assert event.via_aliases == ("exports",) and event.extra == {"batch": 1}


def test_rnd6_at_most_twenty_running_runs_are_examined_per_loop() -> None:
    """RND-6: 21 finished running runs: 20 end in the next loop, the last one after."""
    dag = manual_dag(max_active_runs=30)
    script: list[act.Action] = [
        act.Trigger(at=at(0) + timedelta(seconds=s), dag_id="d") for s in range(21)
    ]
    script += [act.RunOutcome(at=at(5.5), run=act.RunSelector("d", nth=n)) for n in range(21)]
    sim = simulate([dag], script)
    sim.advance_to(at(8))
    ends = sorted(run.end_date for run in sim.dags["d"].runs if run.end_date is not None)
    assert ends == [at(6)] * 20 + [at(7)]


def test_rnd6_skipped_loops_move_the_rotation_on() -> None:
    """The rotation moves at every loop, also the ones the simulator skips: the run
    left out changes with the number of idle loops in between."""

    def last_to_end(idle_minutes: int) -> int:
        dag = manual_dag(max_active_runs=30)
        script: list[act.Action] = [
            act.Trigger(at=at(0) + timedelta(seconds=s), dag_id="d") for s in range(21)
        ]
        finish = 1.5 + idle_minutes
        script += [
            act.RunOutcome(at=at(finish), run=act.RunSelector("d", nth=n)) for n in range(21)
        ]
        sim = simulate([dag], script)
        sim.advance_to(at(finish + 3))
        latest = max(r.end_date for r in sim.dags["d"].runs if r.end_date is not None)
        return next(r.nth for r in sim.dags["d"].runs if r.end_date == latest)

    assert last_to_end(1) != last_to_end(2)


class TestRnd7ParseOfAnUnschedulableDag:
    """RND-7: a parse clears the flag of a DAG that cannot be scheduled."""

    def flag_after_parse(self, timetable: object) -> tuple[bool, bool]:
        dag = manual_dag(timetable=timetable, max_active_runs=1)
        script: list[act.Action] = [
            act.Deploy(at=T0),
            act.Trigger(at=at(0), dag_id="d"),
            act.Trigger(at=at(0.5), dag_id="d"),
            act.TaskFinish(at=at(1.5), run=act.RunSelector("d", nth=0), task_id="work"),
            act.Deploy(at=at(3.5), dag_ids=("d",)),
        ]
        sim = simulate([dag], script)
        sim.advance_to(at(3))
        before = sim.dags["d"].exceeds_max_active_runs
        sim.advance_to(at(4))
        return before, sim.dags["d"].exceeds_max_active_runs

    def test_schedule_none(self) -> None:
        assert self.flag_after_parse(NullTimetable()) == (True, False)

    def test_asset_triggered_dag_keeps_its_flag(self) -> None:
        assert self.flag_after_parse(AssetTriggeredTimetable(AssetNode(A))) == (True, True)


class TestOrphanageActivation:
    """An asset only alias emissions created resolves for ``Asset.ref`` from the next
    60-s housekeeping instant on (grid from the clock's start)."""

    def setup_sim(self) -> Simulation:
        new = AssetKey("fresh", "s3://bucket/fresh")
        producer = manual_dag(
            dag_id="p",
            tasks=(
                TaskSpec(
                    "work",
                    outlets=(AliasNode("exports"),),
                    alias_events=(AliasEmission("exports", new),),
                ),
            ),
        )
        consumer = DagSpec(
            "c", AssetTriggeredTimetable(RefNode(name="fresh")), start_date=T0, tasks=HELD
        )
        script: list[act.Action] = [
            act.Trigger(at=at(0) + timedelta(seconds=s), dag_id="p") for s in (10, 20, 62)
        ]
        # the producer's runs start and emit at the loops :15, :25 and 1:05 (after 1:00)
        ticks = ExplicitCadence(
            [at(0) + timedelta(seconds=s) for s in (15, 25, 30, 45, 50, 65, 70, 75)]
        )
        return simulate([producer, consumer], script, ticks=ticks)

    def test_ref_resolves_only_from_the_next_housekeeping_instant(self) -> None:
        sim = self.setup_sim()
        sim.advance_to(at(0) + timedelta(seconds=59))
        assert len(sim.state.assets.events) == 2 and len(sim.dags["c"].runs) == 0
        assert sim.state.assets.resolve_ref(RefNode(name="fresh")) is None
        sim.advance_to(at(1))
        assert sim.state.assets.resolve_ref(RefNode(name="fresh")) is not None
        sim.advance_to(at(2))
        (run,) = sim.dags["c"].runs  # only the emission after 1:00 queued the consumer
        assert run.run_after == at(0) + timedelta(seconds=65)

    def test_a_declared_asset_is_active_at_once(self) -> None:
        sim = Simulation(
            [
                manual_dag(
                    dag_id="p",
                    tasks=(
                        TaskSpec(
                            "work",
                            outlets=(AliasNode("exports"), A),
                            alias_events=(AliasEmission("exports", A),),
                        ),
                    ),
                ),
                DagSpec(
                    "c",
                    AssetTriggeredTimetable(AllOf((RefNode(name="a"),))),
                    start_date=T0,
                    tasks=HELD,
                ),
            ],
            start=T0,
            script=[act.Trigger(at=at(0.1), dag_id="p")],
            ticks=GridCadence(T0, timedelta(seconds=5)),
            parses=NoCadence(),
        )
        sim.advance_to(at(0.5))
        assert sim.state.assets.resolve_ref(RefNode(name="a")) == A
        assert len(sim.dags["c"].runs) == 1


class TestScriptModel:
    """A ``Tick`` action is a loop in its place; a task may start with its run."""

    def test_two_tick_actions_at_one_instant_are_two_loops(self) -> None:
        dag = manual_dag(max_active_runs=1)
        script: list[act.Action] = [
            act.Trigger(at=at(0), dag_id="d"),
            act.Trigger(at=at(0.5), dag_id="d"),
            act.Tick(at=at(1)),
            act.TaskFinish(at=at(2), run=act.RunSelector("d", nth=0), task_id="work"),
            act.Tick(at=at(3)),
            act.Tick(at=at(3)),
        ]
        sim = simulate([dag], script, ticks=NoCadence())
        sim.advance_to(at(4))
        assert states(sim, "d", 0)[-1] == ("success", at(3))
        assert states(sim, "d", 1)[-1] == ("running", at(3))  # the second loop's slot

    def test_tick_before_an_event_of_the_same_instant_does_not_see_it(self) -> None:
        consumer = DagSpec("c", AssetTriggeredTimetable(AssetNode(A)), start_date=T0, tasks=HELD)
        script: list[act.Action] = [
            act.Tick(at=at(1)),
            act.ExternalEvent(at=at(1), asset=A),
            act.Tick(at=at(2)),
        ]
        sim = simulate([consumer], script, ticks=NoCadence())
        sim.advance_to(at(3))
        assert [r.created_at for r in sim.dags["c"].runs] == [at(2)]

    def test_task_that_starts_with_its_run_counts_from_the_run_start(self) -> None:
        """A future logical date holds an ordinary task (SCH-10), not this one."""
        tasks = (TaskSpec("work", timedelta(minutes=30), starts_with_run=True),)
        dag = manual_dag(tasks=tasks)
        sim = simulate([dag], [act.Trigger(at=at(0.5), dag_id="d", logical_date=at(10))])
        sim.advance_to(at(40))
        assert states(sim, "d", 0) == [
            ("queued", at(0.5)),
            ("running", at(1)),
            ("success", at(31)),
        ]


def test_rnd1_explain_names_the_runs_without_task_instances() -> None:
    """explain says why the run did nothing (RND-1), on the DAG's explanation."""
    from explorer.engine.explain import explain

    early = datetime(2024, 12, 1, tzinfo=UTC)
    script: list[act.Action] = [
        act.Trigger(at=at(0.5), dag_id="d", logical_date=early),
        act.Trigger(at=at(1.5), dag_id="d", logical_date=at(-60)),
    ]
    sim = simulate([manual_dag()], script)
    sim.advance_to(at(3))
    (check,) = [c for c in explain(sim, "d").conditions if c.rule == "RND-1"]
    assert "no task instances: logical date before start_date (RND-1)" in check.detail
    assert sim.dags["d"].runs[0].run_id in check.detail
