"""Airflow 3.3.2's timetables, re-implemented with the clock as an argument."""

from explorer.engine.timetables.base import Timetable, TimetableError
from explorer.engine.timetables.events import EventsTimetable
from explorer.engine.timetables.factory import (
    TIMETABLE_ARGS,
    timetable_from_schedule,
    timetable_from_spec,
)
from explorer.engine.timetables.interval import (
    CronDataIntervalTimetable,
    DeltaDataIntervalTimetable,
)
from explorer.engine.timetables.simple import (
    AssetOrTimeSchedule,
    AssetTriggeredTimetable,
    ContinuousTimetable,
    NullTimetable,
    OnceTimetable,
    PartitionedAtRuntime,
)
from explorer.engine.timetables.trigger import (
    CronPartitionTimetable,
    CronTriggerTimetable,
    DeltaTriggerTimetable,
    MultipleCronTriggerTimetable,
)

__all__ = [
    "TIMETABLE_ARGS",
    "AssetOrTimeSchedule",
    "AssetTriggeredTimetable",
    "ContinuousTimetable",
    "CronDataIntervalTimetable",
    "CronPartitionTimetable",
    "CronTriggerTimetable",
    "DeltaDataIntervalTimetable",
    "DeltaTriggerTimetable",
    "EventsTimetable",
    "MultipleCronTriggerTimetable",
    "NullTimetable",
    "OnceTimetable",
    "PartitionedAtRuntime",
    "Timetable",
    "TimetableError",
    "timetable_from_schedule",
    "timetable_from_spec",
]
