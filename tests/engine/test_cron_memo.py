"""ZonedCron remembers its last ``next`` answer: a repeated question gets the same answer
as a fresh cron, and a question that only looks equal (another zone, another fold) is
answered afresh."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.cron import ZonedCron

LONDON = ZoneInfo("Europe/London")
EXPRESSIONS = ["0 * * * *", "30 1 * * *", "*/15 * * * *", "0 6 * * 1", "0 0 1 * *"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(EXPRESSIONS),
    st.sampled_from(["UTC", "Europe/London", "America/New_York"]),
    st.lists(st.datetimes(datetime(2024, 1, 1), datetime(2025, 1, 1)), min_size=1, max_size=8),
)
def test_a_chain_of_questions_gets_a_fresh_crons_answers(
    expression: str, zone: str, walls: list[datetime]
) -> None:
    cron = ZonedCron(expression, UTC if zone == "UTC" else ZoneInfo(zone))
    questions: list[datetime] = []
    for wall in walls:
        start = wall.replace(tzinfo=UTC)
        nxt = cron.next(start)
        questions += [start, nxt, cron.prev(nxt), nxt]  # the scheduler's repeats
    for current in questions:
        fresh = ZonedCron(expression, cron.zone)
        assert cron.next(current) == fresh.next(current)


def test_an_equal_instant_in_another_form_is_answered_afresh() -> None:
    """A UTC cron reads the wall clock of its input; a London reading of the same
    instant, or the other fold of a repeated reading, is not the remembered question."""
    cron = ZonedCron("0 1 * * *", UTC)
    at = datetime(2024, 7, 1, 0, 30, tzinfo=UTC)
    first = cron.next(at)
    same_instant = at.astimezone(LONDON)  # 01:30 BST: a UTC cron reads 01:30 past 01:00
    assert cron.next(same_instant) == ZonedCron("0 1 * * *", UTC).next(same_instant) != first
    assert cron.next(at) == first
    early = datetime(2024, 10, 27, 1, 30, tzinfo=LONDON)  # fold 0: 00:30 UTC
    late = early.replace(fold=1)  # 01:30 UTC
    london = ZonedCron("0 * * * *", LONDON)
    assert london.next(early) == ZonedCron("0 * * * *", LONDON).next(early)
    assert london.next(late) == ZonedCron("0 * * * *", LONDON).next(late)


def _before_shifts_by_reading(cron: ZonedCron, tick: datetime) -> datetime:
    """The rule itself: the tick, unless the zone's offset 3 h before it is another one."""
    earlier = tick - timedelta(hours=3)
    if earlier.astimezone(cron.zone).utcoffset() == tick.astimezone(cron.zone).utcoffset():
        return tick
    return earlier


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["Europe/London", "America/New_York", "Australia/Lord_Howe", "Asia/Tehran"]),
    st.lists(
        st.datetimes(datetime(2023, 12, 25), datetime(2025, 1, 5)).map(
            lambda d: d.replace(microsecond=0, tzinfo=UTC)
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_before_shifts_reads_the_zone_as_the_rule_says(zone: str, ticks: list[datetime]) -> None:
    """DST-3: ``before_shifts`` answers from the zone's offset spans and remembers the
    span it found; every answer, in any order and across year ends, is the rule's."""
    cron = ZonedCron("0 * * * *", ZoneInfo(zone))
    for tick in ticks:
        assert cron.before_shifts(tick) == _before_shifts_by_reading(cron, tick)


def test_before_shifts_around_a_transition() -> None:
    """New York springs forward at 2024-03-10 07:00 UTC: the three hours after it answer
    3 h early, the second before it and everything from 10:00 on answer the tick."""
    cron = ZonedCron("0 * * * *", ZoneInfo("America/New_York"))
    change = datetime(2024, 3, 10, 7, tzinfo=UTC)
    for tick in (change - timedelta(seconds=1), change + timedelta(hours=3)):
        assert cron.before_shifts(tick) == tick
    for tick in (change, change + timedelta(hours=3) - timedelta(seconds=1)):
        assert cron.before_shifts(tick) == tick - timedelta(hours=3)
