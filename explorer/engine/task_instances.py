"""Which tasks of a new run get a task instance (RND-1).

``DagRun.verify_integrity`` creates a task instance for a task only when the
run's logical date lies within the task's ``start_date`` .. ``end_date`` (the
DAG's, unless the task sets its own; the simulator's tasks never do). A run
whose logical date is outside the DAG's dates therefore has no task instances
at all: it goes queued -> running -> success in the first loop that examines
it and emits nothing. That is a classic surprise (a manual run with an early
logical date, a ``CronTriggerTimetable(interval=...)`` run whose logical date
``run_after - interval`` falls before ``start_date``), so explain and the
timeline say so (:func:`no_task_instances_reason`).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from explorer.engine.dag import DagSpec
from explorer.engine.runs import DagRun, RunType
from explorer.engine.tz import epoch_us

if TYPE_CHECKING:
    from explorer.engine.dagstate import DagState

__all__ = ["has_task_instances", "no_task_instances_reason", "runs_without_task_instances"]


def has_task_instances(spec: DagSpec, logical_date: datetime | None, run_type: RunType) -> bool:
    """RND-1: the task filter of ``verify_integrity``; backfill runs and runs without a
    logical date always get their tasks."""
    if run_type == "backfill" or logical_date is None:
        return True
    if spec.start_date is not None and logical_date < spec.start_date:
        return False
    return spec.end_date is None or logical_date <= spec.end_date


def no_task_instances_reason(spec: DagSpec, run: DagRun) -> str | None:
    """Why ``run`` has no task instances (RND-1), or None when it has them."""
    if has_task_instances(spec, run.logical_date, run.run_type) or not spec.tasks:
        return None
    assert run.logical_date is not None
    if spec.start_date is not None and run.logical_date < spec.start_date:
        return "no task instances: logical date before start_date (RND-1)"
    return "no task instances: logical date after end_date (RND-1)"


def runs_without_task_instances(dag: DagState) -> list[DagRun]:
    """The DAG's runs that got no task instances (RND-1), in creation order.

    Read from the logical-date index (runs by date), not by walking every run.
    """
    spec = dag.spec
    if not spec.tasks:
        return []
    found = dag.logical_dates.nths_outside(
        None if spec.start_date is None else epoch_us(spec.start_date),
        None if spec.end_date is None else epoch_us(spec.end_date),
    )
    runs = [dag.runs[nth] for nth in sorted(found)]
    return [run for run in runs if run.run_type != "backfill"]
