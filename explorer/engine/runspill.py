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
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

__all__ = [
    "NO_SPILL",
    "BlockCache",
    "RowBlock",
    "SpillArray",
    "SpillFile",
    "SpillPool",
    "block_bytes",
    "read_block",
]

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


#: Entries a chunk of the per-DAG indexes (a run log's :class:`SpillPool` may ask for
#: fewer): 10,000 DAGs keep at most ``2 * INDEX_CHUNK`` entries of each in memory.
INDEX_CHUNK = 256

#: Cached chunks of :class:`SpillArray` (by each pool): the per-DAG and per-asset indexes
#: are read back rarely (an old logical date named by a trigger, an old asset floor).
CACHED_CHUNKS = 64


class SpillPool:
    """Where a simulation's growing index arrays put their old chunks (adr/0006).

    One per run log: the per-DAG run ids, logical dates and asset-run ``run_after``s,
    the asset events' columns and their per-asset indexes each grow by a few bytes a
    run; a year of 10,000 DAGs is ~180 million runs. With ``chunk`` > 0 every
    :class:`SpillArray` made with this pool keeps at most ``2 * chunk`` entries in
    memory and writes the older ones to the pool's scratch file ``chunk`` at a time.
    Chunks read back are cached by their offset (a written chunk never changes).
    """

    __slots__ = ("_cache", "_file", "chunk", "chunks_read")

    def __init__(self, chunk: int = 0) -> None:
        self.chunk = chunk
        self._file: SpillFile | None = None
        self._cache = BlockCache(CACHED_CHUNKS)
        #: chunks read back so far (benchmarks: a reader going back to old entries)
        self.chunks_read = 0

    def write(self, data: bytes) -> int:
        if self._file is None:
            self._file = SpillFile()
        return self._file.write(data)

    def read(self, offset: int, count: int, typecode: str) -> array[int]:
        """The ``count`` entries of type ``typecode`` written at ``offset`` (cached)."""
        found: array[int] | None = self._cache.get(offset)
        if found is None:
            assert self._file is not None
            found = array(typecode)
            found.frombytes(self._file.read(offset, count * found.itemsize))
            self._cache.put(offset, found)
            self.chunks_read += 1
        return found

    def __deepcopy__(self, memo: dict[int, Any]) -> SpillPool:
        return self  # shared by copies: written chunks never change

    def __copy__(self) -> SpillPool:
        return self


#: The pool of arrays that never spill.
NO_SPILL = SpillPool(0)


class SpillArray:
    """An ``array`` that only grows at its end (or is cut back at its end), whose old
    entries go to a :class:`SpillPool`'s scratch file in chunks.

    ``head`` holds entries ``start ..`` in memory; entry ``i < start`` is in chunk
    ``i // chunk``, read back on demand. For a sorted array, :meth:`bisect_left` and
    :meth:`bisect_right` answer over every entry, reading back at most one chunk (the
    first entry of each spilled chunk is kept in ``firsts``). Without spilling
    (``NO_SPILL``, the GUI) it is a plain array with a few more methods.
    """

    __slots__ = ("_chunk", "_firsts", "_offsets", "_pool", "head", "limit", "start")

    def __init__(
        self,
        typecode: str,
        pool: SpillPool = NO_SPILL,
        values: Iterable[int] = (),
        *,
        chunk: int = INDEX_CHUNK,
    ) -> None:
        self._pool = pool
        #: entries a chunk: ``chunk``, or the pool's own if smaller (tests spill tiny ones)
        self._chunk = min(chunk, pool.chunk)
        #: spill once ``head`` holds this many entries (never without a chunk size); the
        #: run's hot paths append to ``head`` and call :meth:`spill` at ``limit`` themselves
        self.limit = 2 * self._chunk if self._chunk else 1 << 62
        self.head: array[int] = array(typecode, values)
        self.start = 0
        self._offsets: array[int] | None = None
        self._firsts: array[int] | None = None
        if len(self.head) >= self.limit:
            self.spill()

    def __len__(self) -> int:
        return self.start + len(self.head)

    def __bool__(self) -> bool:
        return self.start > 0 or bool(self.head)

    def append(self, value: int) -> None:
        head = self.head
        head.append(value)
        if len(head) >= self.limit:
            self.spill()

    def __getitem__(self, index: int) -> int:
        if index < 0:
            index += self.start + len(self.head)
            if index < 0:
                raise IndexError(index)
        local = index - self.start
        if local >= 0:
            return self.head[local]  # IndexError past the end, as an array's
        return self._chunk_at(index // self._chunk)[index % self._chunk]

    def take(self, lo: int, hi: int) -> list[int]:
        """Entries ``lo .. hi`` (0 <= lo <= hi <= len) as a list."""
        start = self.start
        if lo >= start:
            return self.head[lo - start : hi - start].tolist()
        out: list[int] = []
        chunk = self._chunk
        at = lo
        while at < min(hi, start):
            index = at // chunk
            values = self._chunk_at(index)
            base = index * chunk
            out.extend(values[at - base : min(hi, base + chunk) - base])
            at = base + chunk
        if hi > start:
            out.extend(self.head[: hi - start])
        return out

    def __iter__(self) -> Iterator[int]:
        for index in range(self.start // self._chunk if self._chunk else 0):
            yield from self._chunk_at(index)
        yield from self.head

    def __reversed__(self) -> Iterator[int]:
        yield from reversed(self.head)
        for index in reversed(range(self.start // self._chunk if self._chunk else 0)):
            yield from reversed(self._chunk_at(index))

    def truncate(self, length: int) -> None:
        """Cut back to ``length`` entries (never into the spilled ones)."""
        if length < self.start:
            raise ValueError("cannot cut a spilled array back into its spilled chunks")
        del self.head[length - self.start :]

    def __delitem__(self, index: slice) -> None:
        """``del a[n:]`` only: :meth:`truncate` (Back snapshots cut arrays back)."""
        if index.stop is not None or index.step is not None or index.start is None:
            raise TypeError("a SpillArray is only cut back at its end: del a[n:]")
        self.truncate(min(index.start, len(self)))

    def insert_at(self, index: int, value: int) -> bool:
        """Insert before entry ``index``; False (nothing done) when that lies in the
        spilled chunks, which never change."""
        local = index - self.start
        if local < 0:
            return False
        self.head.insert(local, value)
        if len(self.head) >= self.limit:
            self.spill()
        return True

    def bisect_left(self, value: int) -> int:
        """How many entries are < ``value`` (the array is sorted)."""
        return self._bisect(value, bisect_left)

    def bisect_right(self, value: int) -> int:
        """How many entries are <= ``value`` (the array is sorted)."""
        return self._bisect(value, bisect_right)

    def _bisect(self, value: int, find: Callable[[Sequence[int], int], int]) -> int:
        """``find`` (bisect_left or bisect_right) over every entry: in the resident head
        when the answer lies past its first entry, else in the one spilled chunk whose
        first entry (``_firsts``) says it holds the answer."""
        local = find(self.head, value)
        if not self.start or local > 0:
            return self.start + local
        assert self._firsts is not None
        index = find(self._firsts, value) - 1
        if index < 0:
            return 0
        return index * self._chunk + find(self._chunk_at(index), value)

    def tolist(self) -> list[int]:
        return list(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SpillArray):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SpillArray({self.head.typecode!r}, {self.tolist()!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> SpillArray:
        return self.copy()

    def __copy__(self) -> SpillArray:
        return self.copy()

    def copy(self) -> SpillArray:
        """A copy sharing the spilled chunks (they never change)."""
        # through __init__ (a compiled class's __new__ runs it anyway, adr/0013): with
        # this chunk size, no larger than the pool's, it gets the same chunk and limit
        out = SpillArray(self.head.typecode, self._pool, self.head, chunk=self._chunk)
        out.start = self.start
        out._offsets = None if self._offsets is None else array("q", self._offsets)
        out._firsts = None if self._firsts is None else array(self.head.typecode, self._firsts)
        return out

    def _chunk_at(self, index: int) -> array[int]:
        assert self._offsets is not None
        return self._pool.read(self._offsets[index], self._chunk, self.head.typecode)

    def spill(self) -> None:
        """Move the oldest chunks out while ``head`` holds ``limit`` entries or more."""
        head, n = self.head, self._chunk
        while len(head) >= self.limit:
            if self._offsets is None:
                self._offsets = array("q")
                self._firsts = array(head.typecode)
            assert self._firsts is not None
            self._offsets.append(self._pool.write(head[:n].tobytes()))
            self._firsts.append(head[0])
            del head[:n]
            self.start += n
