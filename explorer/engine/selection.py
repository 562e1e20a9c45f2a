"""Which run a script action names (``RunSelector``), looked up by index.

Shared by the actions that name a run (``TaskFinish``, ``RunOutcome``) and by the
overrides (:mod:`explorer.engine.overrides`): one reading of a selector for all.
"""

from __future__ import annotations

from datetime import datetime

from explorer.engine import actions as act
from explorer.engine.dagstate import DagState
from explorer.engine.runs import DagRun

__all__ = ["first_created_at_or_after", "select_run"]


def select_run(dag: DagState, selector: act.RunSelector, at: datetime) -> DagRun | None:
    """The first run, in creation order, that any of the selector's criteria names.

    Looked up by index (``nth``, logical date, the first ``created_at`` at or after
    ``at``) rather than by reading every run back from the run log.
    """
    found: list[int] = []
    if selector.nth is not None and 0 <= selector.nth < len(dag.runs):
        found.append(selector.nth)
    if selector.logical_date is not None:
        nth = dag.logical_dates.get(selector.logical_date)
        if nth is not None:
            found.append(nth)
    if selector.partition_key is not None:
        nth = next(
            (n for n, key in enumerate(dag.runs.partition_keys()) if key == selector.partition_key),
            None,
        )
        if nth is not None:
            found.append(nth)
    if selector.next:
        nth = first_created_at_or_after(dag, at)
        if nth is not None:
            found.append(nth)
    return dag.runs[min(found)] if found else None


def first_created_at_or_after(dag: DagState, at: datetime) -> int | None:
    return next(
        (n for n, t in enumerate(dag.runs.instants("created_at")) if t is not None and t >= at),
        None,
    )
