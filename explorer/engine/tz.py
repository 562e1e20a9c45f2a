"""Time zones, read from the pinned ``tzdata`` package only.

DST rules must not change with the machine the simulation runs on: the
conformance vectors were produced with IANA 2026f (``tzdata==2026.6``).
Python's ``zoneinfo`` looks at the system zone files before ``tzdata``; we
empty its search path once so that only the pinned package is used.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, timedelta, tzinfo
from functools import cache

from explorer.engine.errors import ScheduleError

zoneinfo.reset_tzpath(to=[])

__all__ = [
    "EPOCH",
    "ONE_US",
    "UTC",
    "ZoneError",
    "epoch_us",
    "from_epoch_us",
    "get_zone",
    "is_aware",
    "iso",
    "local",
    "make_aware",
    "to_utc",
    "zone_names",
]

#: The Unix epoch and one microsecond: instants as integers (hot loops inline the two
#: functions below with these).
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_US = timedelta(microseconds=1)


def epoch_us(value: datetime) -> int:
    """Microseconds since the Unix epoch of an aware datetime: a compact, exact sort key.

    Read off the difference's three fields: ``delta // ONE_US`` turns both timedeltas
    into Python integers first and costs half as much again (on the path of
    every run packed and every event indexed)."""
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_epoch_us(value: int) -> datetime:
    """The UTC datetime :func:`epoch_us` came from."""
    return EPOCH + ONE_US * value  # twice as fast as timedelta(microseconds=value)


class ZoneError(ScheduleError):
    """An unknown IANA time zone name."""


@cache
def zone_names() -> frozenset[str]:
    """Every zone name the pinned tzdata holds (its own list, not a walk of its folders)."""
    return frozenset(zoneinfo.available_timezones())


@cache
def get_zone(name: str) -> tzinfo:
    """Return the zone called ``name`` (IANA) from the pinned database.

    ``UTC`` and ``Etc/UTC`` map to :data:`datetime.UTC` so arithmetic stays
    on the fast path. A name is looked up in tzdata's list of zones before
    ``zoneinfo`` opens a file of that name: ``zoneinfo`` would otherwise open
    whatever the name points at inside the package, so a folder (``America``),
    a package file (``America/__init__.py``) or an over-long name raised
    ``IsADirectoryError`` / ``OSError`` instead of "unknown time zone".
    """
    if name in ("UTC", "Etc/UTC", "Z"):
        return UTC
    if name not in zone_names():
        raise ZoneError(f"unknown time zone {name!r}")
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise ZoneError(f"unknown time zone {name!r}") from exc


def is_aware(value: datetime) -> bool:
    return value.tzinfo is not None and value.tzinfo.utcoffset(value) is not None


def to_utc(value: datetime) -> datetime:
    """An aware datetime expressed in UTC; naive input is a programming error."""
    if not is_aware(value):
        raise ValueError(f"naive datetime {value.isoformat()} (a time zone is required)")
    return value.astimezone(UTC)


def local(instant: datetime, zone: tzinfo) -> datetime:
    """The naive wall-clock reading of ``instant`` in ``zone`` (which fold it was is forgotten)."""
    if zone is UTC:
        return instant.replace(tzinfo=None)
    return instant.astimezone(zone).replace(tzinfo=None)


def make_aware(wall: datetime, zone: tzinfo) -> datetime:
    """The instant (UTC) of the naive wall-clock reading ``wall`` in ``zone``.

    Airflow resolves ambiguity the way pendulum does with ``fold=1``
    (DST-1, conformance README 1.4): a reading inside a spring-forward gap is
    moved forward by the gap, a repeated reading takes the later instant.
    Under PEP 495, ``fold=0`` of a gap reading uses the pre-transition offset
    (the forward-shifted instant) and ``fold=1`` of a repeated reading the
    post-transition one (the later instant); both are the larger of the two
    candidates, so taking the maximum implements the rule in both cases.
    """
    if zone is UTC:
        return wall.replace(tzinfo=UTC)
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    second = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    return first if first >= second else second


def utc_offset(instant: datetime, zone: tzinfo) -> timedelta:
    offset = instant.astimezone(zone).utcoffset()
    assert offset is not None
    return offset


def iso(value: datetime | None) -> str | None:
    """The record's instant format (contract section 4): ISO-8601 UTC with ``Z``.

    Here, in the leaf time module, so that every part that writes a record section
    (pending waits, alerts, explain, diff) shares one format without importing the
    module that assembles the record.
    """
    if value is None:
        return None
    return value.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"
