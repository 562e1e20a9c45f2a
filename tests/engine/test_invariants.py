"""Property-based invariants of the timetables and of the simulated scheduler (hypothesis).

Timetables
    * Data-interval timetables tile time: each interval starts where the previous one
      ended, intervals are half-open and non-empty, logical dates strictly increase.
      Airflow itself breaks this on some DST days (conformance README 2.6), and those
      cases are left out *by construction*, not filtered:

      - crons with ticks inside a DST transition hour whose hour field is not ``*``
        (``*/15 1-3 * * *`` across New York's spring-forward leaves a gap: the previous
        tick of 03:00 EDT is the gap-shifted 02:45 → 03:45 EDT, after the interval end).
        The "fixed hours" strategy draws hours from 0 and 4..23 only, which no
        transition of the zones below touches (New York switches at 02:00 local,
        London at 01:00 local; Kolkata and UTC never);
      - zones with sub-hour DST: ``30 * * * *`` in ``Australia/Lord_Howe`` (30-min
        shift) gives overlapping intervals and an hourly CronDataInterval there raises
        "did not advance". Lord_Howe is not among the data-interval zones;
      - every-hour crons (hour field ``*``, DST-2) step by wall-clock delta from the aware
        instant; they are drawn with day-of-month and day-of-week ``*``. When skipped days
        span a DST change the step is off by the shift: ``0 * * * 1-5`` in New York steps
        from Friday 2024-11-01 23:00 EDT by the 49-hour wall-clock gap to Sunday 23:00 EST
        (11-04T04:00Z), and the computation after that interval "did not advance past
        2024-11-04T04:00Z". Airflow 3.3.2 raises there too (checked against its own
        ``CronDataIntervalTimetable``), so such a DAG stops being scheduled.
* Trigger timetables: run_after strictly increases; logical_date = run_after - interval
  (TT-5). Lord_Howe is included here: a trigger schedule never compares two intervals.

Simulation
    * no two runs of a DAG share a logical date (SCH-9, TT-19);
    * the record does not depend on how the clock was stepped (one ``advance_to`` vs many
      small ``advance_to`` / ``step()`` calls; adr/0003-event-driven-loop.md);
    * scheduled runs are created at or after their run_after (SCH-2);
    * with max_active_runs=m never more than m non-backfill runs running (SCH-5).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import (
    CronDataIntervalTimetable,
    CronTriggerTimetable,
    DeltaDataIntervalTimetable,
    DeltaTriggerTimetable,
    Timetable,
)
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction

DATA_INTERVAL_ZONES = ("UTC", "America/New_York", "Europe/London", "Asia/Kolkata")
TRIGGER_ZONES = (*DATA_INTERVAL_ZONES, "Australia/Lord_Howe")

#: Instants a few days before DST changes of the zones above (and one quiet day), so that
#: chains of a few dozen intervals cross transitions often.
ANCHORS = (
    datetime(2024, 3, 8, tzinfo=UTC),  # New York spring-forward 03-10
    datetime(2024, 3, 28, tzinfo=UTC),  # London spring-forward 03-31
    datetime(2024, 4, 5, tzinfo=UTC),  # Lord Howe fall-back 04-07
    datetime(2024, 6, 12, tzinfo=UTC),
    datetime(2024, 10, 4, tzinfo=UTC),  # Lord Howe spring-forward 10-06
    datetime(2024, 10, 25, tzinfo=UTC),  # London fall-back 10-27
    datetime(2024, 11, 1, tzinfo=UTC),  # New York fall-back 11-03
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instants(draw: st.DrawFn) -> datetime:
    anchor = draw(st.sampled_from(ANCHORS))
    return anchor + timedelta(minutes=draw(st.integers(0, 4 * 24 * 60)))


@st.composite
def every_hour_crons(draw: st.DrawFn) -> str:
    minute = draw(st.sampled_from(["0", "30", "*/15", "5,35", "*/20", "59", "*"]))
    return f"{minute} * * * *"


@st.composite
def fixed_hour_crons(draw: st.DrawFn) -> str:
    minute = draw(st.sampled_from(["0", "15", "30", "45", "0,30"]))
    hours = draw(st.lists(st.sampled_from([0, *range(4, 24)]), min_size=1, max_size=4, unique=True))
    dom = draw(st.sampled_from(["*", "*", "1,15", "L"]))
    dow = draw(st.sampled_from(["*", "*", "1-5", "0"]))
    return f"{minute} {','.join(map(str, sorted(hours)))} {dom} * {dow}"


def chain(table: Timetable, start: datetime, n: int) -> list[DagRunInfo]:
    """The first ``n`` runs from ``start`` with catchup, each the next one's reference."""
    restriction = TimeRestriction(start, None, catchup=True)
    infos: list[DagRunInfo] = []
    last: ReferenceRun | None = None
    for _ in range(n):
        info = table.next_dagrun_info(last=last, restriction=restriction, now=start)
        assert info is not None
        infos.append(info)
        last = ReferenceRun.of(info)
    return infos


def assert_tiles(infos: list[DagRunInfo]) -> None:
    for prev, info in pairwise(infos):
        assert info.data_interval is not None and prev.data_interval is not None
        assert info.data_interval.start == prev.data_interval.end, (prev, info)
    for info in infos:
        assert info.data_interval is not None
        assert info.data_interval.start < info.data_interval.end
        assert info.run_after == info.data_interval.end
    dates = [i.logical_date for i in infos]
    assert all(a is not None and b is not None and a < b for a, b in pairwise(dates))


# --------------------------------------------------------------------------- timetables
@FAST
@given(
    cron=st.one_of(every_hour_crons(), fixed_hour_crons()),
    zone=st.sampled_from(DATA_INTERVAL_ZONES),
    start=instants(),
)
def test_cron_data_intervals_tile_time(cron: str, zone: str, start: datetime) -> None:
    """TT-4, DST-2..4: the CronDataInterval chain has no gap and no overlap."""
    assert_tiles(chain(CronDataIntervalTimetable(cron, zone), start, 40))


@FAST
@given(minutes=st.integers(1, 3 * 24 * 60), start=instants())
def test_delta_data_intervals_tile_time(minutes: int, start: datetime) -> None:
    """TT-7: DeltaDataInterval with a timedelta steps in absolute time from start_date."""
    infos = chain(DeltaDataIntervalTimetable(timedelta(minutes=minutes)), start, 30)
    assert_tiles(infos)
    assert infos[0].logical_date == start


@FAST
@given(
    cron=st.one_of(
        every_hour_crons(),
        fixed_hour_crons(),
        st.sampled_from(["*/15 1-3 * * *", "30 2 * * *", "30 1 * * *", "0 */2 * * *"]),
    ),
    zone=st.sampled_from(TRIGGER_ZONES),
    start=instants(),
    interval=st.sampled_from(
        [timedelta(0), timedelta(hours=1), timedelta(hours=6), timedelta(days=1)]
    ),
)
def test_cron_trigger_runs_strictly_increase(
    cron: str, zone: str, start: datetime, interval: timedelta
) -> None:
    """TT-5: run_after strictly increases (DST crons included), logical = run_after - interval."""
    infos = chain(CronTriggerTimetable(cron, timezone=zone, interval=interval), start, 40)
    runs_after = [i.run_after for i in infos]
    assert all(a < b for a, b in pairwise(runs_after))
    for info in infos:
        assert info.data_interval is not None
        assert info.logical_date == info.run_after - interval
        assert info.data_interval.end == info.run_after


@FAST
@given(
    minutes=st.integers(1, 3 * 24 * 60),
    start=instants(),
    interval=st.sampled_from([timedelta(0), timedelta(minutes=30), timedelta(days=1)]),
)
def test_delta_trigger_runs_strictly_increase(
    minutes: int, start: datetime, interval: timedelta
) -> None:
    """TT-8: catchup=True runs at start_date, then every delta."""
    delta = timedelta(minutes=minutes)
    infos = chain(DeltaTriggerTimetable(delta, interval=interval), start, 30)
    assert [i.run_after for i in infos] == [start + k * delta for k in range(30)]
    assert all(i.logical_date == i.run_after - interval for i in infos)


# --------------------------------------------------------------------------- simulation
TIMETABLES: tuple[Callable[[], Timetable], ...] = (
    lambda: CronTriggerTimetable("0 * * * *", timezone="UTC"),
    lambda: CronTriggerTimetable("*/20 * * * *", timezone="America/New_York"),
    lambda: CronTriggerTimetable("0 2 * * *", timezone="UTC", interval=timedelta(hours=6)),
    lambda: CronDataIntervalTimetable("0 0 * * *", "America/New_York"),
    lambda: CronDataIntervalTimetable("30 */2 * * *", "Europe/London"),
    lambda: DeltaTriggerTimetable(timedelta(minutes=90)),
    lambda: DeltaDataIntervalTimetable(timedelta(hours=3)),
)
SIM_STARTS = (
    datetime(2024, 3, 9, 20, tzinfo=UTC),
    datetime(2024, 3, 30, 12, tzinfo=UTC),
    datetime(2024, 6, 1, tzinfo=UTC),
    datetime(2024, 11, 2, 12, tzinfo=UTC),
)
HORIZON = timedelta(hours=36)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[datetime, list[DagSpec], list[act.Action]]:
    """1-3 DAGs and a short random script over 36 h; a plain tuple so it can be rebuilt."""
    start = draw(st.sampled_from(SIM_STARTS))
    dags = []
    for i in range(draw(st.integers(1, 3))):
        tasks = tuple(
            TaskSpec(
                f"t{k}",
                timedelta(minutes=draw(st.sampled_from([0, 10, 45, 130]))),
                draw(st.sampled_from(["success", "success", "failed"])),
            )
            for k in range(draw(st.integers(0, 2)))
        )
        dags.append(
            DagSpec(
                f"d{i}",
                draw(st.sampled_from(TIMETABLES))(),
                start_date=start - timedelta(hours=draw(st.integers(0, 72))),
                catchup=draw(st.booleans()),
                max_active_runs=draw(st.integers(1, 3)),
                is_paused_upon_creation=draw(st.booleans()),
                tasks=tasks,
            )
        )

    def moment() -> datetime:
        return start + timedelta(
            minutes=draw(st.integers(0, int(HORIZON.total_seconds()) // 60)),
            seconds=draw(st.sampled_from([0, 0, 1, 30])),
        )

    script: list[act.Action] = []
    for _ in range(draw(st.integers(0, 6))):
        dag_id = f"d{draw(st.integers(0, len(dags) - 1))}"
        kind = draw(st.sampled_from(["trigger", "pause", "unpause", "override", "backfill"]))
        at = moment()
        if kind == "trigger":
            hours = draw(st.none() | st.integers(-24, 24))
            logical = (
                None if hours is None else (at.replace(minute=0, second=0) + timedelta(hours=hours))
            )
            script.append(act.Trigger(at=at, dag_id=dag_id, logical_date=logical))
        elif kind == "pause":
            script.append(act.Pause(at=at, dag_id=dag_id))
        elif kind == "unpause":
            script.append(act.Unpause(at=at, dag_id=dag_id))
        elif kind == "override":
            script.append(
                act.Override(
                    at=at,
                    run=act.RunSelector(dag_id, next=True),
                    outcome="failed",
                    delay=timedelta(minutes=20),
                )
            )
        else:
            back = timedelta(hours=draw(st.integers(1, 48)))
            script.append(
                act.Backfill(
                    at=at,
                    dag_id=dag_id,
                    from_date=at - back,
                    to_date=at - back + timedelta(hours=draw(st.integers(0, 30))),
                    reprocess_behavior=draw(st.sampled_from(["none", "failed", "completed"])),
                    max_active_runs=draw(st.integers(1, 3)),
                    run_backwards=draw(st.booleans()),
                )
            )
    return start, dags, script


def simulate(scenario: tuple[datetime, list[DagSpec], list[act.Action]]) -> Simulation:
    start, dags, script = scenario
    return Simulation(dags, start=start, script=script)


def record(sim: Simulation) -> list[tuple[object, ...]]:
    return [
        (
            r.dag_id,
            r.nth,
            r.run_id,
            r.run_type,
            r.triggered_by,
            r.logical_date,
            r.data_interval,
            r.run_after,
            r.created_at,
            tuple(r.states),
            r.backfill_id,
            r.backfill_sort_ordinal,
        )
        for r in sim.runs
    ]


def state_at(run: DagRun, t: datetime) -> str | None:
    state = None
    for s, at in run.states:
        if at <= t:
            state = s
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios())
def test_scheduler_invariants(scenario: tuple[datetime, list[DagSpec], list[act.Action]]) -> None:
    """Unique logical dates per DAG, scheduled runs created at/after run_after, and at most
    max_active_runs non-backfill runs running at every instant a state changed."""
    start, dags, _ = scenario
    sim = simulate(scenario)
    sim.advance_to(start + HORIZON)
    for dag in dags:
        runs = [r for r in sim.runs if r.dag_id == dag.dag_id]
        dates = [r.logical_date for r in runs if r.logical_date is not None]
        assert len(dates) == len(set(dates))
        assert all(r.created_at >= r.run_after for r in runs if r.run_type == "scheduled")
        own = [r for r in runs if r.backfill_id is None]
        for t in sorted({at for r in own for _, at in r.states}):
            assert sum(state_at(r, t) == "running" for r in own) <= dag.max_active_runs
        for entry in sim.state.backfills:
            mine = [r for r in runs if r.backfill_id == entry["id"]]
            # a run cleared into the backfill counts for it only from the request on
            times = {at for r in mine for _, at in r.states if at >= entry["created_at"]}
            for t in sorted(times):
                assert sum(state_at(r, t) == "running" for r in mine) <= entry["max_active_runs"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), data=st.data())
def test_record_does_not_depend_on_clock_steps(
    scenario: tuple[datetime, list[DagSpec], list[act.Action]], data: st.DataObject
) -> None:
    """One ``advance_to(end)`` and a random mix of small ``advance_to`` and ``step()`` calls
    give the same runs, states, instants, backfills and warnings."""
    start, _, _ = scenario
    end = start + HORIZON
    straight = simulate(scenario)
    straight.advance_to(end)

    stepped = simulate(scenario)
    for _ in range(data.draw(st.integers(1, 40))):
        if data.draw(st.booleans()):
            nxt = stepped.next_event_time()
            if nxt is None or nxt > end:
                break
            stepped.step()
        else:
            minutes = data.draw(st.integers(0, 180))
            target = min(
                end, stepped.now + timedelta(minutes=minutes, seconds=data.draw(st.integers(0, 59)))
            )
            stepped.advance_to(target)
    stepped.advance_to(end)
    assert record(stepped) == record(straight)
    assert stepped.state.backfills == straight.state.backfills
    assert stepped.warnings == straight.warnings
