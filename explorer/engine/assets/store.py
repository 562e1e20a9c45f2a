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

__all__ = ["NO_EXTRA", "AssetEvent", "AssetStore", "EventOrigin", "EventSource"]

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
class EventOrigin:
    """What many events share: the asset, who emits it (without the run) and the rare
    fields. Interned by :meth:`AssetStore.origin`, so a task that emits the same asset
    every day points all its events at one origin."""

    asset: AssetKey
    kind: Literal["task", "rest_api", "watcher"]
    dag_id: str | None
    task_id: str | None
    watcher: str | None
    runs: DagRuns | None
    partition_key: str | None
    partition_date: datetime | None
    extra: dict[str, Any]
    via_aliases: tuple[str, ...]
    wrote_data: bool

    @classmethod
    def of(
        cls,
        asset: AssetKey,
        source: EventSource,
        partition_key: str | None = None,
        partition_date: datetime | None = None,
        extra: dict[str, Any] | None = None,
        via_aliases: tuple[str, ...] = (),
        wrote_data: bool = True,
    ) -> EventOrigin:
        """The origin of an event emitted by ``source`` (its run left out)."""
        return cls(
            asset,
            source.kind,
            source.dag_id,
            source.task_id,
            source.watcher,
            source.runs,
            partition_key,
            partition_date,
            NO_EXTRA if extra is None else extra,
            via_aliases,
            wrote_data,
        )


class AssetEvent:
    """One ``AssetEvent`` row. ``wrote_data`` is the simulator's own: Airflow cannot know.

    Immutable once recorded. A year of 10,000 DAGs records millions of events, so
    an event keeps four slots (its id, timestamp, shared :class:`EventOrigin` and
    the emitting run's ``nth``) instead of a nine-field object plus its own
    :class:`EventSource`: ``source`` and the rare fields are read through the
    origin (about 120 bytes less per event, adr/0006).
    """

    __slots__ = ("_nth", "_origin", "id", "timestamp")

    id: int
    timestamp: datetime
    _origin: EventOrigin
    _nth: int | None

    def __init__(
        self,
        id: int,
        asset: AssetKey,
        timestamp: datetime,
        source: EventSource,
        partition_key: str | None = None,
        partition_date: datetime | None = None,
        extra: dict[str, Any] | None = None,
        via_aliases: tuple[str, ...] = (),
        wrote_data: bool = True,
        *,
        origin: EventOrigin | None = None,
    ) -> None:
        self.id = id
        self.timestamp = timestamp
        self._nth = source.run_nth
        self._origin = origin or EventOrigin.of(
            asset, source, partition_key, partition_date, extra, via_aliases, wrote_data
        )

    @property
    def asset(self) -> AssetKey:
        return self._origin.asset

    @property
    def source(self) -> EventSource:
        """Built on demand (equal each time): events do not keep one apiece."""
        o = self._origin
        return EventSource(o.kind, o.dag_id, o.task_id, self._nth, o.watcher, o.runs)

    @property
    def partition_key(self) -> str | None:
        return self._origin.partition_key

    @property
    def partition_date(self) -> datetime | None:
        return self._origin.partition_date

    @property
    def extra(self) -> dict[str, Any]:
        return self._origin.extra

    @property
    def via_aliases(self) -> tuple[str, ...]:
        return self._origin.via_aliases

    @property
    def wrote_data(self) -> bool:
        return self._origin.wrote_data

    def _fields(self) -> tuple[Any, ...]:
        o = self._origin
        return (
            self.id,
            o.asset,
            self.timestamp,
            self.source,
            o.partition_key,
            o.partition_date,
            o.extra,
            o.via_aliases,
            o.wrote_data,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AssetEvent):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((self.id, self._origin.asset, self.timestamp))

    def __repr__(self) -> str:
        o = self._origin
        return (
            f"AssetEvent(id={self.id!r}, asset={o.asset!r}, timestamp={self.timestamp!r}, "
            f"source={self.source!r}, partition_key={o.partition_key!r}, "
            f"partition_date={o.partition_date!r}, extra={o.extra!r}, "
            f"via_aliases={o.via_aliases!r}, wrote_data={o.wrote_data!r})"
        )

    def __copy__(self) -> AssetEvent:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> AssetEvent:
        return self  # immutable, like the frozen dataclass it replaces


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
    #: interned :class:`EventOrigin` of the usual events (no partition, no extra).
    origins: dict[tuple[Any, ...], EventOrigin] = field(default_factory=dict)

    def __deepcopy__(self, memo: dict[int, Any]) -> AssetStore:
        """A checkpoint's copy: new lists, the same (frozen) events, keys and instants.

        Deep-copying tens of thousands of events made a checkpoint cost seconds
        after a few simulated weeks. An event never changes once recorded; its
        source reads ``run_id`` through the DAG's runs as they were when it was
        emitted, and the run of ``run_nth`` is the same in every copy that holds
        the event (it was created before the event was).
        """
        out = AssetStore(
            events=list(self.events),
            by_asset={key: list(events) for key, events in self.by_asset.items()},
            by_alias={name: list(events) for name, events in self.by_alias.items()},
            alias_assets={name: list(keys) for name, keys in self.alias_assets.items()},
            active=dict(self.active),
            activates_at=dict(self.activates_at),
            stamps={key: list(stamps) for key, stamps in self.stamps.items()},
            origins=dict(self.origins),
        )
        memo[id(self)] = out
        return out

    def origin(
        self, asset: AssetKey, source: EventSource, via_aliases: tuple[str, ...], wrote_data: bool
    ) -> EventOrigin:
        """The shared origin of an event without partition fields or ``extra``."""
        key = (
            asset,
            source.kind,
            source.dag_id,
            source.task_id,
            source.watcher,
            id(source.runs),
            via_aliases,
            wrote_data,
        )
        found = self.origins.get(key)
        if found is None or found.runs is not source.runs:
            found = self.origins[key] = EventOrigin.of(
                asset, source, via_aliases=via_aliases, wrote_data=wrote_data
            )
        return found

    def add(self, event: AssetEvent) -> bool:
        """Store ``event``; True when it resolved an alias to an asset for the first time."""
        self.events.append(event)
        origin = event._origin  # one read of the shared origin (asset, aliases)
        asset = origin.asset
        events = self.by_asset.get(asset)
        if events is None:  # the asset's first event: its lists, and known (active) now
            events = self.by_asset[asset] = []
            self.active.setdefault(asset, True)
        events.append(event)
        stamps = self.stamps.get(asset)
        if stamps is None:
            stamps = self.stamps[asset] = []
        stamps.append(event.timestamp)
        if not origin.via_aliases:
            return False
        resolved_new = False
        for alias in origin.via_aliases:
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
