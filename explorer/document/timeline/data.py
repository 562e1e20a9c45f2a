"""What the timeline draws, as numpy arrays kept in step with a running simulation.

No Qt here: the arrays are built from the engine's objects and read by the
graphics items, the runs table and the tests alike.

Runs are append-only between two rewinds, and a run that has ended never
changes again, so :class:`RunStore` re-reads only the runs that were still
live at the previous sync and appends the new ones; a rewind (the engine
restores a copy of its run log) rebuilds every column from the log's packed
arrays with numpy, never building the ended runs as objects. That keeps a
"step to next event" proportional to what changed, and a Back or an edit
proportional to the number of runs in numpy time, not Python time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from explorer.document.timeline.timebase import to_x_or_nan
from explorer.engine.assets.condition import AssetKey, AssetNode, walk
from explorer.engine.runlog import NULL_INSTANT, PackedColumns, RunLog
from explorer.engine.runlog import RUN_STATES as LOG_RUN_STATES
from explorer.engine.runlog import RUN_TYPES as LOG_RUN_TYPES
from explorer.engine.runs import DagRun

if TYPE_CHECKING:
    from explorer.engine.assets.store import AssetEvent, Events
    from explorer.engine.simulation import Simulation

__all__ = [
    "RUN_STATES",
    "RUN_TYPES",
    "SOURCE_KINDS",
    "EventStore",
    "GhostRun",
    "Lane",
    "PausedSpan",
    "RunStore",
    "SyncResult",
    "WindowBox",
    "asset_keys_of",
    "ghost_runs",
    "lanes_for",
    "paused_spans",
    "window_boxes",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]

#: Codes for the state and type arrays (index = code).
RUN_STATES = ("queued", "running", "success", "failed")
RUN_TYPES = ("scheduled", "manual", "asset_triggered", "backfill")
SOURCE_KINDS = ("task", "rest_api", "watcher")
_STATE_CODE = {s: i for i, s in enumerate(RUN_STATES)}
_TYPE_CODE = {t: i for i, t in enumerate(RUN_TYPES)}
_SOURCE_CODE = {k: i for i, k in enumerate(SOURCE_KINDS)}

#: Float columns of a run, in array order.
RUN_COLUMNS = (
    "ival_start",
    "ival_end",
    "logical",
    "run_after",
    "created",
    "start",
    "end",
)


@dataclass(frozen=True, slots=True)
class Lane:
    """One row of the timeline: a DAG or an asset (``key`` is the lane's id)."""

    kind: str  # "dag" or "asset"
    key: str  # dag_id, or the asset's uri
    label: str


def asset_keys_of(sim: Simulation) -> list[AssetKey]:
    """Every asset the scenario's DAGs name, in declaration order (outlets, then conditions)."""
    keys: dict[AssetKey, None] = {}
    for spec in sim.specs.values():
        for task in spec.tasks:
            for outlet in task.outlets:
                if isinstance(outlet, AssetKey):
                    keys[outlet] = None
            for emission in task.alias_events:
                keys[emission.asset] = None
        cond = spec.timetable.asset_condition
        if cond is not None:
            for node in walk(cond):
                if isinstance(node, AssetNode):
                    keys[node.key] = None
    for key in sim.state.assets.active:
        keys[key] = None
    return list(keys)


def lanes_for(sim: Simulation, order: Sequence[str] | None = None) -> list[Lane]:
    """DAG lanes then asset lanes; ``order`` (the canvas's, ids or asset uris) comes first."""
    lanes = [Lane("dag", dag_id, dag_id) for dag_id in sim.specs]
    lanes += [Lane("asset", key.uri, key.name or key.uri) for key in asset_keys_of(sim)]
    if order:
        rank = {key: i for i, key in enumerate(order)}
        lanes.sort(key=lambda lane: rank.get(lane.key, len(rank)))
    return lanes


@dataclass(slots=True)
class SyncResult:
    """What a sync changed: ``reset`` (rebuild everything) or rows changed and appended,
    after the last ``removed`` rows were dropped (Back: the log is a copy from before)."""

    reset: bool
    changed: list[int] = field(default_factory=list)
    appended: range = range(0)
    removed: int = 0


class _Columns:
    """Growable float/int columns (capacity doubles, so appends are amortised O(1))."""

    def __init__(self, floats: Sequence[str], ints: Sequence[str]) -> None:
        self._floats = tuple(floats)
        self._ints = tuple(ints)
        self.size = 0
        self._capacity = 0
        self.f: dict[str, FloatArray] = {}
        self.i: dict[str, IntArray] = {}
        self._allocate(256)

    def _allocate(self, capacity: int) -> None:
        for name in self._floats:
            new = np.full(capacity, np.nan)
            if name in self.f:
                new[: self.size] = self.f[name][: self.size]
            self.f[name] = new
        for name in self._ints:
            grown = np.zeros(capacity, dtype=np.int32)
            if name in self.i:
                grown[: self.size] = self.i[name][: self.size]
            self.i[name] = grown
        self._capacity = capacity

    def clear(self) -> None:
        self.size = 0

    def grow_to(self, size: int) -> None:
        if size > self._capacity:
            self._allocate(max(size, self._capacity * 2))
        self.size = size

    def col(self, name: str) -> FloatArray:
        return self.f[name][: self.size]

    def icol(self, name: str) -> IntArray:
        return self.i[name][: self.size]


class _StoreRuns(Sequence[DagRun]):
    """The store's runs as objects, built on demand from the engine's log (never all at once)."""

    __slots__ = ("_store",)

    def __init__(self, store: RunStore) -> None:
        self._store = store

    def __len__(self) -> int:
        return len(self._store)

    @overload
    def __getitem__(self, index: int) -> DagRun: ...

    @overload
    def __getitem__(self, index: slice) -> list[DagRun]: ...

    def __getitem__(self, index: int | slice) -> DagRun | list[DagRun]:
        source, size = self._store._source, len(self._store)
        if isinstance(index, slice):
            return [source[i] for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(index)
        return source[index]


#: Where each timeline column sits among the run log's seven packed instants.
_PACKED_INSTANT = {
    "logical": 0,
    "ival_start": 1,
    "ival_end": 2,
    "run_after": 3,
    "created": 4,
    "start": 5,
    "end": 6,
}
_PACKED_WIDTH = 7


class RunStore:
    """Every run of the simulation as columns, updated incrementally by :meth:`sync`.

    The columns are read from the engine's packed run columns
    (:meth:`~explorer.engine.runlog.RunLog.columns`), whole arrays at a time:
    a packed run is never built as an object to be drawn (that would undo the
    run log's memory saving, and cost seconds after every rewind). Only the
    runs still live in the engine (queued, running, just created) are read as
    objects. :attr:`runs` gives any run as an object, on demand.
    """

    def __init__(self) -> None:
        self._source: Sequence[DagRun] = ()
        self._size = 0
        self.runs = _StoreRuns(self)
        self._cols = _Columns(RUN_COLUMNS, ("dag", "state", "type", "no_interval", "no_tis"))
        #: dag_id -> how many tasks the DAG declares: a run with none of them has no task
        #: instances (RND-1: logical date outside start_date .. end_date).
        self.declared_tasks: dict[str, int] = {}
        #: Rows that were live objects in the engine at the last sync (they may change).
        self._live: set[int] = set()
        self.dag_ids: list[str] = []
        self._dag_code: dict[str, int] = {}
        self._found: dict[tuple[str, str], int] = {}
        self.version = 0
        #: Runs built as objects to fill the columns by the last sync (tests read it).
        self.objects_read = 0
        #: The source log's cuts and id -> packed row map as of the last sync (Back cuts
        #: the log in place: :meth:`_after_cuts`).
        self._cuts_seen = 0
        self._rows_seen: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return self._size

    # ------------------------------------------------------------------ columns
    def col(self, name: str) -> FloatArray:
        return self._cols.col(name)

    def dag_codes(self) -> IntArray:
        return self._cols.icol("dag")

    def states(self) -> IntArray:
        return self._cols.icol("state")

    def types(self) -> IntArray:
        return self._cols.icol("type")

    def no_interval(self) -> IntArray:
        return self._cols.icol("no_interval")

    def no_task_instances(self) -> IntArray:
        """1 where the run has no task instances although its DAG declares tasks (RND-1)."""
        return self._cols.icol("no_tis")

    def _declares_tasks(self, dag_id: str) -> bool:
        return self.declared_tasks.get(dag_id, 0) > 0

    def dag_code(self, dag_id: str) -> int:
        code = self._dag_code.get(dag_id)
        if code is None:
            code = self._dag_code[dag_id] = len(self.dag_ids)
            self.dag_ids.append(dag_id)
        return code

    # ------------------------------------------------------------------ sync
    def sync(self, runs: Sequence[DagRun]) -> SyncResult:
        """Bring the columns in step with ``runs`` (the engine's run log, creation order).

        The same log as last time: the rows that were live are re-read and new
        ones appended. Another log (a rewind restores a copy, an edit makes a
        new simulation): every column is rebuilt from the packed arrays.
        """
        self.objects_read = 0
        result = self._sync(runs)
        if isinstance(runs, RunLog):
            self._cuts_seen = len(runs.cuts)
            self._rows_seen = np.array(runs.columns().row[: len(runs)], dtype=np.int64)
        return result

    def _sync(self, runs: Sequence[DagRun]) -> SyncResult:
        old = self._size
        if runs is self._source and isinstance(runs, RunLog) and len(runs.cuts) > self._cuts_seen:
            return self._after_cuts(runs)
        if runs is not self._source or len(runs) < old:
            if old and isinstance(runs, RunLog):
                return self._resync(runs)
            return self._rebuild(runs)
        columns = runs.columns() if isinstance(runs, RunLog) else None
        changed = sorted(self._live)
        self._live.clear()
        for row in changed:
            self._read(row, runs, columns)
        if len(runs) > old:
            self._cols.grow_to(len(runs))
            self._size = len(runs)
            for row in range(old, len(runs)):
                self._read(row, runs, columns)
        if changed or len(runs) > old:
            self.version += 1
        return SyncResult(
            reset=old == 0 and len(runs) > 0, changed=changed, appended=range(old, len(runs))
        )

    def _rebuild(self, runs: Sequence[DagRun]) -> SyncResult:
        self._source = runs
        self._live.clear()
        self._found.clear()
        n = len(runs)
        self._cols.clear()
        self._cols.grow_to(n)
        self._size = n
        if isinstance(runs, RunLog):
            self._fill_packed(runs.columns(), n)
        else:
            self._live.update(range(n))
        for row in sorted(self._live):
            self._read_object(row, runs[row])
        self.version += 1
        return SyncResult(reset=True, appended=range(n))

    def _resync(self, runs: RunLog) -> SyncResult:
        """Another log (Back restores a copy of an earlier one, an edit re-simulates from
        a checkpoint): rebuilt from its packed columns, then compared with the rows shown,
        so that the views only hear of the rows that differ, were dropped or added."""
        truncated = self._truncate(runs)
        if truncated is not None:
            return truncated
        old = self._size
        before_f = {name: self._cols.f[name][:old].copy() for name in self._cols.f}
        before_i = {name: self._cols.i[name][:old].copy() for name in self._cols.i}
        self._rebuild(runs)
        n = self._size
        keep = min(old, n)
        differs = np.zeros(keep, dtype=bool)
        for name, values in before_f.items():
            a, b = values[:keep], self._cols.f[name][:keep]
            differs |= ~((a == b) | (np.isnan(a) & np.isnan(b)))
        for name, ints in before_i.items():
            differs |= ints[:keep] != self._cols.i[name][:keep]
        changed = sorted({*np.flatnonzero(differs).tolist(), *(r for r in self._live if r < keep)})
        if len(changed) > keep // 2:
            return SyncResult(reset=True, appended=range(n))
        return SyncResult(reset=False, changed=changed, appended=range(keep, n), removed=old - keep)

    def _truncate(self, runs: RunLog) -> SyncResult | None:
        """Back: ``runs`` is a copy of an earlier state of the log shown, so the rows
        shown are cut to its length and only the rows that can differ are read again
        (rebuilding every column took tens of milliseconds at 50,000 runs, twice per
        Back: the timeline's store and the table's). None when ``runs`` is not such a
        copy (an edit's re-simulation): the caller rebuilds.

        A copy of an earlier state holds a prefix of the packed columns (they only
        grow, and a packed run is never changed in place): checked, not assumed. A
        row packed at the same place in both logs is then the same run with the same
        values; any other row (live in either, packed later or again) is read again.
        """
        shown = self._source
        n, old = len(runs), self._size
        if not isinstance(shown, RunLog) or n > old:
            return None
        new, was = runs.columns(), shown.columns()
        packed = len(new.codes)
        if (
            packed > len(was.codes)
            or new.dag_names != was.dag_names[: len(new.dag_names)]
            or new.codes != was.codes[:packed]
            or new.dag != was.dag[:packed]
            or new.task_end != was.task_end[:packed]
            or new.times != was.times[: packed * _PACKED_WIDTH]
        ):
            return None
        rows = np.array(new.row[:n], dtype=np.int64)
        before = np.array(was.row[:n], dtype=np.int64)
        suspect = np.flatnonzero((rows < 0) | (rows != before)).tolist()
        changed = sorted({*suspect, *(r for r in self._live if r < n)})
        self._source = runs
        self._live.clear()
        self._cols.size = n
        self._size = n
        for row in changed:
            self._read(row, runs, new)
        self.version += 1
        return SyncResult(reset=False, changed=changed, appended=range(n, n), removed=old - n)

    def _after_cuts(self, runs: RunLog) -> SyncResult:
        """The log shown was cut back in place since the last sync (Back), and may have
        grown again: rows before the lowest cut, packed then at the same row below the
        lowest packed-row cut, are the same runs with the same values; every other row
        is read again."""
        cuts = runs.cuts[self._cuts_seen :]
        low_runs, low_rows = min(c[0] for c in cuts), min(c[1] for c in cuts)
        columns = runs.columns()
        n, old = len(runs), self._size
        keep = min(old, n, low_runs)
        rows = np.array(columns.row[:keep], dtype=np.int64)
        suspect = (rows < 0) | (rows != self._rows_seen[:keep]) | (rows >= low_rows)
        changed = sorted(
            {
                *np.flatnonzero(suspect).tolist(),
                *(r for r in self._live if r < keep),
                *range(keep, min(old, n)),
            }
        )
        self._live.clear()
        if n > old:
            self._cols.grow_to(n)
        else:
            self._cols.size = n
        self._size = n
        for row in (*changed, *range(old, n)):
            self._read(row, runs, columns)
        self.version += 1
        return SyncResult(
            reset=False, changed=changed, appended=range(old, n), removed=max(old - n, 0)
        )

    def _fill_packed(self, columns: PackedColumns, n: int) -> None:
        """Every packed run's columns at once (numpy, no objects); live rows noted."""
        where = np.array(columns.row[:n], dtype=np.int64)
        packed = where >= 0
        self._live.update(np.flatnonzero(~packed).tolist())
        if not packed.any():
            return
        rows = where[packed]
        times = np.array(columns.times, dtype=np.int64).reshape(-1, _PACKED_WIDTH)[rows]
        null = times == NULL_INSTANT
        seconds = np.where(null, np.nan, times / 1e6)
        for name, index in _PACKED_INSTANT.items():
            self._cols.f[name][:n][packed] = seconds[:, index]
        table = np.array([self.dag_code(d) for d in columns.dag_names] or [0], dtype=np.int32)
        self._cols.i["dag"][:n][packed] = table[np.array(columns.dag, dtype=np.int64)[rows]]
        codes = np.frombuffer(bytes(columns.codes), dtype=np.uint8)[rows]
        self._cols.i["type"][:n][packed] = _LOG_TYPE[codes >> 4]
        self._cols.i["state"][:n][packed] = _LOG_STATE[codes & 0x0F]
        self._cols.i["no_interval"][:n][packed] = null[:, _PACKED_INSTANT["ival_start"]]
        ends = np.array(columns.task_end, dtype=np.int64)
        counts = np.diff(ends, prepend=0)[rows]
        declares = np.array([self._declares_tasks(d) for d in columns.dag_names] or [False])
        dag_rows = np.array(columns.dag, dtype=np.int64)[rows]
        self._cols.i["no_tis"][:n][packed] = (counts == 0) & declares[dag_rows]

    def _read(self, row: int, runs: Sequence[DagRun], columns: PackedColumns | None) -> None:
        """One row: from the packed columns when the run is packed, else from its object."""
        packed = -1 if columns is None else columns.row[row]
        if packed < 0:
            self._read_object(row, runs[row])
            return
        assert columns is not None
        base = packed * _PACKED_WIDTH
        for name, index in _PACKED_INSTANT.items():
            value = columns.times[base + index]
            self._cols.f[name][row] = math.nan if value == NULL_INSTANT else value / 1e6
        code = columns.codes[packed]
        self._cols.i["dag"][row] = self.dag_code(columns.dag_names[columns.dag[packed]])
        self._cols.i["type"][row] = _LOG_TYPE[code >> 4]
        self._cols.i["state"][row] = _LOG_STATE[code & 0x0F]
        self._cols.i["no_interval"][row] = int(columns.times[base + 1] == NULL_INSTANT)
        first = columns.task_end[packed - 1] if packed else 0
        dag_id = columns.dag_names[columns.dag[packed]]
        no_tis = columns.task_end[packed] == first and self._declares_tasks(dag_id)
        self._cols.i["no_tis"][row] = int(no_tis)

    def _read_object(self, row: int, run: DagRun) -> None:
        self.objects_read += 1
        self._cols.i["dag"][row] = self.dag_code(run.dag_id)
        self._cols.i["type"][row] = _TYPE_CODE.get(run.run_type, 0)
        interval = run.data_interval
        self._cols.i["no_interval"][row] = int(interval is None)
        self._cols.i["no_tis"][row] = int(not run.tasks and self._declares_tasks(run.dag_id))
        self._cols.f["ival_start"][row] = to_x_or_nan(interval.start if interval else None)
        self._cols.f["ival_end"][row] = to_x_or_nan(interval.end if interval else None)
        self._cols.f["logical"][row] = to_x_or_nan(run.logical_date)
        self._cols.f["run_after"][row] = to_x_or_nan(run.run_after)
        self._cols.f["created"][row] = to_x_or_nan(run.created_at)
        self._cols.i["state"][row] = _STATE_CODE.get(run.state, 0)
        self._cols.f["start"][row] = to_x_or_nan(run.start_date)
        self._cols.f["end"][row] = to_x_or_nan(run.end_date)
        self._live.add(row)

    # ------------------------------------------------------------------ queries
    def partition_key(self, row: int) -> str | None:
        """The run's partition key, from the log's side table when the run is packed."""
        source = self._source
        if isinstance(source, RunLog):
            return source.partition_key(row)
        return self.runs[row].partition_key

    def find(self, dag_id: str, run_id: str) -> int | None:
        """The row of a run, by its DAG's rows (only that DAG's runs are built, once)."""
        row = self._found.get((dag_id, run_id))
        if row is not None and row < self._size:
            run = self.runs[row]
            if run.dag_id == dag_id and run.run_id == run_id:
                return row
        code = self._dag_code.get(dag_id)
        if code is None:
            return None
        candidates: list[int] = np.flatnonzero(self.dag_codes() == code)[::-1].tolist()
        for candidate in candidates:
            if self.runs[candidate].run_id == run_id:
                self._found[(dag_id, run_id)] = candidate
                return candidate
        return None

    def lanes(self, lane_of_dag: dict[str, int]) -> IntArray:
        """The lane of every row, given each DAG's lane index (-1: not shown)."""
        table = np.array([lane_of_dag.get(d, -1) for d in self.dag_ids] or [-1], dtype=np.int32)
        return table[self.dag_codes()]


#: The run log's type and state codes as this module's (the same names, looked up once).
_LOG_TYPE = np.array([_TYPE_CODE[t] for t in LOG_RUN_TYPES], dtype=np.int32)
_LOG_STATE = np.array([_STATE_CODE[s] for s in LOG_RUN_STATES], dtype=np.int32)


class EventStore:
    """Asset events as columns; the engine's event list is append-only between rewinds."""

    def __init__(self) -> None:
        self.events: list[AssetEvent] = []
        self._cols = _Columns(("t",), ("asset", "source", "wrote"))
        self.uris: list[str] = []
        self._code: dict[str, int] = {}
        self.version = 0

    def __len__(self) -> int:
        return len(self.events)

    def col_t(self) -> FloatArray:
        return self._cols.col("t")

    def asset_codes(self) -> IntArray:
        return self._cols.icol("asset")

    def sources(self) -> IntArray:
        return self._cols.icol("source")

    def wrote(self) -> IntArray:
        return self._cols.icol("wrote")

    def sync(self, events: Events) -> bool:
        """True when anything changed."""
        old = len(self.events)
        kept = min(old, len(events))
        if kept and events[kept - 1] is not self.events[kept - 1]:
            kept = 0  # another history (an edit): every row is read again
        if kept < old:  # Back, or an edit: checkpoints share the events they hold, so the
            del self.events[kept:]  # rows before the first one that differs are kept
            old = kept
            if not kept:
                self._cols.clear()
        elif len(events) == old:
            return False
        self._cols.grow_to(len(events))
        for row in range(old, len(events)):
            event = events[row]
            self.events.append(event)
            code = self._code.get(event.asset.uri)
            if code is None:
                code = self._code[event.asset.uri] = len(self.uris)
                self.uris.append(event.asset.uri)
            self._cols.f["t"][row] = event.timestamp.timestamp()
            self._cols.i["asset"][row] = code
            self._cols.i["source"][row] = _SOURCE_CODE.get(event.source.kind, 0)
            self._cols.i["wrote"][row] = int(event.wrote_data)
        self.version += 1
        return True

    def lanes(self, lane_of_asset: dict[str, int]) -> IntArray:
        table = np.array([lane_of_asset.get(u, -1) for u in self.uris] or [-1], dtype=np.int32)
        return table[self.asset_codes()]


@dataclass(frozen=True, slots=True)
class GhostRun:
    """The run a DAG's next-run cache promises (not created yet): drawn dashed."""

    dag_id: str
    logical_date: datetime | None
    interval_start: datetime | None
    interval_end: datetime | None
    run_after: datetime
    partition_key: str | None


@dataclass(frozen=True, slots=True)
class PausedSpan:
    """A DAG paused from ``start`` to ``end`` (``None``: still paused at the clock)."""

    dag_id: str
    start: datetime
    end: datetime | None


def paused_spans(sim: Simulation) -> list[PausedSpan]:
    """When each DAG was paused, from the script actions the engine has applied.

    ``is_paused_upon_creation`` pauses a DAG from its deployment; ``Pause`` and
    ``Unpause`` actions (including injected ones) open and close spans.
    """
    from explorer.engine import actions as act

    opened: dict[str, datetime] = {}
    out: list[PausedSpan] = []
    for action in sim.script[: sim.state.script_index]:
        if isinstance(action, act.Deploy):
            for dag_id in action.dag_ids or tuple(sim.specs):
                if sim.specs[dag_id].is_paused_upon_creation and dag_id not in opened:
                    opened.setdefault(dag_id, action.at)
        elif isinstance(action, act.Pause):
            opened.setdefault(action.dag_id, action.at)
        elif isinstance(action, act.Unpause) and action.dag_id in opened:
            out.append(PausedSpan(action.dag_id, opened.pop(action.dag_id), action.at))
    out.extend(PausedSpan(dag_id, at, None) for dag_id, at in opened.items())
    return out


def ghost_runs(sim: Simulation) -> list[GhostRun]:
    """Per deployed, unpaused DAG, the next run of its cache (``next_dagrun*``)."""
    out = []
    for dag_id, dag in sim.dags.items():
        info = dag.next_run
        if info is None or not dag.deployed or dag.is_paused:
            continue
        interval = info.data_interval
        out.append(
            GhostRun(
                dag_id,
                info.logical_date,
                None if interval is None else interval.start,
                None if interval is None else interval.end,
                info.run_after,
                info.partition_key,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class WindowBox:
    """A window member a partitioned consumer waits for (PT-8).

    ``status``: ``arrived``, ``pending`` or ``never``; ``at`` is where it is
    drawn: the event that brought it, the run that owes it, or the clock.
    """

    dag_id: str
    partition_key: str
    asset: str
    member_key: str
    status: str
    at: float
    note: str


def window_boxes(sim: Simulation, waits: dict[str, list[dict[str, Any]]]) -> list[WindowBox]:
    """Boxes for :func:`explorer.engine.partition_waits.partition_waits`' answer."""
    now = sim.now.timestamp()
    out: list[WindowBox] = []
    events_by_key: dict[tuple[str, str | None], float] = {}
    for event in sim.state.assets.events:
        events_by_key.setdefault(
            (event.asset.name, event.partition_key), event.timestamp.timestamp()
        )
    for dag_id, requests in waits.items():
        for request in requests:
            for member in request["members"]:
                name = member["asset"]["name"]
                for key in member.get("received_keys", []):
                    at = events_by_key.get((name, key), now)
                    out.append(
                        WindowBox(
                            dag_id, request["partition_key"], name, key, "arrived", at, "arrived"
                        )
                    )
                for item in member.get("missing", []):
                    status = "never" if item.get("never") else "pending"
                    at = _parse_iso(item.get("due_at"), now)
                    note = item.get("never") or (
                        f"owed by {item.get('owed_by')}"
                        + (f", due {item['due_at']}" if item.get("due_at") else "")
                    )
                    out.append(
                        WindowBox(
                            dag_id, request["partition_key"], name, item["key"], status, at, note
                        )
                    )
    return out


def _parse_iso(text: object, default: float) -> float:
    if not isinstance(text, str):
        return default
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return default
