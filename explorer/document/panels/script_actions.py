"""Scenario-model script actions for what a user does to the clock's future. No Qt.

Every injection from the timeline becomes one of these
:mod:`explorer.scenario.model` actions: it is added to the scenario's
script (so a saved file replays it with ``explorer simulate``), and the
session builds the engine action from it through the scenario layer.

Runs are named the way the file format names them: by ``logical_date``
when they have one (stable and readable), otherwise by ``nth`` — the
DAG's n-th run in creation order, which the deterministic engine
reproduces on replay; the next run a DAG's cache promises by its
``logical_date`` or ``partition_key``, else as ``next``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from explorer.scenario.model import (
    AssetEventAction,
    OverrideAction,
    PauseAction,
    RunOutcomeAction,
    RunSelectorModel,
    Scenario,
    TaskOutcome,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
)
from explorer.scenario.values import Duration, Instant

if TYPE_CHECKING:
    from explorer.document.timeline.data import GhostRun
    from explorer.engine.assets.condition import AssetKey
    from explorer.engine.runs import DagRun

__all__ = [
    "external_event",
    "finish_run",
    "finish_task",
    "override",
    "pause",
    "selector_for_ghost",
    "selector_for_run",
    "trigger",
    "unpause",
]


def _instant(value: datetime) -> Instant:
    return Instant.of(value)


def selector_for_run(run: DagRun) -> RunSelectorModel:
    if run.logical_date is not None:
        return RunSelectorModel(run.dag_id, logical_date=_instant(run.logical_date))
    return RunSelectorModel(run.dag_id, nth=run.nth)


def selector_for_ghost(ghost: GhostRun) -> RunSelectorModel:
    if ghost.logical_date is not None:
        return RunSelectorModel(ghost.dag_id, logical_date=_instant(ghost.logical_date))
    if ghost.partition_key is not None:
        return RunSelectorModel(ghost.dag_id, partition_key=ghost.partition_key)
    return RunSelectorModel(ghost.dag_id, next=True)


def finish_run(run: DagRun, at: datetime, outcome: str) -> RunOutcomeAction:
    """``run_failed`` / ``run_success``: every unfinished task of a running run ends at ``at``."""
    assert outcome in ("success", "failed")
    return RunOutcomeAction(_instant(at), selector_for_run(run), outcome)  # type: ignore[arg-type]


def finish_task(run: DagRun, task_id: str, at: datetime, outcome: TaskOutcome) -> TaskOutcomeAction:
    """``task_failed`` / ``task_success`` / ``task_success_no_data`` for a running task."""
    return TaskOutcomeAction(_instant(at), selector_for_run(run), task_id, outcome)


def override(
    selector: RunSelectorModel,
    at: datetime,
    *,
    task_id: str | None = None,
    outcome: TaskOutcome | None = None,
    delay: timedelta | None = None,
    hold: bool = False,
) -> OverrideAction:
    """From ``at`` on, the run's task(s) end with ``outcome``, ``delay`` later, or when told."""
    return OverrideAction(
        _instant(at),
        selector,
        task_id=task_id,
        outcome=outcome,
        delay=None if delay is None else Duration.of(delay),
        hold=hold,
    )


def pause(dag_id: str, at: datetime) -> PauseAction:
    return PauseAction(_instant(at), dag_id)


def unpause(dag_id: str, at: datetime) -> UnpauseAction:
    return UnpauseAction(_instant(at), dag_id)


def trigger(
    dag_id: str,
    at: datetime,
    *,
    logical_date: datetime | None = None,
    partition_key: str | None = None,
) -> TriggerAction:
    """A manual run (``POST /dags/{dag_id}/dagRuns``); no logical date is Airflow's null."""
    return TriggerAction(
        _instant(at),
        dag_id,
        logical_date=None if logical_date is None else _instant(logical_date),
        partition_key=partition_key or None,
    )


def external_event(
    scenario: Scenario, key: AssetKey, at: datetime, *, partition_key: str | None = None
) -> AssetEventAction:
    """``POST /assets/events`` on ``key``: by its declared name when the scenario declares it."""
    declared = next(
        (a.name for a in scenario.assets if a.name == key.name and a.uri in (None, key.uri)),
        None,
    )
    node: dict[str, object] = (
        {"asset": declared}
        if declared is not None
        else {"asset": {"name": key.name, "uri": key.uri}}
    )
    return AssetEventAction(_instant(at), node, partition_key=partition_key or None)  # type: ignore[arg-type]
