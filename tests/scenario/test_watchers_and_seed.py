"""Watchers, random task failures and the alerts' tuning: format, checks, engine inputs."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from explorer.cli import main
from explorer.engine.alerts import record_with_alerts
from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.watchers import SourceChange
from explorer.scenario import (
    AlertSettings,
    EngineInputs,
    Scenario,
    build_engine_inputs,
    dumps_scenario,
    loads_scenario,
)
from explorer.scenario.simulate import make_simulation
from tests.scenario.helpers import problems, small

Doc = dict[str, Any]

ORDERS = AssetKey("orders", "s3://warehouse/orders")
CONSUMER = {
    "dag_id": "c",
    "schedule": [{"asset": "orders"}],
    "tasks": [{"task_id": "t", "duration": "PT1M"}],
}


def at(hhmm: str) -> datetime:
    return datetime.fromisoformat(f"2024-03-08T{hhmm}:00+00:00")


def watcher(**fields: Any) -> dict[str, Any]:
    return {
        "name": "orders_landing",
        "poll_interval": "PT5M",
        "source": [
            {"at": "2024-03-08T06:01:00Z", "item": "a.csv", "payload": {"rows": 3}},
            {"at": "2024-03-08T06:07:00+01:00", "item": "b.csv"},
        ],
        **fields,
    }


def document(*changes: Callable[[Doc], object]) -> Doc:
    doc = small()
    doc["assets"][0]["watchers"] = [watcher()]
    doc["dags"].append(json.loads(json.dumps(CONSUMER)))
    for change in changes:
        change(doc)
    return doc


def load(*changes: Callable[[Doc], object]) -> Scenario:
    return loads_scenario(json.dumps(document(*changes)), source="w.json")


def build(*changes: Callable[[Doc], object]) -> EngineInputs:
    return build_engine_inputs(load(*changes), source="w.json")


def located(*changes: Callable[[Doc], object]) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in problems(document(*changes))]


class TestWatchers:
    def test_a_watcher_becomes_a_watcher_spec_on_its_declared_asset(self) -> None:
        [spec] = build().watchers
        assert (spec.name, spec.asset, spec.poll_interval) == (
            "orders_landing",
            ORDERS,
            timedelta(minutes=5),
        )
        assert spec.changes == (
            SourceChange(datetime(2024, 3, 8, 6, 1, tzinfo=UTC), "a.csv", (("rows", 3),)),
            SourceChange(datetime(2024, 3, 8, 5, 7, tzinfo=UTC), "b.csv", ()),
        )

    def test_the_trigger_class_path_is_kept_and_passed_on(self) -> None:
        path = "plugins.triggers.S3ScanTrigger"
        change = (lambda doc: doc["assets"][0]["watchers"][0].update(trigger=path),)
        assert build(*change).watchers[0].trigger == path
        assert (
            json.loads(dumps_scenario(load(*change)))["assets"][0]["watchers"][0]["trigger"] == path
        )

    def test_watchers_round_trip_with_their_x_keys(self) -> None:
        def extras(doc: Doc) -> None:
            doc["assets"][0]["watchers"][0]["x-owner"] = "ingest"
            doc["assets"][0]["watchers"][0]["source"][0]["x-late"] = True

        scenario = load(extras)
        text = dumps_scenario(scenario)
        assert loads_scenario(text) == scenario and dumps_scenario(loads_scenario(text)) == text
        saved = json.loads(text)["assets"][0]["watchers"][0]
        assert saved["x-owner"] == "ingest" and saved["source"][0]["x-late"] is True
        assert list(saved) == ["name", "poll_interval", "source", "x-owner"]

    def test_the_declared_assets_reach_the_engine_in_file_order(self) -> None:
        def more(doc: Doc) -> None:
            doc["assets"].insert(0, {"name": "zeta", "uri": "s3://z/z"})

        assert build(more).declared_assets == (AssetKey("zeta", "s3://z/z"), ORDERS)

    def test_watcher_events_carry_from_trigger_and_run_the_consumer(self) -> None:
        inputs = build()
        sim = make_simulation(inputs)
        assert inputs.until is not None
        sim.advance_to(inputs.until)
        events = [e for e in sim.state.assets.events if e.source.kind == "watcher"]
        assert [(e.timestamp, e.extra, e.partition_key) for e in events] == [
            (at("05:10"), {"from_trigger": True, "payload": {"item": "b.csv"}}, None),
            (at("06:05"), {"from_trigger": True, "payload": {"item": "a.csv", "rows": 3}}, None),
        ]
        runs = [r for r in sim.runs if r.run_after in (at("05:10"), at("06:05"))]
        assert [(r.dag_id, r.run_type) for r in runs] == [("c", "asset_triggered")] * 2
        assert [list(r.consumed_asset_events) for r in runs] == [[events[0].id], [events[1].id]]

    @pytest.mark.parametrize(
        ("change", "path", "words"),
        [
            pytest.param(
                lambda doc: doc["assets"][0]["watchers"].append(watcher()),
                "$.assets[0].watchers[1].name",
                "watcher name 'orders_landing' is used twice",
                id="duplicate-name",
            ),
            pytest.param(
                lambda doc: doc["assets"][0]["watchers"][0].update(poll_interval="PT0S"),
                "$.assets[0].watchers[0].poll_interval",
                "poll_interval must be positive",
                id="zero-poll",
            ),
            pytest.param(
                lambda doc: doc["assets"][0]["watchers"][0].update(trigger="not a path"),
                "$.assets[0].watchers[0].trigger",
                "is not a trigger class path",
                id="bad-trigger",
            ),
            pytest.param(
                lambda doc: doc["assets"][0]["watchers"][0]["source"][0].update(
                    at="2024-03-08T06:01"
                ),
                "$.assets[0].watchers[0].source[0].at",
                "naive datetime",
                id="naive-datetime",
            ),
            pytest.param(
                lambda doc: doc["assets"][0]["watchers"][0].update(namespace="team-a"),
                "$.assets[0].watchers[0].namespace",
                "namespaces are seed 002's proposal, not Airflow 3.3.2",
                id="namespace-is-a-proposal",
            ),
        ],
    )
    def test_a_bad_watcher_is_located(
        self, change: Callable[[Doc], object], path: str, words: str
    ) -> None:
        found = located(change)
        assert any(p == path and words in m for p, m in found), found

    def test_a_watcher_nothing_schedules_on_never_runs(self) -> None:
        [warning] = build(lambda doc: doc["dags"].pop()).warnings
        assert warning.startswith("$.assets[0].watchers: no DAG schedules on asset 'orders'")
        assert "WA-2" in warning

    def test_a_watcher_heard_only_by_partitioned_dags_triggers_nothing(self) -> None:
        def partitioned(doc: Doc) -> None:
            doc["dags"][-1]["schedule"] = {
                "timetable": "PartitionedAssetTimetable",
                "args": {"assets": {"asset": "orders"}},
            }

        [warning] = build(partitioned).warnings
        assert "watcher events carry no partition key" in warning

    def test_an_item_landing_after_the_horizon_is_a_warning(self) -> None:
        def late(doc: Doc) -> None:
            doc["assets"][0]["watchers"][0]["source"].append(
                {"at": "2024-03-11T00:00:00Z", "item": "late.csv"}
            )

        [warning] = build(late).warnings
        assert warning.startswith("$.assets[0].watchers[0].source[2].at: 2024-03-11T00:00:00Z")


class TestSeedAndFailures:
    def flaky(self, seed: int | None) -> Callable[[Doc], object]:
        def change(doc: Doc) -> None:
            doc["clock"]["until"] = "2024-04-08T00:00:00Z"
            doc["script"] = []
            doc["dags"][0]["tasks"][0]["failure_rate"] = 0.5
            if seed is not None:
                doc["seed"] = seed

        return change

    def record(self, seed: int | None) -> dict[str, Any]:
        inputs = build(self.flaky(seed))
        assert inputs.until is not None
        sim = make_simulation(inputs)
        sim.advance_to(inputs.until)
        sim.finish()
        return record_with_alerts(sim, until=inputs.until)

    def states(self, record: dict[str, Any]) -> list[str]:
        return [r["state"] for r in record["runs"] if r["dag_id"] == "a"]

    def test_failure_rate_and_seed_reach_the_engine(self) -> None:
        inputs = build(self.flaky(42))
        assert inputs.seed == 42
        assert inputs.dags[0].tasks[0].failure_rate == 0.5

    def test_the_same_seed_gives_the_same_record(self) -> None:
        first = self.record(7)
        assert first == self.record(7)
        assert {"success", "failed"} <= set(self.states(first))

    def test_another_seed_gives_other_failures(self) -> None:
        assert self.states(self.record(7)) != self.states(self.record(8))

    def test_the_seed_defaults_to_zero_and_is_not_written(self) -> None:
        assert self.record(None) == self.record(0)
        scenario = load(self.flaky(0))
        assert scenario.seed == 0 and "seed" not in json.loads(dumps_scenario(scenario))

    @pytest.mark.parametrize(
        ("change", "path", "words"),
        [
            pytest.param(
                lambda doc: doc["dags"][0]["tasks"][0].update(failure_rate=1.5),
                "$.dags[0].tasks[0].failure_rate",
                "must be at most 1",
                id="rate-above-one",
            ),
            pytest.param(
                lambda doc: doc["dags"][0]["tasks"][0].update(failure_rate=-0.1),
                "$.dags[0].tasks[0].failure_rate",
                "must be at least 0",
                id="negative-rate",
            ),
            pytest.param(
                lambda doc: doc.update(seed=1.5), "$.seed", "expected an integer", id="seed-float"
            ),
            pytest.param(
                lambda doc: doc.update(alerts={"silence_factor": 1}),
                "$.alerts.silence_factor",
                "must be greater than 1",
                id="silence-factor-one",
            ),
            pytest.param(
                lambda doc: doc.update(alerts={"silence_facter": 2}),
                "$.alerts.silence_facter",
                "did you mean 'silence_factor'",
                id="alerts-typo",
            ),
        ],
    )
    def test_bad_values_are_located(
        self, change: Callable[[Doc], object], path: str, words: str
    ) -> None:
        [(found_path, message)] = located(change)
        assert found_path == path and words in message


class TestAlertSettings:
    def test_the_silence_factor_reaches_the_engine_inputs(self) -> None:
        scenario = load(lambda doc: doc.update(alerts={"silence_factor": 4, "x-why": "batches"}))
        assert scenario.alerts == AlertSettings(4, {"x-why": "batches"})
        assert build_engine_inputs(scenario).silence_factor == 4
        assert build().silence_factor == 1.5

    def test_the_default_is_not_written(self) -> None:
        text = dumps_scenario(load(lambda doc: doc.update(alerts={"silence_factor": 1.5})))
        assert "alerts" not in json.loads(text)

    def test_explorer_simulate_uses_it(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A consumer fed daily, silent for days: flagged at 1.5x, not at 10x its cadence."""

        def silence(factor: float) -> Doc:
            doc = small()
            doc["clock"]["until"] = "2024-03-20T00:00:00Z"
            doc["dags"][1] = {**CONSUMER, "dag_id": "b"}
            doc["script"] = [
                {"at": "2024-03-12T00:01:00Z", "do": "pause", "dag_id": "a"},
            ]
            doc["alerts"] = {"silence_factor": factor}
            return doc

        kinds = []
        for factor in (1.5, 10):
            path = tmp_path / f"s{factor}.json"
            path.write_text(json.dumps(silence(factor)))
            assert main(["simulate", str(path), "--format", "json"]) == 0
            record = json.loads(capsys.readouterr().out)
            kinds.append([a["kind"] for a in record["alerts"] if a["subject"] == "b"])
        assert "consumer_silent" in kinds[0]
        assert "consumer_silent" not in kinds[1]
