"""The loop grid's own ``after`` and ``contains`` answer what the generic cadence does.

``GridCadence`` overrides them with one division each because the loop asks them at
every instant; these tests hold the shortcuts to the generic definitions
(``after``: the next instant strictly later; ``contains``: ``at_or_after(t) == t``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.ticks import Cadence, GridCadence

ORIGIN = datetime(2024, 3, 10, 1, 59, 57, 250_000, tzinfo=UTC)


@settings(max_examples=500, deadline=None)
@given(
    step_us=st.sampled_from((1, 7, 1_000_000, 5_000_000, 60_000_000, 86_400_000_000)),
    steps=st.integers(-50, 50),
    jitter_us=st.integers(-3, 3),
)
def test_after_and_contains_match_the_generic_cadence(
    step_us: int, steps: int, jitter_us: int
) -> None:
    step = timedelta(microseconds=step_us)
    grid = GridCadence(ORIGIN, step)
    t = ORIGIN + steps * step + timedelta(microseconds=jitter_us)
    assert grid.after(t) == Cadence.after(grid, t)
    assert grid.contains(t) == Cadence.contains(grid, t)


def test_the_origin_and_the_instant_before_it() -> None:
    grid = GridCadence(ORIGIN, timedelta(seconds=5))
    assert grid.contains(ORIGIN)
    assert grid.after(ORIGIN) == ORIGIN + timedelta(seconds=5)
    assert not grid.contains(ORIGIN - timedelta(seconds=5))
    assert grid.after(ORIGIN - timedelta(seconds=5)) == ORIGIN


WHOLE_ORIGIN = datetime(2024, 3, 1, tzinfo=UTC)


def _by_division(origin: datetime, step: timedelta, t: datetime) -> tuple[object, ...]:
    """Every question answered the arithmetic way, on timedeltas."""
    before = None if t < origin else origin + ((t - origin) // step) * step
    at_or_after = origin if t <= origin else origin - ((origin - t) // step) * step
    steps = -1 if t < origin else (t - origin) // step
    return before, at_or_after, steps


@settings(max_examples=500, deadline=None)
@given(
    whole=st.booleans(),
    offset_us=st.integers(-3 * 86_400_000_000, 40 * 86_400_000_000),
    other_zone=st.booleans(),
)
def test_a_one_second_grid_places_instants_as_the_divisions_do(
    whole: bool, offset_us: int, other_zone: bool
) -> None:
    """A one-second grid from a whole second reads an instant's own fields;
    every answer is the division's, object for object (zone included), and an instant in
    another zone object, or a grid from a fraction of a second, takes the divisions."""
    origin = WHOLE_ORIGIN if whole else WHOLE_ORIGIN + timedelta(microseconds=250_000)
    step = timedelta(seconds=1)
    grid = GridCadence(origin, step)
    t = origin + timedelta(microseconds=offset_us)
    if other_zone:
        t = t.astimezone(ZoneInfo("Etc/UTC"))  # equal instants, another tzinfo object
        assert t.tzinfo is not UTC
    before, at_or_after, steps = _by_division(origin, step, t)
    for found, expected in ((grid.at_or_before(t), before), (grid.at_or_after(t), at_or_after)):
        assert found == expected
        assert found is None or found.tzinfo is expected.tzinfo  # type: ignore[union-attr]
    assert grid.after(t) == Cadence.after(grid, t)
    assert grid.contains(t) == Cadence.contains(grid, t)
    upto = t + timedelta(microseconds=abs(offset_us) // 3)
    expected_count = max(
        0,
        (-1 if upto < origin else (upto - origin) // step) + 1 - (0 if t < origin else steps + 1),
    )
    assert grid.count_between(t, upto) == expected_count
    assert grid.count_between(None, upto) == max(
        0, (-1 if upto < origin else (upto - origin) // step) + 1
    )
