"""The runs' flat columns (``RUN_FIELDS``), read from the run log's packed columns in blocks.

``explorer simulate --format csv`` prints one row per run. Read through
:class:`~explorer.engine.runlog.RunLog` as objects, every packed run is first built
again (a ``DagRun`` with its task instances), turned into a dict, and eight
datetimes are formatted one by one: on a 1,000-DAG month that was a tenth of the
whole command. Here the packed rows are read as numpy arrays, a chunk
of runs at a time: each distinct instant of a chunk becomes text once, in one
vectorised call (runs share the loop's grid, so a chunk holds few), the
run_id comes from the formula the log itself names packed runs with
(:func:`~explorer.engine.runs.standard_run_id`, TT-21) unless the side table keeps
the run's own, and dag_id, run_type and state come from their codes. Live runs
(``row == -1``: still queued or running at the horizon, or runs the log keeps as
objects) are read as objects with :func:`explorer.engine.record.run_row`.

The text is exactly what :func:`~explorer.engine.tz.iso` and ``run_row`` give, byte
for byte: a packed instant is always UTC (the log packs nothing else), ``isoformat``
prints microseconds only when there are some, and numpy prints the same digits.

The reader takes the packed rows as a sequence of :class:`RowBlock` (first row and
its columns) so that a log that hands out its older rows from elsewhere (spilled to
a scratch file) can feed it block by block; today the log is one block.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO, overload

import numpy as np
import numpy.typing as npt

from explorer.engine.perf import bulk_allocation
from explorer.engine.record import RUN_FIELDS, run_row
from explorer.engine.runlog import NULL_INSTANT, RUN_STATES, RUN_TYPES, RunLog
from explorer.engine.runs import random_suffix
from explorer.engine.tz import iso

__all__ = ["LogBlocks", "RowBlock", "log_blocks", "run_rows", "write_csv"]

#: How many runs one numpy pass reads: large enough that numpy's per-call cost vanishes,
#: small enough that a chunk's text (about 1 KB a run as Python strings) stays small.
CHUNK = 32_768

# Per packed row, the seven instants in this order (runlog's ``times`` stride).
_STRIDE = 7
_LOGICAL, _START, _END, _RUN_AFTER, _CREATED, _STARTED, _ENDED = range(_STRIDE)
_ONE_SECOND = 1_000_000


@dataclass(frozen=True, slots=True)
class RowBlock:
    """Packed rows ``first_row ..`` of a run log: the columns of
    :class:`~explorer.engine.runlog.PackedColumns` the table needs, plus ``nth``.

    Any buffer of the right item type does (``array``, ``bytearray``, numpy arrays,
    a memory map); the reader views them only while it reads one chunk.
    """

    first_row: int
    #: By row: index into ``dag_names``.
    dag: Any
    dag_names: Sequence[str]
    #: By row: ``run_type code << 4 | state code``.
    codes: Any
    #: By row, seven int64 instants in epoch microseconds (``NULL_INSTANT`` for null).
    times: Any
    #: By row: the run's ordinal within its DAG (the random run-id tail's seed).
    nth: Any

    @property
    def stop(self) -> int:
        return self.first_row + len(self.codes)


class LogBlocks(Sequence[RowBlock]):
    """A run log's packed rows as :class:`RowBlock` s, read on demand: the blocks the log
    spilled to its scratch file (adr/0006) are read back only when a chunk needs one of
    their rows, and the resident block is the log's own arrays, not copied."""

    def __init__(self, log: RunLog) -> None:
        self._log = log
        #: The first row of each block, known without reading any block back.
        self.starts = log.row_block_starts
        self._names = log.dag_names

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> RowBlock: ...

    @overload
    def __getitem__(self, index: slice) -> list[RowBlock]: ...

    def __getitem__(self, index: int | slice) -> RowBlock | list[RowBlock]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        dag, codes, times, nth = self._log.row_block(index)
        return RowBlock(self.starts[index], dag, self._names, codes, times, nth)


def log_blocks(log: RunLog) -> LogBlocks:
    """The log's packed rows as blocks (one, the log's own arrays, unless it spilled)."""
    return LogBlocks(log)


def run_rows(
    log: RunLog,
    blocks: Sequence[RowBlock] | None = None,
    *,
    chunk: int = CHUNK,
) -> Iterator[list[list[Any]]]:
    """Every run's ``RUN_FIELDS`` values, in creation order, a chunk of runs at a time.

    Equal to ``[list(run_row(run).values()) for run in log]`` (None where the
    record says null) without building the packed runs.
    """
    for table, _ in _tables(log, blocks, chunk):
        yield table.T.tolist()


def write_csv(
    log: RunLog,
    out: TextIO,
    blocks: Sequence[RowBlock] | None = None,
    *,
    chunk: int = CHUNK,
) -> None:
    """The runs as CSV (header ``RUN_FIELDS``), the bytes ``csv.DictWriter`` wrote of
    ``run_row(run)`` for every run (``lineterminator="\\n"``, the excel dialect).

    A chunk where no field holds a comma, a quote or a line break needs no quoting
    at all, so its lines are joined directly (the csv module spends five times as
    long on them); any other chunk goes through ``csv.writer`` as before.
    """
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RUN_FIELDS)
    with bulk_allocation():  # a chunk's strings hold no cycles: no collector passes
        for table, plain in _tables(log, blocks, chunk):
            if not plain:
                writer.writerows(table.T.tolist())
                continue
            table[table == None] = ""  # noqa: E711 (elementwise: the csv module's None)
            out.write("\n".join(map(",".join, table.T.tolist())))
            out.write("\n")


def _tables(
    log: RunLog, blocks: Sequence[RowBlock] | None, chunk: int
) -> Iterator[tuple[npt.NDArray[np.object_], bool]]:
    """Per chunk of runs: their ``RUN_FIELDS`` (one row of the array each, None for
    null), and whether no field needs CSV quoting."""
    if blocks is None:
        blocks = log_blocks(log)
    own_run_ids, partitions = log.row_names()
    for first_id, block_rows in log.id_row_blocks():
        # a copy: no buffer view of the log's arrays outlives this line (they must stay growable)
        id_rows = np.array(np.frombuffer(block_rows, dtype=np.int32))
        for first in range(0, len(id_rows), chunk):
            yield _chunk(
                log,
                first_id + first,
                id_rows[first : first + chunk],
                blocks,
                own_run_ids,
                partitions,
            )


def _plain(text: str | None) -> bool:
    """True when the csv module writes ``text`` as it is (QUOTE_MINIMAL, excel dialect)."""
    return text is None or _NEEDS_QUOTES.search(text) is None


_NEEDS_QUOTES = re.compile('[,"\r\n]')


def _chunk(
    log: RunLog,
    first_id: int,
    rows: npt.NDArray[np.int32],
    blocks: Sequence[RowBlock],
    own_run_ids: dict[int, str],
    partitions: dict[int, tuple[str | None, datetime | None]],
) -> tuple[npt.NDArray[np.object_], bool]:
    packed = np.flatnonzero(rows >= 0)
    values, plain = _packed_values(rows[packed].astype(np.int64), blocks, own_run_ids, partitions)
    if len(packed) == len(rows):
        return values, plain
    table = np.full((len(RUN_FIELDS), len(rows)), None, dtype=object)
    table[:, packed] = values
    for position in np.flatnonzero(rows < 0).tolist():  # live runs: read as objects
        row = run_row(log.get(first_id + position))
        for field, name in enumerate(RUN_FIELDS):
            value = row[name]
            table[field, position] = value
            plain = plain and _plain(value)
    return table, plain


def _packed_values(
    rows: npt.NDArray[np.int64],
    blocks: Sequence[RowBlock],
    own_run_ids: dict[int, str],
    partitions: dict[int, tuple[str | None, datetime | None]],
) -> tuple[npt.NDArray[np.object_], bool]:
    """The ``RUN_FIELDS`` columns (one row each) of packed ``rows`` (any order, any
    blocks), and whether none of their fields needs CSV quoting."""
    n = len(rows)
    dag_ids = np.empty(n, dtype=object)
    codes = np.empty(n, dtype=np.uint8)
    times = np.empty((n, _STRIDE), dtype=np.int64)
    nth = np.empty(n, dtype=np.int64)
    plain = True
    known = getattr(blocks, "starts", None)  # LogBlocks: without reading a block back
    first_rows = known if known is not None else [b.first_row for b in blocks]
    starts = np.array(first_rows, dtype=np.int64)
    which = np.searchsorted(starts, rows, side="right") - 1
    if n and which.min() < 0:
        raise IndexError("a packed row lies outside the log's blocks")
    for index in np.unique(which).tolist():  # only the blocks holding this chunk's rows
        block = blocks[index]
        mine = np.flatnonzero(which == index)
        local = rows[mine] - block.first_row
        if local.min() < 0 or local.max() >= block.stop - block.first_row:
            raise IndexError("a packed row lies outside the log's blocks")
        dags = np.frombuffer(block.dag, dtype=np.uint32)[local]
        names = np.array(block.dag_names, dtype=object)
        plain = plain and all(_plain(name) for name in names[np.unique(dags)].tolist())
        dag_ids[mine] = names[dags]
        codes[mine] = np.frombuffer(block.codes, dtype=np.uint8)[local]
        times[mine] = np.frombuffer(block.times, dtype=np.int64).reshape(-1, _STRIDE)[local]
        nth[mine] = np.frombuffer(block.nth, dtype=np.uint32)[local]

    # Instants repeat (the loop's grid, shared schedules): format each distinct one once.
    distinct, inverse = np.unique(times, return_inverse=True)
    inverse = inverse.reshape(n, _STRIDE)
    bare = _bare_iso(distinct)  # isoformat() of each UTC instant, without the zone
    texts = np.strings.add(bare, "Z").astype(object)[inverse]
    null = times == NULL_INSTANT
    no_interval = null[:, _START] | null[:, _END]  # _unpack: no end, no interval
    null[:, _START] = null[:, _END] = no_interval
    texts[null] = None

    run_types = np.array(RUN_TYPES, dtype=object)[codes >> 4]
    # standard_run_id (TT-21): "{run_type}__{run_after.isoformat()}", run_after in UTC.
    offsets = np.strings.add(bare, "+00:00").astype(object)
    run_ids = run_types + "__" + offsets[inverse[:, _RUN_AFTER]]
    dag_list = dag_ids.tolist()
    nth_list = nth.tolist()
    for i in np.flatnonzero(run_types == "asset_triggered").tolist():
        run_ids[i] = f"{run_ids[i]}_{random_suffix(dag_list[i], nth_list[i])}"
    partition_keys = np.full(n, None, dtype=object)
    partition_dates = np.full(n, None, dtype=object)
    row_list = rows.tolist()
    if own_run_ids:
        for i in np.flatnonzero(np.isin(rows, np.fromiter(own_run_ids, np.int64))).tolist():
            own = own_run_ids[row_list[i]]
            if own:  # _unpack: ``own or standard_run_id(...)``
                run_ids[i] = own
                plain = plain and _plain(own)
    if partitions:
        for i in np.flatnonzero(np.isin(rows, np.fromiter(partitions, np.int64))).tolist():
            key, date = partitions[row_list[i]]
            partition_keys[i] = key
            partition_dates[i] = iso(date)
            plain = plain and _plain(key)

    by_field: dict[str, npt.NDArray[np.object_]] = {
        "dag_id": dag_ids,
        "run_id": run_ids,
        "run_type": run_types,
        "logical_date": texts[:, _LOGICAL],
        "data_interval_start": texts[:, _START],
        "data_interval_end": texts[:, _END],
        "run_after": texts[:, _RUN_AFTER],
        "partition_key": partition_keys,
        "partition_date": partition_dates,
        "created_at": texts[:, _CREATED],
        "start_date": texts[:, _STARTED],
        "end_date": texts[:, _ENDED],
        "state": np.array(RUN_STATES, dtype=object)[codes & 0x0F],
    }
    table = np.empty((len(RUN_FIELDS), n), dtype=object)
    for field, name in enumerate(RUN_FIELDS):
        table[field] = by_field[name]
    return table, plain


def _bare_iso(times: npt.NDArray[np.int64]) -> npt.NDArray[np.str_]:
    """``datetime.isoformat()`` of UTC instants (epoch microseconds) without the offset:
    ``YYYY-MM-DDTHH:MM:SS``, plus ``.ffffff`` only when the microseconds are not zero."""
    stamps = times.astype("M8[us]")
    whole = times % _ONE_SECOND == 0
    return np.where(
        whole,
        np.datetime_as_string(stamps, unit="s"),
        np.datetime_as_string(stamps, unit="us"),
    )
