"""Replay a ``deploy_traces`` case (README section 7.9): ``traces.py`` plus the deploy steps.

Adds to the scheduler-trace replay: DAG files whose ``catchup`` /
``max_active_runs`` are ``null`` (the options decide, DEP-7) and whose plain
schedules the options turn into a timetable at each parse, the script steps
``deploy``, ``remove``, ``refresh`` and ``config``, and the trace fields
``dag_states``, ``dropped_partition_requests`` and ``at_end.dags[].is_stale``
/ ``timetable``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec
from explorer.engine.dagfile import BundleRefresh, DagFile, DeployDag, RemoveDag, SetOption
from explorer.engine.dagstate import DagState
from explorer.engine.simulation import Change, Simulation
from explorer.engine.ticks import ExplicitCadence, NoCadence
from tests.conformance import traces
from tests.conformance.vectors import fmt, instant


def dag_file(dag: dict[str, Any], rules: dict[tuple[str, str], Any]) -> DagFile:
    """A trace DAG as its file: plain schedules and ``null`` fields left to the options."""
    schedule = dag["schedule"]
    plain: Any = None
    if isinstance(schedule, str) and schedule not in ("@once", "@continuous"):
        plain = schedule
    elif isinstance(schedule, dict) and set(schedule) == {"timedelta_seconds"}:
        plain = timedelta(seconds=schedule["timedelta_seconds"])
    spec = DagSpec(
        dag_id=dag["dag_id"],
        timetable=traces._timetable(schedule, dag["timezone"]),
        start_date=instant(dag["start_date"]),
        end_date=instant(dag["end_date"]),
        timezone=dag["timezone"],
        catchup=False,
        max_active_runs=dag["max_active_runs"] or 16,
        is_paused_upon_creation=dag["paused_at_deploy"],
        tasks=traces._tasks(dag, rules),
    )
    file = DagFile(spec, plain, dag["catchup"], dag["max_active_runs"])
    # Validate what the file says (catchup=True needs a start_date) as DagSpec would.
    if dag["catchup"] is not None:
        replace(spec, catchup=dag["catchup"])
    return file


def _step(step: dict[str, Any], rules: dict[tuple[str, str], Any]) -> list[act.Action]:
    do = step["do"]
    at = instant(step["at"]) if "at" in step else None
    if do == "deploy":
        assert at is not None
        return [DeployDag(at, dag_file(step["dag"], rules))]
    if do == "remove":
        assert at is not None
        # README 7.9: a trace's remove includes the bundle refresh that notices it.
        return [RemoveDag(at, step["dag_id"]), BundleRefresh(at)]
    if do == "refresh":
        assert at is not None
        return [BundleRefresh(at)]
    if do == "config":
        assert at is not None
        return [SetOption(at, step["section"], step["key"], step["value"])]
    action = traces._step(step)
    return [] if action is None else [action]


def build(case: dict[str, Any]) -> tuple[Simulation, list[dict[str, Any]]]:
    """The simulation of ``case`` and the list its ``dag_states`` are recorded into."""
    rules = {(r["dag_id"], r["task_id"]): r for r in case.get("auto_tasks", [])}
    files = [dag_file(dag, rules) for dag in case["dags"]]
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
    ticks = []
    for step in case["script"]:
        if step["do"] == "ticks":
            t, end = instant(step["from"]), instant(step["to"])
            while t <= end:
                ticks.append(t)
                t += timedelta(seconds=step["every_seconds"])
            continue
        if step["do"] == "tick":
            ticks.append(instant(step["at"]))
        script.extend(_step(step, rules))
    sim = Simulation(
        files,
        start=first,
        script=script,
        ticks=ExplicitCadence(ticks),
        parses=NoCadence(),
        deploy_at_start=False,
        refresh_grid=False,
    )
    states: list[dict[str, Any]] = []

    def record(change: Change) -> None:
        if change.kind == "dag_parsed" and change.dag_id is not None:
            states.append(_dag_state(sim, change.dag_id, change.detail))
        elif change.kind == "dag_stale" and change.dag_id is not None:
            states.append(_dag_state(sim, change.dag_id, "remove"))

    sim.subscribe(record)
    return sim, states


def _dag(dag: DagState) -> dict[str, Any]:
    out = traces._dag(dag)
    fields = list(out.items())
    fields.insert(1, ("is_stale", dag.is_stale))
    fields.append(("timetable", dag.spec.timetable.name))
    return dict(fields)


def _dag_state(sim: Simulation, dag_id: str, do: str) -> dict[str, Any]:
    dag = sim.dags[dag_id]
    queued = sorted(
        (
            {"asset": {"name": key.name, "uri": key.uri}, "created_at": fmt(created)}
            for key, created in dag.adrq.items()
        ),
        key=lambda q: (q["asset"]["name"], q["asset"]["uri"]),
    )
    return {
        "at": fmt(sim.now),
        "do": do,
        "dag_id": dag_id,
        **_dag(dag),
        "queued_asset_events": queued,
    }


def trace(sim: Simulation, final_time: Any, states: list[dict[str, Any]]) -> dict[str, Any]:
    out = traces.trace(sim, final_time)
    events = sim.state.assets.events
    ordered = sorted(events, key=traces._event_order)
    index = {event.id: i for i, event in enumerate(ordered)}
    out["at_end"]["dags"] = {dag_id: _dag(dag) for dag_id, dag in sim.dags.items() if dag.deployed}
    out["dag_states"] = states
    dropped = [
        {
            "dag_id": request.dag_id,
            "partition_key": request.partition_key,
            "created_at": fmt(request.created_at),
            "dropped_at": fmt(at),
            "received": [
                {
                    "asset": {"name": log.asset.name, "uri": log.asset.uri},
                    "source_partition_key": log.source_partition_key,
                    "event": index[log.event_id],
                }
                for log in request.logs
            ],
        }
        for request, at in sim.state.deployment.dropped_requests
    ]
    out["dropped_partition_requests"] = sorted(
        dropped, key=lambda r: (r["dropped_at"], r["dag_id"], r["created_at"], r["partition_key"])
    )
    return out
