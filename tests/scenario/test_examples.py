"""Every shipped example loads, builds and simulates to its clock.until; each tells its story.

The stories are the seeds' (000, 001), with Airflow 3.3.2's answers where the
seeds are wrong (SEMANTICS section 8): asset runs have no data interval,
runs overlap below max_active_runs, a trailing slash makes a conflict.
"""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from tests.scenario.helpers import EXAMPLES

ALL = sorted(EXAMPLES.glob("*.json"))
STORIES = {
    "orders_mart_two_assets.json",
    "producer_fails_silence.json",
    "daily_and_weekly_feeds.json",
    "or_and_coalescing.json",
    "alias_and_ref.json",
    "trailing_slash_conflict.json",
    "ny_dst_orders_mart.json",
}


@cache
def simulated(name: str) -> Simulation:
    """The example simulated from clock.start to clock.until (cached: the stories share it)."""
    inputs = build_engine_inputs(load_scenario(EXAMPLES / name), source=name)
    assert inputs.until is not None, f"{name} has no clock.until"
    sim = make_simulation(inputs)
    sim.advance_to(inputs.until)
    sim.finish()
    return sim


def runs_of(name: str, dag_id: str) -> list[DagRun]:
    return [run for run in simulated(name).runs if run.dag_id == dag_id]


def created_days(runs: list[DagRun]) -> list[date]:
    return [run.created_at.date() for run in runs]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def test_the_examples_of_the_asset_stories_exist() -> None:
    assert {path.name for path in ALL} >= STORIES


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_every_example_builds_and_simulates_to_its_horizon(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.description, "an example says what to look at"
    inputs = build_engine_inputs(scenario, source=str(path))
    assert not inputs.unsupported
    sim = simulated(path.name)
    assert sim.now == inputs.until
    assert sim.runs, "an example shows some runs"
    assert sim.state.unmatched == [], "every scripted action finds its run"


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_every_example_simulates_from_the_command_line(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", str(path), "--format", "table"]) == 0
    assert " runs until " in capsys.readouterr().out


def test_the_asset_examples_have_no_scenario_warnings() -> None:
    """The stories are written cleanly: warnings come from the engine, not the file."""
    for name in STORIES:
        inputs = build_engine_inputs(load_scenario(EXAMPLES / name))
        assert inputs.warnings == [], name


class TestOrdersMartTwoAssets:
    NAME = "orders_mart_two_assets.json"

    def test_ten_updates_of_one_asset_and_none_of_the_other_give_no_run(self) -> None:
        orders = runs_of(self.NAME, "ingest_orders")
        assert len(orders) == 10 and {r.state for r in orders} == {"success"}
        assert runs_of(self.NAME, "ingest_customers") == []
        assert runs_of(self.NAME, "orders_mart") == []

    def test_the_consumer_waits_with_one_queue_row_for_orders(self) -> None:
        mart = simulated(self.NAME).dags["orders_mart"]
        assert [key.name for key in mart.adrq] == ["orders"]  # one row for ten events (AS-2)
        assert mart.adrq[next(iter(mart.adrq))] == at("2024-05-01T00:05:00Z")


class TestProducerFailsSilence:
    NAME = "producer_fails_silence.json"

    def test_the_failed_day_has_no_consumer_run_and_no_failed_consumer_run(self) -> None:
        orders = runs_of(self.NAME, "ingest_orders")
        assert [r.state for r in orders] == ["success", "failed", "success", "success"]
        report = runs_of(self.NAME, "orders_report")
        assert created_days(report) == [date(2024, 5, 1), date(2024, 5, 3), date(2024, 5, 4)]
        assert {r.state for r in report} == {"success"}

    def test_a_success_that_wrote_nothing_still_triggers_its_consumer(self) -> None:
        refunds = runs_of(self.NAME, "ingest_refunds")
        [no_data] = [r for r in refunds if r.logical_date == at("2024-05-02T00:00:00Z")]
        assert no_data.state == "success"
        assert [t.outcome for t in no_data.tasks] == ["success_no_data"]
        report = runs_of(self.NAME, "refunds_report")
        assert date(2024, 5, 2) in created_days(report) and len(report) == 4

    def test_asset_triggered_runs_have_no_logical_date_or_interval(self) -> None:
        for run in runs_of(self.NAME, "orders_report"):
            assert run.run_type == "asset_triggered"
            assert run.logical_date is None and run.data_interval is None


class TestDailyAndWeeklyFeeds:
    NAME = "daily_and_weekly_feeds.json"

    def test_the_and_of_a_daily_and_a_weekly_feed_runs_weekly(self) -> None:
        assert len(runs_of(self.NAME, "ingest_sales")) == 22
        report = runs_of(self.NAME, "sales_fx_report")
        assert [r.run_after for r in report] == [
            at("2024-05-01T00:10:00Z"),  # catchup=False: ingest_fx runs the past Sunday at once
            at("2024-05-05T00:10:00Z"),
            at("2024-05-12T00:10:00Z"),
            at("2024-05-19T00:10:00Z"),
        ]


class TestOrAndCoalescing:
    NAME = "or_and_coalescing.json"

    @staticmethod
    def events_before_the_horizon(sim: Simulation, *dag_ids: str) -> int:
        return sum(1 for run in sim.runs if run.dag_id in dag_ids and run.state == "success")

    def test_the_or_consumer_runs_after_each_event_of_either_asset(self) -> None:
        sim = simulated(self.NAME)
        events = self.events_before_the_horizon(sim, "ingest_clicks", "ingest_orders")
        assert len(runs_of(self.NAME, "any_feed")) == events == 21

    def test_below_max_active_runs_asset_runs_overlap(self) -> None:
        mart = runs_of(self.NAME, "clicks_mart")
        assert len(mart) == 18  # one per clicks event
        overlapping = [
            (a, b)
            for a, b in itertools.pairwise(mart)
            if a.end_date is None or (b.start_date is not None and b.start_date < a.end_date)
        ]
        assert overlapping, "a new run starts while the previous one still runs (AS-6)"

    def test_at_max_active_runs_events_coalesce(self) -> None:
        limited = runs_of(self.NAME, "clicks_mart_limited")
        assert len(limited) == 8 < len(runs_of(self.NAME, "clicks_mart"))
        for before, after in itertools.pairwise(limited):
            assert before.end_date is not None and after.created_at > before.end_date
        # The run created when the slot frees is dated by the first event that waited (AS-6).
        assert [r.run_after for r in limited[:3]] == [
            at("2024-05-01T00:01:00Z"),
            at("2024-05-01T00:11:00Z"),
            at("2024-05-01T00:31:00Z"),
        ]


class TestAliasAndRef:
    NAME = "alias_and_ref.json"

    def test_the_alias_consumer_hears_only_emissions_through_the_alias(self) -> None:
        consumer = runs_of(self.NAME, "alias_consumer")
        assert [r.run_after for r in consumer] == [
            at("2024-05-01T00:10:00Z"),
            at("2024-05-02T01:00:00Z"),  # the scripted task_success adds exports/customers
            at("2024-05-03T00:10:00Z"),  # nothing for the REST event of 2024-05-02T12:00
        ]

    def test_the_alias_resolves_to_every_asset_emitted_through_it(self) -> None:
        resolved = simulated(self.NAME).state.assets.resolve_alias("daily_export")
        assert [key.uri for key in resolved] == ["s3://exports/orders", "s3://exports/customers"]

    def test_the_ref_consumer_runs_on_the_referenced_assets_events(self) -> None:
        consumer = runs_of(self.NAME, "ref_consumer")
        assert [r.run_after for r in consumer] == [
            at("2024-05-01T00:20:00Z"),
            at("2024-05-02T00:20:00Z"),
            at("2024-05-03T00:20:00Z"),
        ]
        assert all(not r.consumed_asset_events for r in consumer)  # AS-10


class TestTrailingSlashConflict:
    NAME = "trailing_slash_conflict.json"

    def test_the_two_spellings_collide_and_the_consumer_never_runs(self) -> None:
        sim = simulated(self.NAME)
        assert len(runs_of(self.NAME, "ingest_orders")) == 4
        assert runs_of(self.NAME, "orders_mart") == []
        assert any("asset conflict" in w for w in sim.warnings)

    def test_both_declarations_have_the_same_uri_and_different_names(self) -> None:
        inputs = build_engine_inputs(load_scenario(EXAMPLES / self.NAME))
        producer, consumer = inputs.dags
        [outlet] = producer.tasks[0].outlets
        [wanted] = consumer.direct_assets
        assert outlet.uri == wanted.uri == "s3://warehouse/orders"  # type: ignore[union-attr]
        assert (outlet.name, wanted.name) == ("s3://warehouse/orders/", "s3://warehouse/orders")  # type: ignore[union-attr]


class TestNewYorkOrdersMart:
    NAME = "ny_dst_orders_mart.json"

    def test_the_failed_short_day_leaves_the_mart_quiet(self) -> None:
        orders = {r.logical_date: r.state for r in runs_of(self.NAME, "ingest_orders")}
        assert orders[at("2024-03-10T05:00:00Z")] == "failed"
        mart = runs_of(self.NAME, "orders_mart")
        assert created_days(mart) == [date(2024, 3, 9), date(2024, 3, 10), date(2024, 3, 12)]

    def test_the_mart_keeps_to_one_active_run(self) -> None:
        mart = runs_of(self.NAME, "orders_mart")
        assert simulated(self.NAME).dags["orders_mart"].spec.max_active_runs == 1
        assert Counter(r.state for r in mart) == Counter(success=3)
