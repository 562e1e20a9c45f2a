"""The timeline's drawing helpers that need Qt: time axis ticks across DST, and the
decimation of touching rectangles (America/New_York: 2024-03-10 02:00 EST -> 03:00 EDT)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from explorer.engine.tz import get_zone
from explorer.ui.timeline.axes import tick_instants
from explorer.ui.timeline.batch import decimate

NY = "America/New_York"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


class TestTimeAxis:
    def test_hourly_ticks_skip_the_wall_hour_that_does_not_exist(self) -> None:
        ticks = tick_instants(
            utc(2024, 3, 10, 5).timestamp(), utc(2024, 3, 10, 9).timestamp(), 3600, get_zone(NY)
        )
        walls = [datetime.fromtimestamp(x, UTC).astimezone(get_zone(NY)).hour for x in ticks]
        assert walls == [0, 1, 3, 4, 5]

    def test_daily_ticks_stay_on_local_midnight_across_dst(self) -> None:
        ticks = tick_instants(
            utc(2024, 3, 9).timestamp(), utc(2024, 3, 12).timestamp(), 86400, get_zone(NY)
        )
        assert [datetime.fromtimestamp(x, UTC) for x in ticks] == [
            utc(2024, 3, 9, 5),
            utc(2024, 3, 10, 5),
            utc(2024, 3, 11, 4),
        ]


class TestDecimation:
    def test_touching_rectangles_of_one_band_become_one(self) -> None:
        n = 10_000
        x0 = np.repeat(np.arange(100, dtype=float), n // 100) + 0.2
        x1 = x0 + 0.3
        a, b, c, d = decimate(x0, x1, np.zeros(n), np.full(n, 10.0))
        assert (a.tolist(), b.tolist(), c.tolist(), d.tolist()) == ([0], [100], [0], [10])

    def test_gaps_and_bands_are_kept(self) -> None:
        x0 = np.array([0, 5, 100, 102, 300] * 1000, dtype=float)
        y0 = np.repeat([0.0, 20.0], 2500)
        a, b, c, _ = decimate(x0, x0 + 3, y0, y0 + 5)
        assert sorted(zip(c.tolist(), a.tolist(), b.tolist(), strict=True)) == [
            (0, 0, 3),
            (0, 5, 8),
            (0, 100, 105),
            (0, 300, 303),
            (20, 0, 3),
            (20, 5, 8),
            (20, 100, 105),
            (20, 300, 303),
        ]

    def test_small_batches_are_left_alone(self) -> None:
        x = np.arange(10, dtype=float)
        assert decimate(x, x + 1, x, x + 1)[0] is x
