"""Instants on the timeline's x axis, and how they read in a display zone.

The x axis is seconds since the Unix epoch (UTC), a float: pyqtgraph draws
floats, and an absolute scale keeps every lane, mark and band on one axis no
matter which zone the user reads it in. The display zone only changes labels.
Zones come from :func:`explorer.engine.tz.get_zone` (the pinned tzdata), so
the labels agree with the engine's DST rules.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, tzinfo

from explorer.engine.run_card import span_text
from explorer.engine.tz import get_zone

__all__ = [
    "fmt_local",
    "fmt_span",
    "fmt_utc",
    "from_x",
    "to_x",
    "to_x_or_nan",
    "zone_of",
]


def to_x(instant: datetime) -> float:
    """The x coordinate of an aware instant."""
    return instant.timestamp()


def to_x_or_nan(instant: datetime | None) -> float:
    """``None`` (a field Airflow leaves empty) becomes NaN, which draws nothing."""
    return math.nan if instant is None else instant.timestamp()


def from_x(x: float) -> datetime:
    return datetime.fromtimestamp(x, UTC)


def zone_of(name: str) -> tzinfo:
    return get_zone(name)


def fmt_local(instant: datetime | None, zone: tzinfo, *, seconds: bool = False) -> str:
    """``Sun 10 Mar 2024 03:00 EDT``: the wall clock with the zone's abbreviation."""
    if instant is None:
        return "—"
    local = instant.astimezone(zone)
    pattern = "%a %d %b %Y %H:%M:%S" if seconds else "%a %d %b %Y %H:%M"
    return f"{local.strftime(pattern)} {local.tzname()}"


def fmt_utc(instant: datetime | None, *, seconds: bool = False) -> str:
    """``2024-03-10 07:00Z``: UTC as the record writes it, made shorter."""
    if instant is None:
        return "—"
    text = instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
    return text + "Z"


def fmt_span(delta: timedelta) -> str:
    """``23 h``, ``25 h``, ``3 d 2 h``, ``20 min`` (the run card's own wording)."""
    return span_text(delta)
