"""A DAG's ``schedule`` value, read as Airflow 3.3.2 reads ``schedule=`` (TT-1).

The JSON spelling is Airflow's: class and argument names are the ones a user
would write in a DAG file; durations are ISO-8601 strings (``timedelta``) or
``{"relativedelta": {...}}``. This module converts the JSON to Python values
and asks the engine's factory for the timetable; every refusal comes back as
a :class:`ScenarioError` at the JSON path of the part that is wrong.

Asset-driven schedules are read but not simulated yet: a condition becomes
Airflow's ``AssetTriggeredTimetable`` (which never schedules by itself), and
a note says so, rather than the file being refused or the DAG dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from explorer.engine.errors import EngineError
from explorer.engine.timetables import (
    TIMETABLE_ARGS,
    AssetTriggeredTimetable,
    Timetable,
    timetable_from_schedule,
    timetable_from_spec,
)
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean
from explorer.scenario.values import JsonValue, parse_duration, parse_instant, parse_relativedelta

__all__ = ["ASSET_TIMETABLE_ARGS", "ScheduleReading", "read_schedule", "timetable_names"]

#: Airflow's asset-driven timetable classes and their arguments (required, optional).
ASSET_TIMETABLE_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "AssetOrTimeSchedule": (("timetable", "assets"), ()),
    "PartitionedAssetTimetable": (
        ("assets",),
        ("partition_mapper_config", "default_partition_mapper"),
    ),
}

_NOT_SIMULATED = "asset-driven scheduling is not simulated yet"


@dataclass(frozen=True, slots=True)
class ScheduleReading:
    """The timetable a schedule gives, and what about it is not simulated yet."""

    timetable: Timetable
    notes: tuple[str, ...] = ()


def timetable_names() -> list[str]:
    """Every timetable class name a scenario may use."""
    return sorted([*TIMETABLE_ARGS, *ASSET_TIMETABLE_ARGS])


def read_schedule(
    schedule: JsonValue,
    *,
    source: str,
    path: JsonPath,
    dag_timezone: str,
    create_cron_data_intervals: bool = False,
) -> ScheduleReading:
    """The timetable for one schema-valid ``schedule`` value found at ``path``."""
    reader = _Reader(source, dag_timezone, create_cron_data_intervals)
    return reader.schedule(schedule, path)


class _Reader:
    def __init__(self, source: str, dag_timezone: str, create_cron_data_intervals: bool) -> None:
        self.source = source
        self.dag_timezone = dag_timezone
        self.create_cron_data_intervals = create_cron_data_intervals

    def fail(self, path: JsonPath, message: str) -> ScenarioError:
        return ScenarioError(self.source, path, message)

    def schedule(self, value: JsonValue, path: JsonPath) -> ScheduleReading:
        if value is None or isinstance(value, str):
            return ScheduleReading(self.plain(value, path))
        if isinstance(value, dict) and "timetable" in value:
            return self.timetable(value, path)
        if isinstance(value, dict) and ("timedelta" in value or "relativedelta" in value):
            key = "timedelta" if "timedelta" in value else "relativedelta"
            return ScheduleReading(self.plain(_delta(value), (*path, key)))
        note = f"{_NOT_SIMULATED}: this DAG runs only when triggered"
        return ScheduleReading(AssetTriggeredTimetable(), (note,))

    def plain(self, value: str | timedelta | relativedelta | None, path: JsonPath) -> Timetable:
        try:
            return timetable_from_schedule(
                value,
                dag_timezone=self.dag_timezone,
                create_cron_data_intervals=self.create_cron_data_intervals,
            )
        except EngineError as exc:
            raise self.fail(path, str(exc)) from exc

    def timetable(self, value: Mapping[str, Any], path: JsonPath) -> ScheduleReading:
        name: str = value["timetable"]
        args: dict[str, Any] = {
            k: v for k, v in value.get("args", {}).items() if not k.startswith("x-")
        }
        self.check_arguments(name, args, path, has_args="args" in value)
        if name == "AssetOrTimeSchedule":
            inner = self.timetable(args["timetable"], (*path, "args", "timetable"))
            if inner.timetable.asset_triggered:
                message = "AssetOrTimeSchedule needs a time-based timetable, not an asset one"
                raise self.fail((*path, "args", "timetable"), message)
            note = f"{_NOT_SIMULATED}: only the time side of AssetOrTimeSchedule runs"
            return ScheduleReading(inner.timetable, (*inner.notes, note))
        if name == "PartitionedAssetTimetable":
            note = f"{_NOT_SIMULATED}: this DAG runs only when triggered"
            return ScheduleReading(AssetTriggeredTimetable(), (note,))
        try:
            built = timetable_from_spec(name, _engine_args(args), dag_timezone=self.dag_timezone)
        except EngineError as exc:
            raise self.fail((*path, "args") if "args" in value else path, str(exc)) from exc
        return ScheduleReading(built)

    def check_arguments(
        self, name: str, args: Mapping[str, Any], path: JsonPath, *, has_args: bool
    ) -> None:
        """Name the exact place of an unknown class, a missing or an unknown argument."""
        known = {**TIMETABLE_ARGS, **ASSET_TIMETABLE_ARGS}
        if name not in known:
            raise self.fail(
                (*path, "timetable"),
                f"unknown timetable {name!r}{did_you_mean(name, list(known))}; "
                f"expected one of: {', '.join(timetable_names())}",
            )
        required, optional = known[name]
        takes = ", ".join((*required, *optional)) or "no arguments"
        for arg in args:
            if arg not in required and arg not in optional:
                raise self.fail(
                    (*path, "args", arg), f"{name} has no argument {arg!r}; it takes: {takes}"
                )
        missing = [a for a in required if a not in args]
        if missing:
            where = (*path, "args") if has_args else path
            raise self.fail(where, f"{name} needs argument(s): {', '.join(missing)}")


def _delta(value: Mapping[str, Any]) -> timedelta | relativedelta:
    """``"PT6H"``, ``{"timedelta": "PT6H"}`` or ``{"relativedelta": {"months": 1}}``."""
    if "relativedelta" in value:
        return parse_relativedelta(value["relativedelta"])
    return parse_duration(value["timedelta"])


def _engine_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """Scenario spellings -> the Python values Airflow's constructors take."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key in ("interval", "delta"):
            out[key] = parse_duration(value) if isinstance(value, str) else _delta(value)
        elif key == "run_immediately" and isinstance(value, str):
            out[key] = parse_duration(value)
        elif key == "event_dates":
            out[key] = [parse_instant(v) for v in value]
        else:
            out[key] = value
    return out
