"""Zone names: only names in the pinned tzdata are zones; anything else is "unknown time zone".

A name reaches the file system inside ``tzdata`` (``zoneinfo`` opens the file of that
name), so a folder (``America``), a package file (``America/__init__.py``) or an
over-long name raised ``IsADirectoryError`` / ``OSError`` from every caller.
"""

from __future__ import annotations

import pytest

from explorer.engine.errors import ScheduleError
from explorer.engine.tz import UTC, ZoneError, get_zone


@pytest.mark.parametrize(
    "name",
    [
        "America",
        "Europe",
        "America/Argentina",
        "Africa/__pycache__",
        "America/__init__.py",
        "__init__.py",
        "zone1970.tab",
        "tzdata.zi",
        "America/New_York/",
        "Europe/../UTC",
        "/etc/localtime",
        "../zoneinfo/UTC",
        "a" * 300,
        "Europe/Lond\x00on",
        "",
        " Europe/London",
    ],
)
def test_a_name_that_is_no_zone_is_an_unknown_time_zone(name: str) -> None:
    with pytest.raises(ZoneError) as caught:
        get_zone(name)
    assert str(caught.value) == f"unknown time zone {name!r}"
    assert isinstance(caught.value, ScheduleError)


@pytest.mark.parametrize(
    "name", ["America/New_York", "Europe/London", "America/Argentina/Buenos_Aires", "US/Eastern"]
)
def test_real_zones_still_resolve(name: str) -> None:
    assert str(get_zone(name)) == name


def test_utc_spellings_are_the_fast_utc() -> None:
    assert get_zone("UTC") is UTC and get_zone("Etc/UTC") is UTC and get_zone("Z") is UTC
