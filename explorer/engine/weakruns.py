"""Runs by id, held weakly: the run log's cache of the packed runs somebody still holds.

The run log hands out the same ``DagRun`` for a packed run while anybody holds it
(identity checks, the GUI's incremental refreshes), and puts every run it packs in
this cache. ``weakref.WeakValueDictionary`` pays, per entry, a ``KeyedRef`` built in
Python and a Python callback when the run dies: about two microseconds a run, on the
path of every run that ends (issue 14). Here each entry is a plain ``weakref.ref``
(built in C, no callback); entries whose run died are swept when the table has
doubled since the last sweep, so the work stays constant per entry and the table at
most about twice the runs still held.
"""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

__all__ = ["WeakRuns"]

T = TypeVar("T")

#: Entries below which the table is never swept (a sweep would find too little).
_FLOOR = 4096


class WeakRuns(Generic[T]):
    """``int`` → object, held weakly: the part of ``WeakValueDictionary`` the run log uses."""

    __slots__ = ("_refs", "_sweep_at")

    def __init__(self) -> None:
        self._refs: dict[int, weakref.ref[T]] = {}
        self._sweep_at = _FLOOR

    def get(self, key: int) -> T | None:
        ref = self._refs.get(key)
        return None if ref is None else ref()

    def __setitem__(self, key: int, value: T) -> None:
        refs = self._refs
        refs[key] = weakref.ref(value)
        if len(refs) >= self._sweep_at:
            self._sweep()

    def pop(self, key: int, default: T | None = None) -> T | None:
        ref = self._refs.pop(key, None)
        value = None if ref is None else ref()
        return default if value is None else value

    def copy(self) -> WeakRuns[T]:
        """Another table holding the same objects (weakly)."""
        out: WeakRuns[T] = WeakRuns()
        out._refs = dict(self._refs)
        out._sweep_at = self._sweep_at
        return out

    def values(self) -> list[T]:
        """The objects still alive (a list: the caller may change the table meanwhile)."""
        return [value for ref in self._refs.values() if (value := ref()) is not None]

    def __len__(self) -> int:
        return len(self.values())

    def _sweep(self) -> None:
        self._refs = {key: ref for key, ref in self._refs.items() if ref() is not None}
        self._sweep_at = max(_FLOOR, 2 * len(self._refs))
