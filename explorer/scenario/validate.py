"""The JSON Schema check of a scenario file, with messages a user can act on.

The schema ships in the package (``schema/scenario-2.schema.json``) and is the
public description of the file. Leaf values whose rules live in our code
(datetimes with offsets, non-negative durations, IANA zones, crons) are
schema ``format`` keywords checked by our own functions, so every bad leaf is
reported in the same pass, each at its own JSON path. jsonschema's messages
are rewritten: users should read "unknown key 'catchUp' (did you mean
'catchup'?)", not "Additional properties are not allowed".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import fastjsonschema

from explorer.engine.cron import validate_cron
from explorer.engine.tz import get_zone
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean
from explorer.scenario.values import JsonObject, JsonValue, parse_duration, parse_instant

if TYPE_CHECKING:  # jsonschema is imported where it explains an error (start-up time)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = ["SCHEMA_RESOURCE", "document_order", "load_schema", "schema_problems"]

SCHEMA_RESOURCE = "scenario-2.schema.json"

_TYPE_WORDS = {
    "string": "a string",
    "null": "null",
    "object": "an object",
    "array": "a list",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
}


@cache
def load_schema() -> dict[str, Any]:
    """The shipped JSON Schema of the current format."""
    text = (
        resources.files("explorer.scenario")
        .joinpath("schema", SCHEMA_RESOURCE)
        .read_text(encoding="utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


def _ecma_anchors(node: Any) -> Any:
    """The schema, for our validators, with each ``pattern``'s closing ``$`` read as JSON
    Schema reads it (the shipped file stays as written).

    A JSON Schema pattern is an ECMA-262 regular expression, where ``$`` is the end
    of the text; Python's ``re`` (which both validators use) also lets ``$`` match
    before a final newline, so ``"load_orders\\n"`` would pass ``^[A-Za-z0-9_.-]+$``.
    ``\\Z`` is Python's end of the text."""
    if isinstance(node, list):
        return [_ecma_anchors(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _ecma_anchors(value) for key, value in node.items()}
    pattern = out.get("pattern")
    if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
        out["pattern"] = pattern[:-1] + "\\Z"
    return out


def _surrogates(node: JsonValue, path: JsonPath = ()) -> Iterator[Finding]:
    """Strings holding a lone surrogate (``"\\ud800"`` in JSON): valid JSON, but no UTF-8
    file can hold them, so a save, a report or a check would fail on them later."""
    if isinstance(node, str):
        if _SURROGATE.search(node):
            yield path, "format", "holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _surrogates(item, (*path, index))
    elif isinstance(node, dict):
        for key, value in node.items():
            if _SURROGATE.search(key):
                yield (*path, key), "format", "the key holds a lone surrogate"
            yield from _surrogates(value, (*path, key))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_schedule_string(value: object) -> bool:
    if isinstance(value, str) and value not in ("@once", "@continuous"):
        validate_cron(value)
    return True


def _check_cron(value: object) -> bool:
    if isinstance(value, str):
        validate_cron(value)
    return True


def _check_zone(value: object) -> bool:
    if isinstance(value, str):
        get_zone(value)
    return True


def _check_instant(value: object) -> bool:
    if isinstance(value, str):
        parse_instant(value)
    return True


def _check_duration(value: object) -> bool:
    if isinstance(value, str):
        parse_duration(value)
    return True


#: Lists whose items are checked one by one, each against its own ``$defs`` entry.
_ITEMS = {"dags": "dag", "script": "action"}

Finding = tuple[JsonPath, str, str]  # (path, schema keyword, message)


@cache
def _validator(definition: str | None = None) -> Draft202012Validator:
    """The validator of the whole file, or of one ``$defs`` entry (a DAG, an action).

    Imported here: a valid file never needs it (the compiled check says "valid"),
    and jsonschema costs a tenth of a second to import."""
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("date-time", raises=ValueError)(_check_instant)
    checker.checks("duration", raises=ValueError)(_check_duration)
    checker.checks("time-zone", raises=ValueError)(_check_zone)
    checker.checks("cron", raises=ValueError)(_check_cron)
    checker.checks("airflow-schedule", raises=ValueError)(_check_schedule_string)
    schema = _ecma_anchors(load_schema())
    if definition is None:
        Draft202012Validator.check_schema(schema)
        return Draft202012Validator(schema, format_checker=checker)
    item = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return Draft202012Validator(item, format_checker=checker)


#: The formats of the schema as yes/no predicates for the compiled validator.
_FAST_FORMATS = {
    "date-time": _check_instant,
    "duration": _check_duration,
    "time-zone": _check_zone,
    "cron": _check_cron,
    "airflow-schedule": _check_schedule_string,
}


def _as_predicate(check: Any) -> Any:
    """A format check that answers False instead of raising, as fastjsonschema expects."""

    def predicate(value: object) -> bool:
        try:
            return bool(check(value))
        except ValueError:
            return False

    return predicate


def _draft7(node: Any) -> Any:
    """The schema rewritten in draft 7 terms, the newest draft fastjsonschema compiles.

    Only ``prefixItems`` needs it (2020-12's tuple form): it becomes draft 7's
    ``items`` list, and a 2020-12 ``items`` beside it becomes ``additionalItems``.
    """
    if isinstance(node, list):
        return [_draft7(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _draft7(value) for key, value in node.items()}
    if "prefixItems" in out:
        if "items" in out:
            out["additionalItems"] = out.pop("items")
        out["items"] = out.pop("prefixItems")
    return out


@cache
def _fast(definition: str | None = None) -> Any:
    """A compiled yes/no check of the file or of one ``$defs`` entry (fastjsonschema).

    jsonschema stays the judge of every message: this only answers "valid"
    quickly for the usual case, and anything it rejects is checked again by
    jsonschema (``test_schema_fast_path`` holds the two to the same verdict).
    """
    schema = _draft7(_ecma_anchors(load_schema()))
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    schema.pop("$id", None)
    if definition is None:
        # The rest of the file: its item lists are checked item by item (and
        # compiling their definitions only when a file has such items halves
        # the cost of a first check).
        items = {key: {"type": "array"} for key in _ITEMS}
        schema["properties"] = {**schema["properties"], **items}
    else:
        schema = {
            "$schema": schema["$schema"],
            "$ref": f"#/$defs/{definition}",
            "$defs": schema["$defs"],
        }
    formats = {name: _as_predicate(check) for name, check in _FAST_FORMATS.items()}
    # use_default=False: fastjsonschema would otherwise write schema defaults into the
    # document it checks; a check must never change what it reads.
    return fastjsonschema.compile(schema, formats=formats, use_default=False)


def _fast_valid(definition: str | None, value: object) -> bool:
    try:
        _fast(definition)(value)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def schema_problems(document: JsonObject, *, source: str) -> list[ScenarioError]:
    """Every schema violation in ``document``, one located problem each, in document order.

    DAGs and actions are checked one at a time. Each item is first given to a
    compiled validator (several times cheaper than jsonschema); only the items
    it rejects are explained by jsonschema. Verdicts and findings are
    remembered by content, so checking a large scenario again after one edit
    (what the GUI does before every simulation) only checks what changed.
    """
    rest = dict(document)
    found: list[Finding] = []
    for key, definition in _ITEMS.items():
        items = document.get(key)
        if isinstance(items, list):
            rest[key] = []
            for index, item in enumerate(items):
                text = json.dumps(item, default=repr)
                if _item_valid(definition, text):
                    continue
                found.extend(((key, index, *p), k, m) for p, k, m in _item(definition, text))
    if not _fast_valid(None, rest):  # jsonschema's validator: only asked where there is an error
        found.extend(f for error in _validator().iter_errors(rest) for f in _explain(error))
    found.extend(_surrogates(document))
    # A value of the wrong type also fails the rules meant for the right type:
    # keep only the type complaint at that place.
    typed = {path for path, kind, _ in found if kind == "type"}
    unique: dict[tuple[JsonPath, str], None] = {}
    for path, kind, message in found:
        if path in typed and kind != "type":
            continue
        unique.setdefault((path, message), None)
    ordered = sorted(unique, key=lambda item: (document_order(document, item[0]), item[1]))
    return [ScenarioError(source, path, message) for path, message in ordered]


@lru_cache(maxsize=4096)
def _item_valid(definition: str, text: str) -> bool:
    """The quick verdict on one item, remembered by content: a file is checked again
    when it is built (and the GUI checks it before every simulation)."""
    return _fast_valid(definition, json.loads(text))


@lru_cache(maxsize=4096)
def _item(definition: str, text: str) -> tuple[Finding, ...]:
    errors = _validator(definition).iter_errors(json.loads(text))
    return tuple(f for error in errors for f in _explain(error))


def document_order(document: JsonValue, path: JsonPath) -> tuple[int, ...]:
    """Sort key putting places in the order they appear in the file (missing keys last)."""
    key: list[int] = []
    node: JsonValue = document
    for step in path:
        if isinstance(node, dict) and isinstance(step, str):
            keys = list(node)
            key.append(keys.index(step) if step in node else len(keys))
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int):
            key.append(step)
            node = node[step] if 0 <= step < len(node) else None
        else:
            key.append(0)
            node = None
    return tuple(key)


def _explain(error: ValidationError) -> Iterator[Finding]:
    """(path, keyword, message) for one jsonschema error; some errors name several places."""
    path: JsonPath = tuple(error.absolute_path)
    kind = str(error.validator)
    value: Any = error.validator_value
    instance = error.instance
    if kind == "additionalProperties" and isinstance(instance, dict):
        for key in _unexpected_keys(instance, _schema(error)):
            yield (*path, key), kind, _unknown_key(key, _schema(error))
    elif kind == "required" and isinstance(instance, dict):
        for key in value:
            if key not in instance:
                yield (*path, key), kind, "missing (required)"
    elif kind in ("oneOf", "anyOf"):
        yield from _explain_choice(error, path)
    else:
        yield path, kind, _message(kind, value, instance, error)


def _message(kind: str, value: Any, instance: Any, error: ValidationError) -> str:
    if kind == "type":
        types = value if isinstance(value, list) else [value]
        words = [_TYPE_WORDS.get(str(t), str(t)) for t in types]
        expected = words[-1] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
        return f"expected {expected}, got {_describe(instance)}"
    if kind == "format":
        return str(error.cause) if error.cause is not None else f"not a valid {value}"
    if kind == "enum":
        choices = ", ".join(json.dumps(v) for v in value)
        return f"{_describe(instance)} is not one of: {choices}{did_you_mean(instance, value)}"
    if kind == "const":
        return f"must be {json.dumps(value)}"
    if kind == "minimum":
        return f"must be at least {value}, got {_describe(instance)}"
    if kind == "exclusiveMinimum":
        return f"must be greater than {value}, got {_describe(instance)}"
    if kind == "maximum":
        return f"must be at most {value}, got {_describe(instance)}"
    if kind in ("minLength", "minItems", "minProperties"):
        return "must not be empty" if value == 1 else f"needs at least {value} entries"
    if kind == "maxLength":
        return f"too long: at most {value} characters"
    if kind in ("maxItems", "maxProperties"):
        return f"too many entries: at most {value}"
    if kind == "pattern":
        described = _schema(error).get("description", f"a match for {value}")
        return f"{_describe(instance)} is not {described}"
    return error.message


def _explain_choice(error: ValidationError, path: JsonPath) -> Iterator[Finding]:
    """``oneOf`` / ``anyOf``: a choice of keys reads as "one of: ...", else the best branch."""
    branches = error.validator_value if isinstance(error.validator_value, list) else []
    keys = [b["required"][0] for b in branches if _is_single_required(b)]
    kind = str(error.validator)
    if len(keys) == len(branches) and isinstance(error.instance, dict):
        present = [k for k in keys if k in error.instance]
        if kind == "oneOf" and len(present) > 1:
            yield path, kind, f"give only one of: {', '.join(present)}"
        else:
            quantity = "one" if kind == "oneOf" else "at least one"
            yield path, kind, f"needs {quantity} of: {', '.join(keys)}"
        return
    from jsonschema.exceptions import best_match

    best = best_match(error.context) if error.context else None
    if best is None:
        yield path, kind, error.message
    else:
        yield from _explain(best)


def _schema(error: ValidationError) -> Mapping[str, Any]:
    return error.schema if isinstance(error.schema, Mapping) else {}


def _is_single_required(branch: Any) -> bool:
    return isinstance(branch, dict) and set(branch) == {"required"} and len(branch["required"]) == 1


def _unexpected_keys(instance: dict[str, Any], schema: Mapping[str, Any]) -> list[str]:
    allowed = schema.get("properties", {})
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    return [
        key for key in instance if key not in allowed and not any(p.search(key) for p in patterns)
    ]


def _unknown_key(key: str, schema: Mapping[str, Any]) -> str:
    known = [k for k in schema.get("properties", {}) if k not in ("at", "do")]
    hint = did_you_mean(key, known)
    if key == "namespace":
        hint += (
            " (asset state namespaces are seed 002's proposal, not Airflow 3.3.2, whose state "
            "store is scoped by the asset itself: WA-5)"
        )
    return f"unknown key {key!r}{hint}; keys of your own must start with 'x-' to be kept"


def _describe(instance: Any) -> str:
    if isinstance(instance, bool) or instance is None:
        return json.dumps(instance)
    if isinstance(instance, str):
        return repr(instance)
    if isinstance(instance, int | float):
        return f"the number {instance}"
    if isinstance(instance, list):
        return "a list"
    return "an object"
