"""Naive wall-clock stepping of a cron expression.

Reference implementation: delegates to croniter on every call. It is correct
by construction (croniter is what Airflow uses) but slow; it is replaced by a
precomputed expansion with the same interface.
"""

from __future__ import annotations

from datetime import datetime

from croniter import croniter


class WallClockCron:
    """Next/previous naive readings matching ``expression`` (croniter's dialect)."""

    __slots__ = ("expression",)

    def __init__(self, expression: str) -> None:
        self.expression = expression

    def next_after(self, wall: datetime) -> datetime:
        value = croniter(self.expression, start_time=wall).get_next(datetime)
        assert isinstance(value, datetime)
        return value

    def prev_before(self, wall: datetime) -> datetime:
        value = croniter(self.expression, start_time=wall).get_prev(datetime)
        assert isinstance(value, datetime)
        return value
