"""A temporal mapper's keys read and written (PT-6): the default format's fast reading is
``strptime``'s own and the numeric formats' fast writing ``strftime``'s, answer for
answer and error for error."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.partitions import PartitionError
from explorer.engine.partitions._local import parse_key, render

FORMAT = "%Y-%m-%dT%H:%M:%S"


def _strptime(key: str) -> datetime | str:
    try:
        return datetime.strptime(key, FORMAT)
    except ValueError as exc:
        return f"partition key {key!r} does not match {FORMAT!r}: {exc}"


def _parsed(key: str) -> datetime | str:
    try:
        return parse_key(key, FORMAT)
    except PartitionError as exc:
        return str(exc)


@settings(max_examples=400, deadline=None)
@given(st.datetimes(datetime(1000, 1, 1), datetime(9999, 12, 31)))
def test_every_key_written_in_the_format_reads_back(value: datetime) -> None:
    key = value.replace(microsecond=0).strftime(FORMAT)
    assert _parsed(key) == _strptime(key) == value.replace(microsecond=0)


def test_a_year_before_1000_is_strptimes_refusal() -> None:
    """strftime writes year 999 unpadded; strptime's %Y then refuses it, and so do we."""
    key = datetime(999, 1, 1).strftime(FORMAT)
    assert isinstance(_strptime(key), str)
    assert _parsed(key) == _strptime(key)


# Fields out of range, unpadded, signed, underscored, non-ASCII digits, other shapes.
ODD_KEYS = [
    "2024-02-30T00:00:00",
    "2024-13-01T00:00:00",
    "2024-00-10T00:00:00",
    "2024-03-01T24:00:00",
    "2024-03-01T23:59:60",
    "2024-03-01T23:59:61",
    "0000-03-01T00:00:00",
    "2024-3-01T00:00:00",
    "2024-+3-01T00:00:00",
    "2024-0_3-01T00:00:00",
    "٢٠٢٤-03-01T00:00:00",
    "2024-03-01 05:00:00",
    "2024-03-01T05:00:00Z",
    "2024-03-01T05:00:00.000000",
    "2024-03-01T05:00",
    " 2024-03-01T05:00:00",
    "",
]


@pytest.mark.parametrize("key", ODD_KEYS)
def test_odd_keys_get_strptimes_answer_or_error(key: str) -> None:
    assert _parsed(key) == _strptime(key)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789-T: +_Z٣", min_size=15, max_size=21))
def test_any_text_gets_strptimes_answer_or_error(key: str) -> None:
    assert _parsed(key) == _strptime(key)


# ---------------------------------------------------------------- writing keys (render)
PIECES = [
    "%Y",
    "%m",
    "%d",
    "%H",
    "%M",
    "%S",
    "%%",
    "-",
    "T",
    ":",
    " ",
    "Q",
    "{",
    "}",
    "é",
    "%V",
    "%j",
]
ZONES = ["UTC", "America/New_York", "Europe/London", "Asia/Kolkata"]


def _strftime(value: datetime, fmt: str) -> str:
    try:
        return value.strftime(fmt)
    except ValueError as exc:
        return f"cannot format {value.isoformat()} with {fmt!r}: {exc}"


def _rendered(value: datetime, fmt: str) -> str:
    try:
        return render(value, fmt)
    except PartitionError as exc:
        return str(exc)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join),
    st.datetimes(datetime(1, 1, 1), datetime(9999, 12, 31)),
    st.sampled_from(ZONES),
)
def test_render_writes_what_strftime_writes(fmt: str, wall: datetime, zone: str) -> None:
    """PT-6: a key written field by field (numbers only) is strftime's, in any zone, for
    every year; other directives and years before 1000 are strftime's own."""
    value = wall.replace(tzinfo=ZoneInfo(zone))
    assert _rendered(value, fmt) == _strftime(value, fmt)


@pytest.mark.parametrize("fmt", ["%Y-%m-%dT%H", "%Y-%m-%d", "%Y-%m", "%Y", "%Y%%%m", "%", "x%"])
def test_render_of_the_mappers_formats_and_odd_ones(fmt: str) -> None:
    for value in (datetime(2024, 3, 10, 7, 5, 9), datetime(999, 1, 2, 3, 4, 5)):
        assert _rendered(value, fmt) == _strftime(value, fmt)
