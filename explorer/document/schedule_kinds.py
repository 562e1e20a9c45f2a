"""Every kind of ``schedule`` the engine reads, their arguments, and their meaning in words.

No Qt. The inspector builds its schedule form from :data:`KINDS` and
:data:`ARG_TYPES`; the canvas writes a DAG's chip with :func:`summarize`;
both ask the scenario layer (``read_schedule``, which calls the engine's own
factory) whether a value is valid, so the message a user sees is the
engine's, word for word.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from explorer.document import conditions
from explorer.engine.errors import EngineError
from explorer.engine.timetables import TIMETABLE_ARGS, Timetable
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction
from explorer.scenario import Dag, Scenario, ScenarioError
from explorer.scenario.assets import AssetCatalog
from explorer.scenario.options import effective_catchup
from explorer.scenario.schedules import ASSET_TIMETABLE_ARGS, read_schedule
from explorer.scenario.values import JsonValue

__all__ = [
    "ARG_TYPES",
    "KINDS",
    "ScheduleSummary",
    "condition_text",
    "convert",
    "kind_of",
    "next_runs",
    "read",
    "summarize",
]

#: (kind id, label shown in the inspector). ``timetable:<Class>`` kinds use Airflow's class.
KINDS: tuple[tuple[str, str], ...] = (
    ("none", "None: manual or triggered only"),
    ("cron", "Cron expression or preset"),
    ("once", "@once"),
    ("continuous", "@continuous"),
    ("timedelta", "Fixed interval (timedelta)"),
    ("relativedelta", "Calendar step (relativedelta)"),
    ("assets", "Assets (a condition)"),
    *((f"timetable:{name}", name) for name in TIMETABLE_ARGS),
    *((f"timetable:{name}", name) for name in ASSET_TIMETABLE_ARGS),
)

#: How the inspector edits each timetable argument (Airflow's argument names).
ARG_TYPES: dict[str, str] = {
    "cron": "cron",
    "crons": "crons",
    "timezone": "zone",
    "interval": "delta",
    "delta": "delta",
    "run_immediately": "bool_or_duration",
    "run_offset": "int_or_null",
    "key_format": "text",
    "event_dates": "datetimes",
    "restrict_to_events": "bool",
    "presorted": "bool",
    "description": "text",
    "timetable": "timetable",
    "assets": "condition",
    "partition_mapper_config": "json",
    "default_partition_mapper": "mapper",
}

#: Argument values a new timetable of each class starts with.
_DEFAULT_ARGS: dict[str, dict[str, JsonValue]] = {
    "CronDataIntervalTimetable": {"cron": "0 0 * * *"},
    "CronTriggerTimetable": {"cron": "0 0 * * *"},
    "MultipleCronTriggerTimetable": {"crons": ["0 0 * * *", "0 12 * * *"]},
    "CronPartitionTimetable": {"cron": "0 0 * * *"},
    "DeltaDataIntervalTimetable": {"delta": "P1D"},
    "DeltaTriggerTimetable": {"delta": "P1D"},
    "EventsTimetable": {"event_dates": []},
}


def args_of(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) argument names of a timetable class."""
    return {**TIMETABLE_ARGS, **ASSET_TIMETABLE_ARGS}[name]


def kind_of(schedule: JsonValue) -> str:
    """The :data:`KINDS` id of a schedule value."""
    if schedule is None:
        return "none"
    if schedule == "@once":
        return "once"
    if schedule == "@continuous":
        return "continuous"
    if isinstance(schedule, str):
        return "cron"
    if isinstance(schedule, dict) and "timetable" in schedule:
        return f"timetable:{schedule['timetable']}"
    if isinstance(schedule, dict) and "timedelta" in schedule:
        return "timedelta"
    if isinstance(schedule, dict) and "relativedelta" in schedule:
        return "relativedelta"
    return "assets"


def _time_part(schedule: JsonValue) -> JsonValue:
    """The time-based part of a schedule (what a switch of kind keeps)."""
    if isinstance(schedule, dict) and schedule.get("timetable") == "AssetOrTimeSchedule":
        args = schedule.get("args")
        return args.get("timetable") if isinstance(args, dict) else None
    return schedule


def _cron_of(schedule: JsonValue) -> str | None:
    part = _time_part(schedule)
    if isinstance(part, str) and part not in ("@once", "@continuous"):
        return part
    if isinstance(part, dict) and isinstance(part.get("args"), dict):
        args = part["args"]
        assert isinstance(args, dict)
        cron = args.get("cron")
        if isinstance(cron, str):
            return cron
        crons = args.get("crons")
        if isinstance(crons, list) and crons and isinstance(crons[0], str):
            return crons[0]
    return None


def _condition_of(schedule: JsonValue) -> JsonValue:
    root = conditions.condition_root(schedule)
    return None if root is None else copy.deepcopy(conditions.get_at(schedule, root))


def convert(schedule: JsonValue, kind: str) -> JsonValue:
    """``schedule`` turned into a value of ``kind``, keeping what carries over.

    A cron stays a cron across the cron-based kinds, a condition stays across
    the asset-driven ones; the rest starts from Airflow's usual values.
    """
    if kind == kind_of(schedule):
        return copy.deepcopy(schedule)
    cron = _cron_of(schedule) or "0 0 * * *"
    condition = _condition_of(schedule)
    if kind == "none":
        return None
    if kind == "cron":
        return cron
    if kind == "once":
        return "@once"
    if kind == "continuous":
        return "@continuous"
    if kind == "timedelta":
        return {"timedelta": "PT6H"}
    if kind == "relativedelta":
        return {"relativedelta": {"months": 1}}
    if kind == "assets":
        return condition if condition is not None else []
    name = kind.removeprefix("timetable:")
    args: dict[str, JsonValue] = copy.deepcopy(_DEFAULT_ARGS.get(name, {}))
    if "cron" in args:
        args["cron"] = cron
    if name == "AssetOrTimeSchedule":
        time_part = _time_part(schedule)
        if kind_of(time_part) in ("none", "assets") or (
            condition is not None and time_part is schedule
        ):
            time_part = {"timetable": "CronTriggerTimetable", "args": {"cron": cron}}
        elif not (isinstance(time_part, dict) and "timetable" in time_part):
            time_part = conditions._as_timetable(time_part)
        args = {"timetable": time_part, "assets": condition if condition is not None else []}
    if name == "PartitionedAssetTimetable":
        args = {"assets": condition if condition is not None else []}
    return (
        {"timetable": name, "args": args} if args or name in _DEFAULT_ARGS else {"timetable": name}
    )


# ----------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class ScheduleSummary:
    """What a DAG's schedule means: a chip for the canvas, a sentence, or the problem."""

    chip: str
    description: str
    problem: str | None = None


def _catalog_key(scenario: Scenario) -> str:
    return json.dumps([[a.name, a.uri] for a in scenario.assets])


@lru_cache(maxsize=64)
def _catalog(key: str) -> AssetCatalog:
    from explorer.scenario import AssetDecl

    return AssetCatalog(tuple(AssetDecl(name, uri) for name, uri in json.loads(key)))


def read(schedule: JsonValue, dag: Dag, scenario: Scenario) -> Timetable:
    """The engine's timetable for ``schedule`` in ``dag``; raises ScenarioError (engine message)."""
    return _read(
        json.dumps(schedule, sort_keys=True),
        dag.timezone,
        scenario.airflow_config.create_cron_data_intervals,
        _catalog_key(scenario),
    )


@lru_cache(maxsize=2048)
def _read(text: str, timezone: str, cron_intervals: bool, catalog: str) -> Timetable:
    return read_schedule(
        json.loads(text),
        source="",
        path=("schedule",),
        dag_timezone=timezone,
        create_cron_data_intervals=cron_intervals,
        assets=_catalog(catalog),
    ).timetable


def error_text(exc: ScenarioError) -> str:
    """The engine's message, with where in the schedule it is when that helps."""
    where = exc.path.removeprefix("$.schedule").lstrip(".")
    return f"{where}: {exc.message}" if where else exc.message


def summarize(dag: Dag, scenario: Scenario) -> ScheduleSummary:
    """The chip and sentence for a DAG's schedule (never raises)."""
    schedule = dag.schedule
    kind = kind_of(schedule)
    if kind == "assets":
        text = condition_text(schedule)
        return ScheduleSummary(f"on {text}", f"Runs when {text} {_updates(schedule)}")
    try:
        timetable = read(schedule, dag, scenario)
    except ScenarioError as exc:
        return ScheduleSummary("invalid schedule", "", error_text(exc))
    except (EngineError, ValueError, TypeError, KeyError) as exc:
        return ScheduleSummary("invalid schedule", "", str(exc))
    # the zone its times are read in, UTC included: "At 00:00" alone reads as local time
    zone = f" ({getattr(timetable, 'timezone_name', None) or dag.timezone})"
    if kind == "timetable:AssetOrTimeSchedule":
        text = condition_text(schedule)
        inner = getattr(timetable, "timetable", None)
        said = inner.description if isinstance(inner, Timetable) else timetable.description
        return ScheduleSummary(f"{said}{zone} or on {text}", timetable.description)
    if kind == "timetable:PartitionedAssetTimetable":
        text = condition_text(schedule)
        return ScheduleSummary(f"partitions of {text}", f"Partitioned runs on {text}")
    if not timetable.can_be_scheduled and kind == "none":
        return ScheduleSummary("manual only", timetable.description)
    description = timetable.description
    return ScheduleSummary(f"{description}{zone}", description)


def _updates(schedule: JsonValue) -> str:
    node = conditions.tree(schedule)
    plural = isinstance(node, conditions.Gate) and node.kind == "all" and len(node.children) > 1
    return "are updated" if plural else "is updated"


def condition_text(schedule: JsonValue) -> str:
    """A condition in words, Airflow's asset-expression style: ``orders AND (a OR b)``."""
    node = conditions.tree(schedule)
    return "nothing" if node is None else _text(node, top=True)


def _text(node: conditions.Gate | conditions.Leaf, *, top: bool = False) -> str:
    if isinstance(node, conditions.Leaf):
        return leaf_label(node.node)
    word = " AND " if node.kind == "all" else " OR "
    inner = word.join(_text(c) for c in node.children) or "nothing"
    return inner if top or len(node.children) < 2 else f"({inner})"


def leaf_label(node: JsonValue) -> str:
    if not isinstance(node, dict):
        return str(node)
    if "asset" in node:
        body = node["asset"]
        if isinstance(body, dict):
            return str(body.get("name") or body.get("uri") or "?")
        return str(body)
    if "alias" in node and isinstance(node["alias"], dict):
        return f"alias {node['alias'].get('name')}"
    if "asset_ref" in node and isinstance(node["asset_ref"], dict):
        ref: dict[str, Any] = node["asset_ref"]
        by, value = next(iter(ref.items()), ("name", "?"))
        return f"Asset.ref({by}={value!r})"
    return json.dumps(node)


def next_runs(dag: Dag, scenario: Scenario, count: int = 5) -> list[DagRunInfo]:
    """The first automatic runs after deployment (``clock.start``), as ``explorer next-runs``."""
    timetable = read(dag.schedule, dag, scenario)
    restriction = TimeRestriction(
        None if dag.start_date is None else dag.start_date.value,
        None if dag.end_date is None else dag.end_date.value,
        effective_catchup(dag.catchup, scenario.airflow_config),
    )
    now: datetime = scenario.clock.start.value
    out: list[DagRunInfo] = []
    last: ReferenceRun | None = None
    if timetable.asset_triggered and not hasattr(timetable, "timetable"):
        return out
    for _ in range(count):
        info = timetable.next_dagrun_info(last=last, restriction=restriction, now=now)
        if info is None:
            break
        out.append(info)
        last = ReferenceRun.of(info)
    return out
