"""Asset conditions from their JSON spelling (contract section 1; conformance README 5).

``{"asset": {"name": ..., "uri": ...}}`` (either may be omitted, as in
``Asset(...)``), ``{"asset": "<declared name>"}``, ``{"asset_ref": {"name"|"uri"}}``,
``{"alias": {"name": ...}}``, ``{"all": [...]}``, ``{"any": [...]}``, or a bare
list (Airflow's list schedule: all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.engine.assets.condition import (
    AliasNode,
    AllOf,
    AnyOf,
    AssetKey,
    AssetNode,
    Condition,
    RefNode,
)
from explorer.engine.errors import EngineError

__all__ = ["ConditionError", "asset_key", "condition_from_spec", "is_condition_spec"]

CONDITION_KEYS = frozenset({"asset", "asset_ref", "alias", "all", "any"})


class ConditionError(EngineError):
    """A condition that cannot be read; ``path`` is relative to the condition's root."""

    def __init__(self, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.path = path


def is_condition_spec(value: Any) -> bool:
    """True for the JSON forms that schedule a DAG on assets."""
    if isinstance(value, list):
        return True
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in CONDITION_KEYS


def asset_key(spec: Mapping[str, Any]) -> AssetKey:
    """``Asset(name=..., uri=...)``'s identity, with Airflow's defaults and URI rules."""
    from explorer.engine.assets.uri import make_asset

    identity, _warnings = make_asset(spec.get("name"), spec.get("uri"))
    return AssetKey(identity.name, identity.uri)


def condition_from_spec(
    value: Any,
    declared: Mapping[str, AssetKey] | None = None,
    path: tuple[str | int, ...] = (),
) -> Condition:
    """Read a condition; ``declared`` maps the scenario's top-level asset names to keys."""
    if isinstance(value, list):
        return AllOf(
            tuple(condition_from_spec(v, declared, (*path, i)) for i, v in enumerate(value))
        )
    if not is_condition_spec(value):
        raise ConditionError(
            'expected an asset condition: {"asset": ...}, {"asset_ref": ...}, '
            '{"alias": ...}, {"all": [...]}, {"any": [...]} or a list',
            path,
        )
    kind, body = next(iter(value.items()))
    here = (*path, kind)
    if kind in ("all", "any"):
        if not isinstance(body, list):
            raise ConditionError(f"{kind!r} takes a list of conditions", here)
        children = tuple(condition_from_spec(v, declared, (*here, i)) for i, v in enumerate(body))
        return AllOf(children) if kind == "all" else AnyOf(children)
    if kind == "asset":
        if isinstance(body, str):
            if declared is None or body not in declared:
                raise ConditionError(
                    f"asset {body!r} is not declared in the top-level assets", here
                )
            return AssetNode(declared[body])
        if not isinstance(body, dict):
            raise ConditionError('an asset is {"name": ..., "uri": ...} or a declared name', here)
        try:
            return AssetNode(asset_key(body))
        except EngineError as exc:
            raise ConditionError(str(exc), here) from exc
    if kind == "asset_ref":
        if not isinstance(body, dict) or len(body) != 1 or next(iter(body)) not in ("name", "uri"):
            raise ConditionError("Asset.ref takes exactly one of name or uri", here)
        ref_value = next(iter(body.values()))
        if not isinstance(ref_value, str) or not ref_value:  # Airflow only checks truthiness
            raise ConditionError("Asset.ref needs a non-empty string", here)
        return RefNode(name=body.get("name"), uri=body.get("uri"))
    if not isinstance(body, dict) or not isinstance(body.get("name"), str) or not body["name"]:
        raise ConditionError('an alias is {"name": ...}', here)
    return AliasNode(body["name"])
