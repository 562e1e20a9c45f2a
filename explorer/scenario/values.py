"""The leaf values of a scenario file: instants, durations and calendar steps.

An :class:`Instant` and a :class:`Duration` keep the text they were read from
next to the parsed value, so that saving writes back exactly what the user
wrote (``-05:00`` stays ``-05:00``, ``PT90M`` stays ``PT90M``) and a second
save is byte-identical to the first (contract section 3). Values made in code
get a canonical text from :meth:`Instant.of` / :meth:`Duration.of`.

Durations written as strings are exact (Python's ``timedelta``); calendar
steps are written as ``{"relativedelta": {...}}`` objects, as Airflow users
write ``relativedelta(months=1)``. A month or a year in an ISO string is
refused rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

__all__ = [
    "EARLIEST",
    "LATEST",
    "LONGEST",
    "RELATIVEDELTA_FIELDS",
    "Duration",
    "Instant",
    "JsonObject",
    "JsonValue",
    "format_duration",
    "format_instant",
    "parse_duration",
    "parse_instant",
    "parse_relativedelta",
    "relativedelta_problem",
]

#: Any value ``json.loads`` can return.
JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject = dict[str, JsonValue]

_INSTANT = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})T(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)"
    r"(?P<offset>Z|[+-]\d{2}:\d{2})?\Z"
)

_DURATION = re.compile(
    r"(?P<sign>-)?P(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d{1,6})?)S)?)?\Z"
)

#: The relative (plural) fields of ``relativedelta`` a calendar step may use.
RELATIVEDELTA_FIELDS = (
    "years",
    "months",
    "weeks",
    "days",
    "hours",
    "minutes",
    "seconds",
    "microseconds",
)


#: The instants a scenario may name: every date a simulation reaches from them (a day
#: before, a century of catchup after) stays inside Python's years 1 to 9999.
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
#: The longest duration or calendar step (100 years, in days): longer ones only overflow.
LONGEST = timedelta(days=36_525)


def check_instant_range(value: datetime, text: str) -> datetime:
    """``value``, or ValueError naming the allowed range."""
    if not EARLIEST <= value <= LATEST:
        raise ValueError(
            f"{text!r} is out of range: instants from {format_instant(EARLIEST)} "
            f"to {format_instant(LATEST)} are allowed"
        )
    return value


def parse_instant(text: str) -> datetime:
    """An ISO-8601 datetime with an explicit offset or ``Z``, as an aware UTC datetime,
    between :data:`EARLIEST` and :data:`LATEST`.

    A naive datetime is refused, never read as UTC (contract section 1).
    """
    match = _INSTANT.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not an ISO-8601 datetime; expected e.g. '2024-03-08T00:00:00Z'"
        )
    if match["offset"] is None:
        raise ValueError(
            f"naive datetime {text!r}: write its offset or Z, e.g. '{text}Z' or '{text}-05:00'"
        )
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{text!r} is not a valid datetime: {exc}") from exc
    return check_instant_range(value, text)


def parse_duration(text: str) -> timedelta:
    """An ISO-8601 duration of fixed length (weeks, days, hours, minutes, seconds)."""
    match = _DURATION.match(text)
    if match is None or text.endswith(("P", "T")):
        raise ValueError(f"{text!r} is not an ISO-8601 duration; expected e.g. 'PT6H' or 'P1DT30M'")
    if match["sign"]:
        raise ValueError(f"negative duration {text!r}: durations must not be negative")
    if match["years"] or match["months"]:
        raise ValueError(
            f"{text!r} has months or years, which have no fixed length; write days "
            '(e.g. \'P30D\') or use {"relativedelta": {"months": 1}} where a schedule allows it'
        )
    too_long = f"duration {text!r} is too long: at most P{LONGEST.days}D (100 years) is allowed"
    try:
        value = timedelta(
            weeks=int(match["weeks"] or 0),
            days=int(match["days"] or 0),
            hours=int(match["hours"] or 0),
            minutes=int(match["minutes"] or 0),
            seconds=float(match["seconds"] or 0),
        )
    except OverflowError as exc:
        raise ValueError(too_long) from exc
    if value > LONGEST:
        raise ValueError(too_long)
    return value


#: Roughly how many days one unit of each field is, to bound a calendar step.
_FIELD_DAYS = {
    "years": 366,
    "months": 31,
    "weeks": 7,
    "days": 1,
    "hours": 1 / 24,
    "minutes": 1 / 1440,
    "seconds": 1 / 86_400,
    "microseconds": 1 / 86_400_000_000,
}


def relativedelta_problem(fields: dict[str, Any]) -> str | None:
    """Why a calendar step is out of range (over 100 years), or None."""
    try:
        days = sum(abs(float(v)) * _FIELD_DAYS[k] for k, v in fields.items() if k in _FIELD_DAYS)
    except (TypeError, ValueError, OverflowError):
        return None  # the schema reports a value that is not a number
    if days > LONGEST.days:
        return f"the calendar step is too long: at most 100 years ({LONGEST.days:,} days) in all"
    return None


def parse_relativedelta(fields: dict[str, Any]) -> relativedelta:
    """``{"months": 1}`` -> ``relativedelta(months=1)``; the schema has checked the fields
    and :func:`relativedelta_problem` their size."""
    problem = relativedelta_problem(fields)
    if problem is not None:
        raise ValueError(problem)
    return relativedelta(**{k: v for k, v in fields.items() if k in RELATIVEDELTA_FIELDS})


def format_instant(value: datetime) -> str:
    """Canonical text: the value's own offset (``Z`` for UTC), seconds always shown."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value.isoformat()} cannot be written")
    if value.utcoffset() == timedelta(0):
        return value.replace(tzinfo=None).isoformat(timespec="auto") + "Z"
    return value.isoformat(timespec="auto")


def format_duration(value: timedelta) -> str:
    """Canonical text: ``P<d>DT<h>H<m>M<s>S`` with zero parts left out; ``PT0S`` for zero."""
    if value < timedelta(0):
        raise ValueError(f"negative duration {value} cannot be written")
    seconds = value.seconds
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    date_part = f"{value.days}D" if value.days else ""
    time_part = ""
    if hours:
        time_part += f"{hours}H"
    if minutes:
        time_part += f"{minutes}M"
    if secs or value.microseconds:
        fraction = f".{value.microseconds:06d}".rstrip("0") if value.microseconds else ""
        time_part += f"{secs}{fraction}S"
    if not date_part and not time_part:
        return "PT0S"
    return "P" + date_part + (f"T{time_part}" if time_part else "")


@dataclass(frozen=True, slots=True)
class Instant:
    """An aware instant (``value``, in UTC) and the text it is written as."""

    value: datetime
    text: str

    @classmethod
    def parse(cls, text: str) -> Instant:
        return cls(parse_instant(text), text)

    @classmethod
    def of(cls, value: datetime) -> Instant:
        """An instant made in code; its text keeps ``value``'s offset."""
        return cls(value.astimezone(UTC), format_instant(value))


@dataclass(frozen=True, slots=True)
class Duration:
    """An exact, non-negative duration (``value``) and the text it is written as."""

    value: timedelta
    text: str

    @classmethod
    def parse(cls, text: str) -> Duration:
        return cls(parse_duration(text), text)

    @classmethod
    def of(cls, value: timedelta) -> Duration:
        return cls(value, format_duration(value))
