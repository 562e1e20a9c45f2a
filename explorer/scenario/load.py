"""Reading a scenario file: JSON, format version, migrations, schema, rules, model.

Each stage reports every problem it finds, each at its JSON path, and the
next stage runs only on a document the previous one accepted: the rules
(dates in order, ids known, ...) are checked on a document whose shape is
right, so a single typo does not cascade into a dozen confusing messages.
Nothing but :class:`ScenarioError` leaves this module.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from explorer.scenario.checked import remember_checked
from explorer.scenario.checks import check_scenario
from explorer.scenario.errors import JsonPath, ScenarioError, raise_problems
from explorer.scenario.migrations import migrate
from explorer.scenario.model import Scenario
from explorer.scenario.read import read_scenario
from explorer.scenario.schedules import ScheduleReading
from explorer.scenario.validate import document_order, schema_problems
from explorer.scenario.values import JsonObject, JsonValue

__all__ = ["load_scenario", "loads_scenario", "parse_json"]


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and check the scenario file at ``path``."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ScenarioError(source, "$", f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(source, "$", f"not UTF-8 text (byte {exc.start})") from exc
    return loads_scenario(text, source=source)


def loads_scenario(text: str, source: str = "<string>") -> Scenario:
    """Read and check a scenario from its text; ``source`` names it in messages."""
    document = migrate(parse_json(text, source=source), source=source)
    try:
        raise_problems(schema_problems(document, source=source))
        scenario = read_scenario(document)
        readings: dict[int, ScheduleReading] = {}
        problems = check_scenario(scenario, source=source, readings=readings)
    except RecursionError as exc:
        raise ScenarioError(source, "$", "nested too deeply to be read") from exc
    except (ValueError, TypeError, OverflowError, KeyError) as exc:
        # Only a bug gets here (ScenarioError is none of these): still no traceback.
        message = f"could not be read ({type(exc).__name__}: {exc}); please report this"
        raise ScenarioError(source, "$", message) from exc
    problems.sort(key=lambda p: document_order(document, p.steps))
    raise_problems(problems)
    remember_checked(scenario, readings)  # the build checks it no more (scenario.checked)
    return scenario


def parse_json(text: str, *, source: str) -> JsonObject:
    """The top-level JSON object of ``text``; malformed JSON is located by line and column."""
    repeated: dict[int, tuple[JsonObject, list[str]]] = {}

    def pairs(items: list[tuple[str, JsonValue]]) -> JsonObject:
        obj = dict(items)
        if len(obj) != len(items):
            seen: set[str] = set()
            dups: list[str] = []
            for key, _ in items:
                if key in seen:
                    dups.append(key)
                seen.add(key)
            repeated[id(obj)] = (obj, dups)  # holding obj keeps its id unique
        return obj

    def constant(name: str) -> JsonValue:
        raise ValueError(f"{name} is not a JSON number")

    try:
        document = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            source, "$", f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise ScenarioError(source, "$", f"malformed JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise ScenarioError(source, "$", "a scenario file holds one JSON object ({...})")
    raise_problems(
        ScenarioError(source, path, f"key {key!r} appears more than once in this object")
        for path, key in _repeated_keys(document, (), repeated)
    )
    return document


def _repeated_keys(
    node: JsonValue, path: JsonPath, repeated: dict[int, tuple[JsonObject, list[str]]]
) -> list[tuple[JsonPath, str]]:
    found: list[tuple[JsonPath, str]] = []
    if isinstance(node, dict):
        entry = repeated.get(id(node))
        if entry is not None and entry[0] is node:
            found.extend(((*path, key), key) for key in dict.fromkeys(entry[1]))
        for key, child in node.items():
            found.extend(_repeated_keys(child, (*path, key), repeated))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found.extend(_repeated_keys(child, (*path, index), repeated))
    return found
