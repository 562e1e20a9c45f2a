"""Partitioned asset scheduling: partition requests (APDR) and their firing (PT-3..PT-5, PT-12).

A keyed event reaching a partitioned consumer is mapped to downstream keys;
each key opens (or joins) the consumer's pending request for that key and
logs the event with its source key. Each loop, before anything else, pending
requests whose condition holds fire one ``asset_triggered`` run each, with
``run_after`` = now, without a pause or max_active_runs check.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from explorer.engine.assets.condition import AssetKey, evaluate
from explorer.engine.assets.partition_requests import KeyLog, PartitionRequest
from explorer.engine.assets.store import AssetEvent
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.partitions import PartitionMapper, plan_queue
from explorer.engine.types import DagRunInfo

if TYPE_CHECKING:
    from explorer.engine.host import Host
    from explorer.engine.timetables.partitioned import PartitionedAssetTimetable

__all__ = [
    "KeyLog",
    "PartitionRequest",
    "fire_partition_requests",
    "member_status",
    "queue_partitioned_event",
    "request_ready",
]

#: ``[scheduler] partition_mapper_max_downstream_keys``
GLOBAL_CAP = 1000
#: pending requests examined per loop
MAX_PER_LOOP = 500


def _timetable(dag: DagState) -> PartitionedAssetTimetable:
    from explorer.engine.timetables.partitioned import PartitionedAssetTimetable

    table = dag.spec.timetable
    assert isinstance(table, PartitionedAssetTimetable)
    return table


def _audit(sim: Host, what: str, dag: DagState, event: AssetEvent, **fields: Any) -> None:
    sim.state.audit_log.append(
        {
            "at": sim.state.now,
            "event": what,
            "dag_ids": [dag.dag_id],
            "source": event.source,
            "event_id": event.id,
            **fields,
        }
    )


def queue_partitioned_event(sim: Host, dag: DagState, event: AssetEvent) -> None:
    """``AssetManager._queue_partitioned_dags`` for one consumer (PT-3)."""
    assert event.partition_key is not None
    # The caller asked ``timetable.partitioned`` already: no import and check per event.
    table = cast("PartitionedAssetTimetable", dag.spec.timetable)
    mapper = table.get_partition_mapper(name=event.asset.name, uri=event.asset.uri)
    where = {"asset": event.asset, "partition_key": event.partition_key}
    try:
        plan = plan_queue(mapper, event.partition_key, global_cap=GLOBAL_CAP)
    except EngineError as exc:
        _audit(sim, "failed to map partition_key", dag, event, detail=str(exc), **where)
        sim.warn(
            f"{dag.dag_id}: partition key {event.partition_key!r} of "
            f"{event.asset.label()} failed to map: {exc}"
        )
        return
    if plan.cap_exceeded:
        _audit(
            sim, "partition fan-out exceeded", dag, event, produced_keys=len(plan.produced), **where
        )
        sim.warn(
            f"{dag.dag_id}: {event.asset.label()} key {event.partition_key!r} maps to "
            f"{len(plan.produced)} keys, more than the cap of {plan.cap}: nothing is "
            "queued (PT-3)"
        )
        return
    carried = _carry(mapper, event.partition_date)
    for key in plan.queued:
        request = _get_or_create(sim, dag, key, carried)
        request.logs.append(KeyLog(event.asset, event.partition_key, event.id))
        reevaluate(sim, request)
    sim.state.dirty = True


def _carry(mapper: PartitionMapper, date: datetime | None) -> datetime | None:
    try:
        return mapper.carry_partition_date(date)
    except EngineError:
        return None


def _get_or_create(
    sim: Host, dag: DagState, key: str, carried: datetime | None
) -> PartitionRequest:
    """Reuse the newest request for (DAG, key) if it has no run yet, else open one (PT-5, PT-12)."""
    st = sim.state
    latest = st.partition_latest.get((dag.dag_id, key))
    if latest is not None and latest.run is None:
        if latest.carried_partition_date is None:
            latest.carried_partition_date = carried
        elif carried is not None and carried != latest.carried_partition_date:
            latest.carried_partition_date = None  # producers disagree: suppressed
        return latest
    request = PartitionRequest(
        len(st.partition_requests), dag.dag_id, key, st.now, carried, _timetable(dag).fingerprint()
    )
    request.opened = st.partition_opened
    st.partition_opened += 1
    st.partition_requests.append(request)
    st.partition_latest[(dag.dag_id, key)] = request
    st.partition_unevaluated.append(request)
    return request


def reevaluate(sim: Host, request: PartitionRequest) -> None:
    """The next loop evaluates ``request`` again (a new log, or its DAG deployed anew)."""
    request.evaluated = False
    sim.state.partition_unevaluated.append(request)


def member_status(sim: Host, request: PartitionRequest, key: AssetKey) -> dict[str, Any]:
    """How far one asset of the consumer's condition is for this request (PT-4, PT-8)."""
    dag = sim.state.dags[request.dag_id]
    mapper = _timetable(dag).get_partition_mapper(name=key.name, uri=key.uri)
    received = sorted({log.source_partition_key for log in request.logs if log.asset == key})
    out: dict[str, Any] = {"asset": {"name": key.name, "uri": key.uri}, "received_keys": received}
    if not received or not sim.state.assets.active.get(key, True):
        out["satisfied"] = False
        if getattr(mapper, "is_rollup", False):
            out.update(_rollup_fields(mapper, request.partition_key, set(received)))
            out["satisfied"] = False
        return out
    if not getattr(mapper, "is_rollup", False):
        out["satisfied"] = True
        return out
    out.update(_rollup_fields(mapper, request.partition_key, set(received)))
    return out


def _rollup_fields(mapper: Any, key: str, received: set[str]) -> dict[str, Any]:
    try:
        expected = mapper.to_upstream(key)
        result = mapper.status(key, received)
    except EngineError:
        return {"expected_keys": [], "missing_keys": [], "satisfied": False}
    return {
        "expected_keys": sorted(expected),
        "missing_keys": sorted(set(expected) - received),
        "satisfied": result.satisfied and not result.unreachable,
        "unreachable": result.unreachable_reason if result.unreachable else None,
    }


def request_ready(sim: Host, request: PartitionRequest) -> bool:
    """PT-4: statuses of the active assets with >= 1 log, then the condition."""
    dag = sim.state.dags[request.dag_id]
    table = _timetable(dag)
    statuses: dict[AssetKey, bool] = {}
    for key in dict.fromkeys(log.asset for log in request.logs):
        if sim.state.assets.active.get(key, True):
            mapper = table.get_partition_mapper(name=key.name, uri=key.uri)
            statuses[key] = _member_satisfied(mapper, request, key)
    assert table.asset_condition is not None
    store = sim.state.assets
    return evaluate(
        table.asset_condition,
        lambda k: statuses.get(k, False),
        store.resolve_ref,
        store.resolve_alias,
    )


def _member_satisfied(mapper: PartitionMapper, request: PartitionRequest, key: AssetKey) -> bool:
    """``member_status(sim, request, key)["satisfied"]`` for an active ``key`` with at
    least one log, without the report's sorted key lists (every loop
    evaluating a request built them, for one boolean). Not a rollup: satisfied by any
    log (PT-4); a rollup: the wait policy's verdict, reachable, on the keys received
    (PT-8, PT-10), unsatisfied when the window fails to expand."""
    if not getattr(mapper, "is_rollup", False):
        return True
    received = {log.source_partition_key for log in request.logs if log.asset == key}
    try:
        result = mapper.status(request.partition_key, received)  # type: ignore[attr-defined]
    except EngineError:
        return False
    return bool(result.satisfied and not result.unreachable)


def _opened(request: PartitionRequest) -> int:
    return request.opened


def fire_partition_requests(sim: Host, now: datetime) -> tuple[set[str], bool]:
    """Step 1 of a loop (SCH-1, PT-4): returns the DAGs that got a partition run, and
    whether the per-loop limit left requests for the next loop."""
    from explorer.engine.timetables.partitioned import PartitionedAssetTimetable

    st = sim.state
    # The requests without a run not evaluated since their last log, in creation order
    # (the order of ``partition_requests``): the index holds them all, so the requests
    # ever opened need no scan. A request left out stays in it.
    waiting = {id(r): r for r in st.partition_unevaluated if r.run is None and not r.evaluated}
    st.partition_unevaluated[:] = sorted(waiting.values(), key=_opened)
    pending = [
        r
        for r in st.partition_unevaluated
        if st.dags[r.dag_id].deployed and not st.dags[r.dag_id].is_stale  # PT-4, DEP-6
    ][:MAX_PER_LOOP]
    fired: list[PartitionRequest] = []
    for request in pending:
        dag = st.dags[request.dag_id]
        table = dag.spec.timetable
        if not isinstance(table, PartitionedAssetTimetable) or (
            request.fingerprint != table.fingerprint()
        ):
            # mapper or window edited: deleted with its keys (PT-4, DEP-8)
            st.partition_requests.remove(request)
            st.partition_unevaluated.remove(request)
            if st.partition_latest.get((dag.dag_id, request.partition_key)) is request:
                del st.partition_latest[(dag.dag_id, request.partition_key)]
            st.deployment.dropped_requests.append((request, now))
            continue
        request.evaluated = True  # not ready stays not ready until a new log arrives
        if request_ready(sim, request):
            fired.append(request)
    # Several runs of one DAG in a loop are numbered in partition_key order (README 7.6).
    fired.sort(key=lambda r: (st.dags[r.dag_id].order, r.partition_key))
    for request in fired:
        _create_run(sim, request, now)
    # RND-3: the runs start (and end) in request order, oldest request first; only their
    # nth follows partition_key order. Activation order is what steps 4-5 break ties by.
    for request in sorted(fired, key=lambda r: r.id):
        assert request.run is not None
        sim.activate(request.run)
    st.partition_unevaluated[:] = [r for r in st.partition_unevaluated if not r.evaluated]
    return {r.dag_id for r in fired}, len(pending) >= MAX_PER_LOOP


def _create_run(sim: Host, request: PartitionRequest, now: datetime) -> None:
    """PT-5: run_after = now, the request's key, the date per PT-13, its logged events."""
    dag = sim.state.dags[request.dag_id]
    date = _partition_date(sim, request)
    info = DagRunInfo(
        run_after=now, data_interval=None, partition_key=request.partition_key, partition_date=date
    )
    run = sim.new_run(
        dag, run_type="asset_triggered", triggered_by="asset", info=info, logical_date=None, now=now
    )
    run.consumed_asset_events = tuple(sorted({log.event_id for log in request.logs}))
    request.run = run
    if sim.observed:
        sim.emit("run_created", dag.dag_id, run)


def _partition_date(sim: Host, request: PartitionRequest) -> datetime | None:
    """PT-13: agreeing anchors of the contributing assets' mappers, else the carried date."""
    table = _timetable(sim.state.dags[request.dag_id])
    anchors: set[datetime] = set()
    try:
        for key in dict.fromkeys(log.asset for log in request.logs):
            if not sim.state.assets.active.get(key, True):
                continue
            anchor = table.get_partition_mapper(name=key.name, uri=key.uri).to_partition_date(
                request.partition_key
            )
            if anchor is not None:
                anchors.add(anchor)
    except EngineError:
        return None
    if not anchors:
        return request.carried_partition_date
    if len(anchors) > 1:
        sim.warn(
            f"{request.dag_id}: mappers disagree on the partition_date of "
            f"{request.partition_key!r}; the run gets none (PT-13)"
        )
        return None
    return anchors.pop()
