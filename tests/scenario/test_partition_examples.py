"""The seed-003 examples (partitions, runtime keys, watchers) tell Airflow 3.3.2's story.

Where the seed's prose is wrong (SEMANTICS section 8: the StartOfHourMapper
"daily" rollup, the DST hazard, the run-key back-fill, "emit nothing"), the
tests pin 3.3.2's answer. A few tests at the end are marked ``xfail``: there
the engine differs from SEMANTICS, and the test says what 3.3.2 does.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest

from explorer.cli import main
from explorer.engine.alerts import record_with_alerts
from explorer.engine.assets.condition import AssetKey
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.scenario import build_engine_inputs, load_scenario, loads_scenario
from explorer.scenario.simulate import make_simulation
from tests.scenario.helpers import EXAMPLES
from tests.scenario.test_examples import simulated  # one simulation per example

NEW = {
    "hourly_to_daily_rollup.json",
    "ny_rollup_dst.json",
    "segment_rollup_regions.json",
    "weekly_fanout.json",
    "runtime_partitioned_export.json",
    "watcher_incremental_scan.json",
}
#: What ``explorer simulate --format json`` must show for each story: pending, alerts.
RECORD_SECTIONS = {
    "hourly_to_daily_rollup.json": ("pending", "alerts"),
    "ny_rollup_dst.json": ("pending", "alerts"),
    "segment_rollup_regions.json": ("pending",),
    "weekly_fanout.json": ("alerts",),
    "runtime_partitioned_export.json": ("pending",),
    "watcher_incremental_scan.json": ("pending",),
}


@cache
def record(name: str) -> dict[str, Any]:
    inputs = build_engine_inputs(load_scenario(EXAMPLES / name), source=name)
    assert inputs.until is not None
    return record_with_alerts(
        simulated(name), until=inputs.until, silence_factor=inputs.silence_factor
    )


def runs_of(name: str, dag_id: str) -> list[DagRun]:
    return [run for run in simulated(name).runs if run.dag_id == dag_id]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def consumed_keys(name: str, run: DagRun) -> list[str | None]:
    events = simulated(name).state.assets.events
    return [events[i].partition_key for i in run.consumed_asset_events]


def pending_of(name: str, dag_id: str) -> dict[str, dict[str, Any]]:
    """partition key -> the (single asset) member of each pending request of ``dag_id``."""
    requests = record(name)["pending"].get(dag_id, {}).get("partitions", [])
    return {r["partition_key"]: r["members"][0] for r in requests}


def test_the_examples_exist_and_have_no_scenario_warnings() -> None:
    assert {p.name for p in EXAMPLES.glob("*.json")} >= NEW | {"catchup_flood.json"}
    for name in NEW:
        scenario = load_scenario(EXAMPLES / name)
        description = scenario.description or ""
        assert "PT-" in description or "WA-" in description, name  # cites the rules it shows
        assert build_engine_inputs(scenario).warnings == [], name


@pytest.mark.parametrize("name", sorted(NEW))
def test_explorer_simulate_shows_the_waits_and_alerts_of_the_story(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", str(EXAMPLES / name), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for section in RECORD_SECTIONS[name]:
        assert out[section], f"{name}: {section} is empty"
    assert out["alerts"] == record(name)["alerts"]


def test_explorer_validate_accepts_every_example(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(p) for p in sorted(EXAMPLES.glob("*.json"))]
    assert main(["validate", *paths]) == 0
    assert capsys.readouterr().out.count(": valid (") == len(paths)


class TestHourlyToDailyRollup:
    NAME = "hourly_to_daily_rollup.json"

    def test_the_start_of_day_rollup_fires_once_a_day_with_its_24_hours(self) -> None:
        runs = runs_of(self.NAME, "daily_sales_summary")
        assert [r.partition_key for r in runs] == ["2026-03-10", "2026-03-11"]
        assert [r.partition_date for r in runs] == [
            at("2026-03-10T00:00Z"),
            at("2026-03-11T00:00Z"),
        ]
        assert [r.created_at for r in runs] == [at("2026-03-10T23:05Z"), at("2026-03-11T23:05Z")]
        assert [r.run_after for r in runs] == [r.created_at for r in runs]  # PT-5
        first = consumed_keys(self.NAME, runs[0])
        assert first == [f"2026-03-10T{h:02d}:00:00" for h in range(24)]
        assert {r.run_type for r in runs} == {"asset_triggered"}
        assert all(r.logical_date is None and r.data_interval is None for r in runs)

    def test_the_day_in_progress_waits_in_pending(self) -> None:
        [(key, member)] = pending_of(self.NAME, "daily_sales_summary").items()
        assert key == "2026-03-12"
        assert member["received_keys"] == [f"2026-03-12T{h:02d}:00:00" for h in range(3)]
        assert len(member["expected_keys"]) == 24

    def test_the_seeds_start_of_hour_rollup_gives_hourly_sliding_windows_that_never_fire(
        self,
    ) -> None:
        assert runs_of(self.NAME, "sliding_24h_summary") == []
        pending = pending_of(self.NAME, "sliding_24h_summary")
        assert "2026-03-10" not in pending  # not the day key the seed promises
        nine = pending["2026-03-10T09"]
        assert nine["received_keys"] == ["2026-03-10T09:00:00"]
        expected = nine["expected_keys"]
        assert (len(expected), expected[0], expected[-1]) == (
            24,
            "2026-03-10T09:00:00",  # the upstream mapper's input format, not 2026-03-10T09
            "2026-03-11T08:00:00",
        )
        assert all(len(m["received_keys"]) == 1 for m in pending.values())

    def test_only_the_consumer_that_never_runs_is_flagged_as_silent(
        self,
    ) -> None:
        alerts = record(self.NAME)["alerts"]
        assert [(a["kind"], a["subject"]) for a in alerts] == [
            ("consumer_silent", "sliding_24h_summary")
        ]


class TestNewYorkRollupAcrossDst:
    NAME = "ny_rollup_dst.json"

    def test_both_dst_days_fire(self) -> None:
        runs = {r.partition_key: r for r in runs_of(self.NAME, "daily_orders_ny")}
        assert {"2024-03-10", "2024-11-03"} <= set(runs)
        spring, fall = runs["2024-03-10"], runs["2024-11-03"]
        assert spring.state == fall.state == "success"
        spring_keys = consumed_keys(self.NAME, spring)
        assert len(spring_keys) == len(set(spring_keys)) == 23
        assert "2024-03-10T02:00:00" not in spring_keys
        fall_keys = consumed_keys(self.NAME, fall)
        assert (len(fall_keys), len(set(fall_keys))) == (25, 24)
        assert fall_keys.count("2024-11-03T01:00:00") == 2
        assert spring.created_at == at("2024-03-10T23:05:00-04:00")
        assert fall.created_at == at("2024-11-03T23:05:00-05:00")
        assert spring.partition_date == at("2024-03-10T00:00:00-05:00")
        assert fall.partition_date == at("2024-11-03T00:00:00-04:00")

    def test_the_spring_window_expects_23_keys_and_the_fall_window_24(self) -> None:
        from explorer.engine.partitions import build_mapper

        mapper: Any = build_mapper(
            {
                "mapper": "RollupMapper",
                "args": {
                    "upstream_mapper": {
                        "mapper": "StartOfDayMapper",
                        "args": {"timezone": "America/New_York"},
                    },
                    "window": {"window": "DayWindow"},
                },
            }
        )
        assert len(set(mapper.to_upstream("2024-03-10"))) == 23
        assert len(set(mapper.to_upstream("2024-11-03"))) == 24

    def test_the_day_the_producer_was_paused_waits_for_good(self) -> None:
        pending = pending_of(self.NAME, "daily_orders_ny")
        assert set(pending) == {"2024-03-11", "2024-11-04"}
        assert pending["2024-03-11"]["received_keys"] == ["2024-03-11T00:00:00"]

    def test_the_long_silence_is_flagged(self) -> None:
        [alert] = record(self.NAME)["alerts"]
        assert (alert["kind"], alert["subject"]) == ("consumer_silent", "daily_orders_ny")
        assert at("2024-03-11T00:00Z") < at(alert["at"]) < at("2024-11-02T00:00Z")


class TestSegmentRollup:
    NAME = "segment_rollup_regions.json"

    def test_minimum_count_two_fires_before_apac_arrives(self) -> None:
        [early] = runs_of(self.NAME, "segment_region_stats_early_rollup")
        apac = next(
            e for e in simulated(self.NAME).state.assets.events if e.partition_key == "apac"
        )
        assert early.created_at == at("2026-03-10T07:03Z") < apac.timestamp
        assert (early.partition_key, early.partition_date) == ("all_regions", None)
        assert consumed_keys(self.NAME, early) == ["us", "eu"]

    def test_wait_for_all_fires_once_all_three_are_in(self) -> None:
        [full] = runs_of(self.NAME, "segment_region_stats_rollup")
        assert full.created_at == at("2026-03-10T09:05Z")
        assert consumed_keys(self.NAME, full) == ["us", "eu", "apac"]

    def test_apac_opens_a_new_request_that_starts_from_scratch(self) -> None:
        pending = pending_of(self.NAME, "segment_region_stats_early_rollup")
        assert pending["all_regions"]["received_keys"] == ["apac"]
        assert pending_of(self.NAME, "segment_region_stats_rollup") == {}

    def test_runtime_and_manual_keys_but_no_back_filled_run_key(self) -> None:
        producer = runs_of(self.NAME, "multi_region_player_stats")
        assert [r.partition_key for r in producer] == ["us", None, "apac"]
        assert [r.run_type for r in producer] == ["manual"] * 3
        keys = [e.partition_key for e in simulated(self.NAME).state.assets.events]
        assert keys == ["us", "eu", "apac"]


class TestWeeklyFanOut:
    NAME = "weekly_fanout.json"

    def test_one_weekly_event_fans_out_to_seven_daily_runs(self) -> None:
        runs = runs_of(self.NAME, "daily_inference")
        assert [r.partition_key for r in runs] == [f"2026-03-{d:02d}" for d in range(9, 16)]
        assert [r.partition_date for r in runs] == [
            at(f"2026-03-{d:02d}T00:00Z") for d in range(9, 16)
        ]
        assert {r.created_at for r in runs} == {at("2026-03-09T02:00Z")}
        assert {tuple(consumed_keys(self.NAME, r)) for r in runs} == {("2026-03-09T00:00:00",)}

    def test_max_active_runs_does_not_stop_creation_only_running(self) -> None:
        runs = runs_of(self.NAME, "daily_inference")
        starts = sorted({r.start_date for r in runs if r.start_date is not None})
        assert len(runs) == 7 and len(starts) == 4  # two at a time, the last one alone

    def test_over_the_cap_nothing_is_queued_and_an_alert_says_so(self) -> None:
        assert runs_of(self.NAME, "daily_inference_capped") == []
        [alert] = record(self.NAME)["alerts"]
        assert (alert["kind"], alert["subject"]) == ("fan_out_exceeded", "daily_inference_capped")
        log = [
            e for e in simulated(self.NAME).state.audit_log if e["event"].startswith("partition")
        ]
        assert [(e["event"], e["dag_ids"]) for e in log] == [
            ("partition fan-out exceeded", ["daily_inference_capped"])
        ]


class TestRuntimePartitionedExport:
    NAME = "runtime_partitioned_export.json"

    def test_keyed_events_run_the_partitioned_report_only(self) -> None:
        report = runs_of(self.NAME, "daily_export_report")
        assert [r.partition_key for r in report] == ["2026-06-21", "2026-06-22", "2026-06-23"]
        assert {r.partition_date for r in report} == {None}

    def test_the_key_less_success_emits_an_unkeyed_event_for_the_plain_consumer(self) -> None:
        events = simulated(self.NAME).state.assets.events
        unkeyed = [e for e in events if e.partition_key is None]
        assert [e.timestamp for e in unkeyed] == [at("2026-06-23T06:04Z")]
        [audit] = runs_of(self.NAME, "audit_exports")
        assert audit.run_after == at("2026-06-23T06:04Z")
        assert consumed_keys(self.NAME, audit) == ["2026-06-21", None]  # AS-5

    def test_the_partitioned_consumer_only_logs_missing_partition_key(self) -> None:
        log = [
            e for e in simulated(self.NAME).state.audit_log if e["event"] == "missing partition key"
        ]
        assert [(e["dag_ids"], e["at"]) for e in log] == [
            (["daily_export_report"], at("2026-06-23T06:04Z"))
        ]

    def test_the_producer_run_key_is_never_back_filled(self) -> None:
        runs = runs_of(self.NAME, "export_when_ready")
        assert [r.partition_key for r in runs] == [None, None, None]


class TestWatcherIncrementalScan:
    NAME = "watcher_incremental_scan.json"
    ASSET = AssetKey("landing_files", "s3://landing/incoming")

    def test_each_poll_emits_what_landed_since_the_watermark(self) -> None:
        events = simulated(self.NAME).state.assets.events
        assert [(e.timestamp, e.extra["payload"]["item"]) for e in events] == [
            (at("2026-05-04T08:05Z"), "orders_0801.csv"),
            (at("2026-05-04T08:05Z"), "orders_0803.csv"),
            (at("2026-05-04T08:15Z"), "orders_0812.csv"),
            (at("2026-05-04T10:20Z"), "orders_1020.csv"),
            (at("2026-05-04T10:40Z"), "orders_1040.csv"),
        ]
        assert all(e.extra["from_trigger"] is True and e.partition_key is None for e in events)
        assert {e.source.kind for e in events} == {"watcher"}

    def test_the_watermark_lives_in_the_assets_state_store(self) -> None:
        watchers = simulated(self.NAME).state.watchers
        entry = watchers.store[self.ASSET]["watermark"]
        assert entry.value == "2026-05-04T10:40:00+00:00"
        assert entry.updated_by == "watcher:landing_scan"
        marks = [value for asset, key, value, _, _ in watchers.history if key == "watermark"]
        assert marks == [
            "2026-05-04T08:03:00+00:00",
            "2026-05-04T08:12:00+00:00",
            "2026-05-04T10:20:00+00:00",
            "2026-05-04T10:40:00+00:00",
        ]

    def test_the_consumer_runs_once_per_poll_that_found_files(self) -> None:
        runs = runs_of(self.NAME, "process_landing_files")
        assert [r.run_after for r in runs] == [
            at("2026-05-04T08:05Z"),
            at("2026-05-04T08:15Z"),
            at("2026-05-04T10:20Z"),
            at("2026-05-04T10:40Z"),
        ]
        assert [len(r.consumed_asset_events) for r in runs] == [2, 1, 1, 1]


# ----------------------------------------------------------------------------- engine gaps
# Each test says what Airflow 3.3.2 does (SEMANTICS) where the engine differs today.


def _watcher_scenario(script: list[dict[str, Any]], first_file: str) -> Simulation:
    document = json.loads((EXAMPLES / "watcher_incremental_scan.json").read_text())
    document["assets"][0]["watchers"][0]["source"] = [
        {"at": first_file, "item": "early.csv"},
        {"at": "2026-05-04T10:20:00Z", "item": "paused.csv"},
    ]
    document["script"] = script
    inputs = build_engine_inputs(loads_scenario(json.dumps(document)))
    assert inputs.until is not None
    sim = make_simulation(inputs)
    sim.advance_to(inputs.until)
    return sim


def test_a_watcher_stopped_by_a_pause_resumes_after_the_unpause() -> None:
    """WA-2: no watcher while no unpaused DAG schedules on the asset; the watermark keeps
    the file that landed meanwhile for the first poll after the unpause."""
    script = [
        {"at": "2026-05-04T10:00:00Z", "do": "pause", "dag_id": "process_landing_files"},
        {"at": "2026-05-04T11:02:00Z", "do": "unpause", "dag_id": "process_landing_files"},
    ]
    sim = _watcher_scenario(script, "2026-05-04T08:01:00Z")
    paused = next(e for e in sim.state.assets.events if e.extra["payload"]["item"] == "paused.csv")
    assert paused.timestamp >= at("2026-05-04T11:02Z")


def test_a_file_present_at_deployment_is_consumed_by_the_run_it_triggers() -> None:
    """WA-2: the trigger is registered by the parse; its first event comes after it, so the
    first consumer run consumes it (AS-5)."""
    sim = _watcher_scenario([], "2026-05-04T07:55:00Z")
    first = next(r for r in sim.runs if r.dag_id == "process_landing_files")
    assert first.consumed_asset_events


def test_keys_skipped_while_the_producer_was_paused_are_never_coming() -> None:
    missing = pending_of("ny_rollup_dst.json", "daily_orders_ny")["2024-03-11"]["missing"]
    assert all(m["never"] for m in missing)


def test_a_daily_rollup_is_not_silent_between_its_daily_runs() -> None:
    name = "hourly_to_daily_rollup.json"
    inputs = build_engine_inputs(load_scenario(EXAMPLES / name))
    assert inputs.until is not None
    alerts = record_with_alerts(simulated(name), until=inputs.until)["alerts"]  # default 1.5
    assert "daily_sales_summary" not in {a["subject"] for a in alerts}
