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
rescans. The polling itself is :mod:`explorer.engine.assets.watching`; this module
holds the specs and the store. Namespaces for the store (seed 002) are a proposal, not Airflow
3.3.2 behaviour: the store here is scoped by asset, as Airflow's is (WA-5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from explorer.engine.assets.condition import AssetKey
from explorer.engine.errors import EngineError

__all__ = ["WATERMARK", "SourceChange", "StateEntry", "WatcherSpec", "WatcherState"]

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
