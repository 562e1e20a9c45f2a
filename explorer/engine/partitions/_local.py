"""Local readings, parsing and formatting of temporal partition keys (PT-6, DST-7).

Temporal mappers work on *aware local* datetimes: a wall-clock reading in the
mapper's zone with that zone attached, as Airflow's ``make_aware`` produces
them. Keeping the reading (instead of a UTC instant) matters: normalizing to
the start of a period and ``strftime`` act on the local fields, and ``%z``
prints the offset the reading's ``fold`` selects.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from operator import attrgetter
from typing import Any

from explorer.engine.partitions.base import PartitionError
from explorer.engine.tz import ZoneError, get_zone

__all__ = ["in_zone", "instant", "localize", "parse_key", "render", "resolve_zone"]


def resolve_zone(name: str) -> tuple[str, tzinfo]:
    """The zone called ``name`` and the name Airflow records for it.

    Airflow asks pendulum, which maps any spelling of ``utc`` to ``UTC`` and
    refuses anything that is not an IANA key (``Z`` included).
    """
    if not isinstance(name, str):
        raise PartitionError(f"timezone must be an IANA zone name, got {name!r}")
    if name.lower() == "utc":
        return "UTC", UTC
    if name == "Z":
        raise PartitionError("unknown time zone 'Z' (write 'UTC')")
    try:
        return name, get_zone(name)
    except ZoneError as exc:
        raise PartitionError(str(exc)) from exc


def localize(wall: datetime, zone: tzinfo) -> datetime:
    """Attach ``zone`` to the naive reading ``wall`` the way Airflow does (DST-1).

    ``make_aware`` sets ``fold=1`` (a repeated reading means the later, standard
    time instant) and pendulum's ``Timezone.convert`` moves a reading inside a
    spring-forward gap forward by the gap (its fold is then 0 again).
    """
    wall = wall.replace(fold=1)
    before = zone.utcoffset(wall.replace(fold=0))
    after = zone.utcoffset(wall)
    try:
        if before is not None and after is not None and after > before:
            wall = wall + (after - before)
    except OverflowError as exc:
        raise PartitionError(f"{wall.isoformat()} is out of range in {zone}") from exc
    return wall.replace(tzinfo=zone)


def instant(aware: datetime) -> datetime:
    """The UTC instant of an aware local reading."""
    try:
        return aware.astimezone(UTC)
    except OverflowError as exc:
        raise PartitionError(f"{aware.isoformat()} has no instant in range") from exc


def in_zone(aware: datetime, zone: tzinfo) -> datetime:
    """An aware datetime read in ``zone`` (the ``%z`` key case of PT-6)."""
    try:
        return aware.astimezone(zone)
    except OverflowError as exc:
        raise PartitionError(f"{aware.isoformat()} is out of range in {zone}") from exc


#: The temporal mappers' default ``input_format`` and the keys written in it to the
#: letter (ASCII digits, zero-padded, hours to 23 and minutes and seconds to 59, so that
#: no ``fromisoformat`` that reads 24:00 as the next midnight sees one): the keys
#: hourly producers emit.
_SECONDS_FORMAT = "%Y-%m-%dT%H:%M:%S"
_SECONDS_KEY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]")


def parse_key(key: str, fmt: str) -> datetime:
    """Python's own ``strptime``: unpadded numbers, any Unicode digits, ``%z`` = Z/+0000/+05:30.

    A key written to the letter in the default format (ASCII digits, zero-padded) is an
    ISO 8601 reading, which ``fromisoformat`` reads as ``strptime`` does at a seventh of
    the cost (every event of a partitioned producer passes here); anything
    else, and any reading out of range, goes to ``strptime`` itself, which gives the
    answer or the error."""
    if fmt == _SECONDS_FORMAT and _SECONDS_KEY.fullmatch(key) is not None:
        try:
            return datetime.fromisoformat(key)
        except ValueError:
            pass  # strptime's own message
    try:
        return datetime.strptime(key, fmt)  # noqa: DTZ007 (a wall reading; %z may make it aware)
    except ValueError as exc:
        raise PartitionError(f"partition key {key!r} does not match {fmt!r}: {exc}") from exc


#: The directives :func:`render` writes itself: a datetime field, zero-padded.
_NUMERIC = {
    "Y": ("year", 4),
    "m": ("month", 2),
    "d": ("day", 2),
    "H": ("hour", 2),
    "M": ("minute", 2),
    "S": ("second", 2),
}


@lru_cache(maxsize=64)
def _numeric(fmt: str) -> tuple[str, Any] | None:
    """``fmt`` as a ``%``-pattern and the getter of its fields, when every directive in it
    is a zero-padded number (:data:`_NUMERIC`) or ``%%``; else None."""
    pattern: list[str] = []
    fields: list[str] = []
    chars = iter(fmt)
    for char in chars:
        if char != "%":
            pattern.append(char)
            continue
        directive = next(chars, None)
        if directive == "%":
            pattern.append("%%")
        elif directive in _NUMERIC:
            name, width = _NUMERIC[directive]
            pattern.append(f"%0{width}d")
            fields.append(name)
        else:
            return None
    if not fields:
        return None
    getter = attrgetter(*fields)
    return "".join(pattern), (lambda value: (getter(value),)) if len(fields) == 1 else getter


def render(value: datetime, fmt: str) -> str:
    """``strftime``, with its refusals (odd characters, out-of-range years) as PartitionError.

    A format of zero-padded numbers only (what the temporal mappers' keys use) is written
    field by field, as strftime writes it for years 1000 to 9999, at a fifth of its cost
    on an aware reading (every rollup event formats keys)."""
    numeric = _numeric(fmt)
    if numeric is not None and value.year >= 1000:
        pattern, fields = numeric
        written: str = pattern % fields(value)
        return written
    try:
        return value.strftime(fmt)
    except ValueError as exc:
        raise PartitionError(f"cannot format {value.isoformat()} with {fmt!r}: {exc}") from exc
