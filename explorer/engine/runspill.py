"""An anonymous scratch file the run log moves its old packed rows to (adr/0006).

A year of 10,000 DAGs creates about 180 million runs; even packed (about 130
bytes a run) they would not fit in memory. Once a run is packed nothing changes
its row again, so a long headless simulation writes the oldest rows to this file
in fixed-size blocks and reads a block back, whole, when somebody asks for a run
in it. The file is a :func:`tempfile.TemporaryFile`: it has no name, and the
system deletes it when it is closed or the process ends.

Reads use ``os.pread`` into fresh buffers, never a memory map: mapped pages that
were touched count as resident (``ru_maxrss``), a copied block is freed with the
last reference to it.

The file only ever grows at its end, so copies of a run log (checkpoints) share
it: a block once written never changes, and each copy keeps its own list of the
blocks it owns.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections import OrderedDict
from typing import Any

__all__ = ["BlockCache", "RowBlock", "SpillFile", "block_bytes", "read_block"]

#: Loaded blocks kept at once (by each reader): enough for a reader going through
#: runs in order and one going back to a DAG's older runs now and then.
CACHED_BLOCKS = 4

#: The row columns of a block, in file order, with their ``array`` typecodes and
#: entries per row; then the flat ones (``_consumed`` per consumed event id,
#: ``_task_codes`` and ``_task_times`` per task instance).
ROW_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("_dag", "I", 1),
    ("_nth", "I", 1),
    ("_times", "q", 7),
    ("_consumed_end", "I", 1),
    ("_task_end", "I", 1),
    ("_task_ids", "I", 1),
)
CONSUMED_COLUMN = ("_consumed", "q")
TASK_COLUMNS: tuple[tuple[str, str, int], ...] = (("_task_times", "q", 2),)


class SpillFile:
    """An append-only scratch file of bytes blocks, deleted when closed."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="explorer-runlog-")  # noqa: SIM115 (lives with the log)
        self._fd = self._file.fileno()
        #: bytes written so far (the file's end: every write appends)
        self.size = 0

    def write(self, data: bytes) -> int:
        """Append ``data``; its offset in the file."""
        offset = self.size
        view = memoryview(data)
        while view:
            written = os.pwrite(self._fd, view, offset + len(data) - len(view))
            view = view[written:]
        self.size += len(data)
        return offset

    def read(self, offset: int, size: int) -> bytes:
        out = os.pread(self._fd, size, offset)
        while len(out) < size:  # a short read (signals): read the rest
            out += os.pread(self._fd, size - len(out), offset + len(out))
        return out

    def close(self) -> None:
        self._file.close()

    def __deepcopy__(self, memo: dict[int, Any]) -> SpillFile:
        return self  # shared by copies: written blocks never change (module docstring)

    def __copy__(self) -> SpillFile:
        return self


class RowBlock:
    """Packed rows ``row0 .. row0 + n`` read back from a :class:`SpillFile`.

    It has the run log's column names, holding only this block's entries, and
    the absolute position of its first row, flat task and consumed event id
    (``_row0``, ``_flat0``, ``_consumed0``), so :meth:`RunLog._unpack` reads a
    run from it as from the log's resident columns.
    """

    __slots__ = (
        "_codes",
        "_consumed",
        "_consumed0",
        "_consumed_end",
        "_dag",
        "_flat0",
        "_nth",
        "_row0",
        "_task_codes",
        "_task_end",
        "_task_ids",
        "_task_times",
        "_times",
    )

    _dag: array[int]
    _nth: array[int]
    _codes: bytearray
    _times: array[int]
    _consumed_end: array[int]
    _consumed: array[int]
    _task_end: array[int]
    _task_ids: array[int]
    _task_codes: bytearray
    _task_times: array[int]
    _row0: int
    _flat0: int
    _consumed0: int


def block_bytes(log: Any, rows: int, flat: int, consumed: int) -> bytes:
    """The first ``rows`` resident rows of ``log`` (with their ``flat`` task instances
    and ``consumed`` event ids) as one bytes block."""
    parts = [getattr(log, name)[: rows * per].tobytes() for name, _, per in ROW_COLUMNS]
    parts.append(bytes(log._codes[:rows]))
    parts.append(log._consumed[:consumed].tobytes())
    parts.append(bytes(log._task_codes[:flat]))
    parts.extend(getattr(log, name)[: flat * per].tobytes() for name, _, per in TASK_COLUMNS)
    return b"".join(parts)


def read_block(
    spill: SpillFile,
    offset: int,
    rows: int,
    flat: int,
    consumed: int,
    row0: int,
    flat0: int,
    consumed0: int,
) -> RowBlock:
    """The block :func:`block_bytes` wrote at ``offset``, as arrays."""
    sizes = [rows * per * array(code).itemsize for _, code, per in ROW_COLUMNS]
    total = (
        sum(sizes)
        + rows
        + 8 * consumed
        + flat
        + sum(flat * per * array(code).itemsize for _, code, per in TASK_COLUMNS)
    )
    data = memoryview(spill.read(offset, total))
    block = RowBlock()
    at = 0
    for (name, code, _), size in zip(ROW_COLUMNS, sizes, strict=True):
        column = array(code)
        column.frombytes(data[at : at + size])
        setattr(block, name, column)
        at += size
    block._codes = bytearray(data[at : at + rows])
    at += rows
    block._consumed = array("q")
    block._consumed.frombytes(data[at : at + 8 * consumed])
    at += 8 * consumed
    block._task_codes = bytearray(data[at : at + flat])
    at += flat
    for name, code, per in TASK_COLUMNS:
        column = array(code)
        size = flat * per * column.itemsize
        column.frombytes(data[at : at + size])
        setattr(block, name, column)
        at += size
    block._row0, block._flat0, block._consumed0 = row0, flat0, consumed0
    return block


class BlockCache:
    """The few blocks read back most recently (least recently used goes first)."""

    def __init__(self, size: int = CACHED_BLOCKS) -> None:
        self._size = size
        self._blocks: OrderedDict[int, Any] = OrderedDict()

    def get(self, key: int) -> Any:
        found = self._blocks.get(key)
        if found is not None:
            self._blocks.move_to_end(key)
        return found

    def put(self, key: int, block: Any) -> None:
        self._blocks[key] = block
        if len(self._blocks) > self._size:
            self._blocks.popitem(last=False)

    def clear(self) -> None:
        self._blocks.clear()

    def __deepcopy__(self, memo: dict[int, Any]) -> BlockCache:
        return BlockCache(self._size)  # a cache: a copy starts empty

    def __copy__(self) -> BlockCache:
        return BlockCache(self._size)
