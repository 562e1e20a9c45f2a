"""Instants and durations: parsed strictly, written back as read, canonical when made in code."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.scenario import Duration, Instant
from explorer.scenario.errors import render_path


class TestInstants:
    @pytest.mark.parametrize(
        ("text", "utc"),
        [
            pytest.param("2024-03-10T05:00:00Z", datetime(2024, 3, 10, 5, tzinfo=UTC), id="z"),
            pytest.param(
                "2024-03-10T00:00:00-05:00", datetime(2024, 3, 10, 5, tzinfo=UTC), id="offset"
            ),
            pytest.param(
                "2024-03-10T05:00Z", datetime(2024, 3, 10, 5, tzinfo=UTC), id="no-seconds"
            ),
            pytest.param(
                "2024-03-10T05:00:00.5+00:00",
                datetime(2024, 3, 10, 5, 0, 0, 500000, tzinfo=UTC),
                id="fraction",
            ),
        ],
    )
    def test_an_instant_is_read_as_utc_and_keeps_its_text(self, text: str, utc: datetime) -> None:
        instant = Instant.parse(text)
        assert (instant.value, instant.text) == (utc, text)
        assert instant.value.tzinfo is UTC

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            pytest.param("2024-03-10T05:00:00", "naive datetime", id="naive"),
            pytest.param("2024-03-10", "not an ISO-8601 datetime", id="date-only"),
            pytest.param("2024-02-30T00:00:00Z", "not a valid datetime", id="no-such-day"),
            pytest.param("2024-03-10 05:00:00Z", "not an ISO-8601 datetime", id="space"),
        ],
    )
    def test_a_bad_instant_is_refused_with_a_reason(self, text: str, message: str) -> None:
        with pytest.raises(ValueError, match=message):
            Instant.parse(text)

    def test_an_instant_made_in_code_is_written_with_its_own_offset(self) -> None:
        new_york = timezone(timedelta(hours=-5))
        assert Instant.of(datetime(2024, 3, 8, tzinfo=new_york)).text == "2024-03-08T00:00:00-05:00"
        assert Instant.of(datetime(2024, 3, 8, tzinfo=UTC)).text == "2024-03-08T00:00:00Z"

    def test_a_naive_datetime_cannot_become_an_instant(self) -> None:
        with pytest.raises(ValueError, match="naive"):
            Instant.of(datetime(2024, 3, 8))

    @given(
        st.datetimes(
            min_value=datetime(1900, 1, 2),  # the range a scenario allows (values.EARLIEST..)
            max_value=datetime(8999, 12, 30),
            timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30))]),
        )
    )
    def test_an_instant_made_in_code_reads_back_equal(self, value: datetime) -> None:
        instant = Instant.of(value)
        assert Instant.parse(instant.text) == instant


class TestDurations:
    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ("PT6H", timedelta(hours=6)),
            ("P1DT30M", timedelta(days=1, minutes=30)),
            ("P2W", timedelta(weeks=2)),
            ("PT0.25S", timedelta(milliseconds=250)),
            ("PT0S", timedelta(0)),
        ],
    )
    def test_a_duration_is_read_exactly(self, text: str, value: timedelta) -> None:
        assert Duration.parse(text) == Duration(value, text)

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("-PT5M", "negative duration"),
            ("P1M", "months or years"),
            ("P1Y", "months or years"),
            ("PT", "not an ISO-8601 duration"),
            ("6 hours", "not an ISO-8601 duration"),
        ],
    )
    def test_a_bad_duration_is_refused_with_a_reason(self, text: str, message: str) -> None:
        with pytest.raises(ValueError, match=message):
            Duration.parse(text)

    @given(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=9999)))
    def test_a_duration_made_in_code_reads_back_equal(self, value: timedelta) -> None:
        duration = Duration.of(value)
        assert Duration.parse(duration.text) == duration


@pytest.mark.parametrize(
    ("steps", "rendered"),
    [
        ((), "$"),
        (("dags", 2, "schedule", "args", "cron"), "$.dags[2].schedule.args.cron"),
        (("x-colour",), "$.x-colour"),
        (("layout", "dag:a b"), '$.layout["dag:a b"]'),
    ],
)
def test_json_paths_read_as_jsonpath(steps: tuple[str | int, ...], rendered: str) -> None:
    assert render_path(steps) == rendered
