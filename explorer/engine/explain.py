"""Why a DAG did or did not get a run at the simulated clock.

Walks the scheduler's own checks in the order Airflow applies them (SCH-2,
SCH-3, SCH-5, SCH-6, SCH-8, SCH-9) and says, for each, whether it allows or
blocks the DAG's next scheduled run. The GUI's explain pane and
``explorer explain`` read the same :class:`Explanation`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from explorer.engine.assets.condition import AssetKey
from explorer.engine.causes import (
    Cause,
    consumed_without_data,
    missing_event_causes,
    run_failure,
)
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.simulation import Simulation
from explorer.engine.task_instances import no_task_instances_reason, runs_without_task_instances
from explorer.engine.tz import iso

__all__ = ["Condition", "Explanation", "explain"]


@dataclass(frozen=True, slots=True)
class Condition:
    """One check: ``ok`` True allows the run, False blocks it, None is information.
    ``causes``: the chain behind it (a missing event's producer run that failed...)."""

    name: str
    ok: bool | None
    detail: str
    rule: str = ""
    causes: tuple[Cause, ...] = ()

    @property
    def cause(self) -> Cause | None:
        """The first cause, the one a person follows first."""
        return self.causes[0] if self.causes else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "detail": self.detail,
            "rule": self.rule,
            "cause": None if self.cause is None else self.cause.to_dict(),
            "causes": [c.to_dict() for c in self.causes],
        }


@dataclass(frozen=True, slots=True)
class Explanation:
    dag_id: str
    at: datetime
    verdict: str
    conditions: list[Condition] = field(default_factory=list)
    #: The question the DAG's state asks ("Why did X fail?", "Why is X waiting?"...).
    question: str = ""

    @property
    def blocked_by(self) -> list[Condition]:
        return [c for c in self.conditions if c.ok is False]

    @property
    def causes(self) -> list[Cause]:
        return [cause for c in self.conditions for cause in c.causes]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dag_id": self.dag_id,
            "at": iso(self.at),
            "question": self.question,
            "verdict": self.verdict,
            "conditions": [c.to_dict() for c in self.conditions],
        }


def _span(delta: timedelta) -> str:
    seconds = int(abs(delta.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{days}d" if days else "",
        f"{hours}h" if hours else "",
        f"{minutes}m" if minutes else "",
        f"{secs}s" if secs and not days else "",
    ]
    return " ".join(p for p in parts if p) or "0s"


def explain(sim: Simulation, dag_id: str) -> Explanation:
    """Explain ``dag_id`` at ``sim.now`` (advance or restore the simulation first): the
    scheduler's checks, what the DAG's last run did, and the question its state asks."""
    found = _explain_checks(sim, dag_id)
    dag = sim.dags[dag_id]
    conditions = [*_last_run(sim, dag), *found.conditions]
    return Explanation(dag_id, found.at, found.verdict, conditions, _question(dag, found.verdict))


def _question(dag: DagState, verdict: str) -> str:
    """The question the DAG's state asks, which its explanation answers."""
    name = dag.dag_id
    if any(r.state == "queued" for r in dag.active):
        return f"Why is {name} queued?"
    last = dag.runs[len(dag.runs) - 1] if len(dag.runs) else None
    if last is not None and last.state == "failed":
        return f"Why did {name} fail?"
    if verdict.startswith("waiting"):
        return f"Why is {name} waiting?"
    if last is not None:
        return f"Why did {name} run?"
    return f"Why didn't {name} run?"


def _last_run(sim: Simulation, dag: DagState) -> list[Condition]:
    """What the DAG's last run did, when that needs explaining: it failed (which task,
    why), or it consumed an event of a run that wrote no data."""
    if not len(dag.runs):
        return []
    last = dag.runs[len(dag.runs) - 1]
    failure = run_failure(sim, last)
    if failure is not None:
        return [Condition("last run", None, failure.sentence, failure.rule, (failure,))]
    no_data = consumed_without_data(sim, last)
    if no_data:
        detail = f"run {last.run_id} " + "; ".join(c.sentence for c in no_data)
        return [Condition("last run", None, detail, "AS-1", tuple(no_data))]
    return []


def _explain_checks(sim: Simulation, dag_id: str) -> Explanation:
    dag = sim.dags.get(dag_id)
    if dag is None:
        raise EngineError(f"unknown dag_id {dag_id!r}; known: {', '.join(sorted(sim.dags))}")
    now = sim.now
    checks: list[Condition] = []
    spec = dag.spec
    table = spec.timetable

    if not dag.deployed:
        checks.append(Condition("deployed", False, "the DAG file has not been parsed yet", "SCH-4"))
        return Explanation(dag_id, now, "not deployed: no run can exist yet", checks)
    checks.append(Condition("deployed", True, f"parsed first at {iso(dag.deployed_at)}", "SCH-4"))
    if dag.is_stale:
        why = (
            "its DAG file was removed and a bundle refresh noticed: no run is created, "
            "queued runs are not started and running runs are not ended until the file "
            "is deployed again"
        )
        checks.append(Condition("file present", False, why, "DEP-6"))
        return Explanation(dag_id, now, f"stale: {why}", _queued(sim, dag, checks))
    checks.append(
        Condition("timetable", None, f"{table.name} ({table.summary}): {table.description}", "TT-1")
    )
    if table.partitioned and table.asset_condition is not None:
        verdict = _explain_partitions(sim, dag, checks)
        return Explanation(dag_id, now, verdict, _queued(sim, dag, checks))
    if table.asset_condition is not None:
        asset_verdict = _explain_assets(sim, dag, checks)
        if not table.can_be_scheduled or table.name == "AssetTriggeredTimetable":
            return Explanation(dag_id, now, asset_verdict, _queued(sim, dag, checks))
    if not table.can_be_scheduled:
        why = "no schedule: only manual runs"
        checks.append(Condition("scheduled runs", False, why, "TT-13"))
        return Explanation(dag_id, now, f"no scheduled runs: {why}", _queued(sim, dag, checks))

    checks.append(
        Condition(
            "paused",
            not dag.is_paused,
            "paused: no new runs, queued runs are not started" if dag.is_paused else "not paused",
            "SCH-6",
        )
    )
    info = dag.next_run
    if info is None:
        why = dag.next_run_error or _no_next_reason(dag)
        checks.append(Condition("next run", False, why, "SCH-8"))
        return Explanation(dag_id, now, f"no next run: {why}", _queued(sim, dag, checks))

    when = info.logical_date or info.partition_key
    checks.append(
        Condition(
            "next run",
            True,
            f"cached next run: logical_date {iso(info.logical_date)}, data interval "
            f"[{iso(info.data_interval.start) if info.data_interval else None}, "
            f"{iso(info.data_interval.end) if info.data_interval else None}), "
            f"run_after {iso(info.run_after)}"
            + (f", partition_key {info.partition_key}" if info.partition_key else ""),
            "SCH-3",
        )
    )
    due = info.run_after <= now
    checks.append(
        Condition(
            "run_after reached",
            due,
            f"run_after {iso(info.run_after)} was {_span(now - info.run_after)} ago"
            if due
            else f"run_after {iso(info.run_after)} is in {_span(info.run_after - now)}",
            "SCH-2",
        )
    )
    if spec.start_date is not None:
        checks.append(Condition("start_date", None, f"start_date {iso(spec.start_date)}", "TT-2"))
    if spec.end_date is not None:
        checks.append(
            Condition("end_date", None, f"end_date {iso(spec.end_date)} (inclusive)", "TT-2")
        )
    active = dag.active_runs(include_backfill=False)
    checks.append(
        Condition(
            "max_active_runs",
            not dag.exceeds_max_active_runs,
            f"{active} of {spec.max_active_runs} active (queued + running, backfills excluded); "
            + (
                "the flag holds back scheduled runs until a run ends"
                if dag.exceeds_max_active_runs
                else "flag clear"
            ),
            "SCH-5",
        )
    )
    holder = dag.run_with_logical_date(info.logical_date)
    if holder is not None:
        stalled = " and the recomputation lands on it again (stalled)" if dag.stalled_on else ""
        checks.append(
            Condition(
                "logical date free",
                False,
                f"run {holder.run_id} already holds logical_date {iso(info.logical_date)}{stalled}",
                "SCH-9",
            )
        )
    blockers = [c for c in checks if c.ok is False]
    if blockers:
        verdict = f"blocked: {blockers[0].detail}"
    else:
        tick = sim.ticks.at_or_after(now)
        verdict = (
            f"the next scheduler loop ({iso(tick)}) creates the run for {when}"
            if due
            else f"waiting: the run for {when} is created at the first loop "
            f"after {iso(info.run_after)}"
        )
    return Explanation(dag_id, now, verdict, _queued(sim, dag, checks))


def _explain_assets(sim: Simulation, dag: DagState, checks: list[Condition]) -> str:
    """AS-3..AS-6: the condition tree, the queue rows behind each leaf, what is missing."""
    from explorer.engine.assets.scheduling import consumed_events
    from explorer.engine.pending import condition_status, leaves

    tree = condition_status(sim, dag)
    assert tree is not None
    paused = "paused: events queue nothing for it (AS-8)" if dag.is_paused else "not paused"
    checks.append(Condition("paused", not dag.is_paused, paused, "SCH-6"))
    for leaf in leaves(tree):
        if leaf["satisfied"]:
            detail = (
                f"{leaf['label']}: updated, first event since the last run at "
                f"{leaf['queued_at']} (event #{leaf['event']}, from {leaf['source']})"
            )
        elif leaf["kind"] == "asset_ref" and leaf.get("resolves_to") is None:
            detail = f"{leaf['label']}: resolves to no active asset (AS-10)"
        elif leaf["kind"] == "alias" and not leaf.get("resolves_to"):
            detail = f"{leaf['label']}: nothing emitted through it yet, so false (AS-9)"
        else:
            detail = f"{leaf['label']}: waiting for an event"
        causes: tuple[Cause, ...] = ()
        if not leaf["satisfied"] and leaf["kind"] == "asset":
            key = AssetKey(leaf["asset"]["name"], leaf["asset"]["uri"])
            causes = tuple(missing_event_causes(sim, key, _since(sim, dag)))
            detail += "; " + "; ".join(c.sentence for c in causes)
        checks.append(Condition("asset", leaf["satisfied"], detail, "AS-3", causes))
    active = dag.active_runs(include_backfill=True)
    limit_ok = active < dag.spec.max_active_runs
    room = (
        "room for a run"
        if limit_ok
        else "a ready condition waits, rows kept, until a run ends (AS-6)"
    )
    checks.append(
        Condition(
            "max_active_runs",
            limit_ok,
            f"{active} of {dag.spec.max_active_runs} active; {room}",
            "AS-4",
        )
    )
    if not tree["satisfied"]:
        missing = [leaf["label"] for leaf in leaves(tree) if not leaf["satisfied"]]
        return "waiting: the condition is not met; missing " + ", ".join(missing)
    triggered = max(dag.adrq.values())
    events = consumed_events(sim, dag, triggered)
    listed = ", ".join(f"{e.asset.name}@{iso(e.timestamp)}" for e in events[:8])
    more = " ..." if len(events) > 8 else ""
    checks.append(
        Condition(
            "next run",
            None,
            f"run_after {iso(triggered)} (the newest queue row); it will consume "
            f"{len(events)} event(s): {listed}{more}; later events wait for the next run (AS-5)",
            "AS-4",
        )
    )
    if dag.is_paused or not limit_ok:
        return "blocked: the condition is met but the DAG is " + (
            "paused" if dag.is_paused else "at max_active_runs"
        )
    return "ready: the next scheduler loop creates an asset-triggered run"


def _since(sim: Simulation, dag: DagState) -> datetime:
    """Since when a consumer has waited: its last run's creation, else the start."""
    runs = dag.runs
    return runs[len(runs) - 1].created_at if len(runs) else sim.start


def _explain_partitions(sim: Simulation, dag: DagState, checks: list[Condition]) -> str:
    """PT-4, PT-8, PT-10: each pending key, the members arrived and missing, who owes them."""
    from explorer.engine.partition_waits import partition_waits

    waits = partition_waits(sim, sim.now).get(dag.dag_id, [])
    checks.append(
        Condition(
            "pause and max_active_runs",
            None,
            "a satisfied partition request fires even while the DAG is paused or at "
            "max_active_runs (PT-4); events during a pause are not logged (PT-16)",
            "PT-4",
        )
    )
    if not waits:
        return "no partition request is pending: waiting for keyed events"
    for wait in waits:
        for member in wait["members"]:
            missing = member["missing"]
            if not missing:
                detail = f"{member['asset']['name']}: complete"
            else:
                parts = []
                for item in missing[:4]:
                    if item.get("never"):
                        parts.append(f"{item['key']} never ({item['never']})")
                    elif item.get("due_at"):
                        parts.append(f"{item['key']} due {item['due_at']} from {item['owed_by']}")
                    else:
                        parts.append(f"{item['key']} owed by {item['owed_by']}")
                more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
                detail = (
                    f"{member['asset']['name']}: {len(member['received_keys'])} arrived, "
                    f"{len(missing)} missing: {'; '.join(parts)}{more}"
                )
            checks.append(Condition(f"key {wait['partition_key']}", not missing, detail, "PT-8"))
    ready = [w["partition_key"] for w in waits if w["ready"]]
    if ready:
        return f"ready: the next loop creates runs for {', '.join(ready)}"
    return f"waiting: {len(waits)} partition key(s) incomplete"


def _no_next_reason(dag: DagState) -> str:
    spec = dag.spec
    if spec.end_date is not None:
        return f"the schedule has ended (end_date {iso(spec.end_date)})"
    if dag.spec.timetable.name == "OnceTimetable" and dag.runs:
        return "@once already ran"
    if spec.catchup is True and spec.start_date is None:
        return "catchup=True without start_date never schedules"
    return "the timetable has no further run"


def _queued(sim: Simulation, dag: DagState, checks: list[Condition]) -> list[Condition]:
    _no_task_instances(dag, checks)
    queued = [r for r in dag.active if r.state == "queued"]
    running = [r for r in dag.active if r.state == "running"]
    if queued:
        reason = (
            "the DAG is paused"
            if dag.is_paused
            else f"{len(running)} running of max_active_runs {dag.spec.max_active_runs}"
        )
        checks.append(
            Condition(
                "queued runs",
                None,
                f"{len(queued)} queued ({', '.join(r.run_id for r in queued[:3])}"
                f"{', ...' if len(queued) > 3 else ''}): {reason}",
                "SCH-5",
            )
        )
    return checks


def _no_task_instances(dag: DagState, checks: list[Condition]) -> None:
    """RND-1, a classic surprise: runs whose logical date lies outside the DAG's dates."""
    runs = runs_without_task_instances(dag)
    if not runs:
        return
    latest = runs[-1]
    reason = no_task_instances_reason(dag.spec, latest)
    others = f" (and {len(runs) - 1} more)" if len(runs) > 1 else ""
    checks.append(
        Condition(
            "task instances",
            None,
            f"run {latest.run_id}{others}: {reason}: it succeeds in the loop that starts it "
            "and emits no asset event",
            "RND-1",
        )
    )
