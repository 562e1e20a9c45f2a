"""The triggerer's side of asset watchers: when a watcher polls, and what a poll emits.

WA-2: a watcher runs only while its asset is active and directly scheduled by an
unpaused DAG; WA-3: each item that landed becomes one asset event; WA-4: the
watermark in the asset's state store moves so the next poll never rescans.
The specs and the store are in :mod:`explorer.engine.assets.watchers`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from explorer.engine.assets.scheduling import record_event
from explorer.engine.assets.store import EventSource
from explorer.engine.assets.watchers import WATERMARK, StateEntry, WatcherSpec

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["poll_due", "run_watchers"]


def _watched(sim: Host, spec: WatcherSpec) -> bool:
    """WA-2: the asset is active and directly scheduled by an unpaused, deployed DAG."""
    if not sim.state.assets.active.get(spec.asset, True):
        return False
    return any(
        dag.deployed and not dag.is_paused and spec.asset in dag.direct_assets
        for dag in sim.state.dags.values()
    )


def _watermark(sim: Host, spec: WatcherSpec) -> datetime | None:
    entry = sim.state.watchers.store.get(spec.asset, {}).get(WATERMARK)
    return None if entry is None else datetime.fromisoformat(str(entry.value))


def _poll_at(sim: Host, spec: WatcherSpec, after: datetime) -> datetime:
    """The first poll instant at or after ``after`` on the watcher's grid from clock.start."""
    step = spec.poll_interval
    if after <= sim.start:
        return sim.start
    k = -((sim.start - after) // step)
    return sim.start + k * step


def _activated_at(sim: Host, spec: WatcherSpec) -> datetime | None:
    """When the trigger was registered: the first parse of a DAG scheduled on the asset."""
    times = [
        dag.deployed_at
        for dag in sim.state.dags.values()
        if dag.deployed_at is not None and spec.asset in dag.direct_assets
    ]
    return min(times) if times else None


def poll_due(sim: Host) -> datetime | None:
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


def run_watchers(sim: Host, now: datetime) -> None:
    """Polls due at ``now``: emit what landed since the watermark, then move it (WA-3, WA-4)."""
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
