"""Zone offset spans: what zoneinfo answers, found by probing once a day.

:mod:`explorer.engine.tzspans` finds a zone's transitions by asking the zone for
its offset once a day and bisecting where two probes differ. That is exact as
long as two offset changes are never within a day of each other; the first test
checks this assumption on every zone of the pinned tzdata, reading the zone
files with the pure-Python ``zoneinfo`` implementation (explicit transitions,
and the POSIX rule that follows them, through 2200). The others compare the
spans with zoneinfo itself, instant by instant and wall reading by wall reading.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import _zoneinfo

import pytest

from explorer.engine.tz import get_zone, make_aware, zone_names
from explorer.engine.tzspans import spans_of

DAY = 86400


def _offset_changes(name: str) -> list[int]:
    """Every instant (epoch second) at which the zone's UTC offset changes, to 2200."""
    zone = _zoneinfo.ZoneInfo.no_cache(name)
    changes: list[int] = []
    before = zone._tti_before.utcoff if zone._tti_before else None
    for instant, info in zip(zone._trans_utc, zone._ttinfos, strict=True):
        if info.utcoff != before:
            changes.append(instant)
        before = info.utcoff
    rule = zone._tz_after
    if isinstance(rule, _zoneinfo._TZStr):
        # The rule applies after the file's last transition.
        last = zone._trans_utc[-1] if zone._trans_utc else -(1 << 40)
        std = int(rule.std.utcoff.total_seconds())
        dst = int(rule.dst.utcoff.total_seconds())
        for year in range(1970, 2201):
            # The rule's two changes of the year, as readings of the clock before each.
            to_dst, to_std = rule.transitions(year)
            for instant in sorted((to_dst - std, to_std - dst)):
                if instant > last:
                    changes.append(instant)
    return changes


def test_no_zone_changes_its_offset_twice_within_a_day() -> None:
    gaps = []
    for name in zone_names():
        changes = _offset_changes(name)
        gaps += [(b - a, name, a) for a, b in pairwise(changes)]
    closest = min(gaps)
    # 2 days of margin over the probe step; the pinned tzdata's closest pair is 7 days.
    assert closest[0] > 3 * DAY, closest


ZONES = [
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "Europe/Dublin",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Africa/Casablanca",
    "Asia/Gaza",
]


@pytest.mark.parametrize("name", ZONES)
@pytest.mark.parametrize("year", [1918, 1975, 2024, 2038, 2150])
def test_instant_spans_hold_zoneinfos_offsets(name: str, year: int) -> None:
    zone = get_zone(name)
    spans = spans_of(zone)
    second = int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
    end = int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
    while second < end:
        lo, hi, offset = spans.utc_span(second)
        assert lo <= second < hi
        for probe in {lo, hi - 1, second, (lo + hi) // 2}:
            expected = datetime.fromtimestamp(probe, zone).utcoffset()
            assert expected == timedelta(seconds=offset), (name, probe)
        if hi < end:  # a span ends at a change of offset or at the year's end
            assert spans.utc_span(hi)[2] != offset or hi % DAY == 0
        second = hi


@pytest.mark.parametrize("name", ZONES)
@pytest.mark.parametrize("year", [1975, 2024, 2150])
def test_wall_spans_resolve_readings_as_airflow_does(name: str, year: int) -> None:
    """Every minute of the day around each transition, and a reading a day elsewhere."""
    zone = get_zone(name)
    spans = spans_of(zone)
    epoch = datetime(1970, 1, 1)
    changes = [lo for lo, _, _ in _spans_of_year(name, year) if lo != _year_start(year)]
    readings = [datetime(year, 1, 1) + timedelta(days=d, hours=7) for d in range(365)]
    for change in changes:
        wall = datetime.fromtimestamp(change, UTC).replace(tzinfo=None)
        readings += [wall + timedelta(minutes=m) for m in range(-18 * 60, 18 * 60)]
    for reading in readings:
        wall_second = int((reading - epoch).total_seconds())
        _, _, offset = spans.wall_span(wall_second)
        instant = datetime.fromtimestamp(wall_second - offset, UTC)
        assert instant == make_aware(reading, zone), (name, reading)


def _year_start(year: int) -> int:
    return int(datetime(year, 1, 1, tzinfo=UTC).timestamp())


def _spans_of_year(name: str, year: int) -> list[tuple[int, int, int]]:
    spans = spans_of(get_zone(name))
    found = []
    second, end = _year_start(year), _year_start(year + 1)
    while second < end:
        span = spans.utc_span(second)
        found.append(span)
        second = span[1]
    return found
