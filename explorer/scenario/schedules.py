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
``PartitionedAssetTimetable`` is the engine's: its condition, its
``default_partition_mapper`` and its ``partition_mapper_config`` entries
(``[{"asset": <asset node>, "mapper": <mapper spec>}]``, a list since JSON
keys are strings), each mapper read by :mod:`explorer.scenario.partitions`
with its refusals located. What Airflow accepts there but never uses (an
alias as a config key, PT-16; an entry no event of the DAG's assets can
match) comes back as notes, each at its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from explorer.engine.assets.condition import AliasNode, AssetNode, Condition, RefNode, walk
from explorer.engine.errors import EngineError
from explorer.engine.timetables import (
    TIMETABLE_ARGS,
    AssetOrTimeSchedule,
    AssetTriggeredTimetable,
    Timetable,
    timetable_from_schedule,
    timetable_from_spec,
)
from explorer.engine.timetables.partitioned import PartitionedAssetTimetable
from explorer.scenario.assets import AssetCatalog
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean
from explorer.scenario.partitions import read_mapper
from explorer.scenario.values import (
    JsonValue,
    parse_duration,
    parse_instant,
    parse_relativedelta,
    relativedelta_problem,
)

__all__ = [
    "ASSET_TIMETABLE_ARGS",
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

#: (where, what): a note about a schedule, located like a problem.
Note = tuple[JsonPath, str]


@dataclass(frozen=True, slots=True)
class ScheduleReading:
    """The timetable a schedule gives, and what Airflow accepts in it but never uses."""

    timetable: Timetable
    notes: tuple[Note, ...] = ()
    #: The plain ``schedule=`` value (cron string, preset, duration) whose timetable class
    #: ``[scheduler] create_cron_data_intervals`` picks at each parse (DEP-7); None otherwise.
    plain: str | timedelta | relativedelta | None = None


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
            return ScheduleReading(self.plain(value, path), plain=value)
        if isinstance(value, dict) and "timetable" in value:
            return self.timetable(value, path)
        if isinstance(value, dict) and ("timedelta" in value or "relativedelta" in value):
            key = "timedelta" if "timedelta" in value else "relativedelta"
            delta = _delta(value)
            return ScheduleReading(self.plain(delta, (*path, key)), plain=delta)
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
            return self.partitioned(args, (*path, "args"))
        for key in ("interval", "delta"):
            step = args.get(key)
            if isinstance(step, Mapping) and isinstance(step.get("relativedelta"), Mapping):
                problem = relativedelta_problem(dict(step["relativedelta"]))
                if problem is not None:
                    raise self.fail((*path, "args", key, "relativedelta"), problem)
        try:
            built = timetable_from_spec(name, _engine_args(args), dag_timezone=self.dag_timezone)
        except EngineError as exc:
            raise self.fail((*path, "args") if "args" in value else path, str(exc)) from exc
        return ScheduleReading(built)

    def partitioned(self, args: Mapping[str, Any], path: JsonPath) -> ScheduleReading:
        """``PartitionedAssetTimetable(assets=..., default_partition_mapper=...,
        partition_mapper_config={asset: mapper, ...})``; ``path`` is its ``args``."""
        assets = self.condition(args["assets"], (*path, "assets"))
        default = None
        if args.get("default_partition_mapper") is not None:
            where = (*path, "default_partition_mapper")
            default = self.mapper(args["default_partition_mapper"], where)
        entries: list[tuple[AssetNode | RefNode | AliasNode, Any]] = []
        notes: list[Note] = []
        seen: dict[str, int] = {}
        for index, entry in enumerate(args.get("partition_mapper_config") or []):
            where = (*path, "partition_mapper_config", index)
            node = self.condition(entry["asset"], (*where, "asset"))
            if not isinstance(node, AssetNode | RefNode | AliasNode):  # the schema allows one node
                raise self.fail((*where, "asset"), "a partition_mapper_config key is one asset")
            mapper = self.mapper(entry["mapper"], (*where, "mapper"))
            entries.append((node, mapper))
            note = _config_note(node, assets, seen, index)
            if note is not None:
                notes.append(((*where, "asset"), note))
        try:
            timetable = PartitionedAssetTimetable(
                assets=assets, partition_mapper_config=entries, default_partition_mapper=default
            )
        except EngineError as exc:
            raise self.fail(path, str(exc)) from exc
        return ScheduleReading(timetable, tuple(notes))

    def mapper(self, spec: Any, path: JsonPath) -> Any:
        try:
            return read_mapper(spec, path)
        except ScenarioError as exc:
            raise self.fail(exc.steps, exc.message) from exc

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


def _config_note(
    node: AssetNode | RefNode | AliasNode, assets: Condition, seen: dict[str, int], index: int
) -> str | None:
    """Why a ``partition_mapper_config`` entry is never used, if it is not (PT-3, PT-16).

    3.3.2's ``get_partition_mapper`` looks a mapper up by the event's asset
    name, and by its uri only when the name is empty, which an event's never
    is; a later entry for the same name replaces an earlier one (a dict).
    """
    if isinstance(node, AliasNode):
        return (
            f"alias {node.name!r} cannot be a partition_mapper_config key: Airflow only logs "
            "'Partitioned Asset Alias is not supported.' and never uses this mapper (PT-16)"
        )
    name = node.key.name if isinstance(node, AssetNode) else node.name
    if name is None and isinstance(node, RefNode):
        return (
            f"{node.label()} is never used as a partition_mapper_config key: Airflow 3.3.2 looks "
            "a mapper up by the event's asset name and uses the uri only when the name is empty, "
            "which it never is (get_partition_mapper); those events get the default mapper. "
            'Key the entry by name: {"asset_ref": {"name": ...}} or the asset itself'
        )
    assert name is not None
    if name in seen:
        first = seen[name]
        return (
            f"asset name {name!r} is already a key (entry {first}): this entry replaces it, as a "
            "later key replaces an earlier one in a Python dict"
        )
    seen[name] = index
    names = {n.key.name for n in walk(assets) if isinstance(n, AssetNode)}
    names |= {n.name for n in walk(assets) if isinstance(n, RefNode) and n.name is not None}
    by_uri = any(isinstance(n, RefNode) and n.name is None for n in walk(assets))
    if name not in names and not by_uri:
        return (
            f"no asset named {name!r} is in this DAG's assets: events of other assets never "
            "reach this DAG, so this entry is never used"
        )
    return None
