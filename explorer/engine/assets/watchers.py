"""Asset watchers and the per-asset state store, as Airflow 3.3.2 has them (WA-1..WA-4).

A watcher (``Asset(..., watchers=[AssetWatcher(name, trigger)])``) is a trigger
the triggerer runs continuously; each event it yields becomes one asset event
per linked asset, with extra ``{"from_trigger": true, "payload": ...}``, no
partition key and no source task (WA-3), which reaches non-partitioned
consumers only. A watcher runs only while its asset is active and directly
scheduled by at least one unpaused DAG (WA-2).

The simulated source is scripted: items land at given instants. The watcher
polls on its own cadence and keeps a watermark in the asset's state store
(``asset_state_store``: key → JSON value with ``updated_at`` and who wrote it,
WA-4), so each poll scans only what landed since the last one and never
rescans. Namespaces for the store (seed 002) are a proposal, not Airflow
3.3.2 behaviour: the store here is scoped by asset, as Airflow's is (WA-5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.store import EventSource
from explorer.engine.errors import EngineError

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation

__all__ = ["SourceChange", "StateEntry", "WatcherSpec", "poll_due", "run_watchers"]

WATERMARK = "watermark"


@dataclass(frozen=True, slots=True)
class SourceChange:
    """Something lands in the watched source at ``at`` (a file, a row update)."""

    at: datetime
    item: str
    payload: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class WatcherSpec:
    """``AssetWatcher(name, trigger)`` on ``asset``, polling every ``poll_interval``."""

    name: str
    asset: AssetKey
    poll_interval: timedelta
    changes: tuple[SourceChange, ...] = ()
    trigger: str = "airflow.providers.standard.triggers.file.FileDeleteTrigger"

    def __post_init__(self) -> None:
        if self.poll_interval <= timedelta(0):
            raise EngineError(f"watcher {self.name!r}: poll_interval must be positive")


@dataclass(slots=True)
class StateEntry:
    """One ``asset_state_store`` row."""

    value: Any
    updated_at: datetime
    updated_by: str


@dataclass(slots=True)
class WatcherState:
    #: asset → key → entry (WA-4)
    store: dict[AssetKey, dict[str, StateEntry]] = field(default_factory=dict)
    #: every write, for the timeline: (asset, key, value, at, by)
    history: list[tuple[AssetKey, str, Any, datetime, str]] = field(default_factory=list)
    last_poll: dict[str, datetime] = field(default_factory=dict)


def _watched(sim: Simulation, spec: WatcherSpec) -> bool:
    """WA-2: the asset is active and directly scheduled by an unpaused, deployed DAG."""
    if not sim.state.assets.active.get(spec.asset, True):
        return False
    return any(
        dag.deployed and not dag.is_paused and spec.asset in dag.direct_assets
        for dag in sim.state.dags.values()
    )


def _watermark(sim: Simulation, spec: WatcherSpec) -> datetime | None:
    entry = sim.state.watchers.store.get(spec.asset, {}).get(WATERMARK)
    return None if entry is None else datetime.fromisoformat(str(entry.value))


def _poll_at(sim: Simulation, spec: WatcherSpec, after: datetime) -> datetime:
    """The first poll instant at or after ``after`` on the watcher's grid from clock.start."""
    step = spec.poll_interval
    if after <= sim.start:
        return sim.start
    k = -((sim.start - after) // step)
    return sim.start + k * step


def _activated_at(sim: Simulation, spec: WatcherSpec) -> datetime | None:
    """When the trigger was registered: the first parse of a DAG scheduled on the asset."""
    times = [
        dag.deployed_at
        for dag in sim.state.dags.values()
        if dag.deployed_at is not None and spec.asset in dag.direct_assets
    ]
    return min(times) if times else None


def poll_due(sim: Simulation) -> datetime | None:
    """When the next poll that finds something happens (empty polls change nothing).

    A watcher polls only while it runs (WA-2) and only after the parse that
    registered it; polls missed while it was stopped are not replayed: the
    first poll after it resumes sees everything that landed since the watermark.
    """
    now = sim.state.now
    best: datetime | None = None
    for spec in sim.watchers:
        if not _watched(sim, spec):
            continue  # not running: it resumes when a consumer is unpaused (WA-2)
        activated = _activated_at(sim, spec)
        mark = _watermark(sim, spec)
        pending = [c.at for c in spec.changes if mark is None or c.at > mark]
        if not pending or activated is None:
            continue
        at = _poll_at(sim, spec, max(min(pending), now))
        last = sim.state.watchers.last_poll.get(spec.name)
        while at <= activated or (last is not None and at <= last):
            at += spec.poll_interval
        best = at if best is None or at < best else best
    return best


def run_watchers(sim: Simulation, now: datetime) -> None:
    """Polls due at ``now``: emit what landed since the watermark, then move it (WA-3, WA-4)."""
    from explorer.engine.assets.scheduling import record_event

    state = sim.state.watchers
    for spec in sim.watchers:
        if _poll_at(sim, spec, now) != now or state.last_poll.get(spec.name) == now:
            continue
        activated = _activated_at(sim, spec)
        if not _watched(sim, spec) or activated is None or now <= activated:
            continue
        state.last_poll[spec.name] = now
        mark = _watermark(sim, spec)
        landed = [c for c in spec.changes if c.at <= now and (mark is None or c.at > mark)]
        if not landed:
            continue
        for change in landed:
            payload = {"item": change.item, **dict(change.payload)}
            record_event(
                sim,
                spec.asset,
                source=EventSource("watcher", watcher=spec.name),
                extra={"from_trigger": True, "payload": payload},
            )
        newest = max(c.at for c in landed)
        entry = StateEntry(newest.isoformat(), now, f"watcher:{spec.name}")
        state.store.setdefault(spec.asset, {})[WATERMARK] = entry
        state.history.append((spec.asset, WATERMARK, entry.value, now, entry.updated_by))
