"""The next-run cache asks the timetable less, and says the same.

Two savings, each checked against the rule it leans on:

- the memo (``dagschedule.stable_until``) now covers every timetable whose answer
  provably holds for a stretch of clock: CronPartitionTimetable like a cron trigger
  (TT-16), and under catchup=True with a reference run or a start date the delta and
  multiple-cron timetables too (TT-7, TT-8, TT-9), which never read the clock then.
  A property test asks a fresh timetable at clocks inside the memo's stretch;
- ``next_dagrun_info`` with catchup=False leaves out the latest-tick candidate when
  the reference's next tick or start is not before ``now`` (TT-4 step 1, TT-5): the
  candidate cannot win then. A property test compares with the rule written out.

A simulation of every kind counts the timetable's answers and requires the record
that the old memo (cron trigger and data-interval only) gives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine import dagschedule
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.dagstate import DagState
from explorer.engine.record import run_row
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import (
    CronDataIntervalTimetable,
    CronPartitionTimetable,
    CronTriggerTimetable,
    DeltaDataIntervalTimetable,
    DeltaTriggerTimetable,
    MultipleCronTriggerTimetable,
    Timetable,
)
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction

START = datetime(2024, 3, 1, tzinfo=UTC)
ZONES = ("UTC", "Europe/London", "America/New_York", "Australia/Lord_Howe")
CRONS = ("0 * * * *", "*/20 * * * *", "30 2 * * *", "15 */3 * * *", "0 0 * * *")

#: The memo of main before this change: cron triggers and cron data intervals only.
OLD_MEMO = frozenset({CronTriggerTimetable, CronDataIntervalTimetable})

Maker = Callable[[], Timetable]


@st.composite
def makers(draw: st.DrawFn) -> Maker:
    """A way to build one timetable of any clock kind, twice alike (each copy keeps
    its own caches: the fresh one is the reference)."""
    zone = draw(st.sampled_from(ZONES))
    cron = draw(st.sampled_from(CRONS))
    other = draw(st.sampled_from(CRONS))
    minutes = timedelta(minutes=draw(st.integers(7, 400)))
    interval = timedelta(minutes=draw(st.sampled_from([0, 30, 90])))
    kind = draw(
        st.sampled_from(
            ["trigger", "data_interval", "partition", "delta", "delta_trigger", "multi"]
        )
    )
    table: dict[str, Maker] = {
        "trigger": lambda: CronTriggerTimetable(cron, timezone=zone, interval=interval),
        "data_interval": lambda: CronDataIntervalTimetable(cron, zone),
        "partition": lambda: CronPartitionTimetable(cron, timezone=zone),
        "delta": lambda: DeltaDataIntervalTimetable(minutes),
        "delta_trigger": lambda: DeltaTriggerTimetable(minutes, interval=interval),
        "multi": lambda: MultipleCronTriggerTimetable(
            cron, other, timezone=zone, interval=interval
        ),
    }
    return table[kind]


class _Quiet:
    """What ``compute_next_run`` may ask of the simulation: a warning."""

    def warn(self, text: str) -> None:
        pass


def _instant(draw: st.DrawFn, days: int = 20) -> datetime:
    seconds = draw(st.integers(0, days * 86400))
    return START + timedelta(seconds=seconds if draw(st.booleans()) else seconds // 60 * 60)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_memo_holds_where_it_says(data: st.DataObject) -> None:
    """At every clock of the memo's stretch a fresh timetable answers what was cached."""
    make = data.draw(makers())
    catchup = data.draw(st.booleans())
    earliest = data.draw(st.none() | st.just(START - timedelta(days=2)))
    if catchup and earliest is None:
        earliest = START
    spec = DagSpec("d", make(), start_date=earliest, catchup=catchup)
    dag = DagState(spec, 0)
    reference: ReferenceRun | None = None
    now = _instant(data.draw)
    for _ in range(data.draw(st.integers(0, 4))):  # a few runs created in a chain
        dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
        if dag.next_run is None:
            break
        reference = ReferenceRun.of(dag.next_run)
        now = max(now, dag.next_run.run_after)
    dag.next_run_memo = None
    dagschedule.compute_next_run(_Quiet(), dag, reference, now)  # type: ignore[arg-type]
    memo = dag.next_run_memo
    if memo is None:
        assert (
            type(spec.timetable) not in dagschedule.CLOCK_FREE_WITH_CATCHUP
            or (reference is None and earliest is None)
            or not catchup
        )
        return
    assert memo[0] == reference and memo[1] == now
    end = memo[2] if memo[2] is not None else now + timedelta(days=30)
    if end <= now:
        # An empty stretch, claiming nothing (the timetable is asked again at the next
        # clock): the tick after the clock comes less than the DST bound after an
        # offset change, so the stretch ends that bound before the tick (DST-3,
        # ZonedCron.before_shifts), and the clock is already past that.
        zone = spec.timetable.zone
        after = end + timedelta(hours=3)
        assert after.astimezone(zone).utcoffset() != end.astimezone(zone).utcoffset()
        return
    span = int((end - now).total_seconds() * 1_000_000) - 1
    fresh = make()
    for offset in [0, span, *data.draw(st.lists(st.integers(0, span), max_size=4))]:
        clock = now + timedelta(microseconds=offset)
        answer = fresh.next_dagrun_info(last=reference, restriction=spec.restriction, now=clock)
        assert answer == dag.next_run, (clock, answer, dag.next_run)


def _rule(
    table: Timetable, last: ReferenceRun, restriction: TimeRestriction, now: datetime
) -> tuple[datetime, datetime | None]:
    """TT-4 / TT-5 with catchup=False as Airflow writes them: every candidate computed.
    Gives (run_after, data interval start)."""
    if isinstance(table, CronTriggerTimetable | DeltaTriggerTimetable):
        steps = table.steps
        origin = last.run_after if table.continues_from_run_after else last.data_interval.end  # type: ignore[union-attr]
        candidates = [steps.align_prev(now), steps.next(origin)]
        if restriction.earliest is not None:
            candidates.append(steps.align_next(restriction.earliest))
        tick = max(candidates)
        if isinstance(table, CronPartitionTimetable):
            return tick, None
        return tick, (tick - table.interval).astimezone(UTC)
    assert isinstance(table, CronDataIntervalTimetable | DeltaDataIntervalTimetable)
    steps = table.steps
    if isinstance(table, CronDataIntervalTimetable):
        last_start = steps.prev(now)
        skipped = last_start if steps.next(last_start) == now else steps.prev(last_start)
        if restriction.earliest is not None:
            skipped = max(skipped, steps.align_next(restriction.earliest))
    else:
        seconds = table.delta.total_seconds()  # type: ignore[union-attr]
        stamp = now.timestamp()
        skipped = steps.prev(datetime.fromtimestamp(stamp - stamp % seconds, tz=UTC))
        if restriction.earliest is not None:
            skipped = max(skipped, restriction.earliest)
    assert last.data_interval is not None
    start = max(steps.align_prev(last.data_interval.end), skipped)
    if start <= last.data_interval.start:
        start = steps.next(start)
    return steps.next(start), start


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_catchup_false_answers_follow_the_rule(data: st.DataObject) -> None:
    """Every candidate computed or the latest-tick one left out: the same answer."""
    make = data.draw(makers())
    table = make()
    if isinstance(table, MultipleCronTriggerTimetable):
        table = table.timetables[0]
    earliest = data.draw(st.none() | st.just(START - timedelta(days=1)) | st.just(START))
    restriction = TimeRestriction(earliest, None, False)
    first = _instant(data.draw, days=10)
    seed: DagRunInfo | None = table.next_dagrun_info(
        last=None, restriction=TimeRestriction(first, None, True), now=first
    )
    assert seed is not None
    last = ReferenceRun.of(seed)
    # A clock at the reference's end, just after it, or well after (a run late).
    lag = data.draw(st.sampled_from([0, 1, 59, 3600, 86400 * 3]))
    now = seed.run_after + timedelta(seconds=lag)
    answer = table.next_dagrun_info(last=last, restriction=restriction, now=now)
    assert answer is not None
    run_after, start = _rule(table, last, restriction, now)
    assert answer.run_after == run_after
    if start is not None:
        assert answer.data_interval is not None and answer.data_interval.start == start


def _dags() -> list[DagSpec]:
    """Every clock kind, catchup on and off, a start date or none (catchup=False)."""
    kinds: list[Callable[[], Timetable]] = [
        lambda: CronPartitionTimetable("*/20 * * * *", timezone="Europe/London"),
        lambda: DeltaDataIntervalTimetable(timedelta(minutes=45)),
        lambda: DeltaTriggerTimetable(timedelta(minutes=35)),
        lambda: MultipleCronTriggerTimetable("0 * * * *", "30 */2 * * *", timezone="UTC"),
        lambda: CronTriggerTimetable("15 * * * *", timezone="America/New_York"),
        lambda: CronDataIntervalTimetable("*/30 * * * *", "Asia/Kolkata"),
    ]
    out: list[DagSpec] = []
    for i, make in enumerate(kinds * 3):
        catchup = i < len(kinds)  # each kind thrice: catchup, a start date, neither
        out.append(
            DagSpec(
                dag_id=f"d{i:02d}",
                timetable=make(),
                start_date=START - timedelta(hours=5) if i < 2 * len(kinds) else None,
                catchup=catchup,
                max_active_runs=1 if i % 4 == 0 else 16,
                tasks=(TaskSpec("t", duration=timedelta(minutes=7 + i * 3)),),
            )
        )
    return out


def _simulate(memo: frozenset[type] | None) -> tuple[list[Any], Counter[str]]:
    with pytest.MonkeyPatch.context() as mp:
        asked: Counter[str] = Counter()
        for kind in {type(spec.timetable) for spec in _dags()}:
            real = kind.next_dagrun_info

            def counting(self: Any, *a: Any, _real: Any = real, **k: Any) -> Any:
                asked[type(self).__name__] += 1
                return _real(self, *a, **k)

            mp.setattr(kind, "next_dagrun_info", counting)
        if memo is not None:  # the old memo: the other kinds asked at every parse
            mp.setattr(dagschedule, "CLOCK_BY_CRON_PERIOD", memo)
            mp.setattr(dagschedule, "CLOCK_FREE_WITH_CATCHUP", memo)
            mp.setattr(dagschedule, "CLOCK_BY_PICK", frozenset())
        sim = Simulation(_dags(), start=START)
        sim.advance_to(START + timedelta(days=2))
        return [run_row(r) for r in sim.runs], asked


@pytest.mark.plain_only  # replaces a timetable class's method (adr/0013)
def test_fewer_timetable_answers_same_record() -> None:
    new_rows, new_asked = _simulate(None)
    old_rows, old_asked = _simulate(OLD_MEMO)
    assert new_rows == old_rows
    assert len(new_rows) > 300
    # The newly memoised kinds are asked less; the cron data-interval kind as often as
    # before.
    assert new_asked["CronPartitionTimetable"] < old_asked["CronPartitionTimetable"] / 2
    for kind in (
        "DeltaTriggerTimetable",
        "DeltaDataIntervalTimetable",
        "MultipleCronTriggerTimetable",
    ):
        assert new_asked[kind] < old_asked[kind], (kind, new_asked, old_asked)
    assert new_asked["CronDataIntervalTimetable"] == old_asked["CronDataIntervalTimetable"]
