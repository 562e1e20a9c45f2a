"""Asset conditions: what an asset-scheduled DAG waits for (AS-3).

A condition is a tree of assets, ``Asset.ref`` references, aliases and
``all``/``any`` gates, as Airflow's ``AssetAll``/``AssetAny`` (the ``&`` and
``|`` of DAG files; a list schedule is ``all``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = [
    "AliasNode",
    "AllOf",
    "AnyOf",
    "AssetKey",
    "AssetNode",
    "Condition",
    "RefNode",
    "evaluate",
    "walk",
]


@dataclass(frozen=True, slots=True)
class AssetKey:
    """An asset's identity: its normalized ``(name, uri)`` (URI-2)."""

    name: str
    uri: str

    # Written out: a compiled dataclass keeps the methods it generates interpreted,
    # and every asset-keyed lookup of the per-run path hashes a key (adr/0013).
    def __hash__(self) -> int:
        return hash((self.name, self.uri))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AssetKey):
            return NotImplemented
        return self.name == other.name and self.uri == other.uri

    # The order by (name, uri) is written out too: a compiled class with ``__eq__``
    # has every comparison slot, which ``order=True`` refuses to overwrite.
    def __lt__(self, other: object) -> bool:
        if not isinstance(other, AssetKey):
            return NotImplemented
        return (self.name, self.uri) < (other.name, other.uri)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, AssetKey):
            return NotImplemented
        return (self.name, self.uri) <= (other.name, other.uri)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, AssetKey):
            return NotImplemented
        return (self.name, self.uri) > (other.name, other.uri)

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, AssetKey):
            return NotImplemented
        return (self.name, self.uri) >= (other.name, other.uri)

    def label(self) -> str:
        return self.name if self.name == self.uri else f"{self.name} ({self.uri})"


@dataclass(frozen=True, slots=True)
class AssetNode:
    """``Asset(...)`` named directly: its events are consumed by the DAG's runs (AS-5)."""

    key: AssetKey


@dataclass(frozen=True, slots=True)
class RefNode:
    """``Asset.ref(name=...)`` or ``Asset.ref(uri=...)``: resolved to the active asset at
    evaluation time; its events are never consumed (AS-10)."""

    name: str | None = None
    uri: str | None = None

    def matches(self, key: AssetKey) -> bool:
        return (self.name is not None and key.name == self.name) or (
            self.uri is not None and key.uri == self.uri
        )

    def label(self) -> str:
        return (
            f"Asset.ref(name={self.name!r})"
            if self.name is not None
            else (f"Asset.ref(uri={self.uri!r})")
        )


@dataclass(frozen=True, slots=True)
class AliasNode:
    """``AssetAlias(name)``: true once an asset emitted through it was updated (AS-9)."""

    name: str


@dataclass(frozen=True, slots=True)
class AllOf:
    children: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    children: tuple[Condition, ...]


Condition = AssetNode | RefNode | AliasNode | AllOf | AnyOf


def walk(condition: Condition) -> Iterator[Condition]:
    """Every node of the tree, depth first."""
    yield condition
    if isinstance(condition, AllOf | AnyOf):
        for child in condition.children:
            yield from walk(child)


def evaluate(
    condition: Condition,
    updated: Callable[[AssetKey], bool],
    resolve_ref: Callable[[RefNode], AssetKey | None],
    resolve_alias: Callable[[str], tuple[AssetKey, ...]],
) -> bool:
    """``assets/evaluation.py::AssetEvaluator`` (AS-3).

    ``updated`` says whether an asset has a queued event; a reference counts
    through the active asset it resolves to (unresolved: false); an alias is
    true when any asset it resolves to is updated (none yet: false). ``all``
    of nothing is true and ``any`` of nothing false, as Python's ``all``/``any``.
    """
    if isinstance(condition, AssetNode):
        return updated(condition.key)
    if isinstance(condition, RefNode):
        key = resolve_ref(condition)
        return key is not None and updated(key)
    if isinstance(condition, AliasNode):
        return any(updated(key) for key in resolve_alias(condition.name))
    results = (evaluate(c, updated, resolve_ref, resolve_alias) for c in condition.children)
    return all(results) if isinstance(condition, AllOf) else any(results)
