"""Asset events and what the scheduler keeps about assets (AS-1, AS-2, AS-9, URI-2).

Mirrors the tables the asset rules read: the event log, the active assets,
alias resolutions (alias → assets emitted through it), and per consumer the
queue rows (``asset_dag_run_queue``: at most one per asset and consumer,
holding the time of the first event since it was last cleared).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from explorer.engine.assets.condition import AssetKey, RefNode

if TYPE_CHECKING:
    from explorer.engine.runlog import DagRuns

__all__ = ["NO_EXTRA", "AssetEvent", "AssetStore", "EventSource"]

#: The ``extra`` of every event that has none: one shared dict, never mutated, instead
#: of an empty dict per event (a year of a thousand DAGs emits close to a million).
NO_EXTRA: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class EventSource:
    """Who emitted an event: a task of a run, the REST API, or a watcher (WA-3).

    A task's run is named by ``run_nth`` and read back through the DAG's runs
    (``runs``) when its ``run_id`` is asked for: the event does not keep the run's
    id string alive once the run log has packed the run.
    """

    kind: Literal["task", "rest_api", "watcher"]
    dag_id: str | None = None
    task_id: str | None = None
    run_nth: int | None = None
    watcher: str | None = None
    runs: DagRuns | None = field(default=None, compare=False, repr=False)

    @property
    def run_id(self) -> str | None:
        if self.runs is None or self.run_nth is None:
            return None
        return self.runs[self.run_nth].run_id


@dataclass(frozen=True, slots=True)
class AssetEvent:
    """One ``AssetEvent`` row. ``wrote_data`` is the simulator's own: Airflow cannot know."""

    id: int
    asset: AssetKey
    timestamp: datetime
    source: EventSource
    partition_key: str | None = None
    partition_date: datetime | None = None
    extra: dict[str, Any] = field(default_factory=lambda: NO_EXTRA)
    via_aliases: tuple[str, ...] = ()
    wrote_data: bool = True


@dataclass(slots=True)
class AssetStore:
    """The event log with per-asset and per-alias indexes (events arrive in time order)."""

    events: list[AssetEvent] = field(default_factory=list)
    by_asset: dict[AssetKey, list[AssetEvent]] = field(default_factory=dict)
    by_alias: dict[str, list[AssetEvent]] = field(default_factory=dict)
    #: alias name → assets emitted through it, in first-emission order (AS-9).
    alias_assets: dict[str, list[AssetKey]] = field(default_factory=dict)
    #: every asset the deployment knows, with its active flag (URI-2).
    active: dict[AssetKey, bool] = field(default_factory=dict)
    #: assets only alias emissions created, with the housekeeping instant that makes
    #: them resolvable by ``Asset.ref`` (``orphanage``).
    activates_at: dict[AssetKey, datetime] = field(default_factory=dict)
    #: timestamps parallel to ``by_asset`` / ``by_alias``, for bisection.
    stamps: dict[object, list[datetime]] = field(default_factory=dict)

    def __deepcopy__(self, memo: dict[int, Any]) -> AssetStore:
        """A checkpoint's copy: new lists, the same (frozen) events, keys and instants.

        Deep-copying tens of thousands of events made a checkpoint cost seconds
        after a few simulated weeks. An event never changes once recorded; its
        source reads ``run_id`` through the DAG's runs as they were when it was
        emitted, and the run of ``run_nth`` is the same in every copy that holds
        the event (it was created before the event was).
        """
        out = AssetStore(
            list(self.events),
            {key: list(events) for key, events in self.by_asset.items()},
            {name: list(events) for name, events in self.by_alias.items()},
            {name: list(keys) for name, keys in self.alias_assets.items()},
            dict(self.active),
            {key: list(stamps) for key, stamps in self.stamps.items()},
        )
        memo[id(self)] = out
        return out

    def add(self, event: AssetEvent) -> bool:
        """Store ``event``; True when it resolved an alias to an asset for the first time."""
        self.events.append(event)
        self.by_asset.setdefault(event.asset, []).append(event)
        self.stamps.setdefault(event.asset, []).append(event.timestamp)
        self.active.setdefault(event.asset, True)
        resolved_new = False
        for alias in event.via_aliases:
            self.by_alias.setdefault(alias, []).append(event)
            self.stamps.setdefault(("alias", alias), []).append(event.timestamp)
            resolved = self.alias_assets.setdefault(alias, [])
            if event.asset not in resolved:
                resolved.append(event.asset)
                resolved_new = True
        return resolved_new

    def resolve_ref(self, ref: RefNode) -> AssetKey | None:
        """``Asset.ref`` → the active asset with that name (or uri), if any (AS-3)."""
        for key, is_active in self.active.items():
            if is_active and ref.matches(key) and key not in self.activates_at:
                return key
        return None

    def resolve_alias(self, name: str) -> tuple[AssetKey, ...]:
        return tuple(self.alias_assets.get(name, ()))

    def between(
        self, source: AssetKey | str, floor: datetime | None, upto: datetime
    ) -> list[AssetEvent]:
        """Events of an asset (or of an alias, by name) with ``floor < timestamp <= upto``."""
        if isinstance(source, str):
            events = self.by_alias.get(source, [])
            stamps = self.stamps.get(("alias", source), [])
        else:
            events = self.by_asset.get(source, [])
            stamps = self.stamps.get(source, [])
        lo = 0 if floor is None else bisect_right(stamps, floor)
        hi = bisect_right(stamps, upto)
        return events[lo:hi]

    def latest_before(self, key: AssetKey, at: datetime) -> AssetEvent | None:
        index = bisect_left(self.stamps.get(key, []), at)
        return self.by_asset[key][index - 1] if index else None
