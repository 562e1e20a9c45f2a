"""The DAG schedule costs less per run and per parse, and says the same.

Four savings, each counted here against the old behaviour, with identical records:

- the due heap: a reschedule to the instant a DAG's live entry already has keeps that
  entry (``DagState.due_entry``) instead of pushing a copy and leaving the old one
  stale for a later pop (SCH-2's due DAGs are found in the same order: the heap
  orders by instant then DAG order, and a DAG has one live entry), and the parse
  ``collect_due`` applies to a due DAG pushes nothing (it files the DAG itself);
- the cron run: a timetable asks ``next(reference end)`` after the memo asked
  ``next(answer)`` (``dagschedule.stable_until``, TT-4/TT-5/TT-16), so the tick before
  the run's position is asked again; the run answers it instead of a search that
  also threw the run away. A property test holds such chains equal to the reference
  stepping (DST-1..DST-3);
- a parse that finds TT-3's reference unchanged (SCH-4b) reuses the memo's reference
  object instead of building one and comparing it field by field;
- loops with nothing due and nothing waiting return at once, and the waiting heaps are
  emptied when no DAG waits (every entry is stale then).
"""

from __future__ import annotations

import heapq
import types
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine import dagschedule
from explorer.engine.cron import ZonedCron
from explorer.engine.cronfast_zoned import ZonedSeconds
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.dagstate import DagState
from explorer.engine.record import run_row
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import (
    CronDataIntervalTimetable,
    CronTriggerTimetable,
    DeltaDataIntervalTimetable,
    DeltaTriggerTimetable,
    MultipleCronTriggerTimetable,
    Timetable,
    timetable_from_schedule,
)
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction
from explorer.engine.tz import get_zone
from tests.engine.test_zoned_fast import (
    SCHEDULES,
    ZONES,
    ReferenceCron,
    differential,
    instants,
)

START = datetime(2024, 3, 1, tzinfo=UTC)


def _dags() -> list[DagSpec]:
    """Cron triggers and data intervals in zones with DST, catchup on and off, some at
    max_active_runs=1 with runs longer than their period (a backlog that waits)."""
    schedules = ["*/10 * * * *", "0 * * * *", "15 */2 * * *", "*/30 * * * *", "5 4 * * *"]
    zones = ["UTC", "Europe/London", "America/New_York"]
    out = []
    for i in range(24):
        cron, zone = schedules[i % 5], zones[i % 3]
        table: Timetable = (
            CronTriggerTimetable(cron, timezone=zone)
            if i % 2
            else CronDataIntervalTimetable(cron, zone)
        )
        long_run = i % 4 == 0
        out.append(
            DagSpec(
                dag_id=f"d{i:02d}",
                timetable=table,
                start_date=START - timedelta(hours=5),
                catchup=i % 3 == 0,
                max_active_runs=1 if long_run else 4,
                tasks=(TaskSpec("t", duration=timedelta(minutes=50 if long_run else 7)),),
            )
        )
    return out


def _old_reschedule(sim: Any, dag: DagState) -> None:
    """``reschedule`` before this change: always a new entry, the old one left stale
    (collect_due's parse included)."""
    st = sim.state
    if dag.dag_id in st.waiting_ids:
        dagschedule._leave_waiting(sim, dag)
    dag.due_version += 1
    due = dagschedule.due_at(sim, dag)
    if due is not None:
        dagschedule.heapq.heappush(st.due, (due, dag.order, dag.due_version, dag.dag_id))


def _simulate(*, old: bool) -> tuple[list[Any], Counter[str]]:
    """The record's runs and the work: entries pushed to the due heap, stale entries
    popped, next-tick searches of the cron stepping, references built at parses."""
    work: Counter[str] = Counter()
    with pytest.MonkeyPatch.context() as mp:
        sims: list[Simulation] = []

        def push(heap: list[Any], item: Any) -> None:
            if sims and heap is sims[0].state.due:
                work["due pushed"] += 1
            heapq.heappush(heap, item)

        def pop(heap: list[Any]) -> Any:
            item = heapq.heappop(heap)
            if sims and heap is sims[0].state.due:
                work["due popped"] += 1
            return item

        mp.setattr(
            dagschedule,
            "heapq",
            types.SimpleNamespace(heappush=push, heappop=pop, heapify=heapq.heapify),
        )
        real_search = ZonedSeconds.next_second

        def search(self: ZonedSeconds, second: int) -> int | None:
            work["cron searches"] += 1
            return real_search(self, second)

        mp.setattr(ZonedSeconds, "next_second", search)
        real_reference = ReferenceRun.__init__

        def built(self: ReferenceRun, *args: Any) -> None:
            work["references built"] += 1
            real_reference(self, *args)

        mp.setattr(ReferenceRun, "__init__", built)
        if old:
            mp.setattr(dagschedule, "reschedule", _old_reschedule)
        config = SchedulerConfig(
            loop_interval=timedelta(seconds=5), parse_interval=timedelta(seconds=30)
        )
        sim = Simulation(_dags(), start=START, config=config)
        sims.append(sim)
        sim.advance_to(START + timedelta(days=2))
        runs = [run_row(r) for r in sim.state.runs]
        return runs, work


@pytest.mark.plain_only
def test_the_due_heap_keeps_live_entries_and_the_record_is_the_same() -> None:
    runs, work = _simulate(old=False)
    old_runs, old_work = _simulate(old=True)
    assert runs == old_runs
    assert len(runs) > 1500
    # Each run's creation, its end and the parses in between rescheduled its DAG, most of
    # them to the instant it had, and collect_due's parse pushed an entry its _wait made
    # stale at once: now about one entry a run where there were several.
    assert work["due pushed"] * 3 < old_work["due pushed"], (work, old_work)
    assert work["due popped"] * 3 < old_work["due popped"], (work, old_work)
    assert work["due pushed"] < len(runs) + 100, (work, len(runs))


def test_the_cron_run_serves_the_chain_of_a_run_and_its_memo() -> None:
    """Without the tick before in the run, most creations of a cron DAG searched (the
    memo's next of the answer moved the run on, the timetable's next of the reference
    and align_prev's check of it threw it away); now a search starts a run that hands
    out the following ticks in batches. (Late creations with catchup=False still search
    from the clock, TT-4 step 1.)"""
    runs, work = _simulate(old=False)
    assert work["cron searches"] * 3 < len(runs), (work, len(runs))


def test_parses_reuse_the_reference_of_the_memo() -> None:
    """SCH-4b: a parse with the reference of the memo builds none (the run was created
    from the memo's answer, so the latest run holds the memo reference's very fields)."""
    runs, work = _simulate(old=False)
    assert work["references built"] * 10 < len(runs), (work, len(runs))


def test_no_dag_waits_no_entry_waits() -> None:
    """The waiting heaps hold nothing once no DAG waits (their entries were all stale)."""
    config = SchedulerConfig(
        loop_interval=timedelta(seconds=5), parse_interval=timedelta(seconds=30)
    )
    specs = [
        DagSpec(
            dag_id=f"w{i:02d}",
            timetable=timetable_from_schedule("0 * * * *"),
            start_date=START - timedelta(hours=3),
            catchup=True,
            tasks=(TaskSpec("t", duration=timedelta(minutes=3)),),
        )
        for i in range(40)  # 40 DAGs due at once: 10 a loop (SCH-2), the others wait
    ]
    sim = Simulation(specs, start=START, config=config)
    sim.advance_to(START + timedelta(seconds=10))
    assert sim.state.waiting_ids and sim.state.waiting
    sim.advance_to(START + timedelta(minutes=30))
    assert not sim.state.waiting_ids
    assert sim.state.waiting == [] and sim.state.waiting_recheck == []
    assert len(sim.state.runs) == 40 * 4  # the 3 hours missed and the one at the start


# --------------------------------------------------------------------------- the cron run
@differential(200)
@given(
    zone_name=st.sampled_from(ZONES),
    expression=st.sampled_from(SCHEDULES),
    again=st.lists(st.sampled_from(["next", "prev", "align_prev", "none"]), max_size=60),
    data=st.data(),
)
def test_the_tick_before_asked_again_is_answered_as_the_reference(
    zone_name: str, expression: str, again: list[str], data: st.DataObject
) -> None:
    """The scheduler's chain: next(tick) for the answer, next(answer) for the memo, then
    at the next creation next(tick before) again, or prev / align_prev of it (a data
    interval's start): every answer equals the reference stepping's."""
    zone = get_zone(zone_name)
    cron = ZonedCron(expression, zone)
    reference = ReferenceCron(expression, zone)
    before = cron.next(data.draw(instants(zone_name)).replace(microsecond=0))
    current = cron.next(before)
    for operation in again:
        if operation != "none":
            answer = getattr(cron, operation)(before)
            assert answer == getattr(reference, operation)(before), (operation, before)
        following = cron.next(current)  # the memo's question moves the run on
        assert following == reference.next(current)
        before, current = current, following


def test_a_memo_of_a_chain_costs_one_search_per_batch() -> None:
    """A cron trigger's creations as compute_next_run asks them (answer, then the memo's
    next of it): a year of hourly ticks in London takes a few dozen searches."""
    table = CronTriggerTimetable("0 * * * *", timezone="Europe/London")
    dag = DagState(DagSpec("d", table, start_date=START, catchup=False), 0)
    searches = Counter[str]()
    real = ZonedSeconds.next_second

    def search(self: ZonedSeconds, second: int) -> int | None:
        searches["n"] += 1
        return real(self, second)

    class _Quiet:
        def warn(self, text: str) -> None:
            raise AssertionError(text)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ZonedSeconds, "next_second", search)
        reference = None
        now = START
        for _ in range(24 * 365):
            dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
            info = dag.next_run
            assert info is not None and dag.next_run_memo is not None
            reference = ReferenceRun.of(info)
            now = info.run_after
    assert now.year == 2025
    assert searches["n"] < 400, searches


# --------------------------------------------------------------------------- TT-9's memo
#: Clocks near the zones' 2024 transitions (US 10 Mar / 3 Nov, EU 31 Mar / 27 Oct, Lord
#: Howe 7 Apr / 6 Oct): where a cron reading falls in a gap or is repeated (DST-3).
_NEAR_TRANSITIONS = [
    datetime(2024, 3, 8, tzinfo=UTC),
    datetime(2024, 3, 29, tzinfo=UTC),
    datetime(2024, 4, 5, tzinfo=UTC),
    datetime(2024, 10, 4, tzinfo=UTC),
    datetime(2024, 10, 25, tzinfo=UTC),
    datetime(2024, 11, 1, tzinfo=UTC),
]
_CRONS = ("30 2 * * *", "0 * * * *", "15 */3 * * *", "45 1 * * *", "0 0 * * *", "*/20 * * * *")


class _Quiet:
    def warn(self, text: str) -> None:
        pass


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.data())
def test_the_multiple_cron_memo_holds_where_it_says(data: st.DataObject) -> None:
    """TT-9 with catchup=False: at every clock of the memo's stretch a fresh timetable
    answers what was cached, across DST gaps and repeats (DST-3)."""
    zone = data.draw(
        st.sampled_from(["America/New_York", "Europe/London", "Australia/Lord_Howe", "UTC"])
    )
    crons = data.draw(st.lists(st.sampled_from(_CRONS), min_size=2, max_size=3, unique=True))
    interval = timedelta(minutes=data.draw(st.sampled_from([0, 30, 90])))

    def make() -> MultipleCronTriggerTimetable:
        return MultipleCronTriggerTimetable(*crons, timezone=zone, interval=interval)

    base = data.draw(st.sampled_from(_NEAR_TRANSITIONS))
    earliest = data.draw(st.none() | st.just(base - timedelta(days=2)))
    spec = DagSpec("d", make(), start_date=earliest, catchup=False)
    dag = DagState(spec, 0)
    now = base + timedelta(minutes=data.draw(st.integers(0, 4 * 24 * 60)))
    reference: ReferenceRun | None = None
    if earliest is None:  # a reference run: the memo needs one or a start date (TT-6)
        seed = make().next_dagrun_info(
            last=None, restriction=TimeRestriction(now, None, True), now=now
        )
        assert seed is not None
        reference = ReferenceRun.of(seed)
    for _ in range(data.draw(st.integers(0, 6))):  # runs created in a chain
        dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
        if dag.next_run is None:
            break
        reference = ReferenceRun.of(dag.next_run)
        now = max(now, dag.next_run.run_after) + timedelta(
            seconds=data.draw(st.sampled_from([0, 1, 600, 5400]))
        )
    dag.next_run_memo = None
    dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
    memo = dag.next_run_memo
    assert memo is not None and memo[0] is reference and memo[1] == now
    assert memo[2] is not None
    if memo[2] <= now:
        return  # no stretch: asked again at every parse
    span = int((memo[2] - now).total_seconds() * 1_000_000) - 1
    offsets = [0, span, span // 2, *data.draw(st.lists(st.integers(0, span), max_size=6))]
    for offset in offsets:
        clock = now + timedelta(microseconds=offset)
        answer = make().next_dagrun_info(last=reference, restriction=spec.restriction, now=clock)
        assert answer == dag.next_run, (clock, answer, dag.next_run)


@pytest.mark.plain_only  # replaces a timetable class's method (adr/0013)
def test_multiple_cron_dags_are_asked_less_for_the_same_record() -> None:
    """A parse of a catchup=False MultipleCronTriggerTimetable DAG (SCH-4b) asked all its
    crons again; within the memo's stretch it asks none."""

    def simulate(memo: bool) -> tuple[list[Any], int]:
        asked = Counter[str]()
        with pytest.MonkeyPatch.context() as mp:
            real = MultipleCronTriggerTimetable.next_dagrun_info

            def counting(self: Any, **k: Any) -> Any:
                asked["n"] += 1
                return real(self, **k)

            mp.setattr(MultipleCronTriggerTimetable, "next_dagrun_info", counting)
            if not memo:
                mp.setattr(dagschedule, "CLOCK_BY_PICK", frozenset())
            specs = [
                DagSpec(
                    dag_id=f"m{i}",
                    timetable=MultipleCronTriggerTimetable(
                        "*/20 * * * *", f"{i} */2 * * *", timezone=("UTC", "Europe/London")[i % 2]
                    ),
                    start_date=START - timedelta(days=1),
                    catchup=False,
                    max_active_runs=1 if i % 3 == 0 else 8,
                    tasks=(TaskSpec("t", duration=timedelta(minutes=5 + 9 * (i % 4))),),
                )
                for i in range(12)
            ]
            config = SchedulerConfig(
                loop_interval=timedelta(seconds=5), parse_interval=timedelta(seconds=30)
            )
            sim = Simulation(specs, start=START, config=config)
            sim.advance_to(START + timedelta(days=1))
            return [run_row(r) for r in sim.state.runs], asked["n"]

    rows, asked = simulate(True)
    old_rows, old_asked = simulate(False)
    assert rows == old_rows
    assert len(rows) > 500
    assert asked * 5 < old_asked * 4, (asked, old_asked)  # the creations still ask


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.data())
def test_the_delta_memo_holds_where_it_says(data: st.DataObject) -> None:
    """TT-7 / TT-8 with catchup=False: at every clock of the memo's stretch (microsecond
    clocks included, the stretch's last one always) a fresh timetable answers the same."""
    minutes = data.draw(st.sampled_from([1, 7, 30, 45, 60, 90, 400, 1440]))
    trigger = data.draw(st.booleans())
    interval = timedelta(minutes=data.draw(st.sampled_from([0, 30])))

    def make() -> DeltaTriggerTimetable | DeltaDataIntervalTimetable:
        if trigger:
            return DeltaTriggerTimetable(timedelta(minutes=minutes), interval=interval)
        return DeltaDataIntervalTimetable(timedelta(minutes=minutes))

    earliest = data.draw(st.none() | st.just(START - timedelta(hours=5, seconds=17)))
    end = data.draw(st.none() | st.just(START + timedelta(days=2)))
    spec = DagSpec("d", make(), start_date=earliest, end_date=end, catchup=False)
    dag = DagState(spec, 0)
    now = START + timedelta(microseconds=data.draw(st.integers(0, 3 * 86400 * 10**6)))
    reference: ReferenceRun | None = None
    if earliest is None:
        seed = make().next_dagrun_info(
            last=None, restriction=TimeRestriction(now, None, True), now=now
        )
        assert seed is not None
        reference = ReferenceRun.of(seed)
    for _ in range(data.draw(st.integers(0, 5))):
        dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
        if dag.next_run is None:
            break
        reference = ReferenceRun.of(dag.next_run)
        lag = data.draw(st.sampled_from([0, 1, 59, 3600, 86400]))
        now = max(now, dag.next_run.run_after) + timedelta(seconds=lag)
    dag.next_run_memo = None
    dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
    memo = dag.next_run_memo
    if memo is None:
        assert dag.next_run is None
        return
    assert memo[0] is reference and memo[1] == now and memo[2] is not None
    span = int((memo[2] - now).total_seconds() * 1_000_000) - 1
    offsets = [0, span, *data.draw(st.lists(st.integers(0, max(span, 0)), max_size=6))]
    for offset in offsets:
        clock = now + timedelta(microseconds=offset)
        answer = make().next_dagrun_info(last=reference, restriction=spec.restriction, now=clock)
        assert answer == dag.next_run, (clock, answer, dag.next_run)


@pytest.mark.parametrize(
    ("cron", "zone", "reference_end"),
    [
        # 02:30 does not exist on 10 March in New York: the tick is shifted to 03:30 EDT
        # (07:30Z), and from 03:00 EDT (07:00Z) align_prev(now) is that tick, after now.
        ("30 2 * * *", "America/New_York", datetime(2024, 3, 8, 7, 30, tzinfo=UTC)),
        # 01:30 is read twice on 3 November: the tick is the later one (06:30Z), and from
        # the first 01:30 (05:30Z) align_prev(now) is it, after now.
        ("30 1 * * *", "America/New_York", datetime(2024, 11, 1, 5, 30, tzinfo=UTC)),
        # Lord Howe moves by 30 min: 02:15 does not exist on 6 October.
        ("15 2 * * *", "Australia/Lord_Howe", datetime(2024, 10, 4, 15, 15, tzinfo=UTC)),
    ],
)
def test_the_cron_memo_ends_before_a_transition(
    cron: str, zone: str, reference_end: datetime
) -> None:
    """DST-3 near a transition: the latest-tick candidate can be ahead of the clock, so
    a catchup=False answer may change before the clock reaches the tick after it. At
    every clock of the memo's stretch a fresh timetable answers what was cached."""
    spec = DagSpec(
        "d",
        CronTriggerTimetable(cron, timezone=zone, interval=timedelta(minutes=30)),
        catchup=False,
    )
    dag = DagState(spec, 0)
    reference = ReferenceRun.of(
        DagRunInfo.interval(reference_end - timedelta(minutes=30), reference_end)
    )
    now = reference_end
    for _ in range(3):  # runs created on time, each at its tick (SCH-3)
        dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
        memo = dag.next_run_memo
        assert memo is not None and memo[2] is not None and dag.next_run is not None
        clock = now
        while clock < memo[2]:
            fresh = CronTriggerTimetable(cron, timezone=zone, interval=timedelta(minutes=30))
            answer = fresh.next_dagrun_info(last=reference, restriction=spec.restriction, now=clock)
            assert answer == dag.next_run, (clock, answer, dag.next_run)
            clock = min(clock + timedelta(minutes=5), memo[2] - timedelta(microseconds=1))
            if clock == memo[2] - timedelta(microseconds=1):
                answer = fresh.next_dagrun_info(
                    last=reference, restriction=spec.restriction, now=clock
                )
                assert answer == dag.next_run, (clock, answer, dag.next_run)
                break
        reference = ReferenceRun.of(dag.next_run)
        now = dag.next_run.run_after
