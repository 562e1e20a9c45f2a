"""Back snapshots: the state before a clock move, kept by lengths instead of copies.

The GUI keeps the engine's state from before each of its latest moves so that
Back restores it without replaying anything. A whole-state copy
(:meth:`~explorer.engine.simulation.Simulation.checkpoint`) copies the run log's
packed columns, every DAG's run ids and the asset event store on every step:
tens of thousands of entries, although a step appends only a handful.

The run log, each DAG's run ids and the asset event lists only ever grow at
their ends (a run is appended, packed into new rows, thawed in place; an event
is appended). A Back snapshot therefore shares those structures with the live
state and records their lengths (plus the few things that do change in place:
the run log's id → row map, its live runs, the small asset tables); restoring it
truncates them back to those lengths (copy-on-write, truncate-on-restore). The
rest of the state is copied as a checkpoint copies it.

Restoring is exact as long as nothing truncated a shared structure below the
recorded lengths since: every restore of a Back snapshot is to a later or equal
instant than the snapshots that stay behind it (Back drops the later ones
first), so a structure's prefix up to an older snapshot's lengths is never
rewritten. :meth:`BackSnapshot.valid` still checks the lengths, and a snapshot
that fails the check is not used (Back then replays from a checkpoint).

A step changes a few DAGs' states; the others are as the previous snapshot copied
them. A snapshot therefore borrows the previous snapshot's copy of every DAG state
that has not changed since (:func:`_unchanged`: the same values, the same lengths
of what only grows, no live run) instead of copying it again. A borrowed copy is
never handed to the engine, which changes DAG states in place: restoring keeps the
live DAG state where it has not changed since the snapshot either (a Back after a
step: all but a few), and copies the borrowed one otherwise.
"""

from __future__ import annotations

import copy
import operator
from array import array
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.store import AssetStore
from explorer.engine.dagstate import COPIED_FIELDS, SHARED_FIELDS, DagState
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runpack import RowSink
from explorer.engine.runs import DagRun
from explorer.engine.state import SimState

__all__ = ["BackSnapshot", "take"]

#: The run log's append-only columns (a row's entries, or a flat task's).
_ROW_COLUMNS = ("_dag", "_nth", "_codes", "_consumed_end", "_task_end", "_task_ids")
_OTHER_COLUMNS = ("_times", "_consumed", "_task_codes", "_task_times", "_dag_names", "_id_tuples")


@dataclass(slots=True)
class _LogMark:
    """A run log as it was: lengths of its columns, its id → row map and live runs."""

    log: RunLog
    row: array[int]
    live: dict[int, DagRun]
    own_run_ids: set[int]
    lengths: dict[str, int]

    def valid(self) -> bool:
        log = self.log
        if log.spilled_rows or log._id0:  # a spilling log's heads left memory (runlog)
            return False
        return len(log._row) >= len(self.row) and all(
            len(getattr(log, name)) >= n for name, n in self.lengths.items()
        )

    def restore(self) -> None:
        log, lengths = self.log, self.lengths
        for name, n in lengths.items():
            del getattr(log, name)[n:]
        rows, tasks = lengths["_nth"], lengths["_task_codes"]
        for table in (log._run_ids, log._partitions, log._backfills):
            _drop_tail(table, rows)
        _drop_tail(log._inlets, tasks)
        log.stale_rows = {row for row in log.stale_rows if row < rows}
        _drop_codes(log._dag_codes, len(log._dag_names))
        _drop_codes(log._id_tuple_codes, len(log._id_tuples))
        # a cached run stays valid where its row is the snapshot's (packed runs never
        # change); a run live in the snapshot, created since, or packed into another row
        # since (thawed, then packed again) is read from ``_live`` or unpacked again
        count, cache = len(self.row), log._cache
        now_rows = np.array(log._row[:count], dtype=np.int32)
        then_rows = np.array(self.row, dtype=np.int32)
        stale = np.flatnonzero((now_rows != then_rows) | (then_rows == -1)).tolist()
        for run_id in (*stale, *range(count, len(log._row))):
            cache.pop(run_id, None)
        log._row = self.row
        log._live = self.live
        log._own_run_ids = self.own_run_ids
        # the sink holds the columns themselves: remade, as _row, _live and
        # _own_run_ids were just rebound
        log._sink = RowSink(log)
        log.cuts.append((count, lengths["_nth"]))


def _drop_codes(codes: dict[Any, int], count: int) -> None:
    """An interning table back to its first ``count`` codes."""
    if len(codes) > count:
        for key in [k for k, code in codes.items() if code >= count]:
            del codes[key]


def _drop_tail(table: dict[int, Any], limit: int) -> None:
    """Drop the keys >= ``limit`` of a table filled in increasing key order."""
    while table:
        last = next(reversed(table))
        if last < limit:
            return
        del table[last]


@dataclass(slots=True)
class _StoreMark:
    """An asset store as it was: lengths of its event lists, copies of its small tables."""

    store: AssetStore
    events: int
    by_asset: dict[AssetKey, int]
    by_alias: dict[str, int]
    alias_assets: dict[str, list[AssetKey]]
    active: dict[AssetKey, bool]
    activates_at: dict[AssetKey, datetime]

    def valid(self) -> bool:
        # the per-asset and per-alias lists grow with ``events`` (``AssetStore.add``)
        return len(self.store.events) >= self.events

    def restore(self) -> None:
        s = self.store
        del s.events[self.events :]
        for table, lengths in (
            (s.by_asset, self.by_asset),
            (s.by_alias, self.by_alias),
        ):
            _truncate_lists(table, lengths)  # type: ignore[arg-type]
        s.alias_assets = self.alias_assets
        s.active = self.active
        s.activates_at = self.activates_at


def _truncate_lists(table: dict[object, list[Any]], lengths: dict[object, int]) -> None:
    """Each list back to its length; keys added since go (the others keep their order)."""
    for key in [k for k in table if k not in lengths]:
        del table[key]
    for key, n in lengths.items():
        del table[key][n:]


#: DagState fields that hold values never changed in place, plus the two copied fields
#: a DAG state copy shares with the live state (its runs; a packed run, or none): the
#: same objects in the live state and a copy when the DAG has not changed since.
_IDENTICAL = operator.attrgetter(*SHARED_FIELDS, "runs", "latest_automated")
#: The copied fields :func:`_unchanged` compares: a new one must be added there.
_COMPARED = frozenset(
    {"runs", "logical_dates", "active", "latest_automated", "adrq", "asset_run_afters"}
)
if _COMPARED != COPIED_FIELDS:
    raise TypeError(f"_unchanged does not compare the DagState fields {COPIED_FIELDS - _COMPARED}")


def _unchanged(live: DagState, runs_now: int, copied: DagState, runs_then: int) -> bool:
    """Whether ``copied`` (a snapshot's copy, ``runs_then`` runs) is still what ``live``
    (``runs_now`` runs) holds.

    Values never changed in place are compared by identity (an equal value set again
    counts as a change: a copy too many, never one too few); ``logical_dates`` and
    ``asset_run_afters`` only grow as runs are created (compared by length, with the
    runs); a DAG with a live run always differs (its runs are copied with the state's).
    """
    if live.active or copied.active or runs_now != runs_then:
        return False
    if not all(map(operator.is_, _IDENTICAL(live), _IDENTICAL(copied))):
        return False
    return (
        len(live.logical_dates.keys) == len(copied.logical_dates.keys)
        and len(live.asset_run_afters) == len(copied.asset_run_afters)
        and live.adrq == copied.adrq
    )


@dataclass(slots=True)
class BackSnapshot:
    """The state before a move: ``state`` shares the run log, the DAGs' run ids and the
    asset store with the live state; the marks put them back as they were."""

    state: SimState
    log: _LogMark
    store: _StoreMark
    #: Each DAG's run ids and their count, by dag_id.
    dag_runs: dict[str, tuple[DagRuns, int]]
    #: The DAG states borrowed from an earlier snapshot (shared with it: never given to
    #: the engine as they are).
    borrowed: frozenset[str] = frozenset()
    #: DAG states copied by :func:`take` (the others were borrowed).
    copied: int = 0

    @property
    def now(self) -> datetime:
        return self.state.now

    def valid(self) -> bool:
        """Whether the shared structures still hold everything the snapshot recorded."""
        return (
            self.log.valid()
            and self.store.valid()
            and all(len(runs._ids) >= n for runs, n in self.dag_runs.values())
        )

    def restore(self, live: SimState | None = None) -> SimState:
        """Truncate the shared structures back and give the state (used once).

        ``live``: the engine's state now, which the restored one replaces. A borrowed
        DAG state is replaced by the live one where that has not changed since the
        snapshot, by a copy of it otherwise (without ``live``: always a copy).
        """
        dags = self.state.dags
        if self.borrowed:
            now = {} if live is None else live.dags
            memo: dict[int, Any] = {}
            for dag_id in self.borrowed:
                copied, (runs, n) = dags[dag_id], self.dag_runs[dag_id]
                current = now.get(dag_id)
                if current is not None and _unchanged(current, len(runs._ids), copied, n):
                    dags[dag_id] = current
                else:  # (no live run in it: its runs and a packed run are shared)
                    memo[id(copied.runs)] = copied.runs
                    if copied.latest_automated is not None:
                        memo[id(copied.latest_automated)] = copied.latest_automated
                    dags[dag_id] = copy.deepcopy(copied, memo)
            self.borrowed = frozenset()
        self.log.restore()
        self.store.restore()
        for runs, n in self.dag_runs.values():
            del runs._ids[n:]
        return self.state


def take(
    state: SimState, shared: dict[int, Any], previous: BackSnapshot | None = None
) -> BackSnapshot:
    """A Back snapshot of ``state``; ``shared``: the immutable objects a checkpoint shares
    (specs and files, :meth:`Simulation._shared`); ``previous``: the latest snapshot
    still kept of the same simulation, whose copies of the DAG states that have not
    changed since are borrowed."""
    log, store = state.runs, state.assets
    memo = dict(shared)
    memo[id(log)] = log
    memo[id(store)] = store
    dag_runs = {dag_id: (dag.runs, len(dag.runs._ids)) for dag_id, dag in state.dags.items()}
    for runs, _ in dag_runs.values():
        memo[id(runs)] = runs
    borrowed: list[str] = []
    if previous is not None:
        before, runs_before = previous.state.dags, previous.dag_runs
        for dag_id, dag in state.dags.items():
            earlier = before.get(dag_id)
            if earlier is not None and _unchanged(
                dag, dag_runs[dag_id][1], earlier, runs_before[dag_id][1]
            ):
                memo[id(dag)] = earlier
                borrowed.append(dag_id)
    for run in log._cache.values():  # packed runs are never mutated (thaw first): shared
        memo[id(run)] = run
    # The scheduler's heaps and run indexes hold tuples of datetimes, ints and strings,
    # which the generic deepcopy rebuilds one by one (a datetime through its reduce):
    # copied here as containers of the same immutable entries, live runs through memo.
    memo[id(state.due)] = list(state.due)
    memo[id(state.waiting)] = list(state.waiting)
    memo[id(state.waiting_recheck)] = list(state.waiting_recheck)
    memo[id(state.completions)] = list(state.completions)
    memo[id(state.activation)] = dict(state.activation)
    for runs_by_key in (state.active, state.pending, state.touched):
        memo[id(runs_by_key)] = {k: copy.deepcopy(r, memo) for k, r in runs_by_key.items()}
    copied: SimState = copy.deepcopy(state, memo)
    live = {k: copy.deepcopy(v, memo) for k, v in log._live.items()}  # the same copies
    lengths = {name: len(getattr(log, name)) for name in (*_ROW_COLUMNS, *_OTHER_COLUMNS)}
    log_mark = _LogMark(log, array("i", log._row), live, set(log._own_run_ids), lengths)
    store_mark = _StoreMark(
        store,
        len(store.events),
        {k: len(v) for k, v in store.by_asset.items()},
        {k: len(v) for k, v in store.by_alias.items()},
        {k: list(v) for k, v in store.alias_assets.items()},
        dict(store.active),
        dict(store.activates_at),
    )
    return BackSnapshot(
        copied,
        log_mark,
        store_mark,
        dag_runs,
        frozenset(borrowed),
        len(state.dags) - len(borrowed),
    )
