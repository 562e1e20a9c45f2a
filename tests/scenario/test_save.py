"""Saving replaces the file atomically: a failed save leaves the old file as it was."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

import explorer.scenario.save as save_module
from explorer.scenario import Scenario, load_scenario, loads_scenario, save_scenario
from tests.scenario.helpers import FULL, small

OLD = '{"old": "content"}\n'


@pytest.fixture
def scenario() -> Scenario:
    return loads_scenario(json.dumps(small()))


@pytest.fixture
def existing(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.json"
    path.write_text(OLD, encoding="utf-8")
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "scenario.json")


class TestAtomicSave:
    def test_a_save_replaces_the_old_file_and_leaves_nothing_else(
        self, scenario: Scenario, existing: Path
    ) -> None:
        save_scenario(scenario, existing)
        assert load_scenario(existing) == scenario
        assert leftovers(existing.parent) == []

    def test_a_failing_serialization_leaves_the_old_file_intact(
        self, scenario: Scenario, existing: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def broken(value: object) -> str:
            raise TypeError("cannot serialize")

        monkeypatch.setattr(save_module, "to_canonical_json", broken)
        with pytest.raises(TypeError):
            save_scenario(scenario, existing)
        assert existing.read_text(encoding="utf-8") == OLD
        assert leftovers(existing.parent) == []

    def test_a_value_json_cannot_hold_fails_before_the_disk_is_touched(
        self, scenario: Scenario, existing: Path
    ) -> None:
        bad = dataclasses.replace(scenario, extras={"x-when": object()})  # type: ignore[dict-item]
        with pytest.raises(TypeError):
            save_scenario(bad, existing)
        assert existing.read_text(encoding="utf-8") == OLD
        assert leftovers(existing.parent) == []

    @pytest.mark.parametrize("step", ["fsync", "replace"])
    def test_a_failure_while_writing_leaves_the_old_file_and_no_temp_file(
        self, step: str, scenario: Scenario, existing: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def fail(*args: object) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(save_module.os, step, fail)
        with pytest.raises(OSError, match="No space left"):
            save_scenario(scenario, existing)
        assert existing.read_text(encoding="utf-8") == OLD
        assert leftovers(existing.parent) == []

    def test_a_new_file_is_created(self, scenario: Scenario, tmp_path: Path) -> None:
        save_scenario(scenario, tmp_path / "new.json")
        assert load_scenario(tmp_path / "new.json") == scenario

    def test_the_old_file_permissions_are_kept(self, scenario: Scenario, existing: Path) -> None:
        os.chmod(existing, 0o640)
        save_scenario(scenario, existing)
        assert existing.stat().st_mode & 0o777 == 0o640

    def test_a_missing_folder_is_an_os_error_and_creates_nothing(
        self, scenario: Scenario, tmp_path: Path
    ) -> None:
        with pytest.raises(FileNotFoundError):
            save_scenario(scenario, tmp_path / "absent" / "scenario.json")
        assert list(tmp_path.iterdir()) == []


def test_saved_text_is_utf8_with_two_space_indent_and_a_final_newline(tmp_path: Path) -> None:
    scenario = dataclasses.replace(load_scenario(FULL), name="Café ☕ schedules")
    save_scenario(scenario, tmp_path / "s.json")
    text = (tmp_path / "s.json").read_bytes().decode("utf-8")
    assert '"name": "Café ☕ schedules"' in text
    assert text.startswith('{\n  "format": "schedule-explorer/2",\n')
    assert text.endswith("\n}\n")
