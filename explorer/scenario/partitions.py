"""Partition mapper, window and wait-policy specs, read with every refusal located.

A scenario writes Airflow 3.3's partition classes as the engine's JSON
spelling (``explorer.engine.partitions.spec``), nested where Airflow nests
them::

    {"mapper": "RollupMapper", "args": {
        "upstream_mapper": {"mapper": "StartOfDayMapper"},
        "window": {"window": "DayWindow"},
        "wait_policy": {"policy": "MinimumCount", "args": {"n": 2}}}}

The engine's builders (``build_mapper`` and friends) say *what* is wrong
(``PartitionError``, Airflow's refusals); this module says *where*: the JSON
path of the spec, the class name or the argument that causes it, down to a
nested window (``...mapper.args.window``). Specs are checked from the inside
out, so a bad window is reported at the window, not at the mapper holding it.
``x-...`` keys are allowed everywhere and never reach the engine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from explorer.engine.partitions import (
    PartitionError,
    PartitionMapper,
    build_mapper,
    build_wait_policy,
    build_window,
)
from explorer.engine.partitions.spec import MAPPER_NAMES, POLICY_NAMES, WINDOW_NAMES
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean
from explorer.scenario.values import JsonValue

__all__ = [
    "MAPPER_ARGS",
    "POLICY_ARGS",
    "WINDOW_ARGS",
    "read_mapper",
]

SpecKind = Literal["mapper", "window", "policy"]

_CAP = ("max_downstream_keys",)
_TEMPORAL = ("timezone", "input_format", "output_format", *_CAP)
_GRAINS = ("Hour", "Day", "Week", "Month", "Quarter", "Year")

#: Airflow 3.3.2's mapper classes and their arguments: (required, optional).
MAPPER_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "IdentityMapper": ((), _CAP),
    "AllowedKeyMapper": (("allowed_keys",), _CAP),
    "FixedKeyMapper": (("downstream_key",), _CAP),
    **{f"StartOf{grain}Mapper": ((), _TEMPORAL) for grain in _GRAINS},
    "ChainMapper": (("mappers",), _CAP),
    "ProductMapper": (("mappers",), ("delimiter", *_CAP)),
    "RollupMapper": (("upstream_mapper", "window"), ("wait_policy", *_CAP)),
    "FanOutMapper": (("upstream_mapper", "window"), ("downstream_mapper", *_CAP)),
}
#: The window classes and their arguments.
WINDOW_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **{f"{grain}Window": ((), ("direction",)) for grain in _GRAINS},
    "SegmentWindow": (("segments",), ()),
}
#: The wait policies and their arguments.
POLICY_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "WaitForAll": ((), ()),
    "MinimumCount": (("n",), ()),
}

_TABLES = {"mapper": MAPPER_ARGS, "window": WINDOW_ARGS, "policy": POLICY_ARGS}
_ENGINE_NAMES: dict[SpecKind, tuple[str, ...]] = {
    "mapper": MAPPER_NAMES,
    "window": WINDOW_NAMES,
    "policy": POLICY_NAMES,
}
_BUILDERS: dict[SpecKind, Callable[[Mapping[str, Any]], object]] = {
    "mapper": build_mapper,
    "window": build_window,
    "policy": build_wait_policy,
}
#: Arguments that are specs themselves, and their kind ("mappers" is a list of mapper specs).
_NESTED: dict[str, SpecKind] = {
    "upstream_mapper": "mapper",
    "downstream_mapper": "mapper",
    "mappers": "mapper",
    "window": "window",
    "wait_policy": "policy",
}
#: Words an engine message may use for an argument instead of its name.
_SYNONYMS = {"timezone": ("time zone",)}
_EXAMPLES = {
    "mapper": '{"mapper": "StartOfDayMapper", "args": {...}}',
    "window": '{"window": "DayWindow", "args": {...}}',
    "policy": '{"policy": "MinimumCount", "args": {"n": 2}}',
}


def read_mapper(spec: JsonValue, path: JsonPath) -> PartitionMapper:
    """The mapper ``spec`` (found at ``path``) describes; refusals are located ScenarioErrors."""
    built = _read(spec, path, "mapper")
    assert isinstance(built, PartitionMapper)
    return built


def _fail(path: JsonPath, message: str) -> ScenarioError:
    return ScenarioError("", path, message)


def _clean(value: Any) -> Any:
    """``value`` without ``x-...`` keys at any depth (they are the user's, not Airflow's)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not k.startswith("x-")}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _read(spec: JsonValue, path: JsonPath, kind: SpecKind) -> object:
    clean = _clean(spec)
    _check(clean, path, kind)
    try:
        return _BUILDERS[kind](clean)
    except PartitionError as exc:
        raise _fail(_locate(clean, path, kind, str(exc)), str(exc)) from exc


def _check(spec: Any, path: JsonPath, kind: SpecKind) -> None:
    """Shape, class name and argument names of one spec, then its nested specs (deepest first)."""
    if not isinstance(spec, dict):
        raise _fail(path, f"expected a {kind} spec like {_EXAMPLES[kind]}")
    if kind not in spec:
        raise _fail(path, _missing_class(spec, kind))
    for key in spec:
        if key not in (kind, "args"):
            raise _fail(
                (*path, key),
                f"unknown key {key!r}; a {kind} spec has {kind!r} (the Airflow class) and 'args'",
            )
    name = spec[kind]
    names = _ENGINE_NAMES[kind]
    if name not in names:
        raise _fail((*path, kind), _unknown_class(name, kind))
    args = spec.get("args", {})
    if "args" in spec and not isinstance(args, dict):
        raise _fail((*path, "args"), f"{name}'s args must be an object (keyword arguments)")
    table = _TABLES[kind].get(name)
    if table is not None:
        required, optional = table
        takes = ", ".join((*required, *optional)) or "no arguments"
        for arg in args:
            if arg not in required and arg not in optional:
                hint = did_you_mean(arg, [*required, *optional])
                raise _fail(
                    (*path, "args", arg), f"{name} has no argument {arg!r}{hint}; it takes: {takes}"
                )
        missing = [a for a in required if a not in args]
        if missing:
            where = (*path, "args") if "args" in spec else path
            raise _fail(where, f"{name} needs argument(s): {', '.join(missing)}")
    for arg, value in args.items():
        nested = _NESTED.get(arg)
        if nested is None:
            continue
        if arg == "mappers" and isinstance(value, list):
            for index, item in enumerate(value):
                _read(item, (*path, "args", arg, index), nested)
        elif arg != "mappers" and value is not None:
            _read(value, (*path, "args", arg), nested)


def _locate(spec: dict[str, Any], path: JsonPath, kind: SpecKind, message: str) -> JsonPath:
    """Where a refusal of a spec whose parts are each fine belongs.

    The argument the message names (plain arguments first), else the only
    plain argument given, else the window of a rollup or fan-out (the pairing
    of mapper and window is what failed), else the spec itself.
    """
    args: dict[str, Any] = spec.get("args") or {}
    plain = [a for a in args if a not in _NESTED]
    nested = [a for a in args if a in _NESTED]
    for arg in (*plain, *nested):
        words = (arg, *_SYNONYMS.get(arg, ()))
        if any(re.search(rf"(?<![A-Za-z_]){re.escape(w)}(?![A-Za-z_])", message) for w in words):
            return (*path, "args", arg)
    if len(plain) == 1 and not nested:
        return (*path, "args", plain[0])
    if kind == "mapper" and "window" in args:
        return (*path, "args", "window")
    return path


def _missing_class(spec: dict[str, Any], kind: SpecKind) -> str:
    for other in ("mapper", "window", "policy"):
        if other != kind and other in spec:
            return (
                f"expected a {kind} spec like {_EXAMPLES[kind]}, found a {other!r} key: "
                f"write {{{kind!r}: {json.dumps(spec[other])}, ...}}"
            )
    return f"expected a {kind} spec like {_EXAMPLES[kind]}: {kind!r} (the Airflow class) is missing"


def _unknown_class(name: object, kind: SpecKind) -> str:
    names = _ENGINE_NAMES[kind]
    for other, other_names in _ENGINE_NAMES.items():
        if other != kind and name in other_names:
            return (
                f"{name!r} is a {other}, not a {kind}: a {kind} here is one of: {', '.join(names)}"
            )
    hint = did_you_mean(name, names)
    return f"unknown {kind} {name!r}{hint}; expected one of: {', '.join(names)}"
