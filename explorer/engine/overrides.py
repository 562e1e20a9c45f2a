"""The script's overrides: which run each ``Override`` names and what it does to its tasks.

One path for every place a run's tasks take the script's word: a run created by
the loop (scheduled, asset-triggered, partition, manual) or by a backfill, an
override arriving after its run exists, and a run a backfill clears and queues
again (its tasks behave as declared again, with the overrides that name it
applied again). :func:`apply_override` is that path; :class:`Overrides` owns the
overrides seen so far and which of them matched.

The state lives in the simulation's state (``SimState.overrides``), so a
checkpoint copies it with everything else.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from explorer.engine import actions as act
from explorer.engine.dagstate import DagState
from explorer.engine.runlog import RunLog
from explorer.engine.runs import DagRun, TaskInstance
from explorer.engine.selection import first_created_at_or_after, select_run

__all__ = ["Overrides", "PendingOverride", "apply_override"]

_NONE: list[PendingOverride] = []  # of_dag's answer for a DAG no override names (never mutated)


@dataclass(slots=True)
class PendingOverride:
    """An override in script order, and whether it has named a run yet."""

    order: int
    action: act.Override
    matched: bool = False


def apply_override(override: act.Override, run: DagRun) -> None:
    """What an override does to the tasks of the run it names (outcome, hold)."""
    for task in run.tasks:
        if override.task_id is None or task.task_id == override.task_id:
            if override.outcome is not None:
                task.outcome = override.outcome
            if override.hold:
                task.held = True


@dataclass(slots=True)
class Overrides:
    """Every override the script has applied so far, in order."""

    entries: list[PendingOverride] = field(default_factory=list)
    #: The same entries by the DAG they name, in script order: a run is matched against
    #: its own DAG's overrides only, never a scan of every override of the script.
    by_dag: dict[str, list[PendingOverride]] = field(default_factory=dict)

    def __iter__(self) -> Iterator[PendingOverride]:
        """The overrides in script order (readers such as the timeline's injected marks)."""
        return iter(self.entries)

    def add(self, action: act.Override, order: int) -> PendingOverride:
        pending = PendingOverride(order, action)
        self.entries.append(pending)
        self.by_dag.setdefault(action.run.dag_id, []).append(pending)
        return pending

    def names(self, dag_id: str) -> bool:
        """Does an override name a run of ``dag_id``? (None does for most DAGs.)"""
        return dag_id in self.by_dag

    def of_dag(self, dag_id: str) -> list[PendingOverride]:
        """The overrides naming ``dag_id``'s runs, in script order."""
        return self.by_dag.get(dag_id, _NONE)

    def resolve(
        self, run: DagRun, dag: DagState, runs: RunLog, only: PendingOverride | None = None
    ) -> None:
        """Match ``run`` against the overrides (or ``only`` one) and apply those naming it."""
        for pending in [only] if only is not None else self.of_dag(run.dag_id):
            assert pending is not None
            override = pending.action
            sel = override.run
            if sel.dag_id != run.dag_id:
                continue
            if sel.next:
                if pending.matched or run.created_at < override.at:
                    continue
            elif select_run(dag, sel, override.at) is not run:
                continue
            pending.matched = True
            if override.outcome is not None or override.hold:
                runs.thaw(run)  # an ended run's tasks change: unpack it first
            apply_override(override, run)

    def reapply(self, run: DagRun, dag: DagState) -> None:
        """A cleared run (backfill reprocess): the matched overrides naming it apply again."""
        for pending in self.of_dag(run.dag_id):
            if pending.matched and self.targets(pending, run, dag):
                apply_override(pending.action, run)

    def delay(self, run: DagRun, task: TaskInstance, dag: DagState) -> timedelta:
        """The extra time the matched overrides naming ``task`` of ``run`` add to it."""
        total = timedelta(0)
        for pending in self.of_dag(run.dag_id):
            override = pending.action
            if (
                pending.matched
                and override.delay
                and override.run.dag_id == run.dag_id
                and (override.task_id in (None, task.task_id))
                and self.targets(pending, run, dag)
            ):
                total += override.delay
        return total

    @staticmethod
    def targets(pending: PendingOverride, run: DagRun, dag: DagState) -> bool:
        override = pending.action
        if override.run.next:
            nth = first_created_at_or_after(dag, override.at)
            return nth is not None and dag.runs[nth] is run
        return select_run(dag, override.run, override.at) is run

    def unmatched(self) -> list[act.Override]:
        return [p.action for p in self.entries if not p.matched]
