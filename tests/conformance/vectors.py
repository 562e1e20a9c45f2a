"""Translate the conformance vectors' own format into engine values (README sections 1-3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from explorer.engine.timetables import Timetable, timetable_from_schedule, timetable_from_spec


def instant(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def fmt(value: datetime | None) -> str | None:
    """An instant written the vectors' way: UTC, ``Z``, seconds (fraction only if non-zero)."""
    if value is None:
        return None
    text = value.astimezone(UTC).replace(tzinfo=None).isoformat()
    return text + "Z"


def duration(value: Any) -> timedelta | relativedelta:
    if "timedelta_seconds" in value:
        return timedelta(seconds=value["timedelta_seconds"])
    return relativedelta(**value["relativedelta"])


def _args(args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key in ("interval", "delta") or (key == "run_immediately" and isinstance(value, dict)):
            out[key] = duration(value)
        elif key == "event_dates":
            out[key] = [instant(v) for v in value]
        else:
            out[key] = value
    return out


def timetable(spec: dict[str, Any]) -> Timetable:
    """The ``input`` of a timetable_sequences / manual_runs case."""
    if "timetable" in spec:
        return timetable_from_spec(
            spec["timetable"], _args(spec.get("args", {})), dag_timezone="UTC"
        )
    schedule = spec["schedule"]
    if isinstance(schedule, dict):
        schedule = duration(schedule)
    return timetable_from_schedule(schedule, dag_timezone=spec.get("dag_timezone") or "UTC")
