"""Replay a ``scheduler_traces`` case through the engine and write its trace (README section 7)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from explorer.engine import actions as act
from explorer.engine.assets.condition import AliasNode, AssetKey, AssetNode, RefNode, walk
from explorer.engine.assets.spec import condition_from_spec, is_condition_spec
from explorer.engine.assets.store import AssetEvent, EventSource
from explorer.engine.dag import AliasEmission, DagSpec, TaskSpec
from explorer.engine.partitions import build_mapper
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.engine.ticks import ExplicitCadence, NoCadence
from explorer.engine.timetables import (
    AssetOrTimeSchedule,
    AssetTriggeredTimetable,
    Timetable,
    timetable_from_schedule,
    timetable_from_spec,
)
from explorer.engine.timetables.partitioned import PartitionedAssetTimetable
from tests.conformance.vectors import _args, duration, fmt, instant


def _timetable(schedule: Any, tz: str) -> Timetable:
    if is_condition_spec(schedule):
        return AssetTriggeredTimetable(condition_from_spec(schedule))
    if isinstance(schedule, dict) and schedule.get("timetable") == "AssetOrTimeSchedule":
        args = schedule["args"]
        return AssetOrTimeSchedule(
            timetable=_timetable(args["timetable"], tz),
            assets=condition_from_spec(args["assets"]),
        )
    if isinstance(schedule, dict) and schedule.get("timetable") == "PartitionedAssetTimetable":
        args = schedule["args"]
        default = args.get("default_partition_mapper")
        return PartitionedAssetTimetable(
            assets=condition_from_spec(args["assets"]),
            partition_mapper_config=[
                (_node(entry["asset"]), build_mapper(entry["mapper"]))
                for entry in args.get("partition_mapper_config") or []
            ],
            default_partition_mapper=None if default is None else build_mapper(default),
        )
    if isinstance(schedule, dict) and "timetable" in schedule:
        args = _args(schedule.get("args", {}))
        return timetable_from_spec(schedule["timetable"], args, dag_timezone=tz)
    if isinstance(schedule, dict):
        schedule = duration(schedule)
    return timetable_from_schedule(schedule, dag_timezone=tz)


def _node(node: dict[str, Any]) -> Any:
    cond = condition_from_spec(node)
    assert isinstance(cond, AssetNode | RefNode | AliasNode)
    return cond


def _key(node: dict[str, Any]) -> AssetKey:
    return AssetKey(node["name"], node["uri"])


def _outlet(node: dict[str, Any]) -> AssetKey | RefNode | AliasNode:
    if "asset" in node:
        return _key(node["asset"])
    if "asset_ref" in node:
        return RefNode(**node["asset_ref"])
    return AliasNode(node["alias"]["name"])


def _extra(value: dict[str, Any] | None) -> tuple[tuple[str, object], ...]:
    return tuple(sorted((value or {}).items()))


def _tasks(dag: dict[str, Any], rules: dict[tuple[str, str], Any]) -> tuple[TaskSpec, ...]:
    tasks = []
    for task in dag["tasks"]:
        rule = rules.get((dag["dag_id"], task["task_id"]))
        outlets = tuple(_outlet(o) for o in task["outlets"])
        if rule is None:
            tasks.append(TaskSpec(task["task_id"], hold=True, outlets=outlets))
            continue
        outcome = "failed" if rule["outcome"] == "failed" else "success"
        after = timedelta(seconds=rule["after_seconds"])
        # README 7.4: the outcome is due ``after_seconds`` after the run became running,
        # even when its logical date is still in the future (SEMANTICS 11).
        tasks.append(
            TaskSpec(task["task_id"], after, outcome, outlets=outlets, starts_with_run=True)
        )
    return tuple(tasks)


def _series(step: dict[str, Any]) -> list[Any]:
    """The ticks of a ``ticks`` series: ``from``, ``from + every_seconds``, ... <= ``to``."""
    out = []
    t, end = instant(step["from"]), instant(step["to"])
    while t <= end:
        out.append(t)
        t += timedelta(seconds=step["every_seconds"])
    return out


def _step(step: dict[str, Any]) -> act.Action:
    do = step["do"]
    at = instant(step["at"])
    if do == "tick":
        # README 7.3: a ``tick`` step is a loop at its place among the instant's steps,
        # and two of them at one instant are two loops (SEMANTICS 11, script reading).
        return act.Tick(at=at)
    if do == "parse":
        ids = step.get("dag_ids")
        return act.Deploy(at=at, dag_ids=tuple(ids) if ids else None)
    if do in ("pause", "unpause"):
        cls = act.Pause if do == "pause" else act.Unpause
        return cls(at=at, dag_id=step["dag_id"])
    if do == "trigger":
        return act.Trigger(
            at=at,
            dag_id=step["dag_id"],
            logical_date=instant(step.get("logical_date")),
            partition_key=step.get("partition_key"),
        )
    if do in ("task_success", "task_failed"):
        keys = step.get("partition_keys")
        aliases = step.get("alias_events")
        return act.TaskFinish(
            at=at,
            run=act.RunSelector(step["dag_id"], nth=step["run"]["nth"]),
            task_id=step["task_id"],
            outcome="success" if do == "task_success" else "failed",
            partition_keys=None if keys is None else tuple(keys),
            alias_events=None
            if aliases is None
            else tuple(
                AliasEmission(a["alias"], _key(a["asset"]), _extra(a.get("extra"))) for a in aliases
            ),
        )
    if do in ("run_success", "run_failed"):
        return act.RunOutcome(
            at=at,
            run=act.RunSelector(step["dag_id"], nth=step["run"]["nth"]),
            outcome="success" if do == "run_success" else "failed",
        )
    if do == "asset_event":
        return act.ExternalEvent(
            at=at,
            asset=_key(step["asset"]),
            partition_key=step.get("partition_key"),
            extra=_extra(step.get("extra")),
        )
    raise AssertionError(f"step {do!r} is not translated yet")


def build(case: dict[str, Any]) -> Simulation:
    rules = {(r["dag_id"], r["task_id"]): r for r in case.get("auto_tasks", [])}
    dags = [
        DagSpec(
            dag_id=dag["dag_id"],
            timetable=_timetable(dag["schedule"], dag["timezone"]),
            start_date=instant(dag["start_date"]),
            end_date=instant(dag["end_date"]),
            timezone=dag["timezone"],
            catchup=dag["catchup"],
            max_active_runs=dag["max_active_runs"],
            is_paused_upon_creation=dag["paused_at_deploy"],
            tasks=_tasks(dag, rules),
        )
        for dag in case["dags"]
    ]
    first = min(instant(s.get("at") or s["from"]) for s in case["script"])
    script: list[act.Action] = [
        act.Override(
            at=first,
            run=act.RunSelector(rule["dag_id"], nth=nth),
            task_id=rule["task_id"],
            hold=True,
        )
        for rule in case.get("auto_tasks", [])
        for nth in rule.get("skip_nth", [])
    ]
    stepped = {instant(s["at"]) for s in case["script"] if s["do"] == "tick"}
    series: set[Any] = set()
    for step in case["script"]:
        if step["do"] == "ticks":
            # A series tick at an instant that has a ``tick`` step, or a tick of another
            # series, is not repeated (README 7.3): a set, minus the stepped instants.
            series.update(t for t in _series(step) if t not in stepped)
            continue
        script.append(_step(step))
    return Simulation(
        dags,
        start=first,
        script=script,
        ticks=ExplicitCadence(series),
        parses=NoCadence(),
        deploy_at_start=False,
    )


def _source(source: EventSource) -> dict[str, Any]:
    if source.kind == "task":
        return {
            "kind": "task",
            "dag_id": source.dag_id,
            "task_id": source.task_id,
            "run_nth": source.run_nth,
        }
    return {"kind": source.kind}


def _event(event: AssetEvent) -> dict[str, Any]:
    return {
        "asset": {"name": event.asset.name, "uri": event.asset.uri},
        "timestamp": fmt(event.timestamp),
        "partition_key": event.partition_key,
        "source": _source(event.source),
        "via_aliases": list(event.via_aliases),
        "extra": event.extra,
    }


def _event_order(event: AssetEvent) -> tuple[Any, ...]:
    """README 7.6: timestamp, asset name, uri, partition key (null first), aliases, source."""
    return (
        event.timestamp,
        event.asset.name,
        event.asset.uri,
        event.partition_key is not None,
        event.partition_key or "",
        json.dumps(list(event.via_aliases)),  # compared as JSON text: ["x"] before []
        json.dumps(_source(event.source), sort_keys=True),
    )


def _run(run: DagRun, index: dict[int, int], events: list[AssetEvent]) -> dict[str, Any]:
    random = 8 if run.run_id.startswith("asset_triggered__") or run.run_id.count("__") >= 2 else 0
    interval = run.data_interval
    consumed = [
        {
            "event": index[i],
            "asset": {"name": events[i].asset.name, "uri": events[i].asset.uri},
            "timestamp": fmt(events[i].timestamp),
            "partition_key": events[i].partition_key,
        }
        for i in run.consumed_asset_events
    ]
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
        "consumed_asset_events": sorted(consumed, key=lambda e: e["event"]),
    }


def _dag(dag: Any) -> dict[str, Any]:
    info = dag.next_run
    interval = info.data_interval if info else None
    return {
        "is_paused": dag.is_paused,
        "next_dagrun_logical_date": fmt(info.logical_date if info else None),
        "next_dagrun_data_interval_start": fmt(interval.start if interval else None),
        "next_dagrun_data_interval_end": fmt(interval.end if interval else None),
        "next_dagrun_run_after": fmt(info.run_after if info else None),
        "next_dagrun_partition_key": info.partition_key if info else None,
        "next_dagrun_partition_date": fmt(info.partition_date if info else None),
        "exceeds_max_active_runs": dag.exceeds_max_active_runs,
    }


def trace(sim: Simulation, final_time: Any) -> dict[str, Any]:
    runs = sorted(sim.runs, key=lambda r: (r.created_at, r.dag_id, r.nth))
    events = sim.state.assets.events
    ordered = sorted(events, key=_event_order)
    index = {event.id: i for i, event in enumerate(ordered)}
    queued = sorted(
        (
            {
                "dag_id": dag_id,
                "asset": {"name": key.name, "uri": key.uri},
                "created_at": fmt(created),
            }
            for dag_id, dag in sim.dags.items()
            for key, created in dag.adrq.items()
        ),
        key=lambda q: (q["dag_id"], q["asset"]["name"], q["asset"]["uri"]),
    )
    return {
        "final_time": fmt(final_time),
        "runs": [_run(r, index, events) for r in runs],
        "asset_events": [_event(e) for e in ordered],
        "audit_log": _audit(sim),
        "at_end": {
            "dags": {dag_id: _dag(dag) for dag_id, dag in sim.dags.items()},
            "queued_asset_events": queued,
            "partition_requests": _requests(sim, index),
        },
    }


def _audit(sim: Simulation) -> list[dict[str, Any]]:
    out = []
    for entry in sim.state.audit_log:
        row: dict[str, Any] = {
            "at": fmt(entry["at"]),
            "event": entry["event"],
            "dag_ids": entry["dag_ids"],
            "source": _source(entry["source"]),
        }
        if "asset" in entry:
            row["asset"] = {"name": entry["asset"].name, "uri": entry["asset"].uri}
            row["partition_key"] = entry["partition_key"]
        if "produced_keys" in entry:
            row["produced_keys"] = entry["produced_keys"]
        out.append(row)
    return sorted(out, key=lambda r: (r["at"], r["event"]))


def _requests(sim: Simulation, index: dict[int, int]) -> list[dict[str, Any]]:
    from explorer.engine.assets.partitioned import member_status, request_ready

    out = []
    for request in sim.state.partition_requests:
        row: dict[str, Any] = {
            "dag_id": request.dag_id,
            "partition_key": request.partition_key,
            "created_at": fmt(request.created_at),
            "carried_partition_date": fmt(request.carried_partition_date),
            "run": None
            if request.run is None
            else {"dag_id": request.run.dag_id, "nth": request.run.nth},
            "received": [
                {
                    "asset": {"name": log.asset.name, "uri": log.asset.uri},
                    "source_partition_key": log.source_partition_key,
                    "event": index[log.event_id],
                }
                for log in sorted(request.logs, key=lambda log: index[log.event_id])
            ],  # README 7.6: in event order
        }
        if request.run is None:
            table = sim.dags[request.dag_id].spec.timetable
            assert table.asset_condition is not None
            keys = sorted(
                dict.fromkeys(
                    n.key for n in walk(table.asset_condition) if isinstance(n, AssetNode)
                ),
                key=lambda k: k.name,
            )  # README 7.6: members by asset name
            row["members"] = [
                {k: v for k, v in member_status(sim, request, key).items() if k != "unreachable"}
                for key in keys
            ]
            row["ready"] = request_ready(sim, request)
        out.append(row)
    return sorted(out, key=lambda r: (r["dag_id"], r["created_at"], r["partition_key"]))


def last_instant(case: dict[str, Any]) -> Any:
    """The instant of the last step executed (README 7.6 ``final_time``): for a ``ticks``
    series its last tick, which is its ``to`` only when ``to`` lies on its grid."""
    return max(_series(s)[-1] if s["do"] == "ticks" else instant(s["at"]) for s in case["script"])
