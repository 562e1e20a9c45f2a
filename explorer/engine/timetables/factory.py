"""From a DAG's ``schedule=`` value to the timetable Airflow 3.3.2 would run (TT-1).

Inputs are Python values (durations already parsed to ``timedelta`` or
``relativedelta``, instants aware); reading them from files is the scenario
layer's job. Every refusal raises :class:`TimetableError` (or its kin
``CronError`` / ``ZoneError``) with a message meant for the user.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from explorer.engine.cron import validate_cron
from explorer.engine.timetables.base import Timetable, TimetableError
from explorer.engine.timetables.events import EventsTimetable
from explorer.engine.timetables.interval import (
    CronDataIntervalTimetable,
    DeltaDataIntervalTimetable,
)
from explorer.engine.timetables.simple import (
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
from explorer.engine.tz import get_zone

__all__ = ["TIMETABLE_ARGS", "timetable_from_schedule", "timetable_from_spec"]

Builder = Callable[[Mapping[str, Any], str], Timetable]


def _zone_arg(args: Mapping[str, Any], dag_timezone: str) -> str:
    zone = args.get("timezone", dag_timezone)
    get_zone(zone)  # raises ZoneError for unknown names
    return str(zone)


def _cron_data_interval(args: Mapping[str, Any], tz: str) -> Timetable:
    return CronDataIntervalTimetable(args["cron"], _zone_arg(args, tz))


def _cron_trigger(args: Mapping[str, Any], tz: str) -> Timetable:
    return CronTriggerTimetable(
        args["cron"],
        timezone=_zone_arg(args, tz),
        interval=args.get("interval", timedelta(0)),
        run_immediately=args.get("run_immediately", False),
    )


def _multiple_cron(args: Mapping[str, Any], tz: str) -> Timetable:
    return MultipleCronTriggerTimetable(
        *args["crons"],
        timezone=_zone_arg(args, tz),
        interval=args.get("interval", timedelta(0)),
        run_immediately=args.get("run_immediately", False),
    )


def _cron_partition(args: Mapping[str, Any], tz: str) -> Timetable:
    return CronPartitionTimetable(
        args["cron"],
        timezone=_zone_arg(args, tz),
        run_offset=args.get("run_offset"),
        run_immediately=args.get("run_immediately", False),
        key_format=args.get("key_format", "%Y-%m-%dT%H:%M:%S"),
    )


def _delta_data_interval(args: Mapping[str, Any], tz: str) -> Timetable:
    return DeltaDataIntervalTimetable(args["delta"])


def _delta_trigger(args: Mapping[str, Any], tz: str) -> Timetable:
    return DeltaTriggerTimetable(args["delta"], interval=args.get("interval", timedelta(0)))


def _events(args: Mapping[str, Any], tz: str) -> Timetable:
    return EventsTimetable(
        args["event_dates"],
        restrict_to_events=bool(args.get("restrict_to_events", False)),
        presorted=bool(args.get("presorted", False)),
        description=args.get("description"),
    )


_BUILDERS: dict[str, Builder] = {
    "CronDataIntervalTimetable": _cron_data_interval,
    "CronTriggerTimetable": _cron_trigger,
    "MultipleCronTriggerTimetable": _multiple_cron,
    "CronPartitionTimetable": _cron_partition,
    "DeltaDataIntervalTimetable": _delta_data_interval,
    "DeltaTriggerTimetable": _delta_trigger,
    "EventsTimetable": _events,
    "OnceTimetable": lambda args, tz: OnceTimetable(),
    "ContinuousTimetable": lambda args, tz: ContinuousTimetable(),
    "NullTimetable": lambda args, tz: NullTimetable(),
    "PartitionedAtRuntime": lambda args, tz: PartitionedAtRuntime(),
}

#: Accepted argument names per timetable class (Airflow's own), required first.
TIMETABLE_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "CronDataIntervalTimetable": (("cron",), ("timezone",)),
    "CronTriggerTimetable": (("cron",), ("timezone", "interval", "run_immediately")),
    "MultipleCronTriggerTimetable": (("crons",), ("timezone", "interval", "run_immediately")),
    "CronPartitionTimetable": (
        ("cron",),
        ("timezone", "run_offset", "run_immediately", "key_format"),
    ),
    "DeltaDataIntervalTimetable": (("delta",), ()),
    "DeltaTriggerTimetable": (("delta",), ("interval",)),
    "EventsTimetable": (("event_dates",), ("restrict_to_events", "presorted", "description")),
    "OnceTimetable": ((), ()),
    "ContinuousTimetable": ((), ()),
    "NullTimetable": ((), ()),
    "PartitionedAtRuntime": ((), ()),
}


def timetable_from_spec(name: str, args: Mapping[str, Any], *, dag_timezone: str) -> Timetable:
    """Build ``{"timetable": name, "args": args}``; a missing ``timezone`` is the DAG's."""
    builder = _BUILDERS.get(name)
    if builder is None:
        known = ", ".join(sorted(_BUILDERS))
        raise TimetableError(f"unknown timetable {name!r}; expected one of: {known}")
    required, optional = TIMETABLE_ARGS[name]
    missing = [a for a in required if a not in args]
    if missing:
        raise TimetableError(f"{name} needs argument(s): {', '.join(missing)}")
    unknown = sorted(set(args) - set(required) - set(optional))
    if unknown:
        raise TimetableError(f"{name} has no argument(s): {', '.join(unknown)}")
    if "cron" in args:
        validate_cron(args["cron"])
    for cron in args.get("crons", ()):
        validate_cron(cron)
    return builder(args, dag_timezone)


def timetable_from_schedule(
    schedule: str | timedelta | relativedelta | None,
    *,
    dag_timezone: str = "UTC",
    create_cron_data_intervals: bool = False,
) -> Timetable:
    """Resolve a plain ``schedule=`` value with Airflow 3.3.2's defaults (TT-1).

    A cron string is a CronTriggerTimetable in the DAG's zone unless
    ``[scheduler] create_cron_data_intervals`` is True; the same flag (not
    ``create_delta_data_intervals``, which 3.3.2 ignores) picks the delta class.
    """
    if schedule is None:
        return NullTimetable()
    if isinstance(schedule, timedelta | relativedelta):
        if create_cron_data_intervals:
            return DeltaDataIntervalTimetable(schedule)
        return DeltaTriggerTimetable(schedule)
    if schedule == "@once":
        return OnceTimetable()
    if schedule == "@continuous":
        return ContinuousTimetable()
    validate_cron(schedule)
    if create_cron_data_intervals:
        return CronDataIntervalTimetable(schedule, dag_timezone)
    return CronTriggerTimetable(schedule, timezone=dag_timezone)
