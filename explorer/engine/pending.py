"""The waits still open: what each asset-scheduled consumer has and still misses (AS-3).

Shared by the record's ``pending`` section, ``explain`` and the GUI's canvas
badges ("2 of 3 assets updated").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explorer.engine.assets.condition import (
    AliasNode,
    AllOf,
    AssetKey,
    AssetNode,
    Condition,
    RefNode,
    evaluate,
)
from explorer.engine.dagstate import DagState
from explorer.engine.tz import iso

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation

__all__ = ["condition_status", "pending_section"]


def condition_status(sim: Simulation, dag: DagState) -> dict[str, Any] | None:
    """The DAG's condition tree, each node marked satisfied or not by its queue rows."""
    cond = dag.spec.timetable.asset_condition
    if cond is None:
        return None
    return _node(sim, dag, cond)


def _row(sim: Simulation, dag: DagState, key: AssetKey) -> dict[str, Any]:
    queued_at = dag.adrq.get(key)
    event = None if queued_at is None else sim.state.assets.event_at(key, queued_at)
    return {
        "asset": {"name": key.name, "uri": key.uri},
        "satisfied": queued_at is not None,
        "queued_at": iso(queued_at),
        "event": None if event is None else event.id,
        "source": None if event is None else (event.source.run_id or event.source.kind),
    }


def _node(sim: Simulation, dag: DagState, cond: Condition) -> dict[str, Any]:
    store = sim.state.assets
    if isinstance(cond, AssetNode):
        return {"kind": "asset", "label": cond.key.label(), **_row(sim, dag, cond.key)}
    if isinstance(cond, RefNode):
        key = store.resolve_ref(cond)
        base = {
            "kind": "asset_ref",
            "label": cond.label(),
            "resolves_to": None if key is None else key.label(),
        }
        if key is None:
            return {**base, "satisfied": False, "queued_at": None, "event": None, "source": None}
        return {**base, **_row(sim, dag, key)}
    if isinstance(cond, AliasNode):
        resolved = store.resolve_alias(cond.name)
        members = [_row(sim, dag, key) for key in resolved]
        return {
            "kind": "alias",
            "label": f"AssetAlias({cond.name!r})",
            "resolves_to": [k.label() for k in resolved],
            "members": members,
            "satisfied": any(m["satisfied"] for m in members),
        }
    children = [_node(sim, dag, c) for c in cond.children]
    satisfied = evaluate(cond, dag.adrq.__contains__, store.resolve_ref, store.resolve_alias)
    kind = "all" if isinstance(cond, AllOf) else "any"
    return {
        "kind": kind,
        "label": kind.upper(),
        "satisfied": satisfied,
        "children": children,
        "count": sum(1 for c in children if c["satisfied"]),
    }


def leaves(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Asset, ref and alias nodes of a status tree, depth first."""
    if "children" in tree:
        return [leaf for child in tree["children"] for leaf in leaves(child)]
    return [tree]


def pending_section(sim: Simulation) -> dict[str, Any]:
    """``pending`` of the record: per asset-scheduled consumer, satisfied and missing parts."""
    out: dict[str, Any] = {}
    for dag_id, dag in sim.dags.items():
        tree = condition_status(sim, dag)
        if tree is None or not dag.deployed or dag.spec.timetable.partitioned:
            continue
        parts = leaves(tree)
        out[dag_id] = {
            "ready": tree["satisfied"],
            "satisfied": [p["label"] for p in parts if p["satisfied"]],
            "missing": [p["label"] for p in parts if not p["satisfied"]],
            "condition": tree,
        }
    return out
