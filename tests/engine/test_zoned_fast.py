"""The fast cron stepping answers exactly what the reference stepping answers.

:class:`~explorer.engine.cron.ZonedCron` answers on epoch seconds with zone
offset spans (:mod:`explorer.engine.tzspans`, :mod:`explorer.engine.cronfast_zoned`)
and hands out ticks it computed ahead (its *run*). Both are checked here against
two references, differentially:

* Airflow's own recipe (``timetables/_cron.py``) written with croniter and
  zoneinfo only: the wall reading, croniter's next/previous reading, the instant
  of that reading (the later one of a repeated reading, gap readings shifted
  forward: DST-1, DST-3) or, for crons firing every hour, the instant plus the
  wall-clock step (DST-2);
* ``ZonedCron.reference_next`` / ``reference_prev``, the datetime stepping the
  engine used before (and still uses for what the fast way cannot answer).

Questions come in chains, the way the scheduler asks them (each answer the next
question, as the very object handed out), in zones with DST (New York, London,
Lord Howe's half-hour DST, Chatham's 45-minute offset, Dublin's negative DST,
Sao Paulo's midnight changes), without (Kolkata) and UTC, over many years, with
start instants drawn near the zone's transitions half of the time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from functools import cache

import pytest
from croniter import croniter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.engine.cron import ZonedCron
from explorer.engine.cronfast import WallClockCron
from explorer.engine.errors import EngineError
from explorer.engine.timetables import Timetable, timetable_from_spec
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction
from explorer.engine.tz import get_zone
from tests.engine.test_cronfast import cron_expressions

ZONES = [
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "UTC",
    "Pacific/Chatham",
    "Europe/Dublin",
    "America/Sao_Paulo",
]

#: Schedules as DAGs write them: every-hour crons (DST-2) and coarser ones (DST-3)
#: with readings inside the usual gaps and repeats (01:30, 02:00, 02:30).
SCHEDULES = [
    "0 * * * *",
    "*/15 * * * *",
    "30 * * * *",
    "*/7 * * * *",
    "0 */2 * * *",
    "0 0 * * *",
    "30 1 * * *",
    "0 2 * * *",
    "30 2 * * *",
    "45 1-3 * * *",
    "0 6 * * 1",
    "0 0 1 * *",
    "0 3 * * 1-5",
    "0 0 29 2 *",
    "59 23 31 12 *",
]


def differential(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )


# --------------------------------------------------------------------------- references
def _every_hour(expression: str) -> bool:
    return bool(croniter(expression).expanded[1] == ["*"])


def _aware(wall: datetime, zone: tzinfo) -> datetime:
    """The instant of a wall reading: gap readings forward, repeated ones the later (DST-1)."""
    return max(wall.replace(tzinfo=zone, fold=fold).astimezone(UTC) for fold in (0, 1))


def airflow_step(expression: str, zone_name: str, current: datetime, *, forward: bool) -> datetime:
    """``CronMixin._get_next`` / ``_get_prev`` with croniter and zoneinfo only."""
    zone = get_zone(zone_name)
    naive = current.astimezone(zone).replace(tzinfo=None)
    it = croniter(expression, start_time=naive)
    scheduled = it.get_next(datetime) if forward else it.get_prev(datetime)
    assert isinstance(scheduled, datetime)
    if _every_hour(expression):
        return current + (scheduled - naive)
    return _aware(scheduled, zone)


def ReferenceCron(expression: str, zone: tzinfo) -> ZonedCron:
    """A ZonedCron that only ever steps the reference way (no spans, no run)."""
    return ZonedCron(expression, zone, reference=True)


# --------------------------------------------------------------------------- strategies
@cache
def transitions(zone_name: str, year: int) -> list[datetime]:
    """Roughly where the zone's offset changes in ``year``: the first probe (6-hourly)
    after each change (found with zoneinfo alone, independent of tzspans)."""
    zone = get_zone(zone_name)
    if zone is UTC:
        return []
    found = []
    probe = datetime(year, 1, 1, tzinfo=UTC)
    before = probe.astimezone(zone).utcoffset()
    while probe.year == year:
        probe += timedelta(hours=6)
        offset = probe.astimezone(zone).utcoffset()
        if offset != before:
            found.append(probe)
            before = offset
    return found


@st.composite
def instants(draw: st.DrawFn, zone_name: str) -> datetime:
    """Whole-second or whole-minute UTC instants 1900-2150, near a transition half the time."""
    year = draw(st.integers(1900, 2150))
    near = transitions(zone_name, year) if draw(st.booleans()) else []
    if near:
        around = draw(st.sampled_from(near))
        moment = around + timedelta(minutes=draw(st.integers(-36 * 60, 36 * 60)))
    else:
        moment = datetime(year, 1, 1, tzinfo=UTC) + timedelta(
            seconds=draw(st.integers(0, 365 * 86400))
        )
    if draw(st.booleans()):
        moment = moment.replace(second=0)
    if draw(st.integers(0, 9)) == 0:  # microseconds: the reference way answers
        moment += timedelta(microseconds=draw(st.integers(1, 999_999)))
    return moment


#: (expression, zone name, first question, operations)
Chain = tuple[str, str, datetime, list[str]]

OPERATIONS = ["next", "next", "next", "prev", "align_next", "align_prev", "interval_step"]


def expected(expression: str, zone_name: str, operation: str, current: datetime) -> datetime:
    """What Airflow answers (align_* as CronMixin composes them from next and prev)."""

    def nxt(at: datetime) -> datetime:
        return airflow_step(expression, zone_name, at, forward=True)

    def prv(at: datetime) -> datetime:
        return airflow_step(expression, zone_name, at, forward=False)

    if operation == "next":
        return nxt(current)
    if operation == "prev":
        return prv(current)
    if operation == "align_next":
        after = nxt(current)
        return current if prv(after) == current else after
    # align_prev, and the data-interval chain's step: align the end back, then its next.
    before = prv(current)
    aligned = current if nxt(before) == current else before
    return aligned if operation == "align_prev" else nxt(aligned)


def asked(cron: ZonedCron, operation: str, current: datetime) -> datetime:
    if operation == "interval_step":
        return cron.next(cron.align_prev(current))
    answer: datetime = getattr(cron, operation)(current)
    return answer


# --------------------------------------------------------------------------- properties
@st.composite
def chains(draw: st.DrawFn, expressions: st.SearchStrategy[str]) -> Chain:
    zone_name = draw(st.sampled_from(ZONES))
    expression = draw(expressions)
    start = draw(instants(zone_name))
    operations = draw(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=40))
    return expression, zone_name, start, operations


def _outcome(call: object) -> datetime | str:
    try:
        value = call()  # type: ignore[operator]
    except Exception as exc:  # both sides must fail alike
        return type(exc).__name__
    assert isinstance(value, datetime)
    return value


@differential(300)
@given(chain=chains(st.sampled_from(SCHEDULES)))
def test_a_chain_of_questions_is_answered_as_airflow_answers(
    chain: Chain,
) -> None:
    expression, zone_name, current, operations = chain
    cron = ZonedCron(expression, get_zone(zone_name))
    for operation in operations:
        answer = _outcome(lambda: asked(cron, operation, current))  # noqa: B023
        want = _outcome(lambda: expected(expression, zone_name, operation, current))  # noqa: B023
        assert answer == want, (expression, zone_name, operation, current)
        if not isinstance(answer, datetime):
            return
        assert answer.tzinfo is UTC
        current = answer  # the very object handed out: the run answers the next one


@differential(150)
@given(chain=chains(cron_expressions()))
def test_random_expressions_step_like_the_reference_way(
    chain: Chain,
) -> None:
    """Any expression croniter reads (seconds and year fields, L, #...): the fast way
    equals ZonedCron's own datetime stepping, error or not."""
    expression, zone_name, current, operations = chain
    zone = get_zone(zone_name)
    cron = ZonedCron(expression, zone)
    reference = ReferenceCron(expression, zone)
    for operation in operations[:12]:
        answer = _outcome(lambda: asked(cron, operation, current))  # noqa: B023
        want = _outcome(lambda: asked(reference, operation, current))  # noqa: B023
        assert answer == want, (expression, zone_name, operation, current)
        if not isinstance(answer, datetime):
            return
        current = answer


@differential(150)
@given(
    zone_name=st.sampled_from(ZONES),
    expression=st.sampled_from(SCHEDULES),
    walk=st.lists(st.integers(-3, 40), min_size=1, max_size=30),
    data=st.data(),
)
def test_the_run_hands_out_next_and_prev_of_ticks_it_computed_ahead(
    zone_name: str, expression: str, walk: list[int], data: st.DataObject
) -> None:
    """Long forward chains (the run grows to its largest batches), stepping back and
    aligning in between, across a year's transitions."""
    zone = get_zone(zone_name)
    cron = ZonedCron(expression, zone)
    reference = ReferenceCron(expression, zone)
    current = data.draw(instants(zone_name)).replace(microsecond=0)
    for steps in walk:
        for _ in range(abs(steps)):
            forward = steps > 0
            answer = cron.next(current) if forward else cron.prev(current)
            want = reference.next(current) if forward else reference.prev(current)
            assert answer == want, (expression, zone_name, forward, current)
            current = answer
        assert cron.align_prev(current) == reference.align_prev(current)
        assert cron.align_next(current) == reference.align_next(current)


# --------------------------------------------------------------------------- timetables
def _chain(table: Timetable, restriction: TimeRestriction, now: datetime) -> list[DagRunInfo] | str:
    infos: list[DagRunInfo] = []
    last: ReferenceRun | None = None
    for _ in range(400):
        try:
            info = table.next_dagrun_info(last=last, restriction=restriction, now=now)
        except EngineError as exc:
            return f"{type(exc).__name__}: {exc}"
        if info is None:
            break
        infos.append(info)
        last = ReferenceRun.of(info)
    return infos


@differential(120)
@given(
    name=st.sampled_from(
        ["CronDataIntervalTimetable", "CronTriggerTimetable", "MultipleCronTriggerTimetable"]
    ),
    zone_name=st.sampled_from(ZONES),
    expressions=st.lists(st.sampled_from(SCHEDULES), min_size=1, max_size=2),
    catchup=st.booleans(),
    interval_hours=st.sampled_from([0, 1, 24]),
    data=st.data(),
)
def test_timetable_chains_equal_the_reference_stepping(
    name: str,
    zone_name: str,
    expressions: list[str],
    catchup: bool,
    interval_hours: int,
    data: st.DataObject,
) -> None:
    """The scheduler's chain of next_dagrun_info calls (conformance README 2.3) is the
    same whether the crons step the fast way or the reference way."""
    start = data.draw(instants(zone_name)).replace(microsecond=0)
    restriction = TimeRestriction(start, start + timedelta(days=20), catchup)
    now = start + timedelta(hours=data.draw(st.integers(0, 24 * 20)))
    if name == "MultipleCronTriggerTimetable":
        args: dict[str, object] = {"crons": expressions}
    else:
        args = {"cron": expressions[0]}
    if name != "CronDataIntervalTimetable":
        args["interval"] = timedelta(hours=interval_hours)
    fast = timetable_from_spec(name, {**args, "timezone": zone_name}, dag_timezone="UTC")
    slow = timetable_from_spec(name, {**args, "timezone": zone_name}, dag_timezone="UTC")
    zone = get_zone(zone_name)
    for sub in getattr(slow, "timetables", [slow]):
        sub.cron = sub.steps = ReferenceCron(sub.cron.expression, zone)
    assert _chain(fast, restriction, now) == _chain(slow, restriction, now)


# --------------------------------------------------------------------------- tables
@differential(100)
@given(
    expression=st.one_of(st.sampled_from(SCHEDULES), cron_expressions()),
    wall=st.datetimes(datetime(1990, 1, 1), datetime(2060, 12, 31)),
    count=st.integers(1, 40),
)
def test_a_batch_of_wall_seconds_is_successive_next_wall_seconds(
    expression: str, wall: datetime, count: int
) -> None:
    cron = WallClockCron(expression)
    start = int(wall.replace(microsecond=0, tzinfo=UTC).timestamp())
    batch = cron.next_wall_seconds(start, count)
    step: int | None = start
    for value in batch:
        assert step is not None
        step = cron.next_wall_second(step)
        assert value == step
    assert len(batch) <= count


@pytest.mark.parametrize("zone_name", ["America/New_York", "Australia/Lord_Howe", "Europe/London"])
def test_a_year_of_hourly_ticks_through_both_transitions(zone_name: str) -> None:
    """A year stepped tick by tick, as a trigger timetable's chain does it: every tick
    equal to the reference stepping, and to Airflow's recipe on the transition days."""
    zone = get_zone(zone_name)
    cron = ZonedCron("0 * * * *", zone)
    reference = ReferenceCron("0 * * * *", zone)
    changes = transitions(zone_name, 2024)
    assert len(changes) == 2
    current = datetime(2024, 1, 1, tzinfo=UTC)
    for _ in range(24 * 366):
        answer = cron.next(current)
        assert answer == reference.next(current), current
        if any(abs(answer - change) < timedelta(days=2) for change in changes):
            assert answer == airflow_step("0 * * * *", zone_name, current, forward=True)
        current = answer
