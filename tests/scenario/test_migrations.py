"""Older files are migrated step by step; newer ones are refused (contract section 3)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import explorer.scenario.migrations as migrations_module
from explorer.scenario import MIGRATIONS, Migration, ScenarioError, loads_scenario, migrate

# A made-up version 0 for the tests: the clock start was a top-level "start".


def v0_to_v1(document: dict[str, Any]) -> dict[str, Any]:
    document["clock"] = {"start": document.pop("start")}
    return document


FAKE_V0 = Migration(0, 1, "clock start moves into a clock section", v0_to_v1)

VERSION_0 = {
    "format": "schedule-explorer/0",
    "name": "old",
    "start": "2024-03-08T00:00:00Z",
    "dags": [],
    "script": [],
}


def test_one_migration_ships_from_format_1_to_format_2() -> None:
    assert [(m.from_version, m.to_version) for m in MIGRATIONS] == [(1, 2)]


def test_an_older_file_is_brought_to_the_current_version() -> None:
    migrated = migrate(VERSION_0, source="old.json", migrations=[FAKE_V0], current=1)
    assert migrated["format"] == "schedule-explorer/1"
    assert migrated["clock"] == {"start": "2024-03-08T00:00:00Z"}
    assert "start" not in migrated


def test_migrating_leaves_the_document_it_was_given_untouched() -> None:
    before = copy.deepcopy(VERSION_0)
    migrate(VERSION_0, source="old.json", migrations=[FAKE_V0, *MIGRATIONS])
    assert before == VERSION_0


def test_migrations_run_in_order_one_step_at_a_time() -> None:
    seen: list[str] = []

    def step(name: str) -> Any:
        def run(document: dict[str, Any]) -> dict[str, Any]:
            seen.append(f"{name} sees {document['format']}")
            return document

        return run

    chain = [Migration(1, 2, "second", step("second")), Migration(0, 1, "first", step("first"))]
    migrated = migrate(VERSION_0, source="old.json", migrations=chain, current=2)
    assert seen == ["first sees schedule-explorer/0", "second sees schedule-explorer/1"]
    assert migrated["format"] == "schedule-explorer/2"


def test_loading_uses_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (FAKE_V0, *MIGRATIONS))
    scenario = loads_scenario(json.dumps(VERSION_0), source="old.json")
    assert scenario.clock.start.text == "2024-03-08T00:00:00Z"


def test_a_version_without_a_migration_path_is_refused() -> None:
    with pytest.raises(ScenarioError, match="no migration from version 0"):
        loads_scenario(json.dumps(VERSION_0), source="old.json")


def test_a_newer_version_is_refused_with_a_clear_message() -> None:
    newer = {**VERSION_0, "format": "schedule-explorer/9"}
    with pytest.raises(ScenarioError) as caught:
        migrate(newer, source="new.json", migrations=[FAKE_V0])
    assert caught.value.path == "$.format"
    assert "written by a newer version of Schedule Explorer" in caught.value.message


def test_a_migration_that_trips_on_an_odd_file_gives_a_located_error() -> None:
    odd = {k: v for k, v in VERSION_0.items() if k != "start"}
    with pytest.raises(ScenarioError) as caught:
        migrate(odd, source="odd.json", migrations=[FAKE_V0])
    assert str(caught.value).startswith("odd.json: $: cannot migrate from schedule-explorer/0")
    assert "clock start moves into a clock section" in caught.value.message


# Format 1 -> 2 (ADR 0007).

V1 = {
    "format": "schedule-explorer/1",
    "name": "v1",
    "clock": {"start": "2024-03-08T00:00:00Z"},
    "airflow_config": {"create_cron_data_intervals": True, "x-note": "kept"},
    "dags": [{"dag_id": "d", "schedule": "0 6 * * *", "tasks": []}],
    "script": [
        {"at": "2024-03-08T01:00:00Z", "do": "deploy", "dag_ids": ["d"]},
        {"at": "2024-03-08T02:00:00Z", "do": "parse"},
        {"at": "2024-03-08T03:00:00Z", "do": "pause", "dag_id": "d"},
    ],
}


def test_v1_options_move_under_their_airflow_cfg_section() -> None:
    migrated = migrate(V1, source="v1.json")
    assert migrated["format"] == "schedule-explorer/2"
    assert migrated["airflow_config"] == {
        "scheduler": {"create_cron_data_intervals": True},
        "x-note": "kept",
    }


def test_v1_deploy_was_a_parse_and_becomes_one() -> None:
    migrated = migrate(V1, source="v1.json")
    assert [a["do"] for a in migrated["script"]] == ["parse", "parse", "pause"]
    assert migrated["script"][0]["dag_ids"] == ["d"]
    assert V1["script"][0]["do"] == "deploy"  # the caller's document is untouched


def test_a_v1_dag_without_catchup_or_max_active_runs_loads_them_unset() -> None:
    scenario = loads_scenario(json.dumps(V1), source="v1.json")
    [dag] = scenario.dags
    assert dag.catchup is None and dag.max_active_runs is None
    assert scenario.airflow_config.create_cron_data_intervals is True
    assert scenario.airflow_config.catchup_by_default is False
