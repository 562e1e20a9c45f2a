"""What the scheduler keeps per DAG: Airflow's ``DagModel`` row plus the DAG's runs."""

from __future__ import annotations

import copy
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from explorer.engine.assets.condition import AssetKey, RefNode
from explorer.engine.dag import DagSpec
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runs import DagRun
from explorer.engine.types import DagRunInfo
from explorer.engine.tz import epoch_us

__all__ = ["COPIED_FIELDS", "SHARED_FIELDS", "DagState", "LogicalDates"]


@dataclass(slots=True)
class LogicalDates:
    """logical_date → ``nth`` of the run holding it (the ``dag_run`` unique constraint).

    Two sorted ``array`` columns instead of a dict of datetimes: 12 bytes a run, and
    scheduled runs arrive in date order, so inserting is an append.
    """

    keys: array[int] = field(default_factory=lambda: array("q"))
    nths: array[int] = field(default_factory=lambda: array("I"))

    def add(self, at: datetime, nth: int) -> None:
        """Keep the first run with ``at`` (later ones with the same date are refused)."""
        key = epoch_us(at)
        index = bisect_left(self.keys, key)
        if index < len(self.keys) and self.keys[index] == key:
            return
        self.keys.insert(index, key)
        self.nths.insert(index, nth)

    def get(self, at: datetime) -> int | None:
        key = epoch_us(at)
        index = bisect_left(self.keys, key)
        if index < len(self.keys) and self.keys[index] == key:
            return self.nths[index]
        return None

    def __contains__(self, at: object) -> bool:
        return isinstance(at, datetime) and self.get(at) is not None


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
    #: event floor (AS-5).
    asset_run_afters: array[int] = field(default_factory=lambda: array("q"))
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
        out.logical_dates = LogicalDates(
            array("q", self.logical_dates.keys), array("I", self.logical_dates.nths)
        )
        out.active = [copy.deepcopy(run, memo) for run in self.active]
        out.latest_automated = copy.deepcopy(self.latest_automated, memo)
        out.adrq = dict(self.adrq)
        out.asset_run_afters = array("q", self.asset_run_afters)
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
        return sum(1 for run in self.active if include_backfill or run.backfill_id is None)

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
