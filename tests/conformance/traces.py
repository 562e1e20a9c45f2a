"""Replay a ``scheduler_traces`` case through the engine and write its trace (README section 7)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.engine.ticks import ExplicitCadence, NoCadence
from explorer.engine.timetables import Timetable, timetable_from_schedule, timetable_from_spec
from tests.conformance.vectors import _args, duration, fmt, instant

ASSET_KEYS = {"asset", "asset_ref", "alias", "all", "any"}
ASSET_TIMETABLES = {"AssetOrTimeSchedule", "PartitionedAssetTimetable", "PartitionedAtRuntime"}


def needs_assets(case: dict[str, Any]) -> bool:
    """True when the case uses a feature of the asset or partition issues."""
    for dag in case["dags"]:
        schedule = dag["schedule"]
        if isinstance(schedule, list):
            return True
        if isinstance(schedule, dict) and (ASSET_KEYS & set(schedule)):
            return True
        if isinstance(schedule, dict) and schedule.get("timetable") in ASSET_TIMETABLES:
            return True
        if any(task["outlets"] for task in dag["tasks"]):
            return True
    return any(step["do"] == "asset_event" for step in case["script"])


def _timetable(dag: dict[str, Any]) -> Timetable:
    schedule = dag["schedule"]
    tz = dag["timezone"]
    if isinstance(schedule, dict) and "timetable" in schedule:
        return timetable_from_spec(
            schedule["timetable"], _args(schedule.get("args", {})), dag_timezone=tz
        )
    if isinstance(schedule, dict):
        schedule = duration(schedule)
    return timetable_from_schedule(schedule, dag_timezone=tz)


def build(case: dict[str, Any]) -> Simulation:
    rules = {(r["dag_id"], r["task_id"]): r for r in case.get("auto_tasks", [])}
    dags = []
    script: list[act.Action] = []
    for dag in case["dags"]:
        tasks = []
        for task in dag["tasks"]:
            rule = rules.get((dag["dag_id"], task["task_id"]))
            if rule is None:
                tasks.append(TaskSpec(task["task_id"], hold=True))
                continue
            outcome = "failed" if rule["outcome"] == "failed" else "success"
            tasks.append(
                TaskSpec(task["task_id"], timedelta(seconds=rule["after_seconds"]), outcome)
            )
        dags.append(
            DagSpec(
                dag_id=dag["dag_id"],
                timetable=_timetable(dag),
                start_date=instant(dag["start_date"]),
                end_date=instant(dag["end_date"]),
                timezone=dag["timezone"],
                catchup=dag["catchup"],
                max_active_runs=dag["max_active_runs"],
                is_paused_upon_creation=dag["paused_at_deploy"],
                tasks=tuple(tasks),
            )
        )
    first = min(instant(s.get("at") or s["from"]) for s in case["script"])
    for rule in case.get("auto_tasks", []):
        for nth in rule.get("skip_nth", []):
            script.append(
                act.Override(
                    at=first,
                    run=act.RunSelector(rule["dag_id"], nth=nth),
                    task_id=rule["task_id"],
                    hold=True,
                )
            )
    ticks = []
    for step in case["script"]:
        do = step["do"]
        if do == "ticks":
            t, end = instant(step["from"]), instant(step["to"])
            while t <= end:
                ticks.append(t)
                t += timedelta(seconds=step["every_seconds"])
            continue
        at = instant(step["at"])
        if do == "tick":
            ticks.append(at)
        elif do == "parse":
            ids = step.get("dag_ids")
            script.append(act.Deploy(at=at, dag_ids=tuple(ids) if ids else None))
        elif do in ("pause", "unpause"):
            cls = act.Pause if do == "pause" else act.Unpause
            script.append(cls(at=at, dag_id=step["dag_id"]))
        elif do == "trigger":
            script.append(
                act.Trigger(
                    at=at,
                    dag_id=step["dag_id"],
                    logical_date=instant(step.get("logical_date")),
                    partition_key=step.get("partition_key"),
                )
            )
        elif do in ("task_success", "task_failed"):
            script.append(
                act.TaskFinish(
                    at=at,
                    run=act.RunSelector(step["dag_id"], nth=step["run"]["nth"]),
                    task_id=step["task_id"],
                    outcome="success" if do == "task_success" else "failed",
                )
            )
        elif do in ("run_success", "run_failed"):
            script.append(
                act.RunOutcome(
                    at=at,
                    run=act.RunSelector(step["dag_id"], nth=step["run"]["nth"]),
                    outcome="success" if do == "run_success" else "failed",
                )
            )
        else:
            raise AssertionError(f"step {do!r} is not translated yet")
    return Simulation(
        dags,
        start=first,
        script=script,
        ticks=ExplicitCadence(ticks),
        parses=NoCadence(),
        deploy_at_start=False,
    )


def _run(run: DagRun) -> dict[str, Any]:
    random = (
        8 if run.run_id.startswith(("asset_triggered__",)) or (run.run_id.count("__") >= 2) else 0
    )
    interval = run.data_interval
    return {
        "dag_id": run.dag_id,
        "nth": run.nth,
        "run_type": run.run_type,
        "triggered_by": run.triggered_by,
        "run_id_prefix": run.run_id[: len(run.run_id) - random],
        "run_id_random_suffix": random,
        "logical_date": fmt(run.logical_date),
        "data_interval_start": fmt(interval.start if interval else None),
        "data_interval_end": fmt(interval.end if interval else None),
        "run_after": fmt(run.run_after),
        "partition_key": run.partition_key,
        "partition_date": fmt(run.partition_date),
        "created_at": fmt(run.created_at),
        "states": [{"state": s, "at": fmt(at)} for s, at in run.states],
        "consumed_asset_events": [],
    }


def trace(sim: Simulation, final_time: Any) -> dict[str, Any]:
    runs = sorted(sim.runs, key=lambda r: (r.created_at, r.dag_id, r.nth))
    dags = {}
    for dag_id, dag in sim.dags.items():
        info = dag.next_run
        interval = info.data_interval if info else None
        dags[dag_id] = {
            "is_paused": dag.is_paused,
            "next_dagrun_logical_date": fmt(info.logical_date if info else None),
            "next_dagrun_data_interval_start": fmt(interval.start if interval else None),
            "next_dagrun_data_interval_end": fmt(interval.end if interval else None),
            "next_dagrun_run_after": fmt(info.run_after if info else None),
            "next_dagrun_partition_key": info.partition_key if info else None,
            "next_dagrun_partition_date": fmt(info.partition_date if info else None),
            "exceeds_max_active_runs": dag.exceeds_max_active_runs,
        }
    return {
        "final_time": fmt(final_time),
        "runs": [_run(r) for r in runs],
        "asset_events": [],
        "audit_log": [],
        "at_end": {"dags": dags, "queued_asset_events": [], "partition_requests": []},
    }


def last_instant(case: dict[str, Any]) -> Any:
    return max(instant(s.get("at") or s["to"]) for s in case["script"])
