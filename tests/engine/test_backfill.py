"""Scheduler-managed backfills (``airflow/models/backfill.py``), driven through ``Simulation``.

Every test states its scenario in its docstring. The clock is UTC unless a zone
is named; "now" is the instant of the backfill request. Rules: SCH-1 (a slot
freed in one loop is used by the next), SCH-5 (max_active_runs and its flag),
SCH-6 (paused DAGs start nothing), SCH-9 (occupied logical date), TT-3 (backfill
runs are references at parse), TT-16 (partitioned backfills), TT-21 (run ids).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine import actions as act
from explorer.engine.backfill import dry_run
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.runs import DagRun
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.ticks import NoCadence
from explorer.engine.timetables import (
    CronDataIntervalTimetable,
    CronPartitionTimetable,
    CronTriggerTimetable,
    NullTimetable,
    Timetable,
)

NOW = datetime(2024, 3, 10, 12, 0, tzinfo=UTC)
MARCH_1 = datetime(2024, 3, 1, tzinfo=UTC)
TEN_MIN = (TaskSpec("t", timedelta(minutes=10)),)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def daily_dag(
    timetable: Timetable | None = None,
    *,
    dag_id: str = "d",
    catchup: bool = False,
    start: datetime = MARCH_1,
    tasks: tuple[TaskSpec, ...] = TEN_MIN,
    max_active_runs: int = 16,
    paused: bool = False,
) -> DagSpec:
    return DagSpec(
        dag_id,
        timetable or CronTriggerTimetable("0 0 * * *", timezone="UTC"),
        start_date=start,
        catchup=catchup,
        max_active_runs=max_active_runs,
        tasks=tasks,
        is_paused_upon_creation=paused,
    )


def backfill(
    from_date: datetime,
    to_date: datetime,
    *,
    at: datetime = NOW,
    dag_id: str = "d",
    **kwargs: object,
) -> act.Backfill:
    return act.Backfill(at=at, dag_id=dag_id, from_date=from_date, to_date=to_date, **kwargs)  # type: ignore[arg-type]


def backfill_runs(sim: Simulation, backfill_id: int = 0) -> list[DagRun]:
    return [r for r in sim.runs if r.backfill_id == backfill_id]


def running_at(runs: list[DagRun], t: datetime) -> int:
    """How many of ``runs`` were running at instant ``t`` (state changes at t included)."""
    count = 0
    for run in runs:
        state = None
        for s, at in run.states:
            if at <= t:
                state = s
        count += state == "running"
    return count


# --------------------------------------------------------------------------- the range
class TestRange:
    def test_daily_cron_trigger_covers_every_tick_in_the_range_inclusive(self) -> None:
        """Daily CronTriggerTimetable, backfill 03-01 .. 03-05 at 03-10T12:00: five runs at the
        ticks 03-01 .. 03-05 (both bounds inclusive: the restriction bounds the tick), each a
        zero-length interval with logical_date = run_after, run_id ``backfill__<run_after>``
        (TT-21), all created queued at the request instant."""
        sim = Simulation(
            [daily_dag()],
            start=NOW - timedelta(hours=1),
            script=[backfill(utc(2024, 3, 1), utc(2024, 3, 5))],
        )
        sim.advance_to(NOW)
        runs = backfill_runs(sim)
        days = [utc(2024, 3, d) for d in range(1, 6)]
        assert [r.logical_date for r in runs] == days
        assert [r.run_after for r in runs] == days
        assert all(
            r.data_interval is not None and r.data_interval.start == r.data_interval.end
            for r in runs
        )
        assert [r.run_id for r in runs] == [f"backfill__{d.isoformat()}" for d in days]
        assert {(r.run_type, r.triggered_by) for r in runs} == {("backfill", "backfill")}
        assert [r.backfill_sort_ordinal for r in runs] == [1, 2, 3, 4, 5]
        assert all(r.states[0] == ("queued", NOW) and r.created_at == NOW for r in runs)
        entry = sim.state.backfills[0]
        assert entry["dag_id"] == "d" and entry["created_at"] == NOW
        assert [row["run_nth"] for row in entry["dag_runs"]] == [r.nth for r in runs]
        assert sim.warnings == []

    def test_off_tick_from_date_starts_at_the_next_tick(self) -> None:
        """from_date 03-01T06:00 is aligned up: the first backfill run is 03-02."""
        sim = Simulation(
            [daily_dag()], start=NOW, script=[backfill(utc(2024, 3, 1, 6), utc(2024, 3, 3))]
        )
        sim.advance_to(NOW)
        assert [r.logical_date for r in backfill_runs(sim)] == [utc(2024, 3, 2), utc(2024, 3, 3)]

    def test_cron_data_interval_bounds_the_interval_start(self) -> None:
        """CronDataIntervalTimetable ``0 0 * * *``, backfill 03-01 .. 03-05: logical dates
        03-01 .. 03-05 (the restriction bounds the interval *start*, TT-4), intervals of one
        day, run_after = interval end, so the last run covers [03-05, 03-06)."""
        dag = daily_dag(CronDataIntervalTimetable("0 0 * * *"))
        sim = Simulation([dag], start=NOW, script=[backfill(utc(2024, 3, 1), utc(2024, 3, 5))])
        sim.advance_to(NOW)
        runs = backfill_runs(sim)
        assert [r.logical_date for r in runs] == [utc(2024, 3, d) for d in range(1, 6)]
        assert [r.run_after for r in runs] == [utc(2024, 3, d) for d in range(2, 7)]
        assert [r.run_id for r in runs][-1] == "backfill__2024-03-06T00:00:00+00:00"

    def test_only_intervals_ended_strictly_before_the_request_are_backfilled(self) -> None:
        """``_get_info_list`` keeps infos whose data interval ended before now (strictly):
        requested at exactly 03-10T00:00, the interval [03-09, 03-10) ends at now and is left
        out, so is everything after; [03-08, 03-09) is the last one."""
        at = utc(2024, 3, 10)
        dag = daily_dag(CronDataIntervalTimetable("0 0 * * *"))
        sim = Simulation(
            [dag], start=at, script=[backfill(utc(2024, 3, 7), utc(2024, 3, 20), at=at)]
        )
        sim.advance_to(at)
        assert [r.logical_date for r in backfill_runs(sim)] == [utc(2024, 3, 7), utc(2024, 3, 8)]

    def test_dag_start_date_does_not_limit_a_backfill(self) -> None:
        """``iter_dagrun_infos_between`` builds its own restriction from the request: a DAG that
        starts 03-08 can still be backfilled for 03-01 .. 03-02."""
        dag = daily_dag(start=utc(2024, 3, 8))
        sim = Simulation([dag], start=NOW, script=[backfill(utc(2024, 3, 1), utc(2024, 3, 2))])
        sim.advance_to(NOW)
        assert [r.logical_date for r in backfill_runs(sim)] == [utc(2024, 3, 1), utc(2024, 3, 2)]

    def test_cron_trigger_interval_bounds_the_tick_not_the_logical_date(self) -> None:
        """CronTriggerTimetable(``0 2 * * *``, interval 6 h), backfill 03-01T00:00 .. 03-02T02:00:
        ticks 03-01T02:00 and 03-02T02:00, logical dates 6 h earlier (TT-5): the first run's
        logical date 02-29T20:00 lies before from_date and is still backfilled."""
        table = CronTriggerTimetable("0 2 * * *", timezone="UTC", interval=timedelta(hours=6))
        sim = Simulation(
            [daily_dag(table)], start=NOW, script=[backfill(utc(2024, 3, 1), utc(2024, 3, 2, 2))]
        )
        sim.advance_to(NOW)
        runs = backfill_runs(sim)
        assert [r.run_after for r in runs] == [utc(2024, 3, 1, 2), utc(2024, 3, 2, 2)]
        assert [r.logical_date for r in runs] == [utc(2024, 2, 29, 20), utc(2024, 3, 1, 20)]

    def test_new_york_spring_forward_day_is_a_23_hour_interval(self) -> None:
        """CronDataIntervalTimetable ``0 0 * * *`` America/New_York over 2024-03-09 .. 03-11
        (local midnights): the 03-10 interval is 23 h (DST-4)."""
        dag = daily_dag(CronDataIntervalTimetable("0 0 * * *", "America/New_York"))
        sim = Simulation(
            [dag],
            start=utc(2024, 3, 20),
            script=[backfill(utc(2024, 3, 9, 5), utc(2024, 3, 11, 4), at=utc(2024, 3, 20))],
        )
        sim.advance_to(utc(2024, 3, 20))
        intervals = [r.data_interval for r in backfill_runs(sim)]
        assert [(i.end - i.start) for i in intervals if i is not None] == [
            timedelta(hours=24),
            timedelta(hours=23),
            timedelta(hours=24),
        ]


# --------------------------------------------------------------------------- order and limits
class TestOrderAndConcurrency:
    def test_run_backwards_creates_and_starts_newest_first(self) -> None:
        """run_backwards=True, max_active_runs=1, 03-01 .. 03-03: the list is reversed, so
        03-03 gets ordinal 1 (created first) and runs first; each next run starts one loop
        after the previous finished (SCH-1)."""
        sim = Simulation(
            [daily_dag()],
            start=NOW,
            script=[
                backfill(utc(2024, 3, 1), utc(2024, 3, 3), run_backwards=True, max_active_runs=1)
            ],
        )
        sim.advance_to(NOW + timedelta(hours=1))
        runs = backfill_runs(sim)
        assert [r.logical_date for r in runs] == [utc(2024, 3, 3), utc(2024, 3, 2), utc(2024, 3, 1)]
        assert [r.backfill_sort_ordinal for r in runs] == [1, 2, 3]
        starts = [r.start_date for r in runs]
        assert starts == [
            NOW,
            NOW + timedelta(minutes=10, seconds=1),
            NOW + timedelta(minutes=20, seconds=2),
        ]

    def test_backfill_limit_caps_its_runs_while_the_schedule_continues(self) -> None:
        """Hourly DAG with max_active_runs=1 (20-min tasks) and a backfill of 6 hours with
        max_active_runs=2 requested at 12:00: never more than 2 backfill runs running; the
        scheduled 12:00 .. 15:00 runs are created and started on time, because backfill runs
        neither count toward the DAG's limit nor set its flag (SCH-5)."""
        dag = DagSpec(
            "d",
            CronTriggerTimetable("0 * * * *", timezone="UTC"),
            start_date=utc(2024, 3, 1),
            max_active_runs=1,
            tasks=(TaskSpec("t", timedelta(minutes=20)),),
        )
        sim = Simulation(
            [dag],
            start=NOW,
            script=[backfill(utc(2024, 3, 9), utc(2024, 3, 9, 5), max_active_runs=2)],
        )
        sim.advance_to(NOW + timedelta(hours=3, minutes=30))
        bf = backfill_runs(sim)
        scheduled = [r for r in sim.runs if r.run_type == "scheduled"]
        assert len(bf) == 6 and all(r.state == "success" for r in bf)
        instants = sorted({at for r in bf for _, at in r.states})
        assert max(running_at(bf, t) for t in instants) == 2
        assert [r.run_after for r in scheduled] == [NOW + timedelta(hours=h) for h in range(4)]
        assert [r.start_date for r in scheduled] == [r.run_after for r in scheduled]

    def test_non_backfill_queued_runs_are_promoted_first(self) -> None:
        """max_dagruns_per_loop_to_schedule=1: the scheduled run due at 12:00 and a backfill run
        created at 12:00 are both queued; ``get_queued_dag_runs_to_set_running`` orders by
        backfill sort ordinal with nulls first, so the 12:00 loop starts the scheduled run.
        (The backfill run should start one loop later; the engine waits for the next event
        instead: see ``test_simulation.py::test_promotion_cap_leaves_the_rest_for_next_loop``.)"""
        config = SchedulerConfig(max_dagruns_per_loop_to_schedule=1)
        sim = Simulation(
            [daily_dag(CronTriggerTimetable("0 12 * * *", timezone="UTC"))],
            start=NOW,
            config=config,
            script=[backfill(utc(2024, 3, 1, 12), utc(2024, 3, 1, 12))],
        )
        sim.advance_to(NOW)
        scheduled = next(r for r in sim.runs if r.run_type == "scheduled")
        (bf,) = backfill_runs(sim)
        assert (scheduled.state, bf.state) == ("running", "queued")

    def test_backfill_runs_of_a_paused_dag_stay_queued(self) -> None:
        """A paused DAG: the backfill is accepted and its runs created, but promotion joins on
        ``DagModel.is_paused == false`` (SCH-6): they start only after unpausing."""
        dag = daily_dag(paused=True)
        unpause = NOW + timedelta(hours=1)
        sim = Simulation(
            [dag],
            start=NOW,
            script=[
                backfill(utc(2024, 3, 1), utc(2024, 3, 2)),
                act.Unpause(at=unpause, dag_id="d"),
            ],
        )
        sim.advance_to(unpause - timedelta(seconds=1))
        assert [r.state for r in backfill_runs(sim)] == ["queued", "queued"]
        sim.advance_to(unpause + timedelta(seconds=1))
        assert [r.start_date for r in backfill_runs(sim)] == [unpause, unpause]

    def test_finishing_backfill_run_does_not_refresh_a_stale_flag(self) -> None:
        """Hourly DAG, max_active_runs=1, no re-parse. The 12:00 run ends 12:10 (flag cleared).
        A manual run triggered 12:20 (held) makes 1 active run, but creating it does not set
        the flag (SCH-5). A backfill run requested at 12:20 ends at 12:30 and does not refresh
        the flag either (``_schedule_dag_run`` refreshes it only for scheduled, manual and
        asset-triggered runs), so the 13:00 run is still created, then waits queued."""
        dag = DagSpec(
            "d",
            CronTriggerTimetable("0 * * * *", timezone="UTC"),
            start_date=utc(2024, 3, 1),
            max_active_runs=1,
            tasks=(TaskSpec("t", timedelta(minutes=10)),),
        )
        t = NOW + timedelta(minutes=20)
        sim = Simulation(
            [dag],
            start=NOW,
            parses=NoCadence(),
            script=[
                act.Override(at=t, run=act.RunSelector("d", next=True), hold=True),
                act.Trigger(at=t, dag_id="d"),
                backfill(utc(2024, 3, 9, 5), utc(2024, 3, 9, 5), at=t),
            ],
        )
        sim.advance_to(NOW + timedelta(minutes=45))
        (bf,) = backfill_runs(sim)
        assert bf.end_date == NOW + timedelta(minutes=30)
        assert not sim.dags["d"].exceeds_max_active_runs  # stale, as in Airflow
        sim.advance_to(NOW + timedelta(hours=1, seconds=5))
        scheduled = [r for r in sim.runs if r.run_type == "scheduled"]
        assert [(r.run_after, r.state) for r in scheduled] == [
            (NOW, "success"),
            (NOW + timedelta(hours=1), "queued"),
        ]
        assert sim.dags["d"].exceeds_max_active_runs


# --------------------------------------------------------------------------- reprocessing
def reprocess_setup(behavior: str, tasks: tuple[TaskSpec, ...] = TEN_MIN) -> Simulation:
    """Manual runs made before the backfill (daily CronTrigger, catchup off, clock 03-10):
    03-05 succeeded, 03-06 failed (the script fails its task once), 03-07 still running
    (held). Backfill 03-04 .. 03-08 at 12:00 with ``reprocess_behavior``."""
    t0 = NOW - timedelta(hours=2)
    script: list[act.Action] = [
        act.Trigger(at=t0, dag_id="d", logical_date=utc(2024, 3, 5)),
        # one trigger per instant: two at once would share the run id manual__<run_after>
        # and Airflow answers the second with 409 Conflict
        act.Trigger(at=t0 + timedelta(seconds=1), dag_id="d", logical_date=utc(2024, 3, 6)),
        act.Override(at=t0 + timedelta(seconds=2), run=act.RunSelector("d", next=True), hold=True),
        act.Trigger(at=t0 + timedelta(seconds=2), dag_id="d", logical_date=utc(2024, 3, 7)),
        backfill(utc(2024, 3, 4), utc(2024, 3, 8), reprocess_behavior=behavior),
    ]
    if tasks:
        script.insert(
            2,
            act.TaskFinish(
                at=t0 + timedelta(minutes=5),
                run=act.RunSelector("d", logical_date=utc(2024, 3, 6)),
                task_id="t",
                outcome="failed",
            ),
        )
    return Simulation([daily_dag(tasks=tasks)], start=t0 - timedelta(minutes=1), script=script)


class TestReprocess:
    @pytest.mark.parametrize(
        ("behavior", "created", "cleared", "skipped"),
        [
            pytest.param(
                "none",
                [4, 8],
                [],
                {5: "already exists", 6: "already exists", 7: "in flight"},
                id="reprocess-none-skips-every-existing-run",
            ),
            pytest.param(
                "failed",
                [4, 8],
                [6],
                {5: "already exists", 7: "in flight"},
                id="reprocess-failed-clears-only-the-failed-run",
            ),
            pytest.param(
                "completed",
                [4, 8],
                [5, 6],
                {7: "in flight"},
                id="reprocess-completed-clears-every-finished-run",
            ),
        ],
    )
    def test_existing_runs_decide(
        self, behavior: str, created: list[int], cleared: list[int], skipped: dict[int, str]
    ) -> None:
        """``_get_dag_run_no_create_reason``: a queued/running run is never touched ("in
        flight"); a finished one is re-processed only as ``reprocess_behavior`` allows."""
        sim = reprocess_setup(behavior)
        sim.advance_to(NOW)
        rows = sim.state.backfills[0]["dag_runs"]
        by_day = {row["logical_date"].day: row for row in rows}
        new = [r for r in sim.runs if r.created_at == NOW]
        assert [r.logical_date.day for r in new if r.logical_date] == created
        assert sorted(d for d, row in by_day.items() if row["cleared"]) == cleared
        assert {
            d: row["exception_reason"] for d, row in by_day.items() if row["exception_reason"]
        } == skipped
        # the scheduled 03-10 run, 3 manual runs, the new ones: clearing creates nothing
        assert len(sim.runs) == 4 + len(created)

    def test_reprocessed_run_is_cleared_and_relabelled_not_recreated(self) -> None:
        """reprocess_behavior=failed: the failed manual run of 03-06 is cleared back to queued at
        the request (same nth, run_id ``manual__...``, run_after and interval), becomes
        run_type/triggered_by ``backfill`` with the backfill's id and ordinal, and runs again
        with the DAG's declared outcome (the failure was a one-off TaskFinish)."""
        sim = reprocess_setup("failed")
        sim.advance_to(NOW)
        run = next(r for r in sim.runs if r.logical_date == utc(2024, 3, 6))
        before_id, before_after = run.run_id, run.run_after
        assert run.run_id.startswith("manual__")
        assert (run.run_type, run.triggered_by, run.backfill_id) == ("backfill", "backfill", 0)
        assert run.backfill_sort_ordinal == 3
        assert [s for s, _ in run.states] == ["queued", "running", "failed", "queued", "running"]
        assert run.states[-2] == ("queued", NOW)
        sim.advance_to(NOW + timedelta(hours=1))
        assert run.state == "success" and run.run_id == before_id
        assert run.run_after == before_after
        assert run.tasks[0].start_date == NOW and run.end_date == NOW + timedelta(minutes=10)

    def test_relabelled_manual_run_becomes_a_parse_reference(self) -> None:
        """TT-3 reads the latest scheduled/backfill run by logical date: a manual run that a
        backfill re-processes is a backfill run from then on, so it becomes that reference
        (the DAG starts 03-20 and has no scheduled run yet)."""
        t0 = NOW - timedelta(hours=1)
        sim = Simulation(
            [daily_dag(start=utc(2024, 3, 20))],
            start=t0,
            script=[
                act.Trigger(at=t0, dag_id="d", logical_date=utc(2024, 3, 5)),
                backfill(utc(2024, 3, 5), utc(2024, 3, 5), reprocess_behavior="completed"),
            ],
        )
        sim.advance_to(NOW - timedelta(seconds=1))
        assert sim.dags["d"].latest_automated is None
        sim.advance_to(NOW)
        (run,) = sim.runs
        assert run.run_type == "backfill" and sim.dags["d"].latest_automated is run

    def test_clearing_a_run_without_tasks_leaves_it_finished(self) -> None:
        """``clear_task_instances`` changes the run's state only when it has task instances:
        with reprocess_behavior=completed a finished run of a task-less DAG is relabelled as a
        backfill run but stays in its finished state."""
        sim = reprocess_setup("completed", tasks=())
        sim.advance_to(NOW)
        run = next(r for r in sim.runs if r.logical_date == utc(2024, 3, 5))
        assert run.run_type == "backfill" and run.state == "success"
        assert [s for s, _ in run.states] == ["queued", "running", "success"]

    def test_override_applies_to_every_attempt_of_its_run(self) -> None:
        """An Override names a run, not an attempt: the run of 03-02 declared to fail fails
        again when a backfill with reprocess_behavior=failed re-runs it."""
        t0 = NOW - timedelta(hours=1)
        sim = Simulation(
            [daily_dag()],
            start=t0,
            script=[
                act.Override(
                    at=t0, run=act.RunSelector("d", logical_date=utc(2024, 3, 2)), outcome="failed"
                ),
                act.Trigger(at=t0, dag_id="d", logical_date=utc(2024, 3, 2)),
                backfill(utc(2024, 3, 2), utc(2024, 3, 2), reprocess_behavior="failed"),
            ],
        )
        sim.advance_to(NOW + timedelta(hours=1))
        run = next(r for r in sim.runs if r.logical_date == utc(2024, 3, 2))
        assert [s for s, _ in run.states] == [
            "queued",
            "running",
            "failed",
            "queued",
            "running",
            "failed",
        ]


# --------------------------------------------------------------------------- meeting the schedule
class TestScheduleInteraction:
    def test_scheduled_run_reaching_a_backfilled_date_is_skipped(self) -> None:
        """Daily CronTrigger, catchup=True from 03-01, deployed paused at 03-10 with no re-parse
        (parse_interval None): the cache holds 03-01. A backfill of 03-03 .. 03-04, then unpause:
        the ticks create 03-01, 03-02, find 03-03 and 03-04 taken (SCH-9: nothing created, the
        cache moves on from the backfill run), then create 03-05."""
        dag = daily_dag(catchup=True, paused=True, tasks=())
        unpause = NOW + timedelta(minutes=1)
        sim = Simulation(
            [dag],
            start=NOW,
            config=SchedulerConfig(parse_interval=None),
            script=[
                backfill(utc(2024, 3, 3), utc(2024, 3, 4)),
                act.Unpause(at=unpause, dag_id="d"),
            ],
        )
        sim.advance_to(unpause + timedelta(seconds=6))
        scheduled = [r for r in sim.runs if r.run_type == "scheduled"]
        assert [(r.logical_date, r.created_at) for r in scheduled] == [
            (utc(2024, 3, 1), unpause),
            (utc(2024, 3, 2), unpause + timedelta(seconds=1)),
            (utc(2024, 3, 5), unpause + timedelta(seconds=4)),
            (utc(2024, 3, 6), unpause + timedelta(seconds=5)),
            (utc(2024, 3, 7), unpause + timedelta(seconds=6)),
        ]

    def test_parse_takes_the_latest_backfill_run_as_reference(self) -> None:
        """Same DAG with the default 30-s parses: the parse after the backfill reads the latest
        scheduled/backfill run by logical date (TT-3), the 03-04 backfill run, so the backlog
        before it (03-01, 03-02) is never scheduled."""
        dag = daily_dag(catchup=True, paused=True, tasks=())
        unpause = NOW + timedelta(minutes=1)
        sim = Simulation(
            [dag],
            start=NOW,
            script=[
                backfill(utc(2024, 3, 3), utc(2024, 3, 4)),
                act.Unpause(at=unpause, dag_id="d"),
            ],
        )
        sim.advance_to(unpause + timedelta(seconds=2))
        scheduled = [r for r in sim.runs if r.run_type == "scheduled"]
        assert [r.logical_date for r in scheduled] == [
            utc(2024, 3, 5),
            utc(2024, 3, 6),
            utc(2024, 3, 7),
        ]


# --------------------------------------------------------------------------- partitions
class TestPartitioned:
    def test_cron_partition_backfill_walks_ticks_and_keeps_future_ones(self) -> None:
        """CronPartitionTimetable ``0 0 * * *`` Asia/Taipei, backfill 03-09 .. 03-11 (UTC
        midnights re-read as Taipei midnights, TT-16): three runs, partition_date = run_after =
        the tick, keys in Taipei wall time, no logical date; the 03-11 tick is after the request
        (no ``now`` filter for partitions) and waits queued until its run_after."""
        table = CronPartitionTimetable("0 0 * * *", timezone="Asia/Taipei")
        sim = Simulation(
            [daily_dag(table)], start=NOW, script=[backfill(utc(2024, 3, 9), utc(2024, 3, 11))]
        )
        sim.advance_to(NOW + timedelta(seconds=1))
        runs = backfill_runs(sim)
        ticks = [utc(2024, 3, 8, 16), utc(2024, 3, 9, 16), utc(2024, 3, 10, 16)]
        assert [r.partition_date for r in runs] == ticks
        assert [r.run_after for r in runs] == ticks
        assert [r.partition_key for r in runs] == [
            "2024-03-09T00:00:00",
            "2024-03-10T00:00:00",
            "2024-03-11T00:00:00",
        ]
        assert all(r.logical_date is None and r.data_interval is None for r in runs)
        assert runs[0].run_id.startswith(
            "backfill__2024-03-08T16:00:00+00:00__2024-03-09T00:00:00__"
        )
        assert [r.state for r in runs] == ["running", "running", "queued"]

    def test_reprocessed_partition_gets_a_new_run_beside_the_old_one(self) -> None:
        """reprocess_behavior=completed on a partition whose scheduled run succeeded: Airflow
        creates a second run for the same partition date
        (``_create_backfill_dag_run_partitioned``)."""
        table = CronPartitionTimetable("0 0 * * *", timezone="UTC")
        dag = daily_dag(table)  # catchup off: the 03-10 run is created at once
        sim = Simulation(
            [dag],
            start=NOW - timedelta(hours=1),
            script=[backfill(utc(2024, 3, 10), utc(2024, 3, 10), reprocess_behavior="completed")],
        )
        sim.advance_to(NOW)
        runs = [r for r in sim.runs if r.partition_key == "2024-03-10T00:00:00"]
        assert [r.run_type for r in runs] == ["scheduled", "backfill"]
        assert runs[0].state == "success"


# --------------------------------------------------------------------------- refusals
class TestRefusals:
    @pytest.mark.parametrize(
        ("dag", "request_", "phrase"),
        [
            pytest.param(
                daily_dag(),
                backfill(utc(2024, 3, 5), utc(2024, 3, 1)),
                "must not be after to_date",
                id="from-after-to",
            ),
            pytest.param(
                daily_dag(),
                backfill(NOW, NOW + timedelta(days=3)),
                "future dates",
                id="both-bounds-in-the-future",
            ),
            pytest.param(
                daily_dag(NullTimetable()),
                backfill(utc(2024, 3, 1), utc(2024, 3, 2)),
                "non-periodic",
                id="schedule-none-is-not-periodic",
            ),
            pytest.param(
                daily_dag(CronTriggerTimetable("0 0 1 1 *", timezone="UTC")),
                backfill(utc(2024, 3, 1), utc(2024, 3, 2)),
                "No runs to create",
                id="no-tick-in-the-range",
            ),
        ],
    )
    def test_invalid_request_warns_and_creates_nothing(
        self, dag: DagSpec, request_: act.Backfill, phrase: str
    ) -> None:
        """Airflow rejects the request (``_validate_backfill_params``, ``_create_backfill``):
        the simulator warns with the reason and creates neither a backfill nor a run."""
        sim = Simulation([dag], start=NOW, script=[request_])
        sim.advance_to(NOW)
        assert sim.state.backfills == []
        assert [r for r in sim.runs if r.run_type == "backfill"] == []
        assert len(sim.warnings) == 1 and phrase in sim.warnings[0]
        assert sim.warnings[0].startswith("backfill of 'd' at 2024-03-10T12:00:00+00:00 refused")

    def test_zero_max_active_runs_is_accepted_but_never_starts(self) -> None:
        """``BackfillPostBody.max_active_runs`` is any int: 0 is accepted (with a simulator
        warning) and the promotion check ``running < 0`` never passes."""
        sim = Simulation(
            [daily_dag()],
            start=NOW,
            script=[backfill(utc(2024, 3, 1), utc(2024, 3, 1), max_active_runs=0)],
        )
        sim.advance_to(NOW + timedelta(hours=1))
        assert [r.state for r in backfill_runs(sim)] == ["queued"]
        assert "never start" in sim.warnings[0]

    def test_undeployed_dag_is_not_found(self) -> None:
        sim = Simulation(
            [daily_dag()],
            start=NOW,
            deploy_at_start=False,
            script=[backfill(utc(2024, 3, 1), utc(2024, 3, 2))],
        )
        sim.advance_to(NOW)
        assert "DagNotFound" in sim.warnings[0] and sim.state.backfills == []

    def test_one_backfill_per_dag_until_marked_complete(self) -> None:
        """A second request is refused (AlreadyRunningBackfill) while the first is not marked
        complete. Its last run ends at 12:10:00 (``runs_finished_at``); the 30-s completion
        check marks it at 12:10:00 too (loop at 12:10:00 = start + 20·30 s), so a request at
        12:10:01 is accepted, while one at 12:05 was not."""
        sim = Simulation(
            [daily_dag()],
            start=NOW,
            script=[
                backfill(utc(2024, 3, 1), utc(2024, 3, 2)),
                backfill(utc(2024, 3, 3), utc(2024, 3, 3), at=NOW + timedelta(minutes=5)),
                backfill(
                    utc(2024, 3, 3), utc(2024, 3, 3), at=NOW + timedelta(minutes=10, seconds=1)
                ),
            ],
        )
        sim.advance_to(NOW + timedelta(minutes=11))
        first = sim.state.backfills[0]
        assert first["runs_finished_at"] == NOW + timedelta(minutes=10)
        assert first["completed_at"] == NOW + timedelta(minutes=10)
        assert len(sim.state.backfills) == 2
        assert len(sim.warnings) == 1 and "AlreadyRunningBackfill" in sim.warnings[0]


# --------------------------------------------------------------------------- completion
class TestCompletion:
    def test_completed_at_is_the_next_30_second_check_after_the_last_run(self) -> None:
        """Simulation starting 11:59:45: completion checks at 12:00:15, 12:00:45, ... The
        backfill's runs (10 min) finish at 12:10:00; it is marked complete at 12:10:15, and no
        warning is written."""
        start = NOW - timedelta(seconds=15)
        sim = Simulation(
            [daily_dag()], start=start, script=[backfill(utc(2024, 3, 1), utc(2024, 3, 2))]
        )
        sim.advance_to(NOW + timedelta(minutes=5))
        assert sim.state.backfills[0]["completed_at"] is None
        sim.advance_to(NOW + timedelta(minutes=11))
        entry = sim.state.backfills[0]
        assert entry["runs_finished_at"] == NOW + timedelta(minutes=10)
        assert entry["completed_at"] == NOW + timedelta(minutes=10, seconds=15)
        assert sim.warnings == []

    def test_backfill_that_creates_nothing_completes_at_the_next_check(self) -> None:
        """Every date already has a finished run and reprocess_behavior=none: the backfill row
        exists with only skipped entries and is marked complete by the next check."""
        sim = reprocess_setup("none")
        sim.advance_to(NOW)
        # 03-04 and 03-08 are created here; request a second, all-skipped backfill later.
        sim.advance_to(NOW + timedelta(hours=1))
        later = NOW + timedelta(hours=1, seconds=10)
        sim.add_action(backfill(utc(2024, 3, 4), utc(2024, 3, 5), at=later))
        sim.advance_to(later + timedelta(minutes=1))
        entry = sim.state.backfills[1]
        assert [row["exception_reason"] for row in entry["dag_runs"]] == ["already exists"] * 2
        assert entry["runs_finished_at"] == later
        # checks at 09:59:00 + k·30 s: the first one after 13:00:10 is 13:00:30
        assert entry["completed_at"] == later + timedelta(seconds=20)


class TestDryRun:
    def test_dry_run_lists_what_would_be_created_or_reprocessed(self) -> None:
        """``_do_dry_run``: with reprocess_behavior=failed over 03-04 .. 03-08 the dry run lists
        03-04, 03-06 (failed, would be cleared) and 03-08, and changes nothing."""
        sim = reprocess_setup("failed")
        sim.advance_to(NOW - timedelta(seconds=1))
        request_ = backfill(
            utc(2024, 3, 4),
            utc(2024, 3, 8),
            reprocess_behavior="failed",
            at=NOW - timedelta(seconds=1),
        )
        runs_before = len(sim.runs)
        infos = dry_run(sim, request_)
        assert [i.logical_date for i in infos] == [
            utc(2024, 3, 4),
            utc(2024, 3, 6),
            utc(2024, 3, 8),
        ]
        assert len(sim.runs) == runs_before and sim.state.backfills == []
