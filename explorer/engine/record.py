"""The simulation record: what the engine says happened (contract section 4).

Every instant is ISO-8601 UTC with ``Z``; where Airflow leaves a field empty
the record says ``null``.

This module builds the record; it does not know the alerts. Alerts are
computed from a built record (:func:`explorer.engine.alerts.record_with_alerts`
adds their section), not the other way round.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.store import AssetEvent, Events, EventSource
from explorer.engine.partition_waits import partition_waits
from explorer.engine.pending import pending_section
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.engine.tz import iso

__all__ = ["RUN_FIELDS", "build_record", "iso", "run_row"]

#: Flat run columns, in the order the table and CSV formats print them.
RUN_FIELDS = (
    "dag_id",
    "run_id",
    "run_type",
    "logical_date",
    "data_interval_start",
    "data_interval_end",
    "run_after",
    "partition_key",
    "partition_date",
    "created_at",
    "start_date",
    "end_date",
    "state",
)


def run_row(run: DagRun) -> dict[str, Any]:
    interval = run.data_interval
    return {
        "dag_id": run.dag_id,
        "run_id": run.run_id,
        "run_type": run.run_type,
        "logical_date": iso(run.logical_date),
        "data_interval_start": iso(interval.start if interval else None),
        "data_interval_end": iso(interval.end if interval else None),
        "run_after": iso(run.run_after),
        "partition_key": run.partition_key,
        "partition_date": iso(run.partition_date),
        "created_at": iso(run.created_at),
        "start_date": iso(run.start_date),
        "end_date": iso(run.end_date),
        "state": run.state,
    }


def asset_ref(key: AssetKey) -> dict[str, str]:
    return {"name": key.name, "uri": key.uri}


def source_dict(source: EventSource) -> dict[str, Any]:
    if source.kind == "task":
        return {
            "kind": "task",
            "dag_id": source.dag_id,
            "task_id": source.task_id,
            "run_id": source.run_id,
        }
    if source.kind == "watcher":
        return {"kind": "watcher", "watcher": source.watcher}
    return {"kind": source.kind}


def event_dict(event: AssetEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "asset": asset_ref(event.asset),
        "timestamp": iso(event.timestamp),
        "partition_key": event.partition_key,
        "partition_date": iso(event.partition_date),
        "source": source_dict(event.source),
        "via_aliases": list(event.via_aliases),
        "extra": event.extra,
        "wrote_data": event.wrote_data,
    }


def _run(run: DagRun, events: Events) -> dict[str, Any]:
    row = run_row(run)
    row["states"] = [{"state": state, "at": iso(at)} for state, at in run.states]
    row["tasks"] = [
        {
            "task_id": t.task_id,
            "state": t.state,
            "start_date": iso(t.start_date),
            "end_date": iso(t.end_date),
            "wrote_data": t.state == "success" and t.outcome != "success_no_data",
            "inlet_events": list(t.inlet_events),
        }
        for t in run.tasks
    ]
    row["consumed_asset_events"] = [
        {
            "event": i,
            "asset": asset_ref(events[i].asset),
            "timestamp": iso(events[i].timestamp),
            "partition_key": events[i].partition_key,
            "source": source_dict(events[i].source),
        }
        for i in run.consumed_asset_events
    ]
    return row


def _dags(sim: Simulation) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dag_id, dag in sim.dags.items():
        info = dag.next_run
        interval = info.data_interval if info else None
        out[dag_id] = {
            "timetable": dag.spec.timetable.name,
            "schedule": dag.spec.timetable.summary,
            "deployed": dag.deployed,
            "is_paused": dag.is_paused,
            "next_dagrun_logical_date": iso(info.logical_date if info else None),
            "next_dagrun_data_interval_start": iso(interval.start if interval else None),
            "next_dagrun_data_interval_end": iso(interval.end if interval else None),
            "next_dagrun_run_after": iso(info.run_after if info else None),
            "next_dagrun_partition_key": info.partition_key if info else None,
            "next_dagrun_partition_date": iso(info.partition_date if info else None),
            "exceeds_max_active_runs": dag.exceeds_max_active_runs,
        }
    return out


def _audit(entry: dict[str, Any]) -> dict[str, Any]:
    """An audit-log entry about partitioned consumers (PT-2, PT-3)."""
    row: dict[str, Any] = {
        "at": iso(entry["at"]),
        "event": entry["event"],
        "dag_ids": entry["dag_ids"],
        "source": source_dict(entry["source"]),
        "asset_event": entry["event_id"],
    }
    if "asset" in entry:
        row["asset"] = asset_ref(entry["asset"])
        row["partition_key"] = entry["partition_key"]
    for extra in ("produced_keys", "detail"):
        if extra in entry:
            row[extra] = entry[extra]
    return row


def _partition_pending(sim: Simulation, until: datetime) -> dict[str, Any]:
    return {dag_id: {"partitions": waits} for dag_id, waits in partition_waits(sim, until).items()}


def build_record(
    sim: Simulation,
    *,
    until: datetime,
    extra_warnings: list[str] | None = None,
) -> dict[str, Any]:
    """The JSON record of ``sim`` as it stands (runs in creation order), without its
    ``alerts`` section (:func:`explorer.engine.alerts.record_with_alerts` adds it)."""
    events = sim.state.assets.events
    return {
        "until": iso(until),
        "runs": [_run(run, events) for run in sim.runs],
        "asset_events": [event_dict(e) for e in events],
        "pending": {**pending_section(sim), **_partition_pending(sim, until)},
        "dags": _dags(sim),
        "audit_log": [_audit(entry) for entry in sim.state.audit_log],
        "asset_state": [
            {
                "asset": asset_ref(asset),
                "key": key,
                "value": value,
                "updated_at": iso(at),
                "updated_by": by,
            }
            for asset, key, value, at, by in sim.state.watchers.history
        ],
        "warnings": [*(extra_warnings or []), *sim.warnings],
    }
