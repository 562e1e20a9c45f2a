"""The simulated scheduler loop, one behaviour per test (SCH-1 .. SCH-10).

Each test states its scenario in its docstring; parametrized cases carry ids that
read like the scenario. Clocks are UTC, loops run every second (Airflow's default
``loop_interval``) and DAG files are re-parsed every 30 s unless a test says
otherwise.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.runs import DagRun
from explorer.engine.simulation import SchedulerConfig, Simulation, SimulationLimitError
from explorer.engine.ticks import NoCadence
from explorer.engine.timetables import (
    CronDataIntervalTimetable,
    CronTriggerTimetable,
    NullTimetable,
)

SECOND = timedelta(seconds=1)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def hourly(**kwargs: object) -> DagSpec:
    """An hourly cron (CronTriggerTimetable, TT-5) starting 2024-03-10; kwargs override."""
    fields: dict[str, object] = {
        "dag_id": "d",
        "timetable": CronTriggerTimetable("0 * * * *", timezone="UTC"),
        "start_date": utc(2024, 3, 10),
    }
    fields.update(kwargs)
    return DagSpec(**fields)  # type: ignore[arg-type]


def record(sim: Simulation) -> list[tuple[object, ...]]:
    """Everything a run's record holds that the scheduler decides."""
    return [
        (
            r.dag_id,
            r.nth,
            r.run_id,
            r.run_type,
            r.logical_date,
            r.run_after,
            r.created_at,
            tuple(r.states),
        )
        for r in sim.runs
    ]


def scheduled(sim: Simulation, dag_id: str = "d") -> list[DagRun]:
    return [r for r in sim.runs if r.dag_id == dag_id and r.run_type == "scheduled"]


# --------------------------------------------------------------------------- SCH-2
class TestCreationPerLoop:
    def test_catchup_backlog_drains_one_run_per_loop(self) -> None:
        """id catchup-backlog-one-per-loop: hourly, catchup=True from 00:00, deployed 05:00:00.
        Six runs are due (00:00 .. 05:00); each loop creates one (SCH-2), oldest first."""
        start = utc(2024, 3, 10, 5)
        sim = Simulation([hourly(catchup=True)], start=start)
        sim.advance_to(start + 10 * SECOND)
        assert [(r.logical_date, r.created_at) for r in scheduled(sim)] == [
            (utc(2024, 3, 10, h), start + h * SECOND) for h in range(6)
        ]

    def test_ten_dags_per_loop_the_eleventh_waits_one_loop(self) -> None:
        """id twenty-five-due-dags-ten-per-loop: 25 daily DAGs, catchup=False, all due at deploy;
        ``max_dagruns_to_create_per_loop=10`` → 10, 10 and 5 runs in three loops, DAG #11
        (index 10) in the second loop."""
        start = utc(2024, 3, 10, 12)
        dags = [
            DagSpec(
                f"d{i:02}",
                CronTriggerTimetable("0 0 * * *", timezone="UTC"),
                start_date=utc(2024, 3, 1),
            )
            for i in range(25)
        ]
        sim = Simulation(dags, start=start)
        sim.advance_to(start + 5 * SECOND)
        created = [r.created_at for r in sim.runs]
        assert [created.count(start + k * SECOND) for k in range(3)] == [10, 10, 5]
        assert scheduled(sim, "d10")[0].created_at == start + SECOND
        assert scheduled(sim, "d09")[0].created_at == start


# --------------------------------------------------------------------------- SCH-1, SCH-5
class TestMaxActiveRuns:
    def test_next_run_is_created_one_loop_after_a_slot_frees(self) -> None:
        """id max-active-runs-1-backlog: hourly, catchup=True, max_active_runs=1, 10-min tasks,
        deployed 05:00. The 00:00 run blocks the backlog (flag set, SCH-5); its task ends
        05:10:00, the 05:10:00 loop marks it success (SCH-1) and the 05:10:01 loop creates and
        starts the 01:00 run."""
        start = utc(2024, 3, 10, 5)
        dag = hourly(catchup=True, max_active_runs=1, tasks=(TaskSpec("t", timedelta(minutes=10)),))
        sim = Simulation([dag], start=start)
        sim.advance_to(start + timedelta(minutes=15))
        first, second = scheduled(sim)
        assert first.states == [
            ("queued", start),
            ("running", start),
            ("success", start + timedelta(minutes=10)),
        ]
        slot_used = start + timedelta(minutes=10) + SECOND
        assert second.logical_date == utc(2024, 3, 10, 1)
        assert second.states == [("queued", slot_used), ("running", slot_used)]
        assert sim.dags["d"].exceeds_max_active_runs

    @pytest.mark.parametrize(
        ("parse_interval", "second_logical_date"),
        [
            pytest.param(None, utc(2024, 3, 10, 11), id="no-reparse-stale-next-hour"),
            pytest.param(
                timedelta(seconds=30), utc(2024, 3, 10, 15), id="reparse-every-30s-latest-hour"
            ),
        ],
    )
    def test_long_run_and_the_stale_next_interval(
        self, parse_interval: timedelta | None, second_logical_date: datetime
    ) -> None:
        """SCH-4: hourly, catchup=False, max_active_runs=1, the 10:00 run lasts 5 h. The next-run
        cache is computed when a run is created (11:00), not when it finishes: without a
        re-parse the stale 11:00 run comes next; with a parse every 30 s the cache already
        points to the latest hour (15:00)."""
        start = utc(2024, 3, 10, 10)
        dag = hourly(max_active_runs=1, tasks=(TaskSpec("t", timedelta(hours=5)),))
        sim = Simulation([dag], start=start, config=SchedulerConfig(parse_interval=parse_interval))
        sim.advance_to(start + timedelta(hours=5, seconds=5))
        first, second = scheduled(sim)
        assert first.end_date == utc(2024, 3, 10, 15)
        assert second.logical_date == second_logical_date
        assert second.created_at == utc(2024, 3, 10, 15) + SECOND


# --------------------------------------------------------------------------- SCH-6
class TestPause:
    @pytest.mark.parametrize(
        ("catchup", "hours"),
        [
            pytest.param(True, [1, 2, 3, 4, 5], id="catchup-drains-one-per-loop"),
            pytest.param(False, [5], id="no-catchup-no-backlog"),
        ],
    )
    def test_unpause(self, catchup: bool, hours: list[int]) -> None:
        """Hourly from 00:00, paused 00:30, unpaused 05:00 (parses kept running while paused).
        catchup=True: the hours missed while paused, 01:00 .. 05:00, one per loop from 05:00.
        catchup=False: parsing kept the cache on the latest hour, so only 05:00 runs."""
        start = utc(2024, 3, 10)
        unpause = utc(2024, 3, 10, 5)
        sim = Simulation(
            [hourly(catchup=catchup)],
            start=start,
            script=[
                act.Pause(at=start + timedelta(minutes=30), dag_id="d"),
                act.Unpause(at=unpause, dag_id="d"),
            ],
        )
        sim.advance_to(unpause + 10 * SECOND)
        after = [r for r in scheduled(sim) if r.created_at >= unpause]
        assert [(r.logical_date, r.created_at) for r in after] == [
            (utc(2024, 3, 10, h), unpause + k * SECOND) for k, h in enumerate(hours)
        ]


# --------------------------------------------------------------------------- SCH-9, SCH-10
class TestManualRuns:
    @pytest.mark.parametrize(
        ("catchup", "parse_interval", "expected"),
        [
            pytest.param(
                True,
                timedelta(seconds=30),
                [(utc(2024, 4, 9), utc(2024, 4, 10))],
                id="data-interval-catchup-stalls-forever-even-with-parses",
            ),
            pytest.param(
                False,
                None,
                [
                    (utc(2024, 4, 9), utc(2024, 4, 10)),
                    (utc(2024, 4, 11), utc(2024, 4, 12) + SECOND),
                    (utc(2024, 4, 12), utc(2024, 4, 13)),
                    (utc(2024, 4, 13), utc(2024, 4, 14)),
                ],
                id="data-interval-no-catchup-resumes-loop-after-collision",
            ),
            pytest.param(
                False,
                timedelta(seconds=30),
                [
                    (utc(2024, 4, 9), utc(2024, 4, 10)),
                    (utc(2024, 4, 11), utc(2024, 4, 12)),
                    (utc(2024, 4, 12), utc(2024, 4, 13)),
                    (utc(2024, 4, 13), utc(2024, 4, 14)),
                ],
                id="data-interval-no-catchup-resumes-parse-moves-cache-first",
            ),
        ],
    )
    def test_manual_run_on_next_logical_date_of_cron_data_interval(
        self,
        catchup: bool,
        parse_interval: timedelta | None,
        expected: list[tuple[datetime, datetime]],
    ) -> None:
        """SCH-9: CronDataInterval ``0 0 * * *``, deployed 04-10T00:00 ([04-09, 04-10) runs), cache
        [04-10, 04-11). A manual run at 08:00 takes logical date 04-10 (interval [04-09, 04-10]
        by manual inference), so recomputing from it gives 04-10 again. catchup=True: no
        scheduled run ever again; a parse does not help (its reference, the 04-09 run, leads
        to the same date). catchup=False: once [04-11, 04-12) is due (04-12T00:00) the loop
        that finds the collision moves the cache there and the next loop creates it; with a
        parse at 04-12T00:00:00 (applied before that loop) the cache moves first and the run
        is created by that loop."""
        dag = DagSpec(
            "d",
            CronDataIntervalTimetable("0 0 * * *"),
            catchup=catchup,
            start_date=utc(2024, 4, 9) if catchup else utc(2024, 4, 1),
        )
        start = utc(2024, 4, 10)
        sim = Simulation(
            [dag],
            start=start,
            config=SchedulerConfig(parse_interval=parse_interval),
            script=[act.Trigger(at=utc(2024, 4, 10, 8), dag_id="d", logical_date=utc(2024, 4, 10))],
        )
        sim.advance_to(utc(2024, 4, 14, 12))
        assert [(r.logical_date, r.created_at) for r in scheduled(sim)] == expected

    def test_manual_run_with_future_logical_date_runs_but_its_tasks_wait(self) -> None:
        """SCH-10: schedule None, manual run triggered 04-10T08:00 with logical date 04-11T00:00:
        promoted at 08:00 (promotion reads run_after = trigger time), its task starts only at
        04-11T00:00 and the run succeeds at 00:10."""
        dag = DagSpec("d", NullTimetable(), tasks=(TaskSpec("t", timedelta(minutes=10)),))
        trigger = utc(2024, 4, 10, 8)
        sim = Simulation(
            [dag],
            start=trigger,
            script=[act.Trigger(at=trigger, dag_id="d", logical_date=utc(2024, 4, 11))],
        )
        sim.advance_to(utc(2024, 4, 10, 23))
        (run,) = sim.runs
        assert run.states == [("queued", trigger), ("running", trigger)]
        assert run.tasks[0].state == "none"
        sim.advance_to(utc(2024, 4, 11, 1))
        assert run.tasks[0].start_date == utc(2024, 4, 11)
        assert run.states[-1] == ("success", utc(2024, 4, 11, 0, 10))


# --------------------------------------------------------------------------- the driver
class TestDriving:
    @staticmethod
    def busy() -> Simulation:
        """Two DAGs with a backlog, overlapping tasks and a manual trigger."""
        dags = [
            hourly(catchup=True, max_active_runs=2, tasks=(TaskSpec("t", timedelta(minutes=70)),)),
            DagSpec(
                "e",
                CronDataIntervalTimetable("*/20 * * * *", "Europe/London"),
                start_date=utc(2024, 3, 10, 1),
                catchup=True,
                tasks=(TaskSpec("a", timedelta(minutes=7)), TaskSpec("b", timedelta(0))),
            ),
        ]
        return Simulation(
            dags,
            start=utc(2024, 3, 10, 3),
            script=[
                act.Trigger(at=utc(2024, 3, 10, 4, 17), dag_id="e"),
                act.Pause(at=utc(2024, 3, 10, 5), dag_id="e"),
                act.Unpause(at=utc(2024, 3, 10, 6, 30), dag_id="e"),
            ],
        )

    def test_checkpoint_restore_gives_the_same_future(self) -> None:
        """Advance to 04:00, checkpoint, advance to 09:00; restore and advance again: the same
        record, equal to one straight run to 09:00."""
        sim = self.busy()
        sim.advance_to(utc(2024, 3, 10, 4))
        snapshot = sim.checkpoint()
        sim.advance_to(utc(2024, 3, 10, 9))
        first = record(sim)
        sim.restore(snapshot)
        assert sim.now == utc(2024, 3, 10, 4)
        sim.advance_to(utc(2024, 3, 10, 9))
        straight = self.busy()
        straight.advance_to(utc(2024, 3, 10, 9))
        assert record(sim) == first == record(straight)
        assert len(first) > 10

    def test_add_action_task_finish_ends_a_held_task(self) -> None:
        """A held task waits for the script: adding a TaskFinish (failed) at 10:20 while the
        clock is at 10:05 fails the 10:00 run at the 10:20 loop."""
        dag = hourly(tasks=(TaskSpec("t", hold=True),))
        start = utc(2024, 3, 10, 10)
        sim = Simulation([dag], start=start)
        sim.advance_to(start + timedelta(minutes=5))
        (run,) = sim.runs
        assert run.state == "running"
        sim.add_action(
            act.TaskFinish(
                at=start + timedelta(minutes=20),
                run=act.RunSelector("d", nth=0),
                task_id="t",
                outcome="failed",
            )
        )
        sim.advance_to(start + timedelta(minutes=30))
        assert run.states[-1] == ("failed", start + timedelta(minutes=20))

    def test_add_action_override_on_next_run_fails_it(self) -> None:
        """An Override added at 10:30 for the ``next`` run (created at or after 10:30) with
        outcome failed: the 11:00 run fails, the 10:00 and 12:00 runs succeed."""
        dag = hourly(tasks=(TaskSpec("t", timedelta(minutes=10)),))
        start = utc(2024, 3, 10, 10)
        sim = Simulation([dag], start=start)
        sim.advance_to(start + timedelta(minutes=30))
        sim.add_action(
            act.Override(
                at=start + timedelta(minutes=30),
                run=act.RunSelector("d", next=True),
                outcome="failed",
            )
        )
        sim.advance_to(start + timedelta(hours=2, minutes=30))
        assert [r.state for r in sim.runs] == ["success", "failed", "success"]
        sim.finish()
        assert sim.warnings == []

    def test_add_action_in_the_past_is_refused(self) -> None:
        sim = Simulation([hourly()], start=utc(2024, 3, 10, 10))
        sim.advance_to(utc(2024, 3, 10, 11))
        with pytest.raises(ValueError, match="clock is already"):
            sim.add_action(act.Pause(at=utc(2024, 3, 10, 10, 30), dag_id="d"))

    def test_unmatched_selectors_are_reported(self) -> None:
        """An Override whose run never appears is reported by ``finish()``; a TaskFinish for a
        run that does not exist when it takes effect is reported at once."""
        start = utc(2024, 3, 10, 10)
        sim = Simulation(
            [hourly()],
            start=start,
            script=[
                act.Override(
                    at=start,
                    run=act.RunSelector("d", logical_date=utc(2030, 1, 1)),
                    outcome="failed",
                ),
                act.TaskFinish(at=start + SECOND, run=act.RunSelector("d", nth=7), task_id="t"),
            ],
        )
        sim.advance_to(start + timedelta(hours=1))
        assert sim.warnings == ["TaskFinish at 2024-03-10T10:00:01+00:00 matched no run (d run #7)"]
        sim.finish()
        assert sim.warnings[-1] == (
            "Override at 2024-03-10T10:00:00+00:00 matched no run "
            "(d run with logical_date 2030-01-01T00:00:00+00:00)"
        )

    def test_run_limit_raises(self) -> None:
        """run_limit=3 with a 6-hour catchup backlog: creating the 4th run raises."""
        sim = Simulation([hourly(catchup=True)], start=utc(2024, 3, 10, 5), run_limit=3)
        with pytest.raises(SimulationLimitError, match="more than 3 runs"):
            sim.advance_to(utc(2024, 3, 10, 6))
        assert len(sim.runs) == 3

    def test_step_returns_each_event_instant(self) -> None:
        """``step()`` processes one instant at a time: the deploy loop (the task-less 10:00 run
        is created, started and finished), then 11:00 and 12:00. The loop after the run
        finished changes nothing (no queued run waits for the slot it freed, adr/0003), so
        it is not an instant of its own."""
        start = utc(2024, 3, 10, 10)
        sim = Simulation([hourly()], start=start)
        assert [sim.step() for _ in range(3)] == [
            start,
            utc(2024, 3, 10, 11),
            utc(2024, 3, 10, 12),
        ]
        assert len(sim.runs) == 3


# --------------------------------------------------------------------------- per-loop caps
def test_promotion_cap_leaves_the_rest_for_next_loop() -> None:
    """A backfill of 25 days (max_active_runs 25, held tasks) requested at 10:00, next to the
    DAG's own 03-10 run created by the 10:00 loop: that loop examines 20 queued runs
    (``max_dagruns_per_loop_to_schedule``, the query's LIMIT; the scheduled run first) and
    starts them; the 10:00:01 loop starts the other 6."""
    start = utc(2024, 3, 10, 10)
    dag = DagSpec(
        "d",
        CronTriggerTimetable("0 0 * * *", timezone="UTC"),
        start_date=utc(2024, 1, 1),
        tasks=(TaskSpec("t", hold=True),),
    )
    sim = Simulation(
        [dag],
        start=start,
        parses=NoCadence(),
        script=[
            act.Backfill(
                at=start,
                dag_id="d",
                from_date=utc(2024, 2, 1),
                to_date=utc(2024, 2, 25),
                max_active_runs=25,
            )
        ],
    )
    sim.advance_to(start + 5 * SECOND)
    starts = [r.start_date for r in sim.runs]
    assert len(starts) == 26
    assert starts.count(start) == 20
    assert starts.count(start + SECOND) == 6


def test_rewinding_restores_a_checkpoint_and_replays_to_the_same_record() -> None:
    """Stepping back restores the nearest earlier checkpoint instead of starting over, and
    the replayed future equals the first one (no wall clock, no randomness)."""
    start = utc(2024, 3, 1)
    dag = DagSpec(
        "h",
        CronTriggerTimetable("0 * * * *", timezone="UTC"),
        start_date=start,
        catchup=True,
        tasks=(TaskSpec("t", timedelta(minutes=10)),),
    )
    sim = Simulation([dag], start=start + timedelta(days=2), checkpoint_every=50)
    end = start + timedelta(days=4)
    sim.advance_to(end)
    first = [(r.run_id, r.created_at, r.states) for r in sim.runs]
    assert sim._checkpoints, "automatic checkpoints were taken"
    sim.rewind_to(start + timedelta(days=3))
    assert sim.now == start + timedelta(days=3)
    assert all(r.created_at <= sim.now for r in sim.runs)
    sim.advance_to(end)
    assert [(r.run_id, r.created_at, r.states) for r in sim.runs] == first
