"""The JSON Schema ships in the package, is valid, and matches what the writer writes."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from explorer.scenario import dumps_scenario, load_scenario, load_schema
from tests.scenario.helpers import EXAMPLES, FULL


def test_the_schema_ships_inside_the_package_and_is_valid_draft_2020_12() -> None:
    shipped = resources.files("explorer.scenario").joinpath("schema", "scenario-2.schema.json")
    schema = json.loads(shipped.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema == load_schema()
    assert schema["properties"]["format"] == {
        "const": "schedule-explorer/2",
        "description": "the file format and its version",
    }


def test_format_1s_schema_still_ships_and_accepts_format_1_files() -> None:
    """Anyone may still validate an old file against the schema it was written for."""
    shipped = resources.files("explorer.scenario").joinpath("schema", "scenario-1.schema.json")
    validator = Draft202012Validator(json.loads(shipped.read_text(encoding="utf-8")))
    for path in sorted((FULL.parent / "v1").glob("*.json")):
        errors = list(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert errors == [], path


def test_a_plain_validator_accepts_every_shipped_and_test_scenario() -> None:
    """Editors that know JSON Schema but not our formats still accept valid files."""
    validator = Draft202012Validator(load_schema())
    for path in [FULL, *EXAMPLES.glob("*.json")]:
        errors = list(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert errors == [], path


def keys_in_schema_order(keys: list[str], schema: dict[str, Any]) -> bool:
    order = list(schema["properties"])
    known = [k for k in keys if not k.startswith("x-")]
    return known == sorted(known, key=order.index)


def action_branch(do: str, action_schema: dict[str, Any]) -> dict[str, Any]:
    """The ``then`` schema that applies to actions of kind ``do``."""
    for branch in action_schema["allOf"]:
        condition = branch["if"]["properties"]["do"]
        if do in condition.get("enum", [condition.get("const")]):
            then: dict[str, Any] = branch["then"]
            return then
    raise AssertionError(f"no schema branch for {do!r}")


def test_saved_keys_come_in_the_order_the_schema_lists_them() -> None:
    schema = load_schema()
    defs = schema["$defs"]
    saved = json.loads(dumps_scenario(load_scenario(FULL)))
    assert keys_in_schema_order(list(saved), schema)
    assert keys_in_schema_order(list(saved["clock"]), defs["clock"])
    for dag in saved["dags"]:
        assert keys_in_schema_order(list(dag), defs["dag"])
        for task in dag["tasks"]:
            assert keys_in_schema_order(list(task), defs["task"])
    for action in saved["script"]:
        assert keys_in_schema_order(list(action), action_branch(action["do"], defs["action"]))
        if "run" in action:
            assert keys_in_schema_order(list(action["run"]), defs["run_selector"])
