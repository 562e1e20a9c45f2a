"""ZonedCron remembers its last ``next`` answer: a repeated question gets the same answer
as a fresh cron, and a question that only looks equal (another zone, another fold) is
answered afresh."""

from __future__ import annotations

from datetime import UTC, datetime
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
