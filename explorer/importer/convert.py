"""From what the reader found in a DAG file to the scenario's JSON spelling, as Airflow reads it.

Each DAG argument is converted the way Airflow 3.3.2's ``DAG`` reads it:
``start_date`` / ``end_date`` from the argument or else ``default_args``
(strings parsed, naive values in the default zone, UTC); the DAG's time zone
from ``start_date``'s zone; ``schedule`` to a cron/preset string, a delta, an
asset condition or a timetable object with Airflow's class and argument
names; ``catchup`` and ``max_active_runs`` left unset when the file does not
set them (DEP-7). A value that cannot be read becomes an :class:`Unresolved`
with its field, line and reason; a value resolved against the parse time is
kept and listed with ``parse_time=True``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

import pendulum
from dateutil.relativedelta import relativedelta

from explorer.engine.cron import validate_cron
from explorer.engine.errors import EngineError
from explorer.engine.tz import get_zone
from explorer.importer.airflow_names import PARTITION_KINDS, TIMETABLE_KINDS
from explorer.importer.reader import AssetDef
from explorer.importer.report import Unresolved
from explorer.importer.symbols import AfCall, DagObj, Flagged, TaskObj, Unknown, unflag
from explorer.scenario.values import Instant, JsonValue, format_duration

__all__ = [
    "ConvertedAsset",
    "ConvertedDag",
    "ConvertedTask",
    "Skip",
    "convert_asset",
    "convert_dag",
]


class Skip(Exception):
    """The DAG cannot be imported at all (no dag_id, a value Airflow itself refuses)."""


class _Missing(Exception):
    """One field could not be read; already recorded."""


@dataclass(slots=True)
class ConvertedTask:
    task_id: str
    outlets: tuple[JsonValue, ...] = ()
    inlets: tuple[JsonValue, ...] = ()


@dataclass(slots=True)
class ConvertedDag:
    """A DAG in the scenario's terms, and what could not be read of it."""

    dag_id: str
    line: int
    schedule: JsonValue = None
    start_date: Instant | None = None
    end_date: Instant | None = None
    timezone: str = "UTC"
    catchup: bool | None = None
    max_active_runs: int | None = None
    is_paused_upon_creation: bool = False
    tags: tuple[str, ...] = ()
    tasks: list[ConvertedTask] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)


@dataclass(slots=True)
class ConvertedAsset:
    """An ``@asset`` / ``@asset.multi`` function in the scenario's terms."""

    dag_id: str
    line: int
    name: str | None
    uri: str | None
    outlets: tuple[JsonValue, ...] | None
    schedule: JsonValue = None
    start_date: Instant | None = None
    timezone: str = "UTC"
    is_paused_upon_creation: bool = False
    tags: tuple[str, ...] = ()
    unresolved: list[Unresolved] = field(default_factory=list)
    inlets: tuple[JsonValue, ...] = ()


_ABSENT = object()
_ASSET_IGNORED = ("watchers", "extra", "access_control")


class _Converter:
    def __init__(self, file: str, line: int) -> None:
        self.file = file
        self.line = line
        self.unresolved: list[Unresolved] = []

    def missing(self, fieldname: str, value: Unknown) -> _Missing:
        self.unresolved.append(
            Unresolved(fieldname, self.file, value.line or self.line, value.reason)
        )
        return _Missing()

    def problem(self, fieldname: str, reason: str, line: int | None = None) -> _Missing:
        self.unresolved.append(Unresolved(fieldname, self.file, line or self.line, reason))
        return _Missing()

    def plain(self, fieldname: str, value: Any) -> Any:
        """The plain value (parse-time notes recorded), or _Missing if unknown."""
        raw, notes = unflag(value)
        for line, note in notes:
            if not any(u.field == fieldname and u.reason == note for u in self.unresolved):
                self.unresolved.append(
                    Unresolved(fieldname, self.file, line, note, parse_time=True)
                )
        if isinstance(raw, Unknown):
            raise self.missing(fieldname, raw)
        return raw

    def deep(self, fieldname: str, value: Any) -> Any:
        """``plain`` through lists, tuples and dicts."""
        raw = self.plain(fieldname, value)
        if isinstance(raw, list | tuple):
            return type(raw)(self.deep(fieldname, v) for v in raw)
        if isinstance(raw, dict):
            return {self.deep(fieldname, k): self.deep(fieldname, v) for k, v in raw.items()}
        if isinstance(raw, AfCall):
            # An asset's watchers, extra and access control never change a schedule.
            skip = _ASSET_IGNORED if raw.kind == "Asset" else ()
            return AfCall(
                raw.kind,
                tuple(self.deep(fieldname, a) for a in raw.args),
                {k: self.deep(fieldname, v) for k, v in raw.kwargs.items() if k not in skip},
                raw.line,
            )
        return raw

    # ------------------------------------------------------------------ dates and zones
    def instant(self, fieldname: str, value: Any, zone: str = "UTC") -> dt.datetime | None:
        """A datetime argument; a string is parsed as Airflow's ``timezone.parse`` in ``zone``."""
        raw = self.plain(fieldname, value)
        if raw is None:
            return None
        if isinstance(raw, str):
            try:
                raw = pendulum.parse(raw, tz=zone)
            except Exception as exc:
                raise self.problem(
                    fieldname, f"{raw!r} is not a date Airflow can parse: {exc}"
                ) from exc
        if isinstance(raw, dt.datetime):
            return raw
        if isinstance(raw, dt.date):
            raise Skip(
                f"{fieldname} is a date, not a datetime: Airflow 3.3 fails the file "
                "(AttributeError: 'Date' object has no attribute 'utcoffset')"
            )
        raise self.problem(fieldname, f"{type(raw).__name__} is not a datetime")

    def zone_name(self, fieldname: str, tz: Any) -> str:
        if tz is None:
            return "UTC"
        if isinstance(tz, str):
            name = tz
        elif isinstance(tz, (pendulum.FixedTimezone, dt.timezone)):
            offset = tz.utcoffset(None)
            assert offset is not None
            fixed = _fixed_zone(offset)
            if fixed is None:
                raise self.problem(
                    fieldname,
                    f"a fixed offset of {offset} has no IANA zone the scenario can name",
                )
            name = fixed
        elif isinstance(tz, pendulum.Timezone | zoneinfo.ZoneInfo):
            name = str(tz.key)
        else:
            name = str(getattr(tz, "zone", getattr(tz, "key", getattr(tz, "name", ""))))
        try:
            get_zone(name)
        except EngineError as exc:
            raise self.problem(fieldname, str(exc)) from exc
        return "UTC" if name in ("Etc/UTC", "UTC", "Z") else name

    def as_instant(self, value: dt.datetime) -> Instant:
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)  # Airflow's default zone (UTC)
        return Instant.of(
            dt.datetime.fromtimestamp(value.timestamp(), tz=dt.UTC).astimezone(
                dt.timezone(value.utcoffset() or dt.timedelta(0))
            )
        )

    # ------------------------------------------------------------------ schedules
    def schedule(self, fieldname: str, value: Any) -> JsonValue:
        raw = self.deep(fieldname, value)
        if raw is None:
            return None
        if isinstance(raw, str):
            if raw in ("@once", "@continuous"):
                return raw
            try:
                validate_cron(raw)
            except EngineError as exc:
                raise Skip(f"schedule {raw!r}: {exc} (Airflow refuses the DAG)") from exc
            return raw
        if isinstance(raw, dt.timedelta):
            return {"timedelta": format_duration(raw)}
        if isinstance(raw, relativedelta):
            return {"relativedelta": self.relative(fieldname, raw)}
        if isinstance(raw, list | tuple):
            return [self.asset_node(fieldname, v, condition=True) for v in raw]
        if isinstance(raw, AfCall):
            if raw.kind in TIMETABLE_KINDS or raw.kind == "AssetOrTimeSchedule":
                return self.timetable(fieldname, raw)
            return self.asset_node(fieldname, raw, condition=True)
        raise self.problem(fieldname, f"a schedule of type {type(raw).__name__} is not understood")

    def relative(self, fieldname: str, value: relativedelta) -> dict[str, JsonValue]:
        absolute = [
            f
            for f in ("year", "month", "day", "hour", "minute", "second", "microsecond", "weekday")
            if getattr(value, f) is not None
        ]
        if absolute or value.leapdays:
            raise self.problem(
                fieldname,
                f"relativedelta with absolute fields ({', '.join(absolute)}) is not supported",
            )
        out: dict[str, JsonValue] = {}
        for name in ("years", "months", "days", "hours", "minutes", "seconds", "microseconds"):
            amount = getattr(value, name)
            if amount:
                out[name] = amount
        return out

    def duration(self, fieldname: str, value: Any) -> JsonValue:
        if isinstance(value, dt.timedelta):
            if value < dt.timedelta(0):
                raise self.problem(fieldname, f"negative duration {value}")
            return format_duration(value)
        if isinstance(value, relativedelta):
            return {"relativedelta": self.relative(fieldname, value)}
        raise self.problem(fieldname, f"{type(value).__name__} is not a duration")

    def timetable(self, fieldname: str, call: AfCall) -> JsonValue:
        kind = call.kind
        args: dict[str, JsonValue] = {}
        positional = _TIMETABLE_POSITIONAL.get(kind, ())
        if kind == "MultipleCronTriggerTimetable":
            crons = list(call.args)
            args["crons"] = [self.cron(fieldname, c) for c in crons]
        else:
            if len(call.args) > len(positional):
                raise self.problem(
                    fieldname, f"{kind} takes at most {len(positional)} positional arguments"
                )
            for name, value in zip(positional, call.args, strict=False):
                call.kwargs.setdefault(name, value)
        for name, value in call.kwargs.items():
            args[name] = self.timetable_arg(fieldname, kind, name, value)
        if kind == "AssetOrTimeSchedule":
            return {"timetable": kind, "args": args}
        return {"timetable": kind, "args": args} if args else {"timetable": kind}

    def cron(self, fieldname: str, value: Any) -> str:
        if not isinstance(value, str):
            raise self.problem(fieldname, f"a cron expression must be a string, got {value!r}")
        try:
            validate_cron(value)
        except EngineError as exc:
            raise Skip(f"cron {value!r}: {exc} (Airflow refuses the DAG)") from exc
        return value

    def timetable_arg(self, fieldname: str, kind: str, name: str, value: Any) -> JsonValue:
        if name == "timezone":
            return self.zone_name(fieldname, value)
        if name == "cron":
            return self.cron(fieldname, value)
        if name in ("interval", "delta", "run_offset"):
            if name == "run_offset" and (value is None or isinstance(value, int | str)):
                return value
            return self.duration(fieldname, value)
        if name == "run_immediately":
            if isinstance(value, bool):
                return value
            return self.duration(fieldname, value)
        if name == "event_dates":
            dates = [self.instant(fieldname, v) for v in value]
            return [self.as_instant(d).text for d in dates if d is not None]
        if name == "timetable":
            if not isinstance(value, AfCall) or value.kind not in TIMETABLE_KINDS:
                # AssetOrTimeSchedule(timetable=...) takes a timetable object
                raise self.problem(
                    fieldname, f"{kind}(timetable=...) is not a timetable the import reads"
                )
            return self.timetable(fieldname, value)
        if name == "assets":
            return self.condition(fieldname, value)
        if name == "default_partition_mapper":
            return None if value is None else self.partition_spec(fieldname, value)
        if name == "partition_mapper_config":
            if value is None:
                return None
            if not isinstance(value, dict):
                raise self.problem(
                    fieldname, "partition_mapper_config must be a dict {asset: mapper}"
                )
            return [
                {
                    "asset": self.asset_node(fieldname, k, condition=False),
                    "mapper": self.partition_spec(fieldname, v),
                }
                for k, v in value.items()
            ]
        if isinstance(value, str | bool | int | float) or value is None:
            return value
        raise self.problem(
            fieldname, f"{kind}({name}=...) of type {type(value).__name__} is not understood"
        )

    def partition_spec(self, fieldname: str, value: Any) -> JsonValue:
        if not isinstance(value, AfCall) or value.kind not in PARTITION_KINDS:
            raise self.problem(
                fieldname, f"{value!r} is not a partition mapper, window or policy the import reads"
            )
        kind = value.kind
        key = (
            "mapper"
            if kind.endswith("Mapper")
            else "window"
            if kind.endswith("Window")
            else "policy"
        )
        args: dict[str, JsonValue] = {}
        if kind in ("ChainMapper", "ProductMapper"):
            args["mappers"] = [self.partition_spec(fieldname, m) for m in value.args]
        else:
            positional = _PARTITION_POSITIONAL.get(kind, ())
            if len(value.args) > len(positional):
                raise self.problem(
                    fieldname, f"{kind} takes at most {len(positional)} positional arguments"
                )
            for name, item in zip(positional, value.args, strict=False):
                args[name] = self.partition_arg(fieldname, name, item)
        for name, item in value.kwargs.items():
            args[name] = self.partition_arg(fieldname, name, item)
        return {key: kind, "args": args} if args else {key: kind}

    def partition_arg(self, fieldname: str, name: str, value: Any) -> JsonValue:
        if isinstance(value, AfCall):
            return self.partition_spec(fieldname, value)
        if name == "timezone":
            return self.zone_name(fieldname, value)
        if isinstance(value, list | tuple):
            return [self.partition_arg(fieldname, name, v) for v in value]
        if isinstance(value, str | bool | int | float) or value is None:
            return value
        raise self.problem(fieldname, f"{name}={value!r} is not understood")

    # ------------------------------------------------------------------ assets
    def condition(self, fieldname: str, value: Any) -> JsonValue:
        if isinstance(value, list | tuple):
            return [self.asset_node(fieldname, v, condition=True) for v in value]
        return self.asset_node(fieldname, value, condition=True)

    def asset_node(self, fieldname: str, value: Any, *, condition: bool) -> JsonValue:
        if not isinstance(value, AfCall):
            raise self.problem(fieldname, f"{value!r} is not an asset")
        kind = value.kind
        if kind == "Asset":
            fields: dict[str, JsonValue] = {}
            for index, name in enumerate(("name", "uri")):
                if value.has(index, name):
                    item = value.arg(index, name)
                    if not isinstance(item, str):
                        raise self.problem(fieldname, f"Asset {name} must be a string")
                    fields[name] = item
            for name in ("group",):
                if name in value.kwargs and isinstance(value.kwargs[name], str):
                    fields[name] = value.kwargs[name]
            if not fields:
                raise self.problem(fieldname, "Asset() without a name or uri")
            return {"asset": fields}
        if kind == "AssetRef":
            for name in ("name", "uri"):
                if name in value.kwargs:
                    return {"asset_ref": {name: value.kwargs[name]}}
            raise self.problem(fieldname, "Asset.ref() needs name= or uri=")
        if kind == "AssetAlias":
            alias = value.arg(0, "name")
            if not isinstance(alias, str):
                raise self.problem(fieldname, "AssetAlias needs a name")
            return {"alias": {"name": alias}}
        if kind in ("AssetAll", "AssetAny") and condition:
            items = [self.asset_node(fieldname, v, condition=True) for v in value.args]
            return {"all" if kind == "AssetAll" else "any": items}
        raise self.problem(fieldname, f"{kind} is not an asset the import reads here")

    def assets(self, fieldname: str, value: Any) -> tuple[JsonValue, ...]:
        raw = self.deep(fieldname, value)
        if raw is None:
            return ()
        items = list(raw) if isinstance(raw, list | tuple | set) else [raw]
        out: list[JsonValue] = []
        for item in items:
            if isinstance(item, AfCall) and item.kind in ("Asset", "AssetAlias", "AssetRef"):
                out.append(self.asset_node(fieldname, item, condition=False))
            elif isinstance(item, TaskObj | str):
                continue  # inlets naming a task or a lineage string: no scheduling meaning
            else:
                self.problem(fieldname, f"{item!r} is not an asset the import reads")
        return tuple(out)


def _fixed_zone(offset: dt.timedelta) -> str | None:
    if offset == dt.timedelta(0):
        return "UTC"
    hours, rest = divmod(int(offset.total_seconds()), 3600)
    if rest:
        return None
    return f"Etc/GMT{'-' if hours > 0 else '+'}{abs(hours)}"


_TIMETABLE_POSITIONAL: dict[str, tuple[str, ...]] = {
    "CronDataIntervalTimetable": ("cron", "timezone"),
    "CronTriggerTimetable": ("cron",),
    "CronPartitionTimetable": ("cron",),
    "DeltaDataIntervalTimetable": ("delta",),
    "DeltaTriggerTimetable": ("delta",),
    "EventsTimetable": ("event_dates", "restrict_to_events", "presorted", "description"),
}

_PARTITION_POSITIONAL: dict[str, tuple[str, ...]] = {
    "AllowedKeyMapper": ("allowed_keys",),
    "FixedKeyMapper": ("downstream_key",),
    "SegmentWindow": ("segments",),
    "MinimumCount": ("n",),
    "RollupMapper": ("upstream_mapper", "window", "wait_policy"),
    "FanOutMapper": ("upstream_mapper", "window", "downstream_mapper"),
}


# ---------------------------------------------------------------------------- DAGs
def _start_and_zone(
    conv: _Converter, kwargs: dict[str, Any], defaults: Any
) -> tuple[dt.datetime | None, str]:
    """``start_date`` as DAG reads it (argument, else default_args) and the zone it gives."""
    source = "start_date"
    value: Any = kwargs.get("start_date", _ABSENT)
    if value is _ABSENT or unflag(value)[0] is None:
        if isinstance(defaults, Unknown):
            raise conv.missing("start_date", defaults)
        value = defaults.get("start_date") if isinstance(defaults, dict) else None
        source = "default_args.start_date"
    start = conv.instant(source if source == "start_date" else "start_date", value)
    if start is None:
        return None, "UTC"
    return start, conv.zone_name("timezone", start.tzinfo)


def _restriction(conv: _Converter, dag: DagObj, defaults: Any, out: ConvertedDag) -> None:
    """``start_date`` / ``end_date`` as the scheduler's time restriction reads them (TT-2).

    SerializedDAG._time_restriction: the earliest start of the DAG and of its
    tasks; the DAG's own end_date, or, when every task has one, the latest of
    the tasks' and the DAG's. Tasks take theirs from the operator's arguments,
    else from ``default_args``, which the DAG itself reads for ``start_date``
    only (3.3's DAG never takes ``end_date`` from default_args); ``DAG.add_task``
    then gives a task without one the DAG's, and keeps the later start and the
    earlier end of the two. A string in default_args is parsed in the DAG's zone.
    """
    zone = out.timezone
    defaults = defaults if isinstance(defaults, dict) else {}
    try:
        dag_end = conv.instant("end_date", dag.kwargs.get("end_date"), zone)
        default_start = conv.instant("start_date", defaults.get("start_date"), zone)
        default_end = conv.instant("end_date", defaults.get("end_date"), zone)
        starts: list[dt.datetime] = []
        ends: list[dt.datetime] = []
        dag_start = out.start_date.value if out.start_date is not None else None
        for task in dag.tasks:
            task_start = task.start_date if task.start_date is not None else None
            task_end = task.end_date if task.end_date is not None else None
            start = conv.instant("start_date", task_start, zone) if task_start else default_start
            end = conv.instant("end_date", task_end, zone) if task_end else default_end
            # DAG.add_task: no date takes the DAG's; else the later start, the earlier end.
            if not start:
                start = dag_start
            elif dag_start is not None:
                start = max(_aware(start), dag_start)
            if not end:
                end = dag_end
            elif dag_end is not None:
                end = min(_aware(end), _aware(dag_end))
            if start is not None:
                starts.append(start)
            if end is not None:
                ends.append(end)
    except _Missing:
        return
    if out.start_date is not None:
        starts.append(out.start_date.value)
    if starts:
        earliest = min(_aware(s) for s in starts)
        if out.start_date is None or earliest < out.start_date.value:
            out.start_date = conv.as_instant(earliest)
    latest = dag_end
    if len(ends) == len(dag.tasks):
        if dag_end is not None:
            ends.append(dag_end)
        if ends:
            latest = max(_aware(e) for e in ends)
    if latest is not None:
        out.end_date = conv.as_instant(latest)


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def convert_dag(dag: DagObj, *, file: str) -> ConvertedDag:
    """Convert one DAG; raises Skip when it cannot be imported at all."""
    conv = _Converter(file, dag.line)
    raw_id = unflag(dag.dag_id)[0]
    if isinstance(raw_id, Unknown):
        raise Skip(f"dag_id not read statically: {raw_id.reason}")
    if not isinstance(raw_id, str) or not raw_id:
        raise Skip("no dag_id")
    out = ConvertedDag(raw_id, dag.line)
    kwargs = dag.kwargs
    defaults = unflag(kwargs.get("default_args", {}))[0]
    if isinstance(defaults, Unknown):
        conv.missing("default_args", defaults)

    try:
        start, zone = _start_and_zone(conv, kwargs, defaults)
        out.timezone = zone
        if start is not None:
            out.start_date = conv.as_instant(start)
    except _Missing:
        pass
    _restriction(conv, dag, defaults, out)
    try:
        out.schedule = conv.schedule("schedule", kwargs.get("schedule"))
    except _Missing:
        out.schedule = None
    for name, kind in (
        ("catchup", bool),
        ("max_active_runs", int),
        ("is_paused_upon_creation", bool),
    ):
        if name not in kwargs:
            continue
        try:
            value = conv.plain(name, kwargs[name])
        except _Missing:
            continue
        if value is None:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            conv.problem(name, f"{name}={value!r} is not a {kind.__name__}")
            continue
        setattr(out, name, value)
    if "tags" in kwargs:
        try:
            tags = conv.deep("tags", kwargs["tags"])
            if tags is not None:
                seen: list[str] = []
                for tag in tags:
                    if isinstance(tag, str) and tag not in seen:
                        seen.append(tag)
                out.tags = tuple(seen)
        except _Missing:
            pass
    for task in dag.tasks:
        converted = ConvertedTask(task.task_id)
        for part in ("outlets", "inlets"):
            with contextlib.suppress(_Missing):
                setattr(
                    converted,
                    part,
                    conv.assets(f"tasks.{task.task_id}.{part}", getattr(task, part)),
                )
        out.tasks.append(converted)
    for line, reason in dag.caveats:
        conv.problem("dag", reason, line)
    conv.plain("dag", Flagged(None, tuple(dag.flags)))  # flagged, not unresolved
    out.unresolved = conv.unresolved
    return out


def convert_asset(asset: AssetDef, *, file: str) -> ConvertedAsset:
    """An ``@asset`` function: its asset, schedule and the DAG arguments it takes."""
    conv = _Converter(file, asset.line)
    kwargs = asset.kwargs
    name: str | None = None
    uri: str | None = None
    outlets: tuple[JsonValue, ...] | None = None
    if asset.multi:
        outlets = conv.assets("outlets", kwargs.get("outlets"))
    else:
        name = asset.name
        raw_uri = kwargs.get("uri")
        try:
            value = conv.plain("uri", raw_uri) if raw_uri is not None else None
            uri = value if isinstance(value, str) else None
        except _Missing:
            pass
    if "start_date" in kwargs:
        raise Skip(
            "TypeError: @asset takes no start_date (its DAG has none: Airflow fails the file)"
        )
    out = ConvertedAsset(asset.name, asset.line, name, uri, outlets)
    out.inlets = tuple({"asset_ref": {"name": n}} for n in asset.inlet_names)
    with contextlib.suppress(_Missing):
        out.schedule = conv.schedule("schedule", kwargs.get("schedule"))
    try:
        start, zone = _start_and_zone(conv, kwargs, {})
        out.timezone = zone
        if start is not None:
            out.start_date = conv.as_instant(start)
    except _Missing:
        pass
    if isinstance(unflag(kwargs.get("is_paused_upon_creation"))[0], bool):
        out.is_paused_upon_creation = unflag(kwargs["is_paused_upon_creation"])[0]
    for line, reason in asset.caveats:
        conv.problem("dag", reason, line)
    out.unresolved = conv.unresolved
    return out
