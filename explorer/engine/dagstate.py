"""What the scheduler keeps per DAG: Airflow's ``DagModel`` row plus the DAG's runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from explorer.engine.dag import DagSpec
from explorer.engine.runs import DagRun
from explorer.engine.types import DagRunInfo

__all__ = ["DagState"]


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
    runs: list[DagRun] = field(default_factory=list)
    runs_by_logical_date: dict[datetime, DagRun] = field(default_factory=dict)
    #: Queued and running runs (kept small so counting stays cheap).
    active: list[DagRun] = field(default_factory=list)
    #: TT-3's reference at parse, maintained as runs are created.
    latest_automated: DagRun | None = None
    #: Version of the entry this DAG has in the scheduler's due-heap.
    due_version: int = 0

    @property
    def dag_id(self) -> str:
        return self.spec.dag_id

    def active_runs(self, *, include_backfill: bool) -> int:
        return sum(1 for run in self.active if include_backfill or run.backfill_id is None)

    def note_created(self, run: DagRun) -> None:
        """Keep TT-3's parse reference: the latest scheduled/backfill run by logical date
        (partitioned timetables: by partition_date, then run_after)."""
        self.runs.append(run)
        self.active.append(run)
        if run.logical_date is not None:
            self.runs_by_logical_date.setdefault(run.logical_date, run)
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
