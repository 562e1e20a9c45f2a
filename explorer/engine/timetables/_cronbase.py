"""Shared pieces of the cron-based timetables (``timetables/_cron.py::CronMixin``)."""

from __future__ import annotations

from datetime import tzinfo

from explorer.engine.cron import ZonedCron
from explorer.engine.describe import describe_cron
from explorer.engine.tz import get_zone


class CronBased:
    """A cron expression read in an IANA zone (the DAG's zone unless given, TT-1)."""

    def __init__(self, cron: str, timezone: str) -> None:
        self.timezone_name = timezone
        self.zone: tzinfo = get_zone(timezone)
        self.cron = ZonedCron(cron, self.zone)
        self.expression = self.cron.expression

    @property
    def summary(self) -> str:
        return self.expression

    @property
    def description(self) -> str:
        return describe_cron(self.expression)
