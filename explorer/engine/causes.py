"""Why an asset has no new event: what its producers did since the consumer's last run.

A consumer that waits on an asset is silent, never in error, when the run that
should have written the asset failed: Airflow writes an event only when a task
that lists the asset as an outlet succeeds (AS-1). The silence is explained by
walking back from the waiting consumer to each producer of the missing asset
and saying what it did since the consumer last ran: a run that failed (which
run, which task, why), a run still going, a pause, a file not deployed or
removed, a next run still ahead, or no producer at all. The other way round, a
run that consumed the event of a run that succeeded without writing data
(``success_no_data``) is traced to that run too: the event exists, the data
does not, and Airflow cannot tell (AS-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from explorer.engine.assets.condition import AssetKey
from explorer.engine.tz import iso

if TYPE_CHECKING:
    from explorer.engine.dagstate import DagState
    from explorer.engine.runs import DagRun, TaskInstance
    from explorer.engine.simulation import Simulation

__all__ = [
    "Cause",
    "consumed_without_data",
    "failed_producer_runs",
    "failed_task",
    "missing_event_causes",
    "run_failure",
]


@dataclass(frozen=True, slots=True)
class Cause:
    """One link of a cause chain, with the fields a report or a CI job reads.

    ``kind``: ``failed_run``, ``running``, ``paused``, ``not_deployed``, ``removed``,
    ``next_run``, ``no_producer`` or ``no_data``; ``at``: when it happened (a failed
    run's end, a pause, the next run's run_after)."""

    kind: str
    dag_id: str | None
    sentence: str
    rule: str
    run_id: str | None = None
    task_id: str | None = None
    at: datetime | None = None
    logical_date: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "dag_id": self.dag_id,
            "run_id": self.run_id,
            "task_id": self.task_id,
            "at": iso(self.at),
            "logical_date": iso(self.logical_date),
            "sentence": self.sentence,
            "rule": self.rule,
        }


def _writes(dag: DagState, key: AssetKey) -> str | None:
    """The first task of ``dag`` that lists ``key`` as an outlet, or None."""
    for task in dag.spec.tasks:
        if any(isinstance(outlet, AssetKey) and outlet == key for outlet in task.outlets):
            return task.task_id
    return None


def _recent_runs(dag: DagState, since: datetime) -> list[DagRun]:
    """The runs of ``dag`` created, or still going, at or after ``since``, newest first."""
    runs = dag.runs
    found: list[DagRun] = []
    for nth in range(len(runs) - 1, -1, -1):
        run = runs[nth]
        ended = run.end_date
        if run.created_at < since and ended is not None and ended < since:
            break
        found.append(run)
    return found


def possessive(name: str) -> str:
    """``ingest_orders'`` and ``produce_sales'`` but ``daily_feed's``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _day(run: DagRun) -> str:
    """How a person names a run: by its logical date, else by its run_after."""
    return iso(run.logical_date or run.run_after) or run.run_id


def failed_task(sim: Simulation, run: DagRun, prefer: str | None = None) -> TaskInstance | None:
    """The task that failed ``run`` (``prefer``'s own failure first)."""
    failed = [t for t in run.tasks if t.state == "failed"]
    for task in failed:
        if task.task_id == prefer:
            return task
    return failed[0] if failed else None


def _why_failed(sim: Simulation, run: DagRun, task: TaskInstance) -> str:
    """Why ``task`` of ``run`` failed: the script's override, or its declared outcome."""
    for pending in sim.state.overrides.of_dag(run.dag_id):
        action = pending.action
        if (
            pending.matched
            and action.outcome == "failed"
            and action.task_id in (None, task.task_id)
        ):
            return "the script's override made it fail"
    spec = next((t for t in sim.dags[run.dag_id].spec.tasks if t.task_id == task.task_id), None)
    if spec is not None and spec.failure_rate > 0:
        return f"a random failure (failure_rate {spec.failure_rate:g})"
    return "its declared outcome is failed"


def run_failure(sim: Simulation, run: DagRun) -> Cause | None:
    """Why ``run`` failed (a failed run's own explanation), or None when it did not."""
    if run.state != "failed":
        return None
    task = failed_task(sim, run)
    if task is None:
        sentence = f"run {run.run_id} of {_day(run)} was set to failed by the script"
        return Cause("failed_run", run.dag_id, sentence, "SCH-5", run.run_id, None, run.end_date,
                     run.logical_date)  # fmt: skip
    sentence = (
        f"run {run.run_id} of {_day(run)} failed at {iso(run.end_date)}: task "
        f"{task.task_id} failed ({_why_failed(sim, run, task)})"
    )
    return Cause(
        "failed_run", run.dag_id, sentence, "AS-1", run.run_id, task.task_id, run.end_date,
        run.logical_date,
    )  # fmt: skip


def _producer_cause(sim: Simulation, dag: DagState, key: AssetKey, since: datetime) -> Cause:
    """What producer ``dag`` did about ``key`` since ``since`` (see the module docstring)."""
    task_id = _writes(dag, key)
    dag_id = dag.dag_id
    if not dag.deployed:
        return Cause("not_deployed", dag_id, f"{dag_id} is not deployed yet", "SCH-4")
    if dag.is_stale:
        return Cause("removed", dag_id, f"{possessive(dag_id)} DAG file was removed", "DEP-6")
    for run in _recent_runs(dag, since):
        if run.state == "failed":
            task = failed_task(sim, run, prefer=task_id)
            if task is not None and task.task_id == task_id:
                why = _why_failed(sim, run, task)
                sentence = (
                    f"{possessive(dag_id)} run {run.run_id} of {_day(run)} failed at "
                    f"{iso(run.end_date)}: task {task_id} failed ({why}), so no event was "
                    "emitted"
                )
                return Cause(
                    "failed_run", dag_id, sentence, "AS-1", run.run_id, task_id, run.end_date,
                    run.logical_date,
                )  # fmt: skip
        if run.state in ("queued", "running"):
            sentence = (
                f"{possessive(dag_id)} run {run.run_id} of {_day(run)} is {run.state}: the event "
                f"comes "
                f"when task {task_id} succeeds"
            )
            return Cause(
                "running", dag_id, sentence, "AS-1", run.run_id, task_id, run.start_date,
                run.logical_date,
            )  # fmt: skip
    if dag.is_paused:
        return Cause("paused", dag_id, f"{dag_id} is paused: it makes no run", "SCH-6")
    info = dag.next_run
    if info is not None:
        sentence = f"{possessive(dag_id)} next run is due at {iso(info.run_after)} (run_after)"
        return Cause("next_run", dag_id, sentence, "SCH-2", at=info.run_after,
                     logical_date=info.logical_date)  # fmt: skip
    return Cause("next_run", dag_id, f"{dag_id} has no further scheduled run", "SCH-8")


def missing_event_causes(sim: Simulation, key: AssetKey, since: datetime) -> list[Cause]:
    """For an asset a consumer waits on: what each producer did since ``since`` (the
    consumer's last run), or that no DAG produces it."""
    producers = [d for d in sim.dags.values() if _writes(d, key) is not None]
    if not producers:
        sentence = (
            f"no DAG lists {key.name} as an outlet: only an event from the REST API or a "
            "watcher can update it"
        )
        return [Cause("no_producer", None, sentence, "AS-1")]
    return [_producer_cause(sim, dag, key, since) for dag in producers]


def failed_producer_runs(
    sim: Simulation, key: AssetKey, since: datetime, until: datetime
) -> list[Cause]:
    """The producer runs of ``key`` that ended failed between ``since`` and ``until`` with
    the task that writes it failed: each one an event that never came (AS-1)."""
    out: list[Cause] = []
    for dag in sim.dags.values():
        task_id = _writes(dag, key)
        if task_id is None:
            continue
        for run in reversed(_recent_runs(dag, since)):
            ended = run.end_date
            if run.state != "failed" or ended is None or not since <= ended <= until:
                continue
            task = failed_task(sim, run, prefer=task_id)
            if task is None or task.task_id != task_id:
                continue
            sentence = (
                f"{possessive(dag.dag_id)} run of {_day(run)} failed at {iso(ended)} "
                f"(task {task_id}: {_why_failed(sim, run, task)}), so no {key.name} event"
            )
            out.append(
                Cause(
                    "failed_run",
                    dag.dag_id,
                    sentence,
                    "AS-1",
                    run.run_id,
                    task_id,
                    ended,
                    run.logical_date,
                )
            )
    return out


def consumed_without_data(sim: Simulation, run: DagRun) -> list[Cause]:
    """The events ``run`` consumed whose producing run wrote no data (AS-1)."""
    events = sim.state.assets.events
    out: list[Cause] = []
    for event_id in run.consumed_asset_events:
        event = events[event_id]
        if event.wrote_data:
            continue
        source = event.source
        if source.kind != "task" or source.dag_id is None or source.run_nth is None:
            continue
        producer_run = sim.dags[source.dag_id].runs[source.run_nth]
        sentence = (
            f"ran on the event of {possessive(source.dag_id)} run of {_day(producer_run)} (task "
            f"{source.task_id}), which wrote no data: Airflow cannot tell"
        )
        out.append(
            Cause(
                "no_data",
                source.dag_id,
                sentence,
                "AS-1",
                producer_run.run_id,
                source.task_id,
                event.timestamp,
                producer_run.logical_date,
            )
        )
    return out
