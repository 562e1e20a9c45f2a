"""Partition mappers, windows and wait policies, one SEMANTICS rule at a time (PT-6 … PT-14).

The conformance vectors pin the same behaviour case by case; these tests state
the rules as readable examples. Instants are UTC; window members are naive
wall-clock readings, as Airflow's windows see them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine.partitions import (
    AllowedKeyMapper,
    ChainMapper,
    DayWindow,
    Direction,
    FanOutMapper,
    FixedKeyMapper,
    HourWindow,
    IdentityMapper,
    MinimumCount,
    MonthWindow,
    PartitionError,
    ProductMapper,
    QuarterWindow,
    RollupMapper,
    SegmentWindow,
    StartOfDayMapper,
    StartOfHourMapper,
    StartOfMonthMapper,
    StartOfQuarterMapper,
    StartOfWeekMapper,
    StartOfYearMapper,
    TemporalMapper,
    WaitForAll,
    WeekWindow,
    YearWindow,
    build_mapper,
    build_wait_policy,
    build_window,
    mapper_to_spec,
    plan_queue,
)
from explorer.engine.tz import get_zone, make_aware

NEW_YORK = "America/New_York"


def utc(year: int, month: int, day: int, hour: int = 0) -> datetime:
    return datetime(year, month, day, hour, tzinfo=UTC)


def hours(start: str, count: int) -> list[str]:
    """``count`` naive hourly readings from ``start``, written like upstream keys."""
    first = datetime.fromisoformat(start)
    return [(first + timedelta(hours=i)).isoformat() for i in range(count)]


def days(start: str, count: int, fmt: str = "%Y-%m-%d") -> list[str]:
    first = datetime.fromisoformat(start)
    return [(first + timedelta(days=i)).strftime(fmt) for i in range(count)]


class TestTemporalMappers:
    """PT-6: input ``2026-03-10T09:37:51`` through each StartOf mapper with its defaults."""

    @pytest.mark.parametrize(
        ("mapper", "key", "partition_date", "output_format"),
        [
            (StartOfHourMapper(), "2026-03-10T09", utc(2026, 3, 10, 9), "%Y-%m-%dT%H"),
            (StartOfDayMapper(), "2026-03-10", utc(2026, 3, 10), "%Y-%m-%d"),
            (StartOfWeekMapper(), "2026-03-09 (W11)", utc(2026, 3, 9), "%Y-%m-%d (W%V)"),
            (StartOfMonthMapper(), "2026-03", utc(2026, 3, 1), "%Y-%m"),
            (StartOfQuarterMapper(), "2026-Q1", utc(2026, 1, 1), "%Y-Q{quarter}"),
            (StartOfYearMapper(), "2026", utc(2026, 1, 1), "%Y"),
        ],
        ids=["hour", "day", "week-monday", "month", "quarter", "year"],
    )
    def test_key_anchor_and_default_format(
        self, mapper: TemporalMapper, key: str, partition_date: datetime, output_format: str
    ) -> None:
        assert mapper.output_format == output_format
        assert mapper.to_downstream("2026-03-10T09:37:51") == key
        assert mapper.to_partition_date(key) == partition_date

    @pytest.mark.parametrize(
        "key",
        ["2026-03-10", "2026-03-10T09:37:51.123", "2026-03-10T09:37:51+02:00", "random-text"],
        ids=["date-only", "fraction", "offset", "text"],
    )
    def test_parsing_is_exact_strptime(self, key: str) -> None:
        with pytest.raises(PartitionError):
            StartOfDayMapper().to_downstream(key)

    def test_strptime_leniency_is_python_s(self) -> None:
        mapper = StartOfHourMapper()
        assert mapper.to_downstream("2024-3-1T1:2:3") == "2024-03-01T01"
        assert mapper.to_downstream("２０２４-03-10T00:00:00") == "2024-03-10T00"

    def test_an_offset_key_is_converted_to_the_mapper_zone(self) -> None:
        mapper = StartOfDayMapper(timezone=NEW_YORK, input_format="%Y-%m-%dT%H:%M:%S%z")
        assert mapper.to_downstream("2026-03-10T02:30:00+0000") == "2026-03-09"
        assert mapper.to_downstream("2026-03-10T02:30:00Z") == "2026-03-09"

    def test_a_naive_key_is_wall_time_in_the_mapper_zone(self) -> None:
        mapper = StartOfDayMapper(timezone=NEW_YORK)
        assert mapper.to_downstream("2024-03-10T05:00:00") == "2024-03-10"
        # Midnight EST is 05:00Z; after the fall-back midnight EDT is 04:00Z.
        assert mapper.to_partition_date("2024-03-10") == utc(2024, 3, 10, 5)
        assert mapper.to_partition_date("2024-11-03") == utc(2024, 11, 3, 4)

    def test_quarter_placeholder_can_lead(self) -> None:
        mapper = StartOfQuarterMapper(output_format="Q{quarter} %Y")
        assert mapper.to_downstream("2024-11-03T01:30:00") == "Q4 2024"
        assert mapper.to_partition_date("Q4 2024") == utc(2024, 10, 1)

    def test_an_unknown_placeholder_fails_every_key(self) -> None:
        mapper = StartOfQuarterMapper(output_format="%Y-{x}")
        with pytest.raises(PartitionError, match="placeholder"):
            mapper.to_downstream("2024-03-13T10:42:15")

    @pytest.mark.parametrize(
        ("mapper_class", "output_format"),
        [
            (StartOfWeekMapper, "%Y-%m-%d %Y"),
            (StartOfQuarterMapper, "{}%Y"),
            (StartOfQuarterMapper, "{quarter}{quarter}"),
        ],
        ids=["directive-twice", "empty-placeholder", "placeholder-twice"],
    )
    def test_malformed_output_formats_are_refused_at_construction(
        self, mapper_class: type[TemporalMapper], output_format: str
    ) -> None:
        with pytest.raises(PartitionError, match="output_format"):
            mapper_class(output_format=output_format)

    def test_unknown_zone_is_refused(self) -> None:
        with pytest.raises(PartitionError, match="Mars/Olympus"):
            StartOfDayMapper(timezone="Mars/Olympus")


class TestOtherMappers:
    """PT-7."""

    def test_identity_keeps_the_key_and_carries_the_producer_date(self) -> None:
        mapper = IdentityMapper()
        assert mapper.to_downstream("2025-01-01T03:00:00") == "2025-01-01T03:00:00"
        assert mapper.to_partition_date("2025-01-01T03:00:00") is None
        assert mapper.carry_partition_date(utc(2025, 1, 1, 3)) == utc(2025, 1, 1, 3)
        assert StartOfDayMapper().carry_partition_date(utc(2025, 1, 1, 3)) is None

    def test_allowed_keys_are_exact_and_case_sensitive(self) -> None:
        mapper = AllowedKeyMapper(["us", "eu", "apac"])
        assert mapper.to_downstream("eu") == "eu"
        with pytest.raises(PartitionError, match="not in allowed keys"):
            mapper.to_downstream("US")

    def test_fixed_key(self) -> None:
        assert FixedKeyMapper("all_regions").to_downstream("us") == "all_regions"
        with pytest.raises(PartitionError):
            FixedKeyMapper("")

    def test_product_maps_each_segment(self) -> None:
        mapper = ProductMapper(IdentityMapper(), StartOfDayMapper())
        assert mapper.to_downstream("us|2026-03-10T09:00:00") == "us|2026-03-10"
        assert mapper.to_partition_date("us|2026-03-10") == utc(2026, 3, 10)
        with pytest.raises(PartitionError, match="segments"):
            mapper.to_downstream("us")

    def test_product_with_two_temporal_segments_has_no_anchor(self) -> None:
        mapper = ProductMapper(StartOfDayMapper(), StartOfHourMapper(), delimiter="/")
        assert mapper.to_partition_date("2024-03-13/2024-03-13T20") is None

    def test_chain_feeds_keys_forward(self) -> None:
        mapper = ChainMapper(StartOfHourMapper(), StartOfDayMapper(input_format="%Y-%m-%dT%H"))
        assert mapper.to_downstream("2026-03-10T09:37:51") == "2026-03-10"
        assert mapper.to_partition_date("2026-03-10") == utc(2026, 3, 10)

    def test_chain_fans_out_without_dedup(self) -> None:
        fan_out = FanOutMapper(upstream_mapper=StartOfWeekMapper(), window=WeekWindow())
        mapper = ChainMapper(fan_out, StartOfMonthMapper(input_format="%Y-%m-%d"))
        assert mapper.to_downstream("2024-02-28T00:00:00") == ["2024-02"] * 4 + ["2024-03"] * 3

    @pytest.mark.parametrize("cap", [0, -1, 2.5], ids=["zero", "negative", "float"])
    def test_max_downstream_keys_must_be_positive(self, cap: object) -> None:
        with pytest.raises(PartitionError, match="max_downstream_keys"):
            IdentityMapper(max_downstream_keys=cap)  # type: ignore[arg-type]


class TestRollup:
    """PT-8: the consumer grain is the upstream mapper's; members are raw upstream keys."""

    def test_day_of_hours(self) -> None:
        rollup = RollupMapper(upstream_mapper=StartOfDayMapper(), window=DayWindow())
        assert rollup.to_downstream("2026-03-10T09:37:51") == "2026-03-10"
        assert sorted(rollup.to_upstream("2026-03-10")) == hours("2026-03-10T00:00:00", 24)

    def test_hour_mapper_with_day_window_is_a_sliding_window(self) -> None:
        rollup = RollupMapper(upstream_mapper=StartOfHourMapper(), window=DayWindow())
        assert rollup.to_downstream("2026-03-10T09:37:51") == "2026-03-10T09"
        assert sorted(rollup.to_upstream("2026-03-10T09")) == hours("2026-03-10T09:00:00", 24)

    @pytest.mark.parametrize(
        ("key", "count"), [("2024-02", 29), ("2026-02", 28)], ids=["leap-feb", "plain-feb"]
    )
    def test_month_of_days(self, key: str, count: int) -> None:
        rollup = RollupMapper(
            upstream_mapper=StartOfMonthMapper(input_format="%Y-%m-%d"), window=MonthWindow()
        )
        assert sorted(rollup.to_upstream(key)) == days(f"{key}-01", count)

    def test_quarter_of_months(self) -> None:
        rollup = RollupMapper(
            upstream_mapper=StartOfQuarterMapper(input_format="%Y-%m"), window=QuarterWindow()
        )
        assert sorted(rollup.to_upstream("2026-Q2")) == ["2026-04", "2026-05", "2026-06"]

    def test_categorical_rollup(self) -> None:
        rollup = RollupMapper(
            upstream_mapper=FixedKeyMapper("all"), window=SegmentWindow(["us", "eu", "apac"])
        )
        assert rollup.to_downstream("eu") == "all"
        assert rollup.to_upstream("all") == {"us", "eu", "apac"}

    def test_expected_keys_must_match_raw_keys_byte_for_byte(self) -> None:
        rollup = RollupMapper(upstream_mapper=StartOfDayMapper(), window=DayWindow())
        # A `15 * * * *` producer writes …T09:15:00, which no hourly member equals.
        quarter_past = {key.replace(":00:00", ":15:00") for key in rollup.to_upstream("2026-03-10")}
        assert not rollup.status("2026-03-10", quarter_past).satisfied

    @pytest.mark.parametrize(
        ("mapper", "window"),
        [(IdentityMapper(), DayWindow()), (StartOfDayMapper(), SegmentWindow(["us"]))],
        ids=["identity-with-day-window", "day-mapper-with-segments"],
    )
    def test_mapper_and_window_must_agree(self, mapper: object, window: object) -> None:
        with pytest.raises(PartitionError, match="cannot pair"):
            RollupMapper(upstream_mapper=mapper, window=window)  # type: ignore[arg-type]

    def test_anchor_comes_from_the_upstream_mapper(self) -> None:
        rollup = RollupMapper(upstream_mapper=StartOfWeekMapper(), window=WeekWindow())
        assert rollup.to_partition_date("2024-03-11 (W11)") == utc(2024, 3, 11)
        assert rollup.is_rollup and not StartOfWeekMapper().is_rollup


class TestWindows:
    """PT-9: members from an anchor, FORWARD (default) or BACKWARD."""

    def test_forward_day(self) -> None:
        members = DayWindow().to_upstream(datetime(2024, 12, 31, 12))
        assert [m.isoformat() for m in members] == hours("2024-12-31T12:00:00", 24)  # type: ignore[union-attr]

    @pytest.mark.parametrize(
        ("window", "anchor", "first", "last", "count"),
        [
            (DayWindow, datetime(2026, 3, 10), datetime(2026, 3, 9, 1), datetime(2026, 3, 10), 24),
            (WeekWindow, datetime(2026, 3, 9), datetime(2026, 3, 3), datetime(2026, 3, 9), 7),
            (MonthWindow, datetime(2024, 3, 1), datetime(2024, 2, 2), datetime(2024, 3, 1), 29),
            (QuarterWindow, datetime(2024, 1, 1), datetime(2023, 11, 1), datetime(2024, 1, 1), 3),
            (YearWindow, datetime(2024, 7, 1), datetime(2023, 8, 1), datetime(2024, 7, 1), 12),
            (
                HourWindow,
                datetime(2026, 3, 10, 9),
                datetime(2026, 3, 10, 8, 1),
                datetime(2026, 3, 10, 9),
                60,
            ),
        ],
        ids=["day", "week", "month-is-previous-1st-exclusive", "quarter", "year", "hour"],
    )
    def test_backward_ends_at_the_anchor(
        self, window: type[DayWindow], anchor: datetime, first: datetime, last: datetime, count: int
    ) -> None:
        members = window(direction=Direction.BACKWARD).to_upstream(anchor)
        assert (members[0], members[-1], len(members)) == (first, last, count)

    @pytest.mark.parametrize("window", [MonthWindow, QuarterWindow, YearWindow])
    def test_month_windows_need_a_first_of_month(self, window: type[MonthWindow]) -> None:
        with pytest.raises(PartitionError, match="day 1"):
            window().to_upstream(datetime(2024, 1, 31))

    def test_segments_ignore_the_anchor_and_collapse_duplicates(self) -> None:
        assert SegmentWindow(["us", "eu", "apac", "us"]).to_upstream("x") == ["apac", "eu", "us"]

    @pytest.mark.parametrize(
        "segments", [[], ["us", ""], ["us", 3]], ids=["empty", "empty-string", "not-a-string"]
    )
    def test_bad_segments_are_refused(self, segments: list[object]) -> None:
        with pytest.raises(PartitionError, match="SegmentWindow"):
            SegmentWindow(segments)  # type: ignore[arg-type]

    def test_unknown_direction_is_refused(self) -> None:
        with pytest.raises(PartitionError, match="direction"):
            DayWindow(direction="sideways")


class TestWaitPolicies:
    """PT-10."""

    EXPECTED = frozenset({"a", "b", "c"})

    def test_wait_for_all(self) -> None:
        assert (
            WaitForAll()
            .is_satisfied_by_keys(matched={"a", "b", "c", "x"}, expected=self.EXPECTED)
            .satisfied
        )
        assert (
            not WaitForAll()
            .is_satisfied_by_keys(matched={"a", "b"}, expected=self.EXPECTED)
            .satisfied
        )
        assert WaitForAll().is_satisfied_by_keys(matched=set(), expected=frozenset()).satisfied

    @pytest.mark.parametrize(
        ("n", "arrived", "satisfied"),
        [
            (-1, {"a", "b"}, True),
            (-1, {"a"}, False),
            (-1, {"a", "x", "y"}, False),
            (-3, {"a"}, True),
            (-5, {"x"}, True),
        ],
        ids=[
            "one-missing-is-enough",
            "two-missing-is-not",
            "unexpected-keys-do-not-count",
            "minus-size-fires-on-first",
            "beyond-size-clamps-at-zero",
        ],
    )
    def test_negative_minimum_count(self, n: int, arrived: set[str], satisfied: bool) -> None:
        verdict = MinimumCount(n).is_satisfied_by_keys(matched=arrived, expected=self.EXPECTED)
        assert verdict.satisfied is satisfied
        assert not verdict.unreachable

    def test_positive_minimum_count_larger_than_the_window_is_unreachable(self) -> None:
        verdict = MinimumCount(5).is_satisfied_by_keys(
            matched=self.EXPECTED, expected=self.EXPECTED
        )
        assert (verdict.satisfied, verdict.unreachable) == (False, True)
        assert (
            verdict.unreachable_reason is not None
            and "MinimumCount(n=5)" in verdict.unreachable_reason
        )

    def test_minimum_count_zero_is_refused(self) -> None:
        with pytest.raises(PartitionError, match="degenerate"):
            MinimumCount(0)


class TestFanOut:
    """PT-11: one upstream key → one consumer key per window member."""

    def test_week_to_seven_days(self) -> None:
        mapper = FanOutMapper(upstream_mapper=StartOfWeekMapper(), window=WeekWindow())
        assert mapper_to_spec(mapper.downstream_mapper) == mapper_to_spec(StartOfDayMapper())
        expected = days("2026-03-09", 7)
        assert mapper.to_downstream("2026-03-09T00:00:00") == expected
        assert mapper.to_downstream("2026-03-12T17:45:00") == expected
        assert mapper.to_partition_date("2026-03-15") == utc(2026, 3, 15)

    def test_week_backward(self) -> None:
        window = WeekWindow(direction=Direction.BACKWARD)
        mapper = FanOutMapper(upstream_mapper=StartOfWeekMapper(), window=window)
        assert mapper.to_downstream("2026-03-09T00:00:00") == days("2026-03-03", 7)

    def test_month_to_days(self) -> None:
        mapper = FanOutMapper(upstream_mapper=StartOfMonthMapper(), window=MonthWindow())
        assert len(mapper.to_downstream("2026-02-14T00:00:00")) == 28

    def test_segments_with_identity(self) -> None:
        mapper = FanOutMapper(
            upstream_mapper=FixedKeyMapper("all"),
            window=SegmentWindow(["us", "eu", "apac"]),
            downstream_mapper=IdentityMapper(),
        )
        assert sorted(mapper.to_downstream("anything")) == ["apac", "eu", "us"]

    @pytest.mark.parametrize(
        "window", [HourWindow(), SegmentWindow(["us"])], ids=["hour", "segment"]
    )
    def test_windows_without_a_default_need_a_downstream_mapper(self, window: object) -> None:
        with pytest.raises(PartitionError, match="no default downstream_mapper"):
            FanOutMapper(upstream_mapper=StartOfHourMapper(), window=window)  # type: ignore[arg-type]

    def test_cap_queues_nothing_when_exceeded(self) -> None:
        mapper = FanOutMapper(
            upstream_mapper=StartOfWeekMapper(), window=WeekWindow(), max_downstream_keys=3
        )
        plan = plan_queue(mapper, "2024-12-30T00:00:00")
        assert plan.produced == tuple(days("2024-12-30", 7))
        assert plan.cap_exceeded and plan.queued == ()
        uncapped = plan_queue(
            FanOutMapper(upstream_mapper=StartOfWeekMapper(), window=WeekWindow()),
            "2024-12-30T00:00:00",
        )
        assert uncapped.queued == uncapped.produced and uncapped.cap == 1000


class TestDayWindowAcrossDst:
    """PT-14 with DST-7: New York keys, NY rollup (spring 2024-03-10, fall 2024-11-03)."""

    ROLLUP = RollupMapper(upstream_mapper=StartOfDayMapper(timezone=NEW_YORK), window=DayWindow())

    @staticmethod
    def hourly_producer_keys(day: str) -> list[str]:
        """The keys a ``0 * * * *`` NY CronPartition emits that local day (DST-7)."""
        zone = get_zone(NEW_YORK)
        start = make_aware(datetime.fromisoformat(day), zone)
        end = make_aware(datetime.fromisoformat(day) + timedelta(days=1), zone)
        count = int((end - start) / timedelta(hours=1))
        return [
            (start + timedelta(hours=i)).astimezone(zone).strftime("%Y-%m-%dT%H:%M:%S")
            for i in range(count)
        ]

    @pytest.mark.parametrize(
        ("day", "expected_keys", "events"),
        [("2024-03-10", 23, 23), ("2024-11-03", 24, 25)],
        ids=["spring-forward-23", "fall-back-24"],
    )
    def test_expected_keys_and_producer_keys(
        self, day: str, expected_keys: int, events: int
    ) -> None:
        expected = self.ROLLUP.to_upstream(day)
        produced = self.hourly_producer_keys(day)
        assert len(expected) == expected_keys
        assert len(produced) == events
        assert set(produced) == expected
        assert self.ROLLUP.status(day, set(produced)).satisfied

    def test_the_gap_hour_re_encodes_forward(self) -> None:
        expected = self.ROLLUP.to_upstream("2024-03-10")
        assert "2024-03-10T02:00:00" not in expected
        assert "2024-03-10T03:00:00" in expected

    def test_utc_keys_read_as_new_york_land_in_the_wrong_day(self) -> None:
        # The real hazard: a UTC-keyed producer feeding a NY mapper.
        assert self.ROLLUP.to_downstream("2024-03-11T02:00:00") == "2024-03-11"
        assert make_aware(datetime(2024, 3, 11, 2), UTC).astimezone(get_zone(NEW_YORK)).day == 10


class TestSpecs:
    """README 4.1: the scenario file's spelling, both ways."""

    def test_resolved_spec_fills_every_default(self) -> None:
        mapper = build_mapper(
            {
                "mapper": "RollupMapper",
                "args": {
                    "upstream_mapper": {"mapper": "StartOfWeekMapper"},
                    "window": {"window": "WeekWindow"},
                },
            }
        )
        assert mapper_to_spec(mapper) == {
            "mapper": "RollupMapper",
            "args": {
                "upstream_mapper": {
                    "mapper": "StartOfWeekMapper",
                    "args": {
                        "timezone": "UTC",
                        "input_format": "%Y-%m-%dT%H:%M:%S",
                        "output_format": "%Y-%m-%d (W%V)",
                    },
                },
                "window": {"window": "WeekWindow", "args": {"direction": "forward"}},
                "wait_policy": {"policy": "WaitForAll", "args": {}},
            },
        }
        assert build_mapper(mapper_to_spec(mapper)) == mapper

    @pytest.mark.parametrize(
        ("spec", "message"),
        [
            ({"mapper": "StartOfDecadeMapper"}, "unknown mapper 'StartOfDecadeMapper'"),
            (
                {"mapper": "StartOfDayMapper", "args": {"tz": "UTC"}},
                "StartOfDayMapper has no argument 'tz'",
            ),
            ({"mapper": "FixedKeyMapper"}, "FixedKeyMapper needs the argument 'downstream_key'"),
            (
                {"mapper": "ChainMapper", "args": {"mappers": [{"mapper": "IdentityMapper"}]}},
                "two or more",
            ),
            ({"mapper": "IdentityMapper", "args": {"max_downstream_keys": True}}, "integer"),
            ({"mapper": "AllowedKeyMapper", "args": {"allowed_keys": "us"}}, "list of strings"),
        ],
        ids=[
            "unknown-class",
            "unknown-arg",
            "missing-arg",
            "short-chain",
            "bool-cap",
            "string-keys",
        ],
    )
    def test_bad_mapper_specs_name_the_problem(self, spec: dict[str, object], message: str) -> None:
        with pytest.raises(PartitionError, match=message):
            build_mapper(spec)

    def test_window_and_policy_specs(self) -> None:
        window = build_window({"window": "WeekWindow", "args": {"direction": "backward"}})
        assert window == WeekWindow(direction=Direction.BACKWARD)
        assert build_wait_policy({"policy": "MinimumCount", "args": {"n": -2}}) == MinimumCount(-2)
        with pytest.raises(PartitionError, match="unknown window 'FortnightWindow'"):
            build_window({"window": "FortnightWindow"})
        with pytest.raises(PartitionError, match="MinimumCount needs the argument 'n'"):
            build_wait_policy({"policy": "MinimumCount"})
