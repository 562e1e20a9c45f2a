"""The compiled quick check and jsonschema give every item the same verdict.

``schema_problems`` asks fastjsonschema first and jsonschema only where the
quick check says no: a value the quick check let through while jsonschema
rejects it would lose a user's message. Every DAG, action and whole file of
the examples is checked as it is and with each of its keys removed or given
values of every JSON kind, nested levels included.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from explorer.scenario import validate
from tests.scenario.helpers import EXAMPLES, FULL

_ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    2.0,
    "",
    "x",
    "not a cron",
    "2024-01-01T00:00:00",
    "P-1D",
    "Mars/Olympus",
    [],
    [1],
    {},
    {"x": 1},
]


def _documents() -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8")) for p in [FULL, *sorted(EXAMPLES.glob("*.json"))]
    ]


def _variants(node: Any, depth: int = 0) -> Iterator[Any]:
    """``node`` with one place changed: a key dropped or a value swapped (two levels deep)."""
    if isinstance(node, dict):
        for key in node:
            dropped = {k: v for k, v in node.items() if k != key}
            yield dropped
            for odd in _ODD_VALUES:
                yield {**node, key: odd}
            if depth < 2:
                for inner in _variants(node[key], depth + 1):
                    yield {**node, key: inner}
        yield {**node, "unknownKey": 1}
    elif isinstance(node, list) and node and depth < 2:
        for inner in _variants(node[0], depth + 1):
            yield [inner, *node[1:]]


def _jsonschema_valid(definition: str | None, value: Any) -> bool:
    return not any(True for _ in validate._validator(definition).iter_errors(value))


def _items() -> Iterator[tuple[str, Any]]:
    for document in _documents():
        for key, definition in validate._ITEMS.items():
            for item in document.get(key, []):
                yield definition, item


@pytest.mark.parametrize("definition", sorted(set(validate._ITEMS.values())))
def test_the_quick_check_agrees_with_jsonschema_on_every_item_and_its_variants(
    definition: str,
) -> None:
    checked = 0
    for kind, item in _items():
        if kind != definition:
            continue
        for value in [item, *_variants(item)]:
            value = copy.deepcopy(value)
            assert validate._fast_valid(definition, value) == _jsonschema_valid(
                definition, value
            ), json.dumps(value)[:400]
            checked += 1
    assert checked > 100


def test_the_quick_check_agrees_with_jsonschema_on_the_rest_of_every_file() -> None:
    checked = 0
    for document in _documents():
        rest = {**document, **{key: [] for key in validate._ITEMS if key in document}}
        for variant in [rest, *_variants(rest)]:
            # As ``schema_problems`` does: item lists are checked item by item.
            value = {
                k: [] if k in validate._ITEMS and isinstance(v, list) else v
                for k, v in variant.items()
            }
            assert validate._fast_valid(None, value) == _jsonschema_valid(None, value), json.dumps(
                value
            )[:400]
            checked += 1
    assert checked > 100
