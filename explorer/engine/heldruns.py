"""Runs by id while somebody holds them: the run log's cache of the packed runs in use.

The run log hands out the same ``DagRun`` for a packed run while anybody holds it
(identity checks, the GUI's incremental refreshes), and puts every run it packs in
this cache. A weak reference would say when nobody does, but a run compiled by mypyc
(adr/0013) cannot be weakly referenced: mypyc gives a native class no weak-reference
slot it clears (mypyc/mypyc#1102). So the table holds its objects and asks the
reference count instead: an entry whose object nobody else holds is dropped when the
table has doubled since the last sweep. Identity is kept exactly as a weak table keeps
it (an object somebody holds is never dropped); an unheld one lives until the next
sweep, so the table holds at most about twice the runs in use, and at least
:data:`_FLOOR` entries are added between sweeps (the work per entry stays constant).
"""

from __future__ import annotations

import sys

__all__ = ["HeldRuns"]

#: Entries below which the table is never swept (a sweep would find too little).
_FLOOR = 4096


def _count(table: dict[int, object], key: int) -> int:
    """The reference count of ``table[key]``, read the one way every caller reads it."""
    return sys.getrefcount(table[key])


#: What :func:`_count` reads for an object only the table holds (calibrated here, so
#: that an interpreter that counts its temporaries otherwise still reads right).
_ALONE = _count({0: object()}, 0)


class HeldRuns:
    """``int`` → object, dropped once nobody else holds it (see the module's docstring).

    Not generic: the engine compiles it (adr/0013), and a compiled class with
    ``Generic`` as a base takes weak references it never clears (mypyc/mypyc#1102).
    Its two users (the run log's runs, the event log's events) cast what they read."""

    __slots__ = ("_refs", "_sweep_at")

    def __init__(self) -> None:
        self._refs: dict[int, object] = {}
        self._sweep_at = _FLOOR

    def get(self, key: int) -> object | None:
        return self._refs.get(key)

    def __setitem__(self, key: int, value: object) -> None:
        refs = self._refs
        refs[key] = value
        if len(refs) >= self._sweep_at:
            self._sweep()

    def pop(self, key: int, default: object | None = None) -> object | None:
        value = self._refs.pop(key, None)
        return default if value is None else value

    def copy(self) -> HeldRuns:
        """Another table holding the same objects."""
        out = HeldRuns()
        out._refs = dict(self._refs)
        out._sweep_at = self._sweep_at
        return out

    def values(self) -> list[object]:
        """The objects somebody else holds (a list: the caller may change the table)."""
        refs = self._refs
        return [refs[key] for key in refs if _count(refs, key) > _ALONE]

    def __len__(self) -> int:
        return len(self.values())

    def _sweep(self) -> None:
        refs = self._refs
        self._refs = {key: refs[key] for key in refs if _count(refs, key) > _ALONE}
        self._sweep_at = max(_FLOOR, 2 * len(self._refs))
