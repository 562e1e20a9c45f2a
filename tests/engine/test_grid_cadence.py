"""The loop grid's own ``after`` and ``contains`` answer what the generic cadence does.

``GridCadence`` overrides them with one division each because the loop asks them at
every instant (issue 14); these tests hold the shortcuts to the generic definitions
(``after``: the next instant strictly later; ``contains``: ``at_or_after(t) == t``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

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
