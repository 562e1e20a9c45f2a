"""When Airflow refreshes a DAG's max_active_runs flag, and when it does not (SCH-5).

``DagModel.exceeds_max_non_backfill`` holds back scheduled runs (and asset
runs) while set. It is refreshed when a run is created, when a run ends in the
scheduler's examination of running runs, and at every parse; two exceptions
were found by random scenarios:

* RND-4: the sweep that finishes running runs of *paused* DAGs updates the
  run's state only, so a flag set before the pause stays set after unpause
  until the next parse (:func:`refreshes_on_finish`).
* RND-7: a parse of a DAG that cannot be scheduled (``schedule=None``,
  ``PartitionedAtRuntime``) counts zero active runs, so it clears the flag
  whatever runs are active (:func:`parse_flag`).
"""

from __future__ import annotations

from explorer.engine.dagstate import DagState

__all__ = ["parse_flag", "refreshes_on_finish"]


def parse_flag(dag: DagState, exceeds: bool) -> bool:
    """The flag a parse leaves (RND-7): ``exceeds`` unless the DAG cannot be scheduled."""
    table = dag.spec.timetable
    if not table.can_be_scheduled and not table.asset_triggered:
        return False
    return exceeds


def refreshes_on_finish(dag: DagState) -> bool:
    """Does a run of ``dag`` ending now refresh the flag? Not from the paused sweep (RND-4)."""
    return not dag.is_paused
