"""What the scheduler keeps per DAG: Airflow's ``DagModel`` row plus the DAG's runs."""

from __future__ import annotations

import copy
from bisect import bisect_left, insort
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from explorer.engine.assets.condition import AssetKey, RefNode
from explorer.engine.dag import DagSpec
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runs import DagRun
from explorer.engine.runspill import NO_SPILL, SpillArray, SpillPool
from explorer.engine.types import DagRunInfo
from explorer.engine.tz import epoch_us

__all__ = ["COPIED_FIELDS", "SHARED_FIELDS", "AssetRunAfters", "DagState", "LogicalDates"]


class LogicalDates:
    """logical_date → ``nth`` of the run holding it (the ``dag_run`` unique constraint).

    Two sorted columns (epoch microseconds and ``nth``) instead of a dict of
    datetimes: 12 bytes a run, and scheduled runs arrive in date order, so inserting
    is an append. On a spilling run log (adr/0006) their old entries go to the
    scratch file in chunks (:class:`~explorer.engine.runspill.SpillArray`); a date
    that would go among those (a trigger naming an old date, SCH-9) is kept apart in
    ``late``, so every lookup stays exact.
    """

    __slots__ = ("keys", "late", "nths")

    def __init__(self, pool: SpillPool = NO_SPILL) -> None:
        self.keys = SpillArray("q", pool)
        self.nths = SpillArray("I", pool)
        #: dates inserted among the spilled entries: epoch microseconds → nth
        self.late: dict[int, int] = {}

    def add(self, at: datetime, nth: int) -> None:
        """Keep the first run with ``at`` (later ones with the same date are refused)."""
        key = epoch_us(at)
        keys = self.keys
        head = keys.head
        if head and key > head[-1]:  # the usual case: the latest date, appended
            head.append(key)
            self.nths.head.append(nth)
            if len(head) >= keys.limit:
                keys.spill()
                self.nths.spill()
            return
        index = keys.bisect_left(key)
        if index < len(keys) and keys[index] == key:
            return
        if index == len(keys):
            keys.append(key)
            self.nths.append(nth)
        elif key in self.late:
            return
        elif keys.insert_at(index, key):
            self.nths.insert_at(index, nth)
        else:
            self.late[key] = nth

    def get(self, at: datetime) -> int | None:
        key = epoch_us(at)
        keys = self.keys
        head = keys.head
        if head and head[0] <= key:  # SpillArray.bisect_left's resident case, inline
            local = bisect_left(head, key)
            if local < len(head) and head[local] == key:
                return self.nths.head[local]
            return self.late.get(key) if self.late else None
        index = keys.bisect_left(key)
        if index < len(keys) and keys[index] == key:
            return self.nths[index]
        return self.late.get(key) if self.late else None

    def __contains__(self, at: object) -> bool:
        return isinstance(at, datetime) and self.get(at) is not None

    def __len__(self) -> int:
        return len(self.keys) + len(self.late)

    def nths_outside(self, first: int | None, last: int | None) -> list[int]:
        """The ``nth`` of every run dated before ``first`` or after ``last`` (epoch
        microseconds; None: no bound on that side), in no particular order."""
        keys, nths = self.keys, self.nths
        found: list[int] = []
        if first is not None:
            found.extend(nths.take(0, keys.bisect_left(first)))
            found.extend(n for k, n in self.late.items() if k < first)
        if last is not None:
            found.extend(nths.take(keys.bisect_right(last), len(nths)))
            found.extend(n for k, n in self.late.items() if k > last)
        return found

    def copy(self) -> LogicalDates:
        out = LogicalDates.__new__(LogicalDates)
        out.keys, out.nths, out.late = self.keys.copy(), self.nths.copy(), dict(self.late)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> LogicalDates:
        return self.copy()


class AssetRunAfters:
    """The run_after of each asset-triggered run of a DAG (epoch microseconds), sorted:
    :meth:`latest_before` is the AS-5 floor of the next run. Usually appended in order;
    on a spilling run log the old entries spill (:class:`LogicalDates`), and an entry
    that would go among them is kept apart in ``late``."""

    __slots__ = ("late", "values")

    def __init__(self, pool: SpillPool = NO_SPILL) -> None:
        self.values = SpillArray("q", pool)
        self.late: list[int] = []

    def add(self, value: int) -> None:
        values = self.values
        head = values.head
        if head and head[-1] <= value:  # the usual case, SpillArray.append inline
            head.append(value)
            if len(head) >= values.limit:
                values.spill()
        elif not values or values[-1] <= value:
            values.append(value)
        elif not values.insert_at(values.bisect_right(value), value):
            insort(self.late, value)

    def latest_before(self, value: int) -> int | None:
        """The greatest entry < ``value``, if any."""
        values = self.values
        head = values.head
        if head and head[0] < value:  # in the resident entries (the next run's floor)
            last = head[-1]  # usually the answer: a new run's floor is the latest run's
            found: int | None = last if last < value else head[bisect_left(head, value) - 1]
        else:
            index = values.bisect_left(value)
            found = values[index - 1] if index else None
        if self.late:
            late = bisect_left(self.late, value)
            if late and (found is None or self.late[late - 1] > found):
                found = self.late[late - 1]
        return found

    def __len__(self) -> int:
        return len(self.values) + len(self.late)

    def __iter__(self) -> Iterator[int]:
        return iter(sorted([*self.values, *self.late]) if self.late else self.values)

    def copy(self) -> AssetRunAfters:
        out = AssetRunAfters.__new__(AssetRunAfters)
        out.values, out.late = self.values.copy(), list(self.late)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> AssetRunAfters:
        return self.copy()


@dataclass(slots=True)
class DagState:
    """One DAG's scheduler state.

    ``next_run`` is Airflow's next-run cache (``next_dagrun``,
    ``next_dagrun_data_interval_*``, ``next_dagrun_create_after``,
    ``next_dagrun_partition_*``); ``exceeds_max_active_runs`` is
    ``exceeds_max_non_backfill`` (SCH-5).
    """

    spec: DagSpec
    order: int
    deployed: bool = False
    deployed_at: datetime | None = None
    is_paused: bool = False
    next_run: DagRunInfo | None = None
    next_run_error: str | None = None
    exceeds_max_active_runs: bool = False
    #: The latest parse whose effect has been applied (parses are applied lazily).
    parsed_at: datetime | None = None
    #: A tick found the cached logical date taken and the recomputation gave it again (SCH-9).
    stalled_on: datetime | None = None
    #: When a stalled DAG's recomputation may give another answer.
    wake_at: datetime | None = None
    #: (reference, computed at, valid until or None): ``next_run`` is what the timetable
    #: answers for that reference at any instant in [computed at, valid until).
    next_run_memo: tuple[Any, datetime, datetime | None] | None = None
    #: The DAG's runs by ``nth``, read through the simulation's run log.
    runs: DagRuns = field(default_factory=lambda: DagRuns(RunLog()))
    logical_dates: LogicalDates = field(default_factory=LogicalDates)
    #: Queued and running runs (kept small so counting stays cheap).
    active: list[DagRun] = field(default_factory=list)
    #: TT-3's reference at parse, maintained as runs are created.
    latest_automated: DagRun | None = None
    #: Version of the entry this DAG has in the scheduler's due-heap.
    due_version: int = 0
    #: The instant of this DAG's live entry in the due heap (the one with
    #: ``due_version``), or None when it has none: a reschedule to the same instant
    #: keeps that entry instead of pushing a copy (``dagschedule.reschedule``).
    due_entry: datetime | None = None
    #: ``asset_dag_run_queue`` rows: asset → time of the first event since cleared (AS-2).
    adrq: dict[AssetKey, datetime] = field(default_factory=dict)
    #: When the DAG's direct asset references were first recorded (the AS-5 floor).
    assets_first_seen: datetime | None = None
    #: run_after of each asset-triggered run (``epoch_us``), sorted: the next run's
    #: event floor (AS-5). See :class:`AssetRunAfters`.
    asset_run_afters: AssetRunAfters = field(default_factory=lambda: AssetRunAfters())
    #: The DAG processor found the file gone (DEP-6): nothing of it is scheduled.
    is_stale: bool = False
    #: A refresh after it went stale deleted its asset references (DEP-6).
    refs_dropped: bool = False
    direct_assets: frozenset[AssetKey] = frozenset()
    schedule_refs: tuple[RefNode, ...] = ()
    schedule_aliases: frozenset[str] = frozenset()
    #: ``spec.dag_id``, kept as a plain slot: read for every task, run and event (a
    #: property over ``spec`` was 2% of a 1,000-DAG simulation). A new definition of
    #: the DAG keeps its dag_id.
    dag_id: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.dag_id = self.spec.dag_id
        pool = self.runs.pool
        if pool.chunk:  # a spilling run log: the DAG's indexes spill with it (adr/0006)
            if not self.logical_dates:
                self.logical_dates = LogicalDates(pool)
            if not self.asset_run_afters:
                self.asset_run_afters = AssetRunAfters(pool)
        self.direct_assets = self.spec.direct_assets
        self.schedule_refs = self.spec.schedule_refs
        self.schedule_aliases = self.spec.schedule_aliases

    def __deepcopy__(self, memo: dict[int, Any]) -> DagState:
        """A checkpoint's copy: the containers that change are copied, the rest is shared.

        The generic ``deepcopy`` rebuilt every datetime, interval and memo tuple of
        every DAG (a tenth of a second for 200 DAGs), although none of them is ever
        changed in place: only the fields in :data:`_COPIED` are mutated, and the
        live runs they hold are copied through ``memo`` with the rest of the state
        (the same run object in ``active``, ``latest_automated`` and the run log).
        """
        out = DagState.__new__(DagState)
        memo[id(self)] = out
        for name in _SHARED:
            setattr(out, name, getattr(self, name))
        out.runs = copy.deepcopy(self.runs, memo)
        out.logical_dates = self.logical_dates.copy()
        out.active = [copy.deepcopy(run, memo) for run in self.active]
        out.latest_automated = copy.deepcopy(self.latest_automated, memo)
        out.adrq = dict(self.adrq)
        out.asset_run_afters = self.asset_run_afters.copy()
        return out

    def listens_to(self, key: AssetKey, via_aliases: tuple[str, ...]) -> bool:
        """Is this DAG a consumer of an event on ``key`` (AS-2: direct, ref or alias)?"""
        return (
            key in self.direct_assets
            or any(ref.matches(key) for ref in self.schedule_refs)
            or any(alias in self.schedule_aliases for alias in via_aliases)
        )

    def run_with_logical_date(self, at: datetime | None) -> DagRun | None:
        """The run holding ``at`` as its logical date, if any."""
        nth = None if at is None else self.logical_dates.get(at)
        return None if nth is None else self.runs[nth]

    def active_runs(self, *, include_backfill: bool) -> int:
        # A plain loop: a DAG has a run or two active, and a generator for them cost more
        # than the count (asked at every parse and run created or ended).
        active = self.active
        count = len(active)
        if not include_backfill:
            for run in active:
                if run.backfill_id is not None:
                    count -= 1
        return count

    def note_created(self, run: DagRun) -> None:
        """Keep TT-3's parse reference: the latest scheduled/backfill run by logical date
        (partitioned timetables: by partition_date, then run_after)."""
        self.runs.append(run)
        self.active.append(run)
        if run.logical_date is not None:
            self.logical_dates.add(run.logical_date, run.nth)
        if run.run_type not in ("scheduled", "backfill"):
            return
        best = self.latest_automated
        if self.spec.timetable.partitioned:
            if run.partition_key is None:
                return
            key = (run.partition_date or run.run_after, run.run_after)
            if best is None or key > (best.partition_date or best.run_after, best.run_after):
                self.latest_automated = run
        elif run.logical_date is not None and (
            best is None or best.logical_date is None or run.logical_date > best.logical_date
        ):
            self.latest_automated = run


#: DagState fields a checkpoint copies (they are changed in place as the clock moves).
_COPIED = frozenset(
    {"runs", "logical_dates", "active", "latest_automated", "adrq", "asset_run_afters"}
)
#: The others hold immutable values (the spec, instants, frozen dataclasses, tuples, flags):
#: a checkpoint shares them. A new field lands here unless it is added to ``_COPIED``.
_SHARED = tuple(f.name for f in fields(DagState) if f.name not in _COPIED)
#: The same two sets for other copies of DAG states (a Back snapshot borrows a DAG
#: state's copy when every field is as it was: :mod:`explorer.engine.back_snapshot`).
COPIED_FIELDS = _COPIED
SHARED_FIELDS = _SHARED
