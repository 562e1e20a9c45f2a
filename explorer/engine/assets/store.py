"""Asset events and what the scheduler keeps about assets (AS-1, AS-2, AS-9, URI-2).

Mirrors the tables the asset rules read: the event log, the active assets,
alias resolutions (alias → assets emitted through it), and per consumer the
queue rows (``asset_dag_run_queue``: at most one per asset and consumer,
holding the time of the first event since it was last cleared).
"""

from __future__ import annotations

from abc import abstractmethod
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from explorer.engine.assets.condition import AssetKey, RefNode
from explorer.engine.heldruns import HeldRuns
from explorer.engine.runspill import NO_SPILL, SpillArray, SpillPool
from explorer.engine.tz import epoch_us, from_epoch_us

if TYPE_CHECKING:
    from explorer.engine.runlog import DagRuns

__all__ = [
    "NO_EXTRA",
    "AssetEvent",
    "AssetStore",
    "EventIndex",
    "EventLog",
    "EventOrigin",
    "EventSource",
    "Events",
]

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

    @classmethod
    def of_task(
        cls,
        asset: AssetKey,
        dag_id: str,
        task_id: str,
        runs: DagRuns,
        partition_key: str | None,
        partition_date: datetime | None,
        wrote_data: bool,
    ) -> EventOrigin:
        """The origin of a task's outlet event (no alias, no extra), without an
        :class:`EventSource` to read it from: a task's end records one per outlet and
        key, so the hot path builds none."""
        return cls(
            asset,
            "task",
            dag_id,
            task_id,
            None,
            runs,
            partition_key,
            partition_date,
            NO_EXTRA,
            (),
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


#: The source an event read back from the log's columns is built with: its origin
#: holds who emitted it, and the run's ``nth`` is set after.
_STORED = EventSource("task")


#: Events a chunk of the event columns and of each asset's index on a spilling run log
#: (adr/0006): the columns are 20 bytes an event, an asset's index 12.
EVENT_CHUNK = 1 << 16
ASSET_CHUNK = 1 << 12


class _EventSequence:
    """A sequence of events read by position (:class:`EventLog`, :class:`EventIndex`):
    the indexing and slicing both share, over the one lookup each defines.

    Registered as a :class:`~collections.abc.Sequence` rather than derived from it:
    the per-run path compiles this module, and a compiled class with an interpreted
    base takes weak references that mypyc never clears (mypyc/mypyc#1102, adr/0013).
    So the mixin methods a ``Sequence`` would lend are written here.
    """

    __slots__ = ()

    @abstractmethod
    def _event(self, index: int) -> AssetEvent:
        """The event at ``index`` (0 <= index < len)."""

    @abstractmethod
    def __len__(self) -> int:
        """How many events."""

    def __iter__(self) -> Iterator[AssetEvent]:
        for index in range(len(self)):
            yield self._event(index)

    def __reversed__(self) -> Iterator[AssetEvent]:
        for index in range(len(self) - 1, -1, -1):
            yield self._event(index)

    def __contains__(self, value: object) -> bool:
        return any(event is value or event == value for event in self)

    def index(self, value: object) -> int:
        for index, event in enumerate(self):
            if event is value or event == value:
                return index
        raise ValueError(f"{value!r} is not in the events")

    def count(self, value: object) -> int:
        return sum(1 for event in self if event is value or event == value)

    @overload
    def __getitem__(self, index: int) -> AssetEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[AssetEvent]: ...

    def __getitem__(self, index: int | slice) -> AssetEvent | list[AssetEvent]:
        if isinstance(index, slice):
            return [self._event(i) for i in range(len(self))[index]]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._event(index)


class EventLog(_EventSequence):
    """Every event in id order, as columns: ``AssetEvent`` objects are built on demand.

    A year of 10,000 DAGs records ~126 million events: as objects (with their
    timestamps and list entries) about 150 bytes each. Here an event is its timestamp
    (epoch microseconds), the code of its shared :class:`EventOrigin` and its run's
    ``nth``: 20 bytes, which a spilling run log's pool moves to the scratch file in
    chunks (adr/0006). A built event is handed out again while anybody holds it (a
    weak cache, as the run log does for packed runs), so identity checks hold.
    A timestamp that is not UTC with fold 0 (it would not come back identical) is
    kept as it is in a side table.
    """

    __slots__ = (
        "_cache",
        "_codes",
        "_last",
        "_nths",
        "_odd",
        "_origin_code",
        "_origins",
        "_stamps",
    )

    def __init__(self, pool: SpillPool = NO_SPILL) -> None:
        self._stamps = SpillArray("q", pool, chunk=EVENT_CHUNK)
        self._codes = SpillArray("I", pool, chunk=EVENT_CHUNK)
        self._nths = SpillArray("q", pool, chunk=EVENT_CHUNK)  # -1: no run
        self._origins: list[EventOrigin] = []
        #: ``id()`` of an origin in ``_origins`` → its code (the list keeps it alive)
        self._origin_code: dict[int, int] = {}
        self._odd: dict[int, datetime] = {}
        self._cache = HeldRuns()  # AssetEvent by id
        #: the latest timestamp appended and its microseconds (events come in bursts)
        self._last: tuple[datetime | None, int] = (None, 0)

    def append(self, event: AssetEvent) -> int:
        """Store ``event`` (its id must be the next one); its timestamp in epoch us."""
        stamps = self._stamps
        event_id = stamps.start + len(stamps.head)
        if event.id != event_id:
            raise ValueError(f"event id {event.id} is not the log's next id {event_id}")
        us = self._put(event_id, event.timestamp, event._origin, event._nth)
        self._cache[event_id] = event
        return us

    def record(self, origin: EventOrigin, timestamp: datetime, nth: int | None) -> tuple[int, int]:
        """A new event of ``origin`` at ``timestamp``, emitted by run ``nth``, stored
        without building it: its id and its timestamp in epoch us. Most events are
        never read as objects (a task's outlet event); :meth:`get` builds one
        when asked, equal to what :meth:`append` would have kept."""
        stamps = self._stamps
        event_id = stamps.start + len(stamps.head)
        return event_id, self._put(event_id, timestamp, origin, nth)

    def _put(self, event_id: int, timestamp: datetime, origin: EventOrigin, nth: int | None) -> int:
        """The columns of the next event (:meth:`append`, :meth:`record`)."""
        stamps = self._stamps
        last, us = self._last
        if timestamp is not last:
            us = epoch_us(timestamp)
            self._last = (timestamp, us)
        if timestamp.tzinfo is not UTC or timestamp.fold:
            self._odd[event_id] = timestamp
        code = self._origin_code.get(id(origin))
        if code is None:
            code = self._origin_code[id(origin)] = len(self._origins)
            self._origins.append(origin)
        stamps.head.append(us)  # SpillArray.append, inline: once an event
        self._codes.head.append(code)
        self._nths.head.append(-1 if nth is None else nth)
        if len(stamps.head) >= stamps.limit:
            for column in (stamps, self._codes, self._nths):
                column.spill()
        return us

    def __len__(self) -> int:
        return len(self._stamps)

    def _event(self, index: int) -> AssetEvent:
        return self.get(index)

    def get(self, event_id: int) -> AssetEvent:
        """The event with that (valid) id."""
        event = cast("AssetEvent | None", self._cache.get(event_id))
        if event is None:
            odd = self._odd.get(event_id) if self._odd else None
            origin = self._origins[self._codes[event_id]]
            event = AssetEvent(
                event_id,
                origin.asset,
                from_epoch_us(self._stamps[event_id]) if odd is None else odd,
                _STORED,
                origin=origin,
            )
            nth = self._nths[event_id]
            event._nth = None if nth == -1 else nth
            self._cache[event_id] = event
        return event

    def stamp_us(self, event_id: int) -> int:
        """An event's timestamp in epoch microseconds, without building the event."""
        return self._stamps[event_id]

    def __iter__(self) -> Iterator[AssetEvent]:
        for event_id in range(len(self)):
            yield self.get(event_id)

    def __delitem__(self, index: int | slice) -> None:
        """``del log[n:]`` (a Back snapshot's restore) or ``del log[-1]``: the log is
        only ever cut back at its end."""
        if isinstance(index, int):
            index = slice(index % len(self), None) if index in (-1, len(self) - 1) else index
        if not isinstance(index, slice) or index.stop is not None or index.step is not None:
            raise TypeError("the event log is only cut back at its end: del log[n:]")
        count = min(index.start or 0, len(self))
        for event_id in range(count, len(self)):
            self._cache.pop(event_id)
            self._odd.pop(event_id, None)
        for column in (self._stamps, self._codes, self._nths):
            column.truncate(count)
        self._last = (None, 0)

    def clear(self) -> None:
        del self[0:]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EventLog, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> EventLog:
        """A checkpoint's copy: the columns (spilled chunks shared), the same origins,
        and the events still held (the same objects in both, like the runs)."""
        out = EventLog()  # (a compiled class's ``__new__`` runs ``__init__`` too)
        out._stamps, out._codes, out._nths = (
            self._stamps.copy(),
            self._codes.copy(),
            self._nths.copy(),
        )
        out._origins = list(self._origins)
        out._origin_code = dict(self._origin_code)
        out._odd = dict(self._odd)
        out._cache = self._cache.copy()
        out._last = self._last
        return out


def _bisect_right_from_end(stamps: array[int], value: int, hi: int) -> int:
    """``bisect_right(stamps, value, 0, hi)``, searched back from ``hi`` in widening
    steps. A consumer reads the events after its latest run's, the last few of the
    index: at 10,000 DAGs most reads find none or one, where a bisection of
    a 4,096-entry head reads a dozen entries, each made a Python int."""
    width = 4
    while True:
        lo = hi - width
        if lo <= 0:
            return bisect_right(stamps, value, 0, hi)
        if stamps[lo] <= value:  # every entry up to lo is <= value too: sorted
            return bisect_right(stamps, value, lo + 1, hi)
        width <<= 2


class EventIndex(_EventSequence):
    """One asset's (or alias's) events in time order: their ids and timestamps (epoch
    microseconds) as two parallel columns, read through the :class:`EventLog`; on a
    spilling run log their old chunks go to the scratch file (consumers read only the
    events after their queue's floor, AS-5)."""

    __slots__ = ("ids", "log", "stamps")

    def __init__(self, log: EventLog, pool: SpillPool = NO_SPILL) -> None:
        self.log = log
        self.stamps = SpillArray("q", pool, chunk=ASSET_CHUNK)
        self.ids = SpillArray("I", pool, chunk=ASSET_CHUNK)

    def add(self, event_id: int, us: int) -> None:
        stamps, ids = self.stamps, self.ids  # SpillArray.append, inline: once an event
        stamps.head.append(us)
        ids.head.append(event_id)
        if len(ids.head) >= ids.limit:
            stamps.spill()
            ids.spill()

    def __len__(self) -> int:
        return len(self.ids)

    def _event(self, index: int) -> AssetEvent:
        return self.log.get(self.ids[index])

    def __iter__(self) -> Iterator[AssetEvent]:
        get = self.log.get
        for event_id in self.ids:
            yield get(event_id)

    def __delitem__(self, index: slice) -> None:
        """``del index[n:]`` (a Back snapshot's restore)."""
        del self.stamps[index]
        del self.ids[index]

    def ids_between(self, floor: int | None, upto: int) -> list[int]:
        """Ids of the events with ``floor < timestamp <= upto`` (epoch us), in order."""
        stamps = self.stamps
        head = stamps.head
        if floor is not None and head and head[0] <= floor:  # resident: the usual floor
            hi = len(head)
            if head[hi - 1] > upto:
                hi = bisect_right(head, upto)
            lo = _bisect_right_from_end(head, floor, hi)
            return self.ids.head[lo:hi].tolist()
        lo = 0 if floor is None else stamps.bisect_right(floor)
        return self.ids.take(lo, max(lo, stamps.bisect_right(upto)))

    def latest_upto(self, upto: int) -> int | None:
        """The id of the latest event with ``timestamp <= upto``."""
        hi = self.stamps.bisect_right(upto)
        return self.ids[hi - 1] if hi else None

    def latest_before(self, at: int) -> int | None:
        """The id of the latest event with ``timestamp < at``."""
        index = self.stamps.bisect_left(at)
        return self.ids[index - 1] if index else None

    def first_at(self, at: int) -> int | None:
        """The id of the first event with ``timestamp == at``."""
        stamps = self.stamps
        index = stamps.bisect_left(at)
        return self.ids[index] if index < len(stamps) and stamps[index] == at else None

    def copy(self, log: EventLog) -> EventIndex:
        out = EventIndex(log)
        out.stamps, out.ids = self.stamps.copy(), self.ids.copy()
        return out


Sequence.register(EventLog)
Sequence.register(EventIndex)

#: What reads as events by position: the log, an index, or a plain list of events.
Events = Sequence[AssetEvent] | EventLog | EventIndex


@dataclass(slots=True)
class AssetStore:
    """The event log with per-asset and per-alias indexes (events arrive in time order).

    ``events``, ``by_asset`` and ``by_alias`` read as sequences of :class:`AssetEvent`;
    they are columns underneath (:class:`EventLog`, :class:`EventIndex`), spilled with
    the run log when ``pool`` spills (adr/0006).
    """

    #: where the event columns and indexes put their old chunks (the run log's pool)
    pool: SpillPool = NO_SPILL
    events: EventLog = field(init=False)
    by_asset: dict[AssetKey, EventIndex] = field(default_factory=dict)
    by_alias: dict[str, EventIndex] = field(default_factory=dict)
    #: alias name → assets emitted through it, in first-emission order (AS-9).
    alias_assets: dict[str, list[AssetKey]] = field(default_factory=dict)
    #: every asset the deployment knows, with its active flag (URI-2).
    active: dict[AssetKey, bool] = field(default_factory=dict)
    #: assets only alias emissions created, with the housekeeping instant that makes
    #: them resolvable by ``Asset.ref`` (``orphanage``).
    activates_at: dict[AssetKey, datetime] = field(default_factory=dict)
    #: interned :class:`EventOrigin` of the usual events (no partition, no extra).
    origins: dict[tuple[Any, ...], EventOrigin] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.events = EventLog(self.pool)

    def __deepcopy__(self, memo: dict[int, Any]) -> AssetStore:
        """A checkpoint's copy: new columns, the same (immutable) events, keys and instants.

        Deep-copying tens of thousands of events made a checkpoint cost seconds
        after a few simulated weeks. An event never changes once recorded; its
        source reads ``run_id`` through the DAG's runs as they were when it was
        emitted, and the run of ``run_nth`` is the same in every copy that holds
        the event (it was created before the event was).
        """
        out = AssetStore(self.pool)
        out.events = log = self.events.copy()
        out.by_asset = {key: index.copy(log) for key, index in self.by_asset.items()}
        out.by_alias = {name: index.copy(log) for name, index in self.by_alias.items()}
        out.alias_assets = {name: list(keys) for name, keys in self.alias_assets.items()}
        out.active = dict(self.active)
        out.activates_at = dict(self.activates_at)
        out.origins = dict(self.origins)
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

    def task_origin(
        self, asset: AssetKey, dag_id: str, task_id: str, runs: DagRuns, wrote_data: bool
    ) -> EventOrigin:
        """:meth:`origin` of a task's outlet event (no alias, no partition, no extra),
        without an :class:`EventSource` to read it from: the same entry of ``origins``."""
        key = (asset, "task", dag_id, task_id, None, id(runs), (), wrote_data)
        found = self.origins.get(key)
        if found is None or found.runs is not runs:
            found = self.origins[key] = EventOrigin.of_task(
                asset, dag_id, task_id, runs, None, None, wrote_data
            )
        return found

    def add(self, event: AssetEvent) -> bool:
        """Store ``event`` (its id is ``len(events)``); True when it resolved an alias to
        an asset for the first time."""
        return self._indexed(event.id, event._origin, self.events.append(event))

    def record(self, origin: EventOrigin, timestamp: datetime, nth: int | None) -> tuple[int, bool]:
        """:meth:`add` of a new event of ``origin`` at ``timestamp`` (emitted by run
        ``nth``) that is not built (:meth:`EventLog.record`): its id, and the flag."""
        event_id, us = self.events.record(origin, timestamp, nth)
        index = self.by_asset.get(origin.asset)
        if index is None or origin.via_aliases:
            return event_id, self._indexed(event_id, origin, us)
        index.add(event_id, us)  # the usual event: its asset's index only
        return event_id, False

    def _indexed(self, event_id: int, origin: EventOrigin, us: int) -> bool:
        """Index a stored event by asset and by alias; True when it resolved an alias to
        an asset for the first time."""
        asset = origin.asset
        index = self.by_asset.get(asset)
        if index is None:  # the asset's first event: its index, and known (active) now
            index = self.by_asset[asset] = EventIndex(self.events, self.pool)
            self.active.setdefault(asset, True)
        index.add(event_id, us)
        if not origin.via_aliases:
            return False
        resolved_new = False
        for alias in origin.via_aliases:
            by_alias = self.by_alias.get(alias)
            if by_alias is None:
                by_alias = self.by_alias[alias] = EventIndex(self.events, self.pool)
            by_alias.add(event_id, us)
            resolved = self.alias_assets.setdefault(alias, [])
            if asset not in resolved:
                resolved.append(asset)
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

    def _index(self, source: AssetKey | str) -> EventIndex | None:
        return self.by_alias.get(source) if isinstance(source, str) else self.by_asset.get(source)

    def ids_between(
        self, source: AssetKey | str, floor: datetime | None, upto: datetime
    ) -> list[int]:
        """Ids of the events of an asset (or of an alias, by name) with
        ``floor < timestamp <= upto``, in time order (AS-5: what a run consumes)."""
        return self.ids_between_us(
            source, None if floor is None else epoch_us(floor), epoch_us(upto)
        )

    def ids_between_us(self, source: AssetKey | str, floor: int | None, upto: int) -> list[int]:
        """:meth:`ids_between` with the bounds in epoch microseconds (a run's creation
        has them so: its floor comes from the DAG's asset run_afters, kept as such)."""
        index = self._index(source)
        return [] if index is None else index.ids_between(floor, upto)

    def between(
        self, source: AssetKey | str, floor: datetime | None, upto: datetime
    ) -> list[AssetEvent]:
        """Events of an asset (or of an alias, by name) with ``floor < timestamp <= upto``."""
        return [self.events.get(i) for i in self.ids_between(source, floor, upto)]

    def latest_id(self, source: AssetKey | str, upto: datetime) -> int | None:
        """The id of the latest event of an asset (or alias) with ``timestamp <= upto``."""
        index = self._index(source)
        return None if index is None else index.latest_upto(epoch_us(upto))

    def latest_before(self, key: AssetKey, at: datetime) -> AssetEvent | None:
        index = self.by_asset.get(key)
        found = None if index is None else index.latest_before(epoch_us(at))
        return None if found is None else self.events.get(found)

    def event_at(self, key: AssetKey, at: datetime) -> AssetEvent | None:
        """The first event of ``key`` recorded at ``at`` (a queue row's event, AS-2)."""
        index = self.by_asset.get(key)
        found = None if index is None else index.first_at(epoch_us(at))
        return None if found is None else self.events.get(found)
