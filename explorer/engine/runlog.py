"""Every run a simulation created, with the finished ones packed into columns.

A year of a thousand DAGs creates millions of runs and, once a run has ended,
nothing in the scheduler changes it again (a backfill that clears it is the one
exception, and it thaws the run first). Kept as objects, each finished run costs
about a kilobyte: the ``DagRun``, its ``TaskInstance`` objects and list, its
run_id string and half a dozen datetimes. Packed here, it costs about a tenth:
the instants become 64-bit microsecond counts in ``array`` columns, the state,
run type and task outcomes one byte each, and what is rare (partition keys,
backfill ids, inlet events, an unusual run_id) lives in small side tables.

Reading a packed run builds an equal ``DagRun`` on demand (:meth:`RunLog.__getitem__`).
While anybody holds that object the log hands out the same one again (a weak
cache), so identity checks and the GUI's incremental refreshes keep working. A
packed run must not be mutated through such an object: :meth:`RunLog.thaw` makes
it a live run again first.

Runs that do not fit the packed form (a state history, an instant that is not in
UTC, a task still owed a completion) simply stay live objects: packing is an
optimisation that never changes what a reader sees.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast, overload

import numpy as np

from explorer.engine.heldruns import HeldRuns
from explorer.engine.runpack import (
    HELD,
    NONE,
    OUTCOMES,
    RUN_STATES,
    RUN_TYPE_CODE,
    RUN_TYPES,
    TASK_STATES,
    TRIGGERED_BY,
    InstantMemo,
    RowSink,
    pack,
)
from explorer.engine.runs import (
    DagRun,
    RunState,
    RunType,
    TaskInstance,
    standard_run_id,
)
from explorer.engine.runspill import (
    BlockCache,
    RowBlock,
    SpillArray,
    SpillFile,
    SpillPool,
    block_bytes,
    read_block,
)
from explorer.engine.types import DataInterval
from explorer.engine.tz import EPOCH as _EPOCH
from explorer.engine.tz import ONE_US as _ONE_US

__all__ = [
    "NULL_INSTANT",
    "RUN_STATES",
    "RUN_TYPES",
    "SPILL_ROWS",
    "DagRuns",
    "PackedColumns",
    "RunLog",
]

#: Rows per spilled block for long headless simulations (``RunLog(spill_rows=...)``):
#: a block of 65,536 runs is 5-8 MB, written once and read back whole.
SPILL_ROWS = 1 << 16

#: The null instant of :attr:`PackedColumns.times` (``array('q')`` columns).
NULL_INSTANT = NONE

# The codes of :attr:`PackedColumns.codes` (``RUN_TYPES[code >> 4]``,
# ``RUN_STATES[code & 0x0F]``) and of the task bytes are explorer.engine.runpack's.

# Per packed run, these instants in this order (stride 7 in ``RunLog._times``).
_TIME_FIELDS = 7
_TIME_INDEX = {"logical_date": 0, "run_after": 3, "created_at": 4, "start_date": 5, "end_date": 6}
_ROW_INDEX = {**_TIME_INDEX, "data_interval_start": 1, "data_interval_end": 2}


#: Entries an :class:`RunLog`'s instant memo holds before it starts afresh: a few
#: simulated days of a thousand DAGs' distinct instants, a few megabytes at most.
_MEMO_SIZE = 1 << 16


@dataclass(frozen=True, slots=True)
class PackedColumns:
    """The log's packed columns, shared (not copied): for readers that want numbers, not runs.

    The GUI's timeline turns a whole run log into numpy columns with these
    (building every packed run as an object would undo the packing). They are
    the log's own arrays: read them, never write or keep a buffer view of them
    (an ``array`` exporting its buffer cannot grow).
    """

    #: By run id: the run's row in the columns below, or -1 while it is a live object.
    row: array[int]
    #: By row: the index of the run's dag_id in ``dag_names``.
    dag: array[int]
    dag_names: list[str]
    #: By row: ``run_type code << 4 | state code`` (:data:`RUN_TYPES`, :data:`RUN_STATES`).
    codes: bytearray
    #: By row, seven instants in epoch microseconds (:data:`NULL_INSTANT` for null):
    #: logical_date, data interval start and end, run_after, created_at, start_date, end_date.
    times: array[int]
    #: By row: the end of the row's tasks in the flat task arrays (its start is the previous
    #: row's end); a row whose tasks are empty has no task instances (RND-1).
    task_end: array[int]


class _RunsView(Sequence[DagRun]):
    """Runs named by a list of ids, read through a :class:`RunLog` (the log itself, or
    one DAG's runs)."""

    __slots__ = ()

    @property
    def _log(self) -> RunLog:
        raise NotImplementedError

    def _id_list(self) -> Sequence[int]:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._id_list())

    @overload
    def __getitem__(self, index: int) -> DagRun: ...

    @overload
    def __getitem__(self, index: slice) -> list[DagRun]: ...

    def __getitem__(self, index: int | slice) -> DagRun | list[DagRun]:
        ids = self._id_list()
        if isinstance(index, slice):
            return [self._log.get(i) for i in ids[index]]
        return self._log.get(ids[index])  # IndexError from ``ids`` when out of range

    def __iter__(self) -> Iterator[DagRun]:
        log = self._log
        for i in self._id_list():
            yield log.get(i)

    def __reversed__(self) -> Iterator[DagRun]:
        log = self._log
        for i in reversed(self._id_list()):
            yield log.get(i)

    def __bool__(self) -> bool:
        return bool(self._id_list())

    def instants(self, name: str, run_type: RunType | None = None) -> Iterator[datetime | None]:
        """One instant field (``logical_date``, ``run_after``, ``created_at``,
        ``start_date``, ``end_date``) of these runs, optionally of one run type, read
        from the log's columns without building the packed runs."""
        return self._log.read_instants(self._id_list(), name, run_type)

    def partition_keys(self) -> Iterator[str | None]:
        """The partition keys of these runs, read without building the packed runs (a
        script selector naming a run by partition key)."""
        log = self._log
        return (log.partition_key(i) for i in self._id_list())


class RunLog(_RunsView):
    """The runs in creation order; ``DagRun.id`` is the position in this log."""

    def __init__(self, spill_rows: int = 0) -> None:
        #: Rows (and ids) per block moved to a scratch file, 0 for never: with it, at
        #: most two blocks of packed rows and of the id → row map stay in memory, the
        #: older ones are read back a block at a time on demand (adr/0006, runspill).
        self._spill_rows = spill_rows
        self._spill: SpillFile | None = None
        #: where the indexes that grow with the runs (each DAG's run ids, logical dates
        #: and asset run_afters, the asset events) put their old entries (runspill)
        self.pool = SpillPool(spill_rows)
        #: the spilled blocks of rows: (offset, task instances, consumed ids, first task
        #: instance, first consumed id), block ``k`` holding rows ``k * spill_rows ..``;
        #: and the offsets of the spilled blocks of the id → row map
        self._row_blocks: list[tuple[int, int, int, int, int]] = []
        self._id_blocks: list[int] = []
        self._blocks = BlockCache()
        #: blocks read back from the scratch file so far (benchmarks: a reader that
        #: keeps going back to old runs shows here)
        self.blocks_read = 0
        #: the first resident row, task instance and consumed id (0 until a spill)
        self._row0 = 0
        self._flat0 = 0
        self._consumed0 = 0
        #: the first resident id of ``_row``; the rows of spilled ids that changed since
        #: (a thaw, a run packed after its id was spilled)
        self._id0 = 0
        self._row_over: dict[int, int] = {}
        #: rows left behind by :meth:`thaw` (their run lives elsewhere now): a reader
        #: going through the rows themselves (:meth:`instants_by_dag`) skips them
        self.stale_rows: set[int] = set()
        #: id → row in the packed columns, or -1 while the run is a live object
        #: (from id ``_id0`` on; see ``_row_at``).
        self._row = array("i")  # int32: 2**31 runs is far past any run limit
        self._live: dict[int, DagRun] = {}
        self._cache = HeldRuns()  # DagRun by id
        #: recent instants packed → their epoch microseconds (runpack.InstantMemo)
        self._memo = InstantMemo(_MEMO_SIZE)
        # packed columns, one entry per row
        self._dag = array("I")
        self._nth = array("I")
        self._codes = bytearray()  # run_type << 4 | state
        self._times = array("q")  # logical_date, interval start/end, run_after, created, start, end
        self._consumed_end = array("I")  # consumed ids of row r: _consumed[end(r-1):end(r)]
        self._consumed = array("q")
        self._task_end = array("I")  # tasks of row r: flat index end(r-1) .. end(r)
        self._task_ids = array("I")  # row → interned tuple of the run's task ids
        self._task_codes = bytearray()  # per task: state << 4 | outcome, plus HELD
        self._task_times = array("q")  # per task: start_date, end_date
        # side tables for what is rare, keyed by row (or flat task index)
        self._run_ids: dict[int, str] = {}
        #: live runs whose run_id is not the usual formula's (see ``append``)
        self._own_run_ids: set[int] = set()
        self._partitions: dict[int, tuple[str | None, datetime | None]] = {}
        self._backfills: dict[int, tuple[int | None, int | None]] = {}
        self._inlets: dict[int, tuple[int | None, ...]] = {}
        # interning tables
        self._dag_names: list[str] = []
        self._dag_codes: dict[str, int] = {}
        self._id_tuples: list[tuple[str, ...]] = []
        self._id_tuple_codes: dict[tuple[str, ...], int] = {}
        #: compiled code appends ended runs' rows to the columns above (runpack)
        self._sink = RowSink(self)
        #: (runs, packed rows) the log was cut back to, one entry per cut, oldest first:
        #: Back truncates the log in place (:mod:`explorer.engine.back_snapshot`), so a
        #: reader that keeps rows of it learns from here which rows may have changed.
        self.cuts: list[tuple[int, int]] = []

    # ------------------------------------------------------------------ sequence
    @property
    def _log(self) -> RunLog:
        return self

    def _id_list(self) -> Sequence[int]:
        return range(self._id0 + len(self._row))

    def __len__(self) -> int:
        """Without building the id range (every new run asks, for the run limit)."""
        return self._id0 + len(self._row)

    def get(self, run_id: int) -> DagRun:
        """The run with ``DagRun.id == run_id`` (a valid, non-negative id)."""
        run = self._live.get(run_id)
        if run is not None:
            return run
        run = cast("DagRun | None", self._cache.get(run_id))
        if run is None:
            if run_id < 0:  # the id list's IndexError, as a list of runs would raise
                raise IndexError(run_id)
            run = self._unpack(self._row_at(run_id), run_id)
            self._cache[run_id] = run
        return run

    # ------------------------------------------------------------------ changes
    def append(self, run: DagRun, *, derived_run_id: bool = False) -> None:
        """A new run: it gets the next id and stays a live object until it ends.

        ``derived_run_id``: the caller built ``run_id`` with :func:`standard_run_id`,
        so a packed run need not keep the string. Otherwise it is kept.
        """
        run.id = self._id0 + len(self._row)
        self._row.append(-1)
        self._live[run.id] = run
        if not derived_run_id:
            self._own_run_ids.add(run.id)
        if self._spill_rows and len(self._row) >= 2 * self._spill_rows:
            self._maybe_spill_ids()

    @property
    def instants_computed(self) -> int:
        """Instants converted to epoch microseconds so far (tests count the work)."""
        return self._memo.computed

    def freeze(self, run: DagRun) -> bool:
        """Pack an ended run; False (and the run stays live) when it does not fit.

        On the path of every run that ends: :func:`explorer.engine.runpack.pack`
        reads and checks the run and its tasks (compiled in the bundle, adr/0013), its
        instants through the log's memo of recent ones; :class:`RowSink` (compiled too)
        appends the row to the columns."""
        run_id = run.id
        if run_id not in self._live:
            return False
        packed = pack(run, self._memo)
        if packed is None:  # not ended, not triggered as this simulator does, ...
            return False
        self._sink.put(
            run, packed, self._row0 + len(self._nth), self._flat0, self._consumed0, self._id0
        )
        self._cache[run_id] = run  # whoever still holds it keeps getting the same object
        if self._spill_rows and len(self._nth) >= 2 * self._spill_rows:
            self._spill_block()
        return True

    def thaw(self, run: DagRun) -> None:
        """``run`` is about to change (a backfill clears it): keep it as a live object.

        Its packed row stays behind, unused; the log never reads it again.
        """
        row = self._row_at(run.id)
        if row == -1:
            return
        self.stale_rows.add(row)
        self._set_row(run.id, -1)
        self._own_run_ids.add(run.id)  # keep whatever id it has, should it be packed again
        self._cache.pop(run.id, None)
        self._live[run.id] = run

    def read_instants(
        self, ids: Iterable[int], name: str, run_type: RunType | None = None
    ) -> Iterator[datetime | None]:
        """:meth:`instants` of the runs ``ids``."""
        column = _TIME_INDEX[name]
        code = None if run_type is None else RUN_TYPE_CODE[run_type]
        epoch, one_us, none = _EPOCH, _ONE_US, NONE
        for i in ids:
            row = self._row_at(i)
            if row == -1:
                run = self._live[i]
                if run_type is None or run.run_type == run_type:
                    yield getattr(run, name)
                continue
            src = self._rows_of(row)
            row -= src._row0
            if code is None or src._codes[row] >> 4 == code:
                value = src._times[row * _TIME_FIELDS + column]
                yield None if value == none else epoch + one_us * value

    def instants_by_dag(
        self, names: Sequence[str], run_type: RunType, dag_ids: Iterable[str]
    ) -> dict[str, list[tuple[datetime | None, ...]]]:
        """Instant fields ``names`` (those of :meth:`instants`, plus
        ``data_interval_start`` and ``data_interval_end``: None both when the run has no
        interval) of the runs of one type of many DAGs at once, by dag_id.

        One pass over the packed rows a block at a time (a spilled block is read back
        once, not once per DAG: adr/0006), then the live runs; each DAG's runs in
        creation order (``nth``), each value equal to the run's own."""
        columns = [_ROW_INDEX[name] for name in names]
        code = RUN_TYPE_CODE[run_type]
        wanted = set(dag_ids)
        dag_codes = np.array([c for n, c in self._dag_codes.items() if n in wanted], np.int64)
        found: dict[str, list[tuple[int, tuple[datetime | None, ...]]]] = {d: [] for d in wanted}
        epoch, one_us, none = _EPOCH, _ONE_US, NONE
        stale = np.fromiter(self.stale_rows, dtype=np.int64, count=len(self.stale_rows))
        names_of = self._dag_names
        for index, first in enumerate(self.row_block_starts):
            dag, codes, times, nth = self.row_block(index)
            if not len(codes):
                continue
            dag_np = np.frombuffer(dag, dtype=np.uint32).astype(np.int64)
            mask = (np.frombuffer(codes, dtype=np.uint8) >> 4) == code
            mask &= np.isin(dag_np, dag_codes)
            if len(stale):
                mask &= ~np.isin(np.arange(first, first + len(codes)), stale)
            rows = np.flatnonzero(mask)
            table = np.frombuffer(times, dtype=np.int64).reshape(-1, _TIME_FIELDS)[rows]
            no_interval = (table[:, 1] == none) | (table[:, 2] == none)  # as _unpack reads
            table[no_interval, 1:3] = none
            values = table[:, columns].tolist()
            nths = np.frombuffer(nth, dtype=np.uint32)[rows].tolist()
            for d, n, row in zip(dag_np[rows].tolist(), nths, values, strict=True):
                found[names_of[d]].append(
                    (n, tuple(None if v == none else epoch + one_us * v for v in row))
                )
        for run in self._live.values():
            if run.run_type == run_type and run.dag_id in found:
                found[run.dag_id].append((run.nth, tuple(_instant(run, n) for n in names)))
        return {d: [v for _, v in sorted(pairs, key=_first)] for d, pairs in found.items()}

    def count(self, run_type: RunType) -> int:
        """How many runs of ``run_type`` the log holds, read from the columns a block at
        a time (without building the packed runs)."""
        code = RUN_TYPE_CODE[run_type]
        total = sum(run.run_type == run_type for run in self._live.values())
        for index, first in enumerate(self.row_block_starts):
            codes = np.frombuffer(self.row_block(index)[1], dtype=np.uint8)
            mine = (codes >> 4) == code
            total += int(mine.sum())
            for row in self.stale_rows:
                if first <= row < first + len(codes) and mine[row - first]:
                    total -= 1
        return total

    def state(self, run_id: int) -> RunState:
        """A run's state, read without building the run when it is packed."""
        row = self._row_at(run_id)
        if row == -1:
            return self._live[run_id].state
        src = self._rows_of(row)
        return RUN_STATES[src._codes[row - src._row0] & 0x0F]

    def partition_key(self, run_id: int) -> str | None:
        """A run's partition key, read without building the run when it is packed (the
        timeline labels its "no interval" badges with it at every repaint)."""
        row = self._row_at(run_id)
        if row == -1:
            return self._live[run_id].partition_key
        return self._partitions.get(row, (None, None))[0]

    def columns(self) -> PackedColumns:
        """The packed columns (live runs are read with :meth:`get`, their row is -1).

        Once rows were spilled (``spill_rows``) these are new arrays holding every row,
        read back from the scratch file: :meth:`column_blocks` reads them a block at a
        time instead."""
        if not self._row_blocks and not self._id_blocks:
            return PackedColumns(
                self._row, self._dag, self._dag_names, self._codes, self._times, self._task_end
            )
        row = array("i")
        for _, ids in self.id_row_blocks():
            row.extend(ids)
        dag, codes, times, task_end = array("I"), bytearray(), array("q"), array("I")
        for _, block in self.column_blocks():
            dag.extend(block.dag)
            codes.extend(block.codes)
            times.extend(block.times)
            task_end.extend(block.task_end)
        return PackedColumns(row, dag, self._dag_names, codes, times, task_end)

    def column_blocks(self) -> Iterator[tuple[int, PackedColumns]]:
        """The packed rows a block at a time, oldest first: (first row, columns of the
        block's rows). ``row`` is empty in these (see :meth:`id_row_blocks`); ``task_end``
        holds flat task indexes counted from the log's first row, as in :meth:`columns`.
        Without spilling, one block: the resident columns themselves (read, never write)."""
        for index in range(len(self._row_blocks)):
            block = self._row_block(index)
            yield (
                block._row0,
                PackedColumns(
                    array("i"),
                    block._dag,
                    self._dag_names,
                    block._codes,
                    block._times,
                    block._task_end,
                ),
            )
        yield (
            self._row0,
            PackedColumns(
                array("i"), self._dag, self._dag_names, self._codes, self._times, self._task_end
            ),
        )

    @property
    def row_block_starts(self) -> list[int]:
        """The first row of each block of packed rows, oldest first: the spilled blocks',
        then the resident columns' (a single block, 0, when nothing was spilled)."""
        return [index * self._spill_rows for index in range(len(self._row_blocks))] + [self._row0]

    @property
    def dag_names(self) -> list[str]:
        """The dag_ids the packed rows' dag codes index (shared: read, never write)."""
        return self._dag_names

    def row_block(self, index: int) -> tuple[array[int], bytearray, array[int], array[int]]:
        """Block ``index`` of :attr:`row_block_starts`: its rows' dag codes, run codes,
        instants (seven a row, as in :class:`PackedColumns`) and ``nth``. A spilled block
        is read back (and cached) on demand; the resident one is the log's own arrays:
        read them, never write or keep a buffer view of them."""
        if index < len(self._row_blocks):
            block = self._row_block(index)
            return block._dag, block._codes, block._times, block._nth
        return self._dag, self._codes, self._times, self._nth

    def id_row_blocks(self) -> Iterator[tuple[int, array[int]]]:
        """The id → row map a block at a time, oldest first: (first id, rows), -1 for a
        live run. Spilled blocks come with the changes made since they were spilled."""
        for index in range(len(self._id_blocks)):
            first = index * self._spill_rows
            rows = array("i", self._id_block(index))
            for run_id, row in self._row_over.items():
                if first <= run_id < first + len(rows):
                    rows[run_id - first] = row
            yield first, rows
        yield self._id0, self._row

    @property
    def packed(self) -> int:
        """How many runs are packed (for benchmarks and tests)."""
        return self._id0 + len(self._row) - len(self._live)

    @property
    def spilled_rows(self) -> int:
        """How many packed rows are in the scratch file (for benchmarks and tests)."""
        return self._row0

    # ------------------------------------------------------------------ spilling
    def _row_at(self, run_id: int) -> int:
        """The run's row, or -1 while it is live, wherever the id → row map holds it."""
        index = run_id - self._id0
        if index >= 0:
            return self._row[index]
        over = self._row_over.get(run_id)
        if over is not None:
            return over
        size = self._spill_rows
        return self._id_block(run_id // size)[run_id % size]

    def _set_row(self, run_id: int, row: int) -> None:
        index = run_id - self._id0
        if index >= 0:
            self._row[index] = row
        else:
            self._row_over[run_id] = row

    def _rows_of(self, row: int) -> RunLog | RowBlock:
        """The resident columns (this log) or the spilled block holding ``row``."""
        if row >= self._row0:
            return self
        return self._row_block(row // self._spill_rows)

    def _row_block(self, index: int) -> RowBlock:
        block: RowBlock | None = self._blocks.get(index)
        if block is None:
            assert self._spill is not None
            offset, flat, consumed, flat0, consumed0 = self._row_blocks[index]
            rows = self._spill_rows
            block = read_block(
                self._spill, offset, rows, flat, consumed, index * rows, flat0, consumed0
            )
            self._blocks.put(index, block)
            self.blocks_read += 1
        return block

    def _id_block(self, index: int) -> array[int]:
        key = -1 - index  # the row blocks' keys are >= 0
        rows: array[int] | None = self._blocks.get(key)
        if rows is None:
            assert self._spill is not None
            rows = array("i")
            rows.frombytes(self._spill.read(self._id_blocks[index], 4 * self._spill_rows))
            self._blocks.put(key, rows)
            self.blocks_read += 1
        return rows

    def _spill_block(self) -> None:
        """Move the oldest ``spill_rows`` resident rows to the scratch file."""
        n = self._spill_rows
        flat = self._task_end[n - 1] - self._flat0
        consumed = self._consumed_end[n - 1] - self._consumed0
        if self._spill is None:
            self._spill = SpillFile()
        offset = self._spill.write(block_bytes(self, n, flat, consumed))
        self._row_blocks.append((offset, flat, consumed, self._flat0, self._consumed0))
        for name in ("_dag", "_nth", "_codes", "_consumed_end", "_task_end", "_task_ids"):
            del getattr(self, name)[:n]
        del self._times[: n * _TIME_FIELDS]
        del self._consumed[:consumed]
        del self._task_codes[:flat]
        del self._task_times[: 2 * flat]
        self._row0 += n
        self._flat0 += flat
        self._consumed0 += consumed

    def _maybe_spill_ids(self) -> None:
        """Spill the oldest block of the id → row map once every run in it is packed, or
        once four blocks are resident whatever their runs.

        A run packed after its id left memory costs an entry of ``_row_over`` (about a
        hundred bytes, for the rest of the simulation): spilling a block while runs of
        it are still queued or running made that the case for every run that outlives
        ``spill_rows`` newer ones. Waiting for them keeps ``_row_over`` to the runs
        still live after ``3 * spill_rows`` newer ones (a task held for ever). The
        check (a C scan for the first live run) runs every ``spill_rows // 64`` runs."""
        n, row = self._spill_rows, self._row
        if len(row) < 4 * n and (len(row) - 2 * n) % max(1, n >> 6):
            return
        try:
            first_live = row.index(-1)
        except ValueError:
            first_live = len(row)
        if first_live >= n or len(row) >= 4 * n:
            self._spill_ids()

    def _spill_ids(self) -> None:
        """Move the oldest ``spill_rows`` entries of the id → row map to the scratch file."""
        n = self._spill_rows
        if self._spill is None:
            self._spill = SpillFile()
        self._id_blocks.append(self._spill.write(self._row[:n].tobytes()))
        del self._row[:n]
        self._id0 += n

    # ------------------------------------------------------------------ packing
    def _unpack(self, row: int, run_id: int) -> DagRun:
        epoch, one_us, none = _EPOCH, _ONE_US, NONE
        src = self._rows_of(row)  # side tables are keyed by the absolute row, columns by i
        i = row - src._row0
        logical_date, start, end, run_after, created_at, start_date, end_date = (
            None if v == none else epoch + one_us * v
            for v in src._times[i * _TIME_FIELDS : (i + 1) * _TIME_FIELDS]
        )
        assert run_after is not None and created_at is not None
        dag_id = self._dag_names[src._dag[i]]
        nth = src._nth[i]
        codes = src._codes[i]
        run_type = RUN_TYPES[codes >> 4]
        partition_key, partition_date = self._partitions.get(row, (None, None))
        backfill_id, sort_ordinal = self._backfills.get(row, (None, None))
        consumed0, flat0 = src._consumed0, src._flat0
        first_consumed = (src._consumed_end[i - 1] if i else consumed0) - consumed0
        consumed_end = src._consumed_end[i] - consumed0
        flat = (src._task_end[i - 1] if i else flat0) - flat0
        task_codes, task_times, inlets = src._task_codes, src._task_times, self._inlets
        tasks = []
        for task_id in self._id_tuples[src._task_ids[i]]:
            code = task_codes[flat]
            task_start = task_times[2 * flat]
            task_end = epoch + one_us * task_times[2 * flat + 1]
            tasks.append(
                TaskInstance(
                    task_id,
                    OUTCOMES[code & 0x0F],  # type: ignore[arg-type]
                    TASK_STATES[(code & 0x7F) >> 4],  # type: ignore[arg-type]
                    None if task_start == none else epoch + one_us * task_start,
                    task_end,
                    task_end,
                    bool(code & HELD),
                    inlets.get(flat + flat0, ()),
                )
            )
            flat += 1
        run = DagRun(
            dag_id,
            nth,
            self._run_ids.get(row) or standard_run_id(run_type, run_after, dag_id, nth),
            run_type,
            TRIGGERED_BY[run_type],
            logical_date,
            None if start is None or end is None else DataInterval(start, end),
            run_after,
            created_at,
            partition_key,
            partition_date,
            RUN_STATES[codes & 0x0F],
            start_date,
            end_date,
            tasks,
            backfill_id,
            sort_ordinal,
            tuple(src._consumed[first_consumed:consumed_end]),
            None,
            run_id,
        )
        return run

    # ------------------------------------------------------------------ copies
    def __deepcopy__(self, memo: dict[int, Any]) -> RunLog:
        """Checkpoints copy the columns; live runs are copied with the rest of the state."""
        out = RunLog.__new__(RunLog)
        memo[id(self)] = out
        for run in self._cache.values():  # packed runs are never mutated (thaw first):
            memo[id(run)] = run  # whoever holds one (a DAG's latest run) shares it
        for name, value in self.__dict__.items():
            if name == "_cache":
                out._cache = HeldRuns()
            elif name == "_memo":  # a cache, not state: the copy starts without one
                out._memo = InstantMemo(_MEMO_SIZE)
            elif name == "_live":
                out._live = {k: copy.deepcopy(v, memo) for k, v in value.items()}
            elif name != "_sink":  # columns and side tables of immutable values
                setattr(out, name, copy.copy(value))
        out._sink = RowSink(out)  # the copy's own columns
        return out

    def row_names(
        self,
    ) -> tuple[dict[int, str], dict[int, tuple[str | None, datetime | None]]]:
        """By row (spilled or resident): the side tables of the rows whose run_id is
        their own (not :func:`standard_run_id`'s) and of partitioned rows. Shared, not
        copied, like :meth:`columns`: the columnar CSV writer (:mod:`explorer.engine.run_table`)
        names packed runs with them and :meth:`row_block`'s ``nth`` without building the runs."""
        return self._run_ids, self._partitions


def _first(pair: tuple[int, Any]) -> int:
    return pair[0]


def _instant(run: DagRun, name: str) -> datetime | None:
    """A run's instant field by the names of :meth:`RunLog.instants_by_dag`."""
    if name in ("data_interval_start", "data_interval_end"):
        interval = run.data_interval
        if interval is None:
            return None
        return interval.start if name == "data_interval_start" else interval.end
    value: datetime | None = getattr(run, name)
    return value


class DagRuns(_RunsView):
    """One DAG's runs in creation order (``nth``), read through the simulation's log.

    The ids are a :class:`~explorer.engine.runspill.SpillArray` of the log's pool: on a
    spilling log the old ones go to the scratch file in chunks (adr/0006)."""

    __slots__ = ("_ids", "_runs_log")

    def __init__(self, log: RunLog) -> None:
        self._runs_log = log
        self._ids = SpillArray("I", log.pool)

    @property
    def _log(self) -> RunLog:
        return self._runs_log

    @property
    def pool(self) -> SpillPool:
        """The run log's pool (the DAG's other indexes spill there too)."""
        return self._runs_log.pool

    def _id_list(self) -> Sequence[int]:
        return self._ids  # type: ignore[return-value]  # len, int index and iteration

    def __len__(self) -> int:
        ids = self._ids  # SpillArray.__len__ without its call (every new run asks)
        return ids.start + len(ids.head)

    def __bool__(self) -> bool:
        return bool(self._ids)

    @overload
    def __getitem__(self, index: int) -> DagRun: ...

    @overload
    def __getitem__(self, index: slice) -> list[DagRun]: ...

    def __getitem__(self, index: int | slice) -> DagRun | list[DagRun]:
        """A run by ``nth`` straight from the log (every task timer that fires reads one)."""
        if index.__class__ is int:
            ids = self._ids
            local = index - ids.start
            if local >= 0:
                return self._runs_log.get(ids.head[local])
            return self._runs_log.get(ids[index])
        assert isinstance(index, slice)
        log, ids = self._runs_log, self._ids
        return [log.get(ids[i]) for i in range(len(ids))[index]]

    def __deepcopy__(self, memo: dict[int, Any]) -> DagRuns:
        """A checkpoint's copy: the ids, read through the copy of the log (via ``memo``)."""
        out = DagRuns(copy.deepcopy(self._runs_log, memo))
        out._ids = self._ids.copy()
        memo[id(self)] = out
        return out

    def last_ended_state(self) -> RunState | None:
        """The state of the latest run that is neither queued nor running, read from the
        log's columns (badges ask it for every DAG after every step)."""
        log = self._runs_log
        for run_id in reversed(self._ids):
            state = log.state(run_id)
            if state not in ("queued", "running"):
                return state
        return None

    def append(self, run: DagRun) -> None:
        ids = self._ids  # SpillArray.append, inline: once a run
        head = ids.head
        head.append(run.id)
        if len(head) >= ids.limit:
            ids.spill()

    def truncate(self, count: int) -> None:
        """Back to the first ``count`` runs (a Back snapshot's restore)."""
        self._ids.truncate(count)
