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


def test_version_1_is_the_first_format_so_no_migration_ships() -> None:
    assert MIGRATIONS == ()


def test_an_older_file_is_brought_to_the_current_version() -> None:
    migrated = migrate(VERSION_0, source="old.json", migrations=[FAKE_V0])
    assert migrated["format"] == "schedule-explorer/1"
    assert migrated["clock"] == {"start": "2024-03-08T00:00:00Z"}
    assert "start" not in migrated


def test_migrating_leaves_the_document_it_was_given_untouched() -> None:
    before = copy.deepcopy(VERSION_0)
    migrate(VERSION_0, source="old.json", migrations=[FAKE_V0])
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
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (FAKE_V0,))
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
