"""WallClockCron must answer exactly what croniter 7.0.0 answers.

croniter is the authority (it is what Airflow calls), so these are differential
tests: random expressions and random naive instants, the fast stepping compared
with ``croniter(expr, start_time=wall).get_next/get_prev(datetime)``. An
outcome is either a datetime or an exception; both sides must agree on either
(croniter raises ``CroniterBadDateError`` for expressions that never fire, such
as ``0 0 31 2 *``, and the fast path must raise the same).

The expression strategy only produces expressions croniter accepts, so no
example is wasted. What it leaves out, and why:

* ``5L`` (last Friday, Quartz spelling): croniter rejects it
  (``CroniterNotAlphaError``); its own spelling ``L5`` is generated instead,
  and ``5L`` is covered by a regression example that compares the errors.
* ``#``/``L`` weekday items next to plain weekdays (``1#2,3``): croniter
  rejects the mix (``CroniterUnsupportedSyntaxError``).
* ``#`` with n outside 1..5: rejected.
* ``15W``, ``H``, ``R``: not generated; they take the croniter fallback and
  are covered by the fallback tests below.

Years (the 7th field) are generated too; a year list far from the instant makes
croniter give up after 50 years, which is an outcome to agree on like any other.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from croniter import croniter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.engine.cronfast import WallClockCron

DOW_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

Outcome = datetime | tuple[str, str]


def croniter_next(expression: str, wall: datetime) -> Outcome:
    try:
        value = croniter(expression, start_time=wall).get_next(datetime)
    except Exception as exc:
        return (type(exc).__name__, str(exc))
    assert isinstance(value, datetime)
    return value


def croniter_prev(expression: str, wall: datetime) -> Outcome:
    try:
        value = croniter(expression, start_time=wall).get_prev(datetime)
    except Exception as exc:
        return (type(exc).__name__, str(exc))
    assert isinstance(value, datetime)
    return value


def fast_next(cron: WallClockCron, wall: datetime) -> Outcome:
    try:
        return cron.next_after(wall)
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def fast_prev(cron: WallClockCron, wall: datetime) -> Outcome:
    try:
        return cron.prev_before(wall)
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def assert_same_as_croniter(expression: str, wall: datetime) -> None:
    cron = WallClockCron(expression)
    assert fast_next(cron, wall) == croniter_next(expression, wall), ("next", expression, wall)
    assert fast_prev(cron, wall) == croniter_prev(expression, wall), ("prev", expression, wall)


# --- strategies -------------------------------------------------------------------------


@st.composite
def numeric_item(draw: st.DrawFn, low: int, high: int, names: tuple[str, ...] = ()) -> str:
    """One comma-separated item: value, range, ``*/n``, ``a-b/n`` or ``a/n``."""

    def value(v: int) -> str:
        if names and v - low < len(names) and draw(st.booleans()):
            return names[v - low]
        return str(v)

    a = draw(st.integers(low, high))
    b = draw(st.integers(low, high))
    step = draw(st.integers(1, high - low + 2))
    kind = draw(st.sampled_from(["value", "range", "star-step", "range-step", "start-step"]))
    if kind == "value":
        return value(a)
    if kind == "range":  # reversed ranges (b < a) wrap around in croniter
        return f"{value(a)}-{value(b)}"
    if kind == "star-step":
        return f"*/{step}"
    if kind == "range-step":
        return f"{value(min(a, b))}-{value(max(a, b))}/{step}"
    return f"{value(a)}/{step}"


def plain_field(low: int, high: int, names: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    """``*``, or a list of items; one list in ten also holds a ``*`` (which croniter
    keeps in the expansion and then reads as "unrestricted")."""
    items = st.lists(numeric_item(low, high, names), min_size=1, max_size=3).map(",".join)
    with_star = st.tuples(items, st.integers(0, 9)).map(
        lambda pair: f"*,{pair[0]}" if pair[1] == 0 else pair[0]
    )
    return st.one_of(st.just("*"), with_star)


def day_of_month_field() -> st.SearchStrategy[str]:
    return st.one_of(
        plain_field(1, 31),
        st.just("L"),
        plain_field(1, 31).map(lambda f: f"{f},L"),
        st.sampled_from(["28", "29", "30", "31", "29-31", "1,15"]),
    )


def day_of_week_field() -> st.SearchStrategy[str]:
    weekday = st.one_of(st.integers(0, 7).map(str), st.sampled_from(DOW_NAMES))
    nth = st.builds(lambda d, n: f"{d}#{n}", weekday, st.integers(1, 5))
    last = st.integers(0, 7).map(lambda d: f"L{d}")  # croniter's "last <weekday> of month"
    special = st.lists(st.one_of(nth, last), min_size=1, max_size=2).map(",".join)
    return st.one_of(plain_field(0, 7, (*DOW_NAMES, "sun")), special)


@st.composite
def cron_expressions(draw: st.DrawFn) -> str:
    fields = [
        draw(plain_field(0, 59)),
        draw(plain_field(0, 23)),
        draw(day_of_month_field()),
        draw(plain_field(1, 12, MONTH_NAMES)),
        draw(day_of_week_field()),
    ]
    extra = draw(st.integers(0, 5))
    if extra >= 3:
        fields.append(draw(plain_field(0, 59)))  # croniter's 6th field: seconds
    if extra == 5:
        fields.append(draw(plain_field(1970, 2099)))  # and its 7th: years
    return " ".join(fields)


@st.composite
def naive_instants(draw: st.DrawFn) -> datetime:
    """Naive readings 1990-2060, biased towards boundaries (midnight, month and year ends)."""
    moment = draw(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2060, 12, 31)))
    shape = draw(st.sampled_from(["exact", "whole-second", "whole-minute", "midnight", "edge"]))
    if shape == "whole-second":
        moment = moment.replace(microsecond=0)
    elif shape == "whole-minute":
        moment = moment.replace(second=0, microsecond=0)
    elif shape == "midnight":
        moment = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    elif shape == "edge":
        first = datetime(moment.year, moment.month, 1)
        moment = draw(
            st.sampled_from(
                [first, first - timedelta(seconds=1), first - timedelta(microseconds=1)]
            )
        )
    return moment


# --- differential properties ------------------------------------------------------------


# Example counts keep the whole file under ~15 s of CPU: croniter costs 0.2 ms a
# call, and tens of milliseconds for sparse expressions it searches for 50 years.
def differential(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )


@differential(120)
@given(expression=cron_expressions(), walls=st.lists(naive_instants(), min_size=1, max_size=3))
def test_next_after_and_prev_before_equal_croniter_for_random_expressions(
    expression: str, walls: list[datetime]
) -> None:
    assert croniter.is_valid(expression), expression  # the strategy only builds valid ones
    for wall in walls:
        assert_same_as_croniter(expression, wall)


@differential(80)
@given(expression=cron_expressions(), wall=naive_instants())
def test_stepping_from_a_tick_reaches_the_neighbouring_ticks_like_croniter(
    expression: str, wall: datetime
) -> None:
    """Walls that are themselves ticks: the cases where "strictly" matters."""
    cron = WallClockCron(expression)
    tick = fast_next(cron, wall)
    if isinstance(tick, datetime):
        assert_same_as_croniter(expression, tick)
        assert_same_as_croniter(expression, tick + timedelta(microseconds=1))
        assert_same_as_croniter(expression, tick - timedelta(microseconds=1))


REGRESSIONS = [
    "0 0 29 2 *",  # leap days only
    "0 0 31 * *",  # months without a 31st are skipped
    "0 0 1 * 1",  # day of month OR Monday
    "*/15 1-3 * * *",
    "0 */2 * * *",
    "0 0 L * *",
    "0 0 * * L5",  # last Friday (croniter's spelling)
    "0 0 * * 5L",  # Quartz spelling: croniter rejects it, so must we
    "0 0 * * 1#2",
    "0 0 * * 1#2,1",  # croniter ignores the plain 1 next to 1#2
    "0 0 * * 1#5",  # fifth Monday: absent from most months
    "0 0 * * * 30",  # seconds field
    "0 3 * * 1-5",
    "0 0 * * 0",
    "0 0 * * 7",
    "0 0 * * 5-7",
    "0 0 1 * 0-6",  # a full weekday list next to a restricted day still ORs: every day
    "0 0 1-31 * 1",
    "0 0 30 2 *",  # never fires: CroniterBadDateError
    "0 0 31 2 mon",  # OR with an impossible side
    "0 0 1 1 * 0 2030",  # year field
    "0 0 1 1 * 0 2099",  # beyond croniter's 50-year window from most starts
    "0 0 29 2 * 0 2100",  # not a leap year: never
    "@midnight",
    "@annually",
    "@daily",
    "* * * * *",
    "* * * * * *",
]

REGRESSION_WALLS = [
    datetime(1990, 1, 1),
    datetime(1999, 12, 31, 23, 59, 59, 999999),
    datetime(2000, 2, 28, 23, 59),
    datetime(2024, 2, 29, 0, 0),
    datetime(2024, 3, 1, 0, 0, 0, 1),
    datetime(2025, 12, 31, 23, 59, 30),
    datetime(2026, 1, 1),
    datetime(2031, 7, 15, 12, 34, 56, 789),
    datetime(2060, 12, 31, 23, 59, 59),
]


@pytest.mark.parametrize("expression", REGRESSIONS)
@pytest.mark.parametrize("wall", REGRESSION_WALLS, ids=str)
def test_regression_expressions_step_like_croniter(expression: str, wall: datetime) -> None:
    assert_same_as_croniter(expression, wall)


@differential(60)
@given(expression=st.sampled_from(REGRESSIONS), wall=naive_instants())
def test_regression_expressions_step_like_croniter_from_random_instants(
    expression: str, wall: datetime
) -> None:
    assert_same_as_croniter(expression, wall)


def test_typical_expressions_take_the_fast_path() -> None:
    for expression in ["0 * * * *", "0 0 * * *", "*/15 * * * *", "0 0 * * 0", "0 0 1 * *",
                       "0 3 * * 1-5", "0 0 * * * 30", "0 0 L * *", "0 0 * * 1#2"]:  # fmt: skip
        assert WallClockCron(expression)._plan is not None, expression


# --- the croniter fallback --------------------------------------------------------------

FALLBACK_EXPRESSIONS = [
    "0 0 15W * *",  # nearest weekday
    "0 0 1W * *",
    "0 0 15 * 1#2",  # '#' with a restricted day of month: croniter intersects
    "0 0 1 * 1#3",  # ... and raises when the intersection is empty
    "0 0 8-14 * L5",
    "not a cron",  # invalid: croniter's error, raised at every call
    "61 * * * *",
    "0 0 * * 1#2,3",
    "H * * * *",  # hashed without a hash id: an error
]


@pytest.mark.parametrize("expression", FALLBACK_EXPRESSIONS)
@pytest.mark.parametrize("wall", REGRESSION_WALLS, ids=str)
def test_constructs_routed_to_croniter_answer_like_croniter(
    expression: str, wall: datetime
) -> None:
    assert WallClockCron(expression)._plan is None
    assert_same_as_croniter(expression, wall)


def test_random_fields_are_drawn_by_croniter_at_every_call() -> None:
    cron = WallClockCron("R 0 * * *")
    assert cron._plan is None
    wall = datetime(2024, 5, 5, 12, 0)
    random.seed(1234)
    expected = croniter("R 0 * * *", start_time=wall).get_next(datetime)
    random.seed(1234)
    assert cron.next_after(wall) == expected


@pytest.mark.parametrize(
    "wall", [datetime(1650, 3, 1, 0, 0, 0, 1), datetime(2300, 3, 1, 12, 0, 0, 999999)], ids=str
)
def test_instants_outside_the_fast_years_are_answered_by_croniter(wall: datetime) -> None:
    assert_same_as_croniter("*/5 * * * * *", wall)
    assert_same_as_croniter("0 0 29 2 *", wall)


def test_aware_instants_are_answered_by_croniter() -> None:
    wall = datetime(2024, 3, 10, 1, 30, tzinfo=UTC)
    cron = WallClockCron("0 * * * *")
    assert cron.next_after(wall) == croniter("0 * * * *", start_time=wall).get_next(datetime)
    assert cron.prev_before(wall) == croniter("0 * * * *", start_time=wall).get_prev(datetime)


def utc_outcome(outcome: Outcome) -> Outcome:
    """A naive outcome read as a UTC instant (errors unchanged)."""
    return outcome.replace(tzinfo=UTC) if isinstance(outcome, datetime) else outcome


def assert_utc_path_same_as_croniter(expression: str, wall: datetime) -> None:
    """``tz=UTC``: an aware UTC instant in, croniter's naive answer as UTC out."""
    cron = WallClockCron(expression)
    instant = wall.replace(tzinfo=UTC)
    try:
        got_next: Outcome = cron.next_after(instant, UTC)
    except Exception as exc:
        got_next = (type(exc).__name__, str(exc))
    try:
        got_prev: Outcome = cron.prev_before(instant, UTC)
    except Exception as exc:
        got_prev = (type(exc).__name__, str(exc))
    assert got_next == utc_outcome(croniter_next(expression, wall)), ("next", expression, wall)
    assert got_prev == utc_outcome(croniter_prev(expression, wall)), ("prev", expression, wall)
    for got in (got_next, got_prev):
        if isinstance(got, datetime):
            assert got.tzinfo is UTC


@differential(80)
@given(expression=cron_expressions(), wall=naive_instants())
def test_utc_instants_step_like_croniter_on_their_wall_reading(
    expression: str, wall: datetime
) -> None:
    assert_utc_path_same_as_croniter(expression, wall)


@pytest.mark.parametrize("expression", [*FALLBACK_EXPRESSIONS[:3], "0 0 29 2 *"])
@pytest.mark.parametrize(
    "wall", [datetime(2024, 5, 5, 12, 0), datetime(2300, 3, 1, 12, 0, 0, 999999)], ids=str
)
def test_utc_instants_routed_to_croniter_come_back_as_utc(expression: str, wall: datetime) -> None:
    assert_utc_path_same_as_croniter(expression, wall)
