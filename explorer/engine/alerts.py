"""Alerts a team would want, derived from the model and the simulated record.

- ``consumer_silent``: an asset-scheduled DAG silent longer than ``factor`` times
  its expected cadence. The cadence is derived, not assumed: for an asset, the
  longest gap between its producers' consecutive scheduled runs plus their run
  duration and one scheduler loop; an AND takes the largest over its assets, an
  OR the smallest; assets only produced manually or from outside have none.
- ``asset_never_produced``: a consumer waits on an asset no task and no script
  emits, with near-miss spellings (trailing slash, case, scheme: URI-6).
- ``asset_conflict``: a URI-2 conflict left an asset inactive.
- ``effectively_slower``: an AND of feeds with different cadences runs at the
  slowest one (a daily AND a weekly feed is a weekly consumer).
- ``catchup_backlog``: a catchup=True DAG deployed with more due runs than
  max_active_runs (the flood).
- ``ref_consumes_nothing``: a DAG scheduled only through ``Asset.ref`` runs but
  its runs consume no events (AS-10).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from explorer.engine.assets.condition import (
    AliasNode,
    AllOf,
    AssetKey,
    AssetNode,
    Condition,
    RefNode,
    walk,
)
from explorer.engine.causes import failed_producer_runs
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.partition_waits import OwedKeys
from explorer.engine.record import build_record
from explorer.engine.types import ReferenceRun, TimeRestriction
from explorer.engine.tz import iso

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation

__all__ = [
    "DEFAULT_SILENCE_FACTOR",
    "Alert",
    "add_alerts",
    "compute_alerts",
    "expected_cadence",
    "record_with_alerts",
]

DEFAULT_SILENCE_FACTOR = 1.5
_MAX_TICKS = 2000


@dataclass(frozen=True, slots=True)
class Alert:
    kind: str
    at: datetime
    subject: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "at": iso(self.at),
            "subject": self.subject,
            "message": self.message,
        }


def _human(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    if hours >= 48:
        return f"{hours / 24:.1f} days"
    if hours >= 1:
        return f"{hours:.1f} h"
    return f"{delta.total_seconds() / 60:.0f} min"


class _Cadences:
    """Per-asset expected cadence over the simulated horizon (None: no scheduled producer)."""

    def __init__(self, sim: Simulation, until: datetime) -> None:
        self.sim = sim
        self.until = until
        self._cache: dict[AssetKey, timedelta | None] = {}

    def producers(self, key: AssetKey) -> list[DagState]:
        out = []
        for dag in self.sim.dags.values():
            for task in dag.spec.tasks:
                if key in task.outlets or any(a.asset == key for a in task.alias_events):
                    out.append(dag)
                    break
        return out

    def of_asset(self, key: AssetKey) -> timedelta | None:
        if key not in self._cache:
            self._cache[key] = self._compute(key)
        return self._cache[key]

    def _compute(self, key: AssetKey) -> timedelta | None:
        ticks: list[datetime] = []
        extra = timedelta(0)
        for dag in self.producers(key):
            table = dag.spec.timetable
            if not table.can_be_scheduled or table.asset_triggered or not table.periodic:
                continue
            ticks.extend(self._ticks(dag))
            duration = max((t.duration for t in dag.spec.tasks), default=timedelta(0))
            extra = max(extra, duration)
        ticks = sorted(set(ticks))
        if len(ticks) < 2:
            return None
        gap = max(b - a for a, b in itertools.pairwise(ticks))
        return gap + extra + self.sim.config.loop_interval

    def _rollup(self, dag: DagState, key: AssetKey, cadence: timedelta) -> timedelta:
        """A rollup consumer waits for a whole window: its cadence is the producer's times
        the window's member count (PT-8), measured on one of the producer's own keys."""
        table = dag.spec.timetable
        get_mapper = getattr(table, "get_partition_mapper", None)
        if get_mapper is None:
            return cadence
        mapper = get_mapper(name=key.name, uri=key.uri)
        if not getattr(mapper, "is_rollup", False):
            return cadence
        owed = OwedKeys(self.sim, self.until)
        for producer in self.producers(key):
            for sample in list(owed.schedule(producer))[:1]:
                try:
                    members = mapper.to_upstream(mapper.downstream_keys(sample)[0])
                except (EngineError, IndexError):
                    return cadence
                return cadence * max(1, len(members))
        return cadence

    def _ticks(self, dag: DagState) -> list[datetime]:
        """The producer's run_after sequence from the clock start to the horizon."""
        restriction = TimeRestriction(
            max(filter(None, [dag.spec.start_date, self.sim.start])), dag.spec.end_date, True
        )
        out: list[datetime] = []
        last = None
        try:
            for _ in range(_MAX_TICKS):
                info = dag.spec.timetable.next_dagrun_info(
                    last=last, restriction=restriction, now=self.sim.start
                )
                if info is None or info.run_after > self.until + timedelta(days=8):
                    break
                out.append(info.run_after)
                last = ReferenceRun.of(info)
        except EngineError:
            pass
        return out

    def of_condition(self, cond: Condition, dag: DagState | None = None) -> timedelta | None:
        if isinstance(cond, AssetNode):
            cadence = self.of_asset(cond.key)
            if cadence is None or dag is None:
                return cadence
            return self._rollup(dag, cond.key, cadence)
        if isinstance(cond, RefNode):
            key = self.sim.state.assets.resolve_ref(cond)
            return None if key is None else self.of_asset(key)
        if isinstance(cond, AliasNode):
            keys = self.sim.state.assets.resolve_alias(cond.name)
            values = [v for v in (self.of_asset(k) for k in keys) if v is not None]
            return min(values) if values else None
        children = [self.of_condition(c, dag) for c in cond.children]
        if isinstance(cond, AllOf):
            return (
                None
                if not children or any(c is None for c in children)
                else max(c for c in children if c is not None)
            )
        known = [c for c in children if c is not None]
        return min(known) if known else None


def expected_cadence(sim: Simulation, dag_id: str, until: datetime) -> timedelta | None:
    cond = sim.dags[dag_id].spec.timetable.asset_condition
    return None if cond is None else _Cadences(sim, until).of_condition(cond, sim.dags[dag_id])


def compute_alerts(
    sim: Simulation, until: datetime, factor: float = DEFAULT_SILENCE_FACTOR
) -> list[Alert]:
    """Every alert for the simulated horizon ``[start, until]``, in time order."""
    cadences = _Cadences(sim, until)
    alerts: list[Alert] = []
    emitted = _emitted_assets(sim)
    consumers = [
        dag
        for dag in sim.dags.values()
        if dag.deployed
        and dag.deployed_at is not None
        and dag.spec.timetable.asset_condition is not None
    ]
    # One pass over the run log for every consumer (a spilled log is read once, adr/0006).
    created = {
        dag_id: [at for (at,) in values]
        for dag_id, values in sim.runs.instants_by_dag(
            ("created_at",), "asset_triggered", (dag.dag_id for dag in consumers)
        ).items()
    }
    for dag in sim.dags.values():
        if not dag.deployed or dag.deployed_at is None:
            continue
        cond = dag.spec.timetable.asset_condition
        if cond is not None:
            alerts.extend(_silence(sim, dag, cond, cadences, until, factor, created[dag.dag_id]))
            alerts.extend(_never_produced(sim, dag, cond, emitted))
            alerts.extend(_slower(dag, cond, cadences))
            if not dag.direct_assets and not dag.schedule_aliases and dag.schedule_refs:
                alerts.append(
                    Alert(
                        "ref_consumes_nothing",
                        dag.deployed_at,
                        dag.dag_id,
                        f"{dag.dag_id} is scheduled only through Asset.ref: its runs start but "
                        "consume no events (triggering_asset_events is empty, AS-10)",
                    )
                )
        alerts.extend(_backlog(sim, dag))
    alerts.extend(_partition_alerts(sim))
    for message in sim.warnings:
        if message.startswith("asset conflict:"):
            alerts.append(
                Alert("asset_conflict", sim.start, message.split(" reuses")[0][16:], message)
            )
    return sorted(alerts, key=lambda a: (a.at, a.kind, a.subject))


def _partition_alerts(sim: Simulation) -> list[Alert]:
    """PT-3: fan-out over the cap (nothing queued) and keys that fail to map, from the audit
    log; PT-8: a rollup whose upstream keys never match its window members."""
    alerts = []
    for entry in sim.state.audit_log:
        dag_ids = ", ".join(entry["dag_ids"])
        if entry["event"] == "partition fan-out exceeded":
            alerts.append(
                Alert(
                    "fan_out_exceeded",
                    entry["at"],
                    dag_ids,
                    f"{dag_ids}: key {entry['partition_key']!r} of {entry['asset'].label()} maps "
                    f"to {entry['produced_keys']} keys, over the cap: NOTHING was queued (PT-3)",
                )
            )
        elif entry["event"] == "failed to map partition_key":
            alerts.append(
                Alert(
                    "partition_key_unmapped",
                    entry["at"],
                    dag_ids,
                    f"{dag_ids}: key {entry['partition_key']!r} of {entry['asset'].label()} does "
                    f"not map: {entry.get('detail', '')}",
                )
            )
    for request in sim.state.partition_requests:
        if request.run is not None:
            continue
        for log_key in dict.fromkeys(log.asset for log in request.logs):
            from explorer.engine.assets.partitioned import member_status

            status = member_status(sim, request, log_key)
            expected = set(status.get("expected_keys") or [])
            received = set(status["received_keys"])
            if expected and received and not (expected & received):
                alerts.append(
                    Alert(
                        "grain_mismatch",
                        request.created_at,
                        request.dag_id,
                        f"{request.dag_id}: for {request.partition_key!r} the rollup expects keys "
                        f"like {sorted(expected)[0]!r} but {log_key.label()} sends keys like "
                        f"{sorted(received)[0]!r}: they never match byte for byte (PT-8)",
                    )
                )
    return alerts


def _silence(
    sim: Simulation,
    dag: DagState,
    cond: Condition,
    cadences: _Cadences,
    until: datetime,
    factor: float,
    created: list[datetime | None],
) -> list[Alert]:
    """``created``: the created_at of the DAG's asset-triggered runs, in creation order."""
    cadence = cadences.of_condition(cond, dag)
    if cadence is None or dag.deployed_at is None:
        return []
    limit = cadence * factor
    marks = [dag.deployed_at, *(at for at in created if at is not None), until]
    alerts = []
    for since, next_run in itertools.pairwise(marks):
        if next_run - since > limit and since + limit <= until:
            failures = [
                cause
                for node in walk(cond)
                if isinstance(node, AssetNode)
                for cause in failed_producer_runs(sim, node.key, since, since + limit)
            ]
            why = (
                "; ".join(c.sentence for c in failures)
                if failures
                else "an upstream producer failed, was paused or emits nothing"
            )
            alerts.append(
                Alert(
                    "consumer_silent",
                    since + limit,
                    dag.dag_id,
                    f"{dag.dag_id} has not run for {_human(limit)} (expected about every "
                    f"{_human(cadence)}, alert at {factor}x): {why} — Airflow raises no "
                    "error for this",
                )
            )
    return alerts


def _emitted_assets(sim: Simulation) -> set[AssetKey]:
    keys: set[AssetKey] = set(sim.state.assets.by_asset)
    for dag in sim.dags.values():
        for task in dag.spec.tasks:
            keys.update(o for o in task.outlets if isinstance(o, AssetKey))
            keys.update(a.asset for a in task.alias_events)
    for action in sim.script:
        asset = getattr(action, "asset", None)
        if isinstance(asset, AssetKey):
            keys.add(asset)
    return keys


def _never_produced(
    sim: Simulation, dag: DagState, cond: Condition, emitted: set[AssetKey]
) -> list[Alert]:
    from explorer.engine.assets.uri import near_misses

    alerts = []
    assert dag.deployed_at is not None
    for node in walk(cond):
        if isinstance(node, AssetNode) and node.key not in emitted:
            close = near_misses(node.key.uri, [k.uri for k in emitted])
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            alerts.append(
                Alert(
                    "asset_never_produced",
                    dag.deployed_at,
                    dag.dag_id,
                    f"{dag.dag_id} waits on {node.key.label()}, which no task and no script "
                    f"action emits{hint}",
                )
            )
    return alerts


def _slower(dag: DagState, cond: Condition, cadences: _Cadences) -> list[Alert]:
    if not isinstance(cond, AllOf) or dag.deployed_at is None:
        return []
    values = [(c, cadences.of_condition(c, dag)) for c in cond.children]
    known = [(c, v) for c, v in values if v is not None]
    if len(known) < 2:
        return []
    fastest = min(v for _, v in known)
    slowest = max(v for _, v in known)
    if slowest < 2 * fastest:
        return []
    return [
        Alert(
            "effectively_slower",
            dag.deployed_at,
            dag.dag_id,
            f"{dag.dag_id} waits for ALL its assets: its feeds arrive about every "
            f"{_human(fastest)} to {_human(slowest)}, so it runs about every {_human(slowest)}; "
            "the faster feed's events coalesce into each run",
        )
    ]


def _backlog(sim: Simulation, dag: DagState) -> list[Alert]:
    spec = dag.spec
    if not spec.catchup or dag.deployed_at is None or not spec.timetable.can_be_scheduled:
        return []
    if spec.timetable.asset_triggered and spec.timetable.periodic is False:
        return []
    due = 0
    last = None
    try:
        for _ in range(100_000):
            info = spec.timetable.next_dagrun_info(
                last=last, restriction=spec.restriction, now=dag.deployed_at
            )
            if info is None or info.run_after > dag.deployed_at:
                break
            due += 1
            last = ReferenceRun.of(info)
    except EngineError:
        pass
    if due <= spec.max_active_runs:
        return []
    return [
        Alert(
            "catchup_backlog",
            dag.deployed_at,
            dag.dag_id,
            f"{dag.dag_id} is deployed with catchup=True and {due} runs already due, more than "
            f"max_active_runs={spec.max_active_runs}: the scheduler creates one per loop and runs "
            f"{spec.max_active_runs} at a time until the backlog drains (SCH-7)",
        )
    ]


def add_alerts(
    record: dict[str, Any], sim: Simulation, silence_factor: float = DEFAULT_SILENCE_FACTOR
) -> dict[str, Any]:
    """``record`` (from :func:`explorer.engine.record.build_record`) with its ``alerts``
    section, computed up to the record's own ``until``.

    The section goes right after ``pending``, where the record format (contract
    section 4) has always had it, so JSON output keeps its key order.
    """
    until = datetime.fromisoformat(record["until"])
    alerts = [a.to_dict() for a in compute_alerts(sim, until, silence_factor)]
    out: dict[str, Any] = {}
    for key, value in record.items():
        out[key] = value
        if key == "pending":
            out["alerts"] = alerts
    out.setdefault("alerts", alerts)
    return out


def record_with_alerts(
    sim: Simulation,
    *,
    until: datetime,
    extra_warnings: list[str] | None = None,
    silence_factor: float = DEFAULT_SILENCE_FACTOR,
) -> dict[str, Any]:
    """The whole record of ``sim``: built by ``record``, then its alerts added from it."""
    record = build_record(sim, until=until, extra_warnings=extra_warnings)
    return add_alerts(record, sim, silence_factor)
