"""Microseconds per ``next_after``/``prev_before`` call: WallClockCron against croniter.

Calls each method on 20,000 readings spread over six years and prints the mean
cost of a call (the fast path's one-off work, building a table of matching days
per year, is included and amortised). Informative only: asserts nothing.

Usage::

    python benchmarks/bench_cron.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from croniter import croniter

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.engine.cronfast import WallClockCron

EXPRESSIONS = [
    "0 * * * *",
    "0 0 * * *",
    "*/15 * * * *",
    "0 0 * * 0",
    "0 0 1 * *",
    "0 3 * * 1-5",
    "0 0 * * * 30",
    "0 0 L * *",
    "0 0 * * 1#2",
    "0 0 29 2 *",
]
# Readings spread over 2024-2029 (every ~2.2 hours, odd seconds, some microseconds),
# so calls land both on firing days and between them, as a simulation's do.
WALLS = [
    datetime(2024, 1, 1) + timedelta(seconds=7919 * k, microseconds=(k % 3) * 250_000)
    for k in range(20_000)
]


def per_call_us(step: Callable[[datetime], datetime], walls: list[datetime]) -> float:
    """Mean microseconds per call over ``walls``."""
    t0 = time.perf_counter()
    for wall in walls:
        step(wall)
    return (time.perf_counter() - t0) / len(walls) * 1e6


def croniter_next(expression: str) -> Callable[[datetime], datetime]:
    def step(wall: datetime) -> datetime:
        value = croniter(expression, start_time=wall).get_next(datetime)
        assert isinstance(value, datetime)
        return value

    return step


def main() -> None:
    print(f"{'expression':<16} {'fast next':>10} {'fast prev':>10} {'croniter':>10}  speed-up")
    for expression in EXPRESSIONS:
        cron = WallClockCron(expression)
        fast_next = per_call_us(cron.next_after, WALLS)  # includes building the day tables
        fast_prev = per_call_us(cron.prev_before, WALLS)
        slow = per_call_us(croniter_next(expression), WALLS[::40])
        print(
            f"{expression:<16} {fast_next:>8.2f}us {fast_prev:>8.2f}us {slow:>8.1f}us"
            f"  x{slow / fast_next:,.0f}"
        )


if __name__ == "__main__":
    main()
