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

from explorer.scenario.checked import remember_checked
from explorer.scenario.checks import check_scenario
from explorer.scenario.errors import JsonPath, ScenarioError, raise_problems
from explorer.scenario.migrations import migrate
from explorer.scenario.model import Scenario
from explorer.scenario.read import read_scenario
from explorer.scenario.schedules import ScheduleReading
from explorer.scenario.validate import document_order, schema_problems
from explorer.scenario.values import JsonObject, JsonValue

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "MAX_FILE_SIZE_VARIABLE",
    "load_scenario",
    "loads_scenario",
    "max_file_size",
    "parse_json",
    "parse_size",
]


#: The environment variable that sets the largest scenario file read, in bytes
#: (``explorer --max-file-size`` sets it for one command).
MAX_FILE_SIZE_VARIABLE = "SCHEDULE_EXPLORER_MAX_FILE_SIZE"
#: The largest scenario file read when the variable is not set: 256 MB.
DEFAULT_MAX_FILE_SIZE = 256 * 1024 * 1024


def max_file_size() -> int:
    """The size limit in force (:data:`MAX_FILE_SIZE_VARIABLE`, else the default)."""
    text = os.environ.get(MAX_FILE_SIZE_VARIABLE, "")
    try:
        return parse_size(text) if text else DEFAULT_MAX_FILE_SIZE
    except ValueError:
        return DEFAULT_MAX_FILE_SIZE


def parse_size(text: str) -> int:
    """``text`` as a byte count: a whole number, optionally with K, M or G (powers of 1024)."""
    units = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
    cleaned = text.strip().upper().removesuffix("B")
    number, unit = (cleaned[:-1], cleaned[-1]) if cleaned[-1:] in units else (cleaned, "")
    if not number.isdigit() or int(number) <= 0:
        raise ValueError(f"{text!r} is not a size (a whole number of bytes, or 512K, 64M, 1G)")
    return int(number) * units[unit]


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and check the scenario file at ``path``; a file over :func:`max_file_size`
    (or a device that never ends, such as /dev/zero) is refused before it is parsed."""
    source = str(path)
    limit = max_file_size()
    try:
        with open(path, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError as exc:
        raise ScenarioError(source, "$", f"cannot read the file: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise ScenarioError(
            source,
            "$",
            f"the file is larger than {limit:,} bytes, the limit for a scenario file "
            f"(--max-file-size or {MAX_FILE_SIZE_VARIABLE} raises it)",
        )
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
