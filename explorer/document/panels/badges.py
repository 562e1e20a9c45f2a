"""Live per-DAG state at the clock, for the canvas's node badges. No Qt.

The canvas shows on each DAG node what the scheduler is doing *now*:
running / failed / queued / paused, "2 of 3 assets updated" on asset
consumers (from :func:`explorer.engine.pending.condition_status`, the same
tree ``explain`` reads), and "5 of 24 window members" on partitioned
consumers (from :func:`explorer.engine.partition_waits.partition_waits`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.engine.assets.condition import (
    AliasNode,
    AssetKey,
    AssetNode,
    Condition,
    RefNode,
    evaluate,
    walk,
)

if TYPE_CHECKING:
    from explorer.engine.assets.store import AssetStore
    from explorer.engine.dagstate import DagState
    from explorer.engine.simulation import Simulation

__all__ = ["AssetCounts", "DagBadge", "compute_badges"]

#: Per DAG: (its condition, its adrq's assets, "n of m assets updated", ready) as last
#: computed for a condition of assets only (no ``Asset.ref``, no alias), whose reading
#: depends on nothing else (:func:`compute_badges`'s ``memo``).
AssetCounts = dict[str, tuple[Condition, tuple[AssetKey, ...], str, bool]]


@dataclass(frozen=True, slots=True)
class DagBadge:
    """What a DAG node shows at the clock.

    ``status`` is one word for the node's colour: ``not deployed``, ``paused``,
    ``running``, ``queued``, ``failed`` (its latest finished run failed),
    ``success`` or ``idle``.
    """

    dag_id: str
    status: str
    running: int = 0
    queued: int = 0
    last_state: str | None = None
    #: "2 of 3 assets updated" (asset-scheduled consumers), else None.
    assets: str | None = None
    assets_ready: bool | None = None
    #: "5 of 24 window members arrived" (partitioned consumers with a pending key), else None.
    members: str | None = None

    @property
    def text(self) -> str:
        """One line for a tooltip or a small label under the node."""
        parts = [self.status]
        if self.running:
            parts.append(f"{self.running} running")
        if self.queued:
            parts.append(f"{self.queued} queued")
        if self.assets:
            parts.append(self.assets)
        if self.members:
            parts.append(self.members)
        return " · ".join(parts)


def compute_badges(sim: Simulation, memo: AssetCounts | None = None) -> dict[str, DagBadge]:
    """One badge per DAG, in scenario order.

    ``memo``: kept by the caller between calls. Badges are computed after every step
    and Back, and walking every consumer's condition was most of it, although
    a step changes the queue rows of a few: a condition of assets only is read again
    only when its DAG's queue rows changed.
    """
    waits = _waits(sim)
    store = sim.state.assets
    resolve_ref = _RefIndex(store).resolve

    out: dict[str, DagBadge] = {}
    for dag_id, dag in sim.dags.items():
        running = sum(1 for r in dag.active if r.state == "running")
        queued = sum(1 for r in dag.active if r.state == "queued")
        last = dag.runs.last_ended_state()  # (from the run log's columns: no run built)
        if not dag.deployed:
            status = "not deployed"
        elif dag.is_paused:
            status = "paused"
        elif running:
            status = "running"
        elif queued:
            status = "queued"
        elif last == "failed":
            status = "failed"
        else:
            status = last or "idle"
        assets = ready = None
        cond = dag.spec.timetable.asset_condition
        if cond is not None and dag.deployed and not dag.spec.timetable.partitioned:
            rows = tuple(dag.adrq)
            known = None if memo is None else memo.get(dag_id)
            if known is not None and known[0] is cond and known[1] == rows:
                assets, ready = known[2], known[3]
            else:
                done, total = _leaves_updated(sim, dag, cond, resolve_ref)
                noun = "asset" if total == 1 else "assets"
                assets = f"{done} of {total} {noun} updated"
                ready = evaluate(cond, dag.adrq.__contains__, resolve_ref, store.resolve_alias)
                if memo is not None and _assets_only(cond):
                    memo[dag_id] = (cond, rows, assets, ready)
        out[dag_id] = DagBadge(
            dag_id, status, running, queued, last, assets, ready, waits.get(dag_id)
        )
    return out


def _assets_only(cond: Condition) -> bool:
    """Whether the condition names assets only: its reading depends on the queue rows
    alone (a ref or an alias resolves through the asset store, which moves too)."""
    return not any(isinstance(node, RefNode | AliasNode) for node in walk(cond))


class _RefIndex:
    """``AssetStore.resolve_ref`` for one reading of the store, by name and uri.

    ``Asset.ref`` resolves to the first active asset (in the store's order) whose
    name or uri it names (AS-3); the store walks every known asset for each ref, and
    badges resolve every consumer's refs after every step and Back. Here the assets
    are walked once, on the first ref asked (nothing changes the store meanwhile).
    """

    def __init__(self, store: AssetStore) -> None:
        self.store = store
        self._by: tuple[dict[str, tuple[int, AssetKey]], dict[str, tuple[int, AssetKey]]] | None
        self._by = None

    def resolve(self, ref: RefNode) -> AssetKey | None:
        if self._by is None:
            by_name: dict[str, tuple[int, AssetKey]] = {}
            by_uri: dict[str, tuple[int, AssetKey]] = {}
            later = self.store.activates_at
            for position, (key, is_active) in enumerate(self.store.active.items()):
                if is_active and key not in later:
                    by_name.setdefault(key.name, (position, key))
                    by_uri.setdefault(key.uri, (position, key))
            self._by = (by_name, by_uri)
        by_name, by_uri = self._by
        found = [
            hit
            for hit in (
                by_name.get(ref.name) if ref.name is not None else None,
                by_uri.get(ref.uri) if ref.uri is not None else None,
            )
            if hit is not None
        ]
        return min(found, key=lambda hit: hit[0])[1] if found else None


def _leaves_updated(
    sim: Simulation,
    dag: DagState,
    cond: Condition,
    resolve_ref: Callable[[RefNode], AssetKey | None],
) -> tuple[int, int]:
    """(updated, all) leaves of the condition, counted as ``condition_status`` marks them.

    The same reading as :func:`explorer.engine.pending.condition_status` (a leaf is
    updated when the DAG has a queue row for its asset; an alias when any asset
    emitted through it has one), without building the tree: badges are computed
    for every DAG after every step.
    """
    store = sim.state.assets
    done = total = 0
    for node in walk(cond):
        if isinstance(node, AssetNode):
            hit = node.key in dag.adrq
        elif isinstance(node, RefNode):
            key = resolve_ref(node)
            hit = key is not None and key in dag.adrq
        elif isinstance(node, AliasNode):
            hit = any(key in dag.adrq for key in store.resolve_alias(node.name))
        else:
            continue
        total += 1
        done += int(hit)
    return done, total


def _waits(sim: Simulation) -> dict[str, str]:
    if not any(r.run is None for r in sim.state.partition_requests):
        return {}
    from explorer.engine.partition_waits import partition_waits

    out: dict[str, str] = {}
    for dag_id, requests in partition_waits(sim, sim.now).items():
        arrived = expected = 0
        for request in requests:
            for member in request["members"]:
                arrived += len(member.get("received_keys", []))
                expected += len(member.get("received_keys", [])) + len(member.get("missing", []))
        keys = len(requests)
        out[dag_id] = f"{arrived} of {expected} window members arrived" + (
            f" ({keys} keys pending)" if keys > 1 else ""
        )
    return out
