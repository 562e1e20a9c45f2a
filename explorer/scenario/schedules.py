"""A DAG's ``schedule`` value, read as Airflow 3.3.2 reads ``schedule=`` (TT-1).

The JSON spelling is Airflow's: class and argument names are the ones a user
would write in a DAG file; durations are ISO-8601 strings (``timedelta``) or
``{"relativedelta": {...}}``. This module converts the JSON to Python values
and asks the engine's factory for the timetable; every refusal comes back as
a :class:`ScenarioError` at the JSON path of the part that is wrong.

Asset conditions are read by the engine's condition reader, with the
scenario's declared assets (:class:`~explorer.scenario.assets.AssetCatalog`):
a condition becomes Airflow's ``AssetTriggeredTimetable``, and
``AssetOrTimeSchedule`` holds its time-based timetable and its condition.
``PartitionedAssetTimetable`` is not simulated yet: it keeps its condition
in an ``AssetTriggeredTimetable`` (so it can be shown and explained) and a
note says what differs from Airflow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from explorer.engine.assets.condition import Condition
from explorer.engine.errors import EngineError
from explorer.engine.timetables import (
    TIMETABLE_ARGS,
    AssetOrTimeSchedule,
    AssetTriggeredTimetable,
    Timetable,
    timetable_from_schedule,
    timetable_from_spec,
)
from explorer.scenario.assets import AssetCatalog
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean
from explorer.scenario.values import JsonValue, parse_duration, parse_instant, parse_relativedelta

__all__ = [
    "ASSET_TIMETABLE_ARGS",
    "PARTITIONED_NOTE",
    "ScheduleReading",
    "read_schedule",
    "timetable_names",
]

#: Airflow's asset-driven timetable classes and their arguments (required, optional).
ASSET_TIMETABLE_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "AssetOrTimeSchedule": (("timetable", "assets"), ()),
    "PartitionedAssetTimetable": (
        ("assets",),
        ("partition_mapper_config", "default_partition_mapper"),
    ),
}

#: What a PartitionedAssetTimetable DAG does in this version, and how that differs from Airflow.
PARTITIONED_NOTE = (
    "PartitionedAssetTimetable is not simulated yet (partitioned asset scheduling comes next): "
    "this DAG runs as a plain asset-triggered DAG on the same condition, so events without a "
    "partition key trigger it (Airflow would only log 'missing partition key') and keyed "
    "events do not"
)


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
    assets: AssetCatalog | None = None,
) -> ScheduleReading:
    """The timetable for one schema-valid ``schedule`` value found at ``path``.

    ``assets`` resolves ``{"asset": "<declared name>"}`` (none declared if omitted).
    """
    reader = _Reader(source, dag_timezone, create_cron_data_intervals, assets or AssetCatalog(()))
    return reader.schedule(schedule, path)


class _Reader:
    def __init__(
        self,
        source: str,
        dag_timezone: str,
        create_cron_data_intervals: bool,
        assets: AssetCatalog,
    ) -> None:
        self.source = source
        self.dag_timezone = dag_timezone
        self.create_cron_data_intervals = create_cron_data_intervals
        self.assets = assets

    def fail(self, path: JsonPath, message: str) -> ScenarioError:
        return ScenarioError(self.source, path, message)

    def condition(self, value: JsonValue, path: JsonPath) -> Condition:
        try:
            return self.assets.condition(value, path)
        except ScenarioError as exc:
            raise self.fail(exc.steps, exc.message) from exc

    def schedule(self, value: JsonValue, path: JsonPath) -> ScheduleReading:
        if value is None or isinstance(value, str):
            return ScheduleReading(self.plain(value, path))
        if isinstance(value, dict) and "timetable" in value:
            return self.timetable(value, path)
        if isinstance(value, dict) and ("timedelta" in value or "relativedelta" in value):
            key = "timedelta" if "timedelta" in value else "relativedelta"
            return ScheduleReading(self.plain(_delta(value), (*path, key)))
        return ScheduleReading(AssetTriggeredTimetable(self.condition(value, path)))

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
            where = (*path, "args", "timetable")
            message = "AssetOrTimeSchedule needs a time-based timetable, not an asset one"
            if args["timetable"].get("timetable") in ASSET_TIMETABLE_ARGS:
                raise self.fail(where, message)
            inner = self.timetable(args["timetable"], where)
            if inner.timetable.asset_triggered:
                raise self.fail(where, message)
            assets = self.condition(args["assets"], (*path, "args", "assets"))
            try:
                combined = AssetOrTimeSchedule(timetable=inner.timetable, assets=assets)
            except EngineError as exc:
                raise self.fail(where, str(exc)) from exc
            return ScheduleReading(combined, inner.notes)
        if name == "PartitionedAssetTimetable":
            assets = self.condition(args["assets"], (*path, "args", "assets"))
            return ScheduleReading(AssetTriggeredTimetable(assets), (PARTITIONED_NOTE,))
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
