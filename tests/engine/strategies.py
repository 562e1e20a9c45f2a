"""Hypothesis strategies shared by the random-scenario tests (the invariants in
``test_random_scenarios`` and the two-path test in ``test_bulk_path``), so both draw
clock timetables the same way."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import strategies as st

from explorer.engine.timetables import CronTriggerTimetable, Timetable, timetable_from_schedule
from explorer.engine.timetables.interval import DeltaDataIntervalTimetable

__all__ = ["CRONS", "clock_timetable", "minutes"]

#: Hourly, sub-hourly, a DST-night hour (02:30), every third hour and midnight.
CRONS = ("0 * * * *", "*/20 * * * *", "30 2 * * *", "15 */3 * * *", "0 0 * * *", "@hourly")


def minutes(lo: int, hi: int) -> st.SearchStrategy[timedelta]:
    return st.integers(lo, hi).map(lambda m: timedelta(minutes=m))


@st.composite
def clock_timetable(draw: st.DrawFn, zone: str) -> Timetable:
    """A time-driven timetable in ``zone``: a plain cron (CronTriggerTimetable), a cron
    with data intervals, a timedelta, or a cron trigger with an interval."""
    kind = draw(st.sampled_from(["cron", "data_interval", "delta", "interval_trigger"]))
    if kind == "delta":
        return DeltaDataIntervalTimetable(draw(minutes(20, 360)))
    cron = draw(st.sampled_from(CRONS))
    if kind == "data_interval":
        return timetable_from_schedule(cron, dag_timezone=zone, create_cron_data_intervals=True)
    if kind == "interval_trigger":
        return CronTriggerTimetable(cron, timezone=zone, interval=draw(minutes(30, 240)))
    return timetable_from_schedule(cron, dag_timezone=zone)
