"""What a partitioned consumer still waits for, and when (or whether) it can arrive.

For each pending partition request (PT-4): per asset of the consumer's
condition, the upstream keys arrived and missing (rollups: the window members
the wait policy counts, PT-8), and for each missing key the producer that owes
it and when that producer's schedule runs it — or why it never will within
the horizon: the producer is paused, its run failed, it is past its end date,
or no producer emits that key at all (a segment no producer's keys cover).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from explorer.engine.assets.condition import AssetKey, AssetNode, walk
from explorer.engine.assets.partitioned import PartitionRequest, member_status, request_ready
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.timetables.trigger import CronPartitionTimetable
from explorer.engine.types import ReferenceRun, TimeRestriction
from explorer.engine.tz import iso

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation

__all__ = ["OwedKeys", "partition_waits"]

_MAX_TICKS = 20_000


class OwedKeys:
    """Which producer emits which key when, computed once per producer."""

    def __init__(self, sim: Simulation, until: datetime) -> None:
        self.sim = sim
        self.until = until
        self._keys: dict[str, dict[str, datetime]] = {}

    def producers(self, key: AssetKey) -> list[DagState]:
        return [d for d in self.sim.dags.values() if any(key in t.outlets for t in d.spec.tasks)]

    def schedule(self, dag: DagState) -> dict[str, datetime]:
        """partition_key → run_after of a CronPartitionTimetable producer's ticks."""
        if dag.dag_id not in self._keys:
            out: dict[str, datetime] = {}
            table = dag.spec.timetable
            if isinstance(table, CronPartitionTimetable):
                earliest = dag.spec.start_date or self.sim.start
                restriction = TimeRestriction(earliest, dag.spec.end_date, True)
                last = None
                try:
                    for _ in range(_MAX_TICKS):
                        info = table.next_dagrun_info(
                            last=last, restriction=restriction, now=self.sim.start
                        )
                        if info is None or info.run_after > self.until + timedelta(days=400):
                            break
                        if info.partition_key is not None:
                            out.setdefault(info.partition_key, info.run_after)
                        last = ReferenceRun.of(info)
                except EngineError:
                    pass
            self._keys[dag.dag_id] = out
        return self._keys[dag.dag_id]

    def explain(self, asset: AssetKey, upstream_key: str) -> dict[str, Any]:
        producers = self.producers(asset)
        if not producers:
            return {
                "key": upstream_key,
                "owed_by": None,
                "due_at": None,
                "never": "no task of the scenario emits this asset",
            }
        for dag in producers:
            run = next((r for r in dag.runs if r.partition_key == upstream_key), None)
            if run is not None:
                if run.state == "failed":
                    return {
                        "key": upstream_key,
                        "owed_by": dag.dag_id,
                        "due_at": None,
                        "never": f"the producer's run {run.run_id} failed: no event",
                    }
                return {
                    "key": upstream_key,
                    "owed_by": dag.dag_id,
                    "due_at": iso(run.run_after),
                    "never": None,
                    "state": run.state,
                }
            due = self.schedule(dag).get(upstream_key)
            if due is None:
                continue
            never = None
            if due <= self.sim.now and not dag.spec.catchup:
                never = (
                    "skipped: its tick passed while the producer was paused or not yet "
                    "deployed, and catchup=False never goes back (SCH-6, SCH-7)"
                )
            elif dag.is_paused:
                never = "the producer is paused"
            elif due > self.until:
                never = "due after the end of the simulated horizon"
            return {"key": upstream_key, "owed_by": dag.dag_id, "due_at": iso(due), "never": never}
        runtime = [
            d.dag_id for d in producers if not isinstance(d.spec.timetable, CronPartitionTimetable)
        ]
        if runtime:
            return {
                "key": upstream_key,
                "owed_by": runtime[0],
                "due_at": None,
                "never": None,
                "note": "keys chosen at run time or by manual runs",
            }
        return {
            "key": upstream_key,
            "owed_by": None,
            "due_at": None,
            "never": "no producer's schedule emits this key",
        }


def _request(sim: Simulation, request: PartitionRequest, owed: OwedKeys) -> dict[str, Any]:
    table = sim.dags[request.dag_id].spec.timetable
    assert table.asset_condition is not None
    members = []
    for key in dict.fromkeys(
        n.key for n in walk(table.asset_condition) if isinstance(n, AssetNode)
    ):
        status = member_status(sim, request, key)
        missing = status.get("missing_keys")
        if missing is None and not status["satisfied"]:
            missing = [request.partition_key]  # non-rollup: any event with a mapping key
        status["missing"] = [owed.explain(key, k) for k in missing or []]
        members.append(status)
    return {
        "partition_key": request.partition_key,
        "created_at": iso(request.created_at),
        "ready": request_ready(sim, request),
        "members": members,
    }


def partition_waits(sim: Simulation, until: datetime) -> dict[str, list[dict[str, Any]]]:
    """Pending requests per partitioned consumer at the clock."""
    owed = OwedKeys(sim, until)
    out: dict[str, list[dict[str, Any]]] = {}
    for request in sim.state.partition_requests:
        if request.run is None:
            out.setdefault(request.dag_id, []).append(_request(sim, request, owed))
    return out
