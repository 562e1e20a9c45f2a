"""DST transitions inside a horizon, found from the zones the scenario's DAGs use.

``zoneinfo`` exposes no list of transitions, so offsets are sampled every
six hours across the horizon and each change is narrowed to the second by
bisection (transitions are at least weeks apart; the sampling cannot miss
one). Each transition carries what a user needs to read the timeline: the
local day it falls on and that day's length (23 h / 25 h), and which wall
times were skipped or repeated — the times ``make_aware`` moves forward or
resolves to the later instant (DST-1, ``adr/0004``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from explorer.document.timeline.timebase import fmt_span
from explorer.engine.tz import get_zone, make_aware

__all__ = ["DstTransition", "transitions_between"]

_SAMPLE = timedelta(hours=6)
#: Scanning further than this is pointless on a timeline and would cost time.
_MAX_SPAN = timedelta(days=366 * 20)


@dataclass(frozen=True, slots=True)
class DstTransition:
    """One change of a zone's UTC offset, with the local day it reshapes."""

    zone: str
    at: datetime  # the instant (UTC) the offset changes
    offset_before: timedelta
    offset_after: timedelta
    abbr_before: str
    abbr_after: str
    day_start: datetime  # local midnight before the change, as an instant
    day_end: datetime  # the next local midnight, as an instant

    @property
    def spring_forward(self) -> bool:
        return self.offset_after > self.offset_before

    @property
    def shift(self) -> timedelta:
        return abs(self.offset_after - self.offset_before)

    @property
    def day_length(self) -> timedelta:
        return self.day_end - self.day_start

    @property
    def wall_times(self) -> tuple[datetime, datetime]:
        """The naive wall-clock readings skipped (spring) or repeated (fall): ``[a, b)``."""
        before = (self.at + self.offset_before).replace(tzinfo=None)
        after = (self.at + self.offset_after).replace(tzinfo=None)
        return (before, after) if self.spring_forward else (after, before)

    @property
    def title(self) -> str:
        """``23 h day`` / ``25 h day``: the headline on the band."""
        return f"{fmt_span(self.day_length)} day"

    @property
    def detail(self) -> str:
        """``America/New_York, Sun 10 Mar: 02:00–03:00 EST→EDT never happen``."""
        a, b = self.wall_times
        day = self.day_start.astimezone(get_zone(self.zone)).strftime("%a %d %b %Y")
        what = "never happen (skipped)" if self.spring_forward else "happen twice (repeated)"
        return (
            f"{self.zone}, {day}: wall times {a:%H:%M}–{b:%H:%M} {what}; "
            f"{self.abbr_before}→{self.abbr_after} at {self.at:%H:%M}Z"
        )

    @property
    def label(self) -> str:
        kind = "spring forward" if self.spring_forward else "fall back"
        return f"{self.title} · {kind} · {self.zone}"


def _offset(zone_name: str, instant: datetime) -> timedelta:
    value = instant.astimezone(get_zone(zone_name)).utcoffset()
    return timedelta(0) if value is None else value


def _narrow(zone: str, lo: datetime, hi: datetime) -> datetime:
    """The first instant in ``(lo, hi]`` with ``hi``'s offset (to the second)."""
    target = _offset(zone, hi)
    while hi - lo > timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        mid = mid.replace(microsecond=0)
        if mid <= lo:
            break
        if _offset(zone, mid) == target:
            hi = mid
        else:
            lo = mid
    return hi


def _transition(zone: str, at: datetime) -> DstTransition:
    tz = get_zone(zone)
    before_instant = at - timedelta(seconds=1)
    before = before_instant.astimezone(tz)
    after = at.astimezone(tz)
    wall_day = before.replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0)
    return DstTransition(
        zone=zone,
        at=at,
        offset_before=_offset(zone, before_instant),
        offset_after=_offset(zone, at),
        abbr_before=before.tzname() or "",
        abbr_after=after.tzname() or "",
        day_start=make_aware(wall_day, tz),
        day_end=make_aware(wall_day + timedelta(days=1), tz),
    )


def transitions_between(
    zones: Iterable[str], start: datetime, end: datetime
) -> list[DstTransition]:
    """Every offset change of ``zones`` in ``[start, end]``, in time order (UTC is skipped)."""
    end = min(end, start + _MAX_SPAN)
    out: list[DstTransition] = []
    for zone in dict.fromkeys(zones):
        if zone in ("UTC", "Etc/UTC", "Z"):
            continue
        t = start
        previous = _offset(zone, t)
        while t < end:
            nxt = min(t + _SAMPLE, end)
            current = _offset(zone, nxt)
            if current != previous:
                out.append(_transition(zone, _narrow(zone, t, nxt)))
                previous = current
            t = nxt
    return sorted(out, key=lambda tr: (tr.at, tr.zone))
