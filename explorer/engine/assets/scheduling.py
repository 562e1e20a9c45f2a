"""The asset rules of the scheduler: events, queues, asset-triggered runs (AS-1..AS-10).

Functions over the simulation's part interface (:class:`~explorer.engine.host.Host`); the loop
calls them at the places Airflow does (task success, the REST API, step 3
of a scheduler loop).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from explorer.engine.assets.condition import AliasNode, AssetKey, RefNode, evaluate
from explorer.engine.assets.orphanage import note_created_by_alias
from explorer.engine.assets.partitioned import queue_partitioned_event
from explorer.engine.assets.store import NO_EXTRA, AssetEvent, EventOrigin, EventSource
from explorer.engine.dag import AliasEmission
from explorer.engine.dagstate import DagState
from explorer.engine.runs import DagRun, TaskInstance
from explorer.engine.types import DagRunInfo
from explorer.engine.tz import epoch_us

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = [
    "activate_assets",
    "asset_runs_due",
    "condition_ready",
    "create_asset_run",
    "drop_queue_rows",
    "emit_task_events",
    "ready_asset_dags",
    "record_event",
]


def activate_assets(sim: Host, dags: list[DagState], at: datetime) -> None:
    """At a parse, the assets the parsed DAGs reference become known and, unless they
    conflict, active (``_activate_referenced_assets``).

    URI-2: among active assets names and uris are unique; an asset reusing an
    active name or uri with another partner stays inactive. An asset already
    active keeps winning. Between new assets of one parse Airflow's choice
    depends on processing order; the simulator takes them in the order the
    scenario declares them (then undeclared ones by name), so the first
    declared wins, and the warning says so.
    """
    store = sim.state.assets
    order = {key: i for i, key in enumerate(sim.declared_assets)}
    keys: set[AssetKey] = set()
    for dag in dags:
        keys.update(dag.direct_assets)
        for task in dag.spec.tasks:
            keys.update(o for o in task.outlets if isinstance(o, AssetKey))
    # the first active asset of each name and of each uri, with its place in ``active``:
    # the rival is the earliest of the two (a scan of every active asset per new asset made
    # the first parse of 200 DAGs quadratic, and every edit re-simulates from one)
    by_name: dict[str, tuple[int, AssetKey]] = {}
    by_uri: dict[str, tuple[int, AssetKey]] = {}

    def index(place: int, k: AssetKey) -> None:
        by_name.setdefault(k.name, (place, k))
        by_uri.setdefault(k.uri, (place, k))

    for place, (k, on) in enumerate(store.active.items()):
        if on:
            index(place, k)
    for key in sorted(keys, key=lambda k: (order.get(k, len(order)), k)):
        store.activates_at.pop(key, None)  # a declared asset is active at once (orphanage)
        if key in store.active:
            continue
        found = [m for m in (by_name.get(key.name), by_uri.get(key.uri)) if m is not None]
        rival = min(found, key=lambda m: m[0])[1] if found else None
        store.active[key] = rival is None
        if rival is None:
            index(len(store.active) - 1, key)
        if rival is not None:
            shared = "name" if rival.name == key.name else "uri"
            sim.warn(
                f"asset conflict: {key.label()} reuses the {shared} of active asset "
                f"{rival.label()}; it stays inactive (ASSET_CONFLICT, URI-2): its producers "
                "emit nothing and references do not resolve to it. Airflow picks the winner "
                "by processing order; the simulator keeps the one declared (or activated) first"
            )
    for dag in dags:
        if dag.direct_assets and dag.assets_first_seen is None:
            dag.assets_first_seen = at
    refresh_ready(sim, None)  # an asset turned inactive may unresolve a reference


def record_event(
    sim: Host,
    key: AssetKey,
    *,
    source: EventSource,
    partition_key: str | None = None,
    partition_date: datetime | None = None,
    extra: dict[str, Any] | None = None,
    via_aliases: tuple[str, ...] = (),
    wrote_data: bool = True,
) -> AssetEvent:
    """``AssetManager.register_asset_change``: store the event, then queue consumers (AS-2)."""
    aliases = tuple(sorted(via_aliases)) if len(via_aliases) > 1 else tuple(via_aliases)
    if partition_key is None and partition_date is None and not extra:
        origin = sim.state.assets.origin(key, source, aliases, wrote_data)
    else:
        origin = EventOrigin.of(
            key,
            source,
            partition_key,
            partition_date,
            dict(extra) if extra else NO_EXTRA,
            aliases,
            wrote_data,
        )
    return sim.state.assets.events.get(_record(sim, origin, source.run_nth))


def _record(sim: Host, origin: EventOrigin, nth: int | None) -> int:
    """:func:`record_event` of an event whose origin is known, returning its id (a
    task's outlet event comes here directly, its origin read once per outlet, and is
    built as an object only for a partitioned consumer or an audit row)."""
    st = sim.state
    event_id, new_resolution = st.assets.record(origin, st.now, nth)
    event: AssetEvent | None = None
    key, aliases, partition_key = origin.asset, origin.via_aliases, origin.partition_key
    # No ``dirty`` here: what an event lets a loop do is a reason of its own, a
    # consumer ready under its max_active_runs (``asset_open``, AS-3/AS-4) or a
    # partition request to evaluate (``queue_partitioned_event``, PT-3); an event that
    # readies nothing is no reason for a loop (such events made a tenth of the loops run).
    touched: list[DagState] = []
    unkeyed: list[str] = []
    for dag_id in sim.listeners(key, aliases):
        dag = st.dags[dag_id]
        if not dag.deployed or dag.is_paused:
            continue
        if dag.spec.timetable.partitioned:
            if partition_key is None:
                unkeyed.append(dag.dag_id)
            else:
                if event is None:  # built once, for the partitioned consumers (PT-3)
                    event = st.assets.events.get(event_id)
                queue_partitioned_event(sim, dag, event)
        elif partition_key is None and key not in dag.adrq:
            # AS-2: the row holds the first event since it was last cleared. AS-3: the
            # condition reads which rows exist, so only a new row can change readiness;
            # a DAG whose row is there already (a consumer held at max_active_runs while
            # its producer keeps emitting) is not evaluated again.
            dag.adrq[key] = st.now
            st.asset_queued.add(dag.dag_id)
            touched.append(dag)
    if unkeyed:  # RND-2: one audit row per event, naming every partitioned consumer
        _audit(sim, "missing partition key", sorted(unkeyed), st.assets.events.get(event_id))
    # Readiness changes only with queue rows, alias resolutions and active flags (AS-3):
    # an event no consumer queues and resolving no alias changes none.
    if new_resolution or touched:
        refresh_ready(sim, None if new_resolution else touched)
    if sim.observed:
        sim.emit("asset_event", None, None, key.label())
    return event_id


def _audit(sim: Host, what: str, dag_ids: list[str], event: AssetEvent, **fields: Any) -> None:
    sim.state.audit_log.append(
        {
            "at": sim.state.now,
            "event": what,
            "dag_ids": dag_ids,
            "source": event.source,
            "event_id": event.id,
            **fields,
        }
    )


def emit_task_events(
    sim: Host,
    run: DagRun,
    task: TaskInstance,
    partition_keys: tuple[str, ...] | None,
    alias_events: tuple[AliasEmission, ...] | None,
    task_index: int | None = None,
) -> None:
    """A task reached SUCCESS: one event per active outlet and key, plus alias emissions (AS-1).

    Keys: each distinct key given to ``add_partitions``, else the run's own
    (PT-1); the run's partition_date rides along only with the run's key.
    ``task_index``: the task's place in its run, where the DAG's spec has it unless
    a deploy changed the tasks since (then it is looked up by task_id). Called for
    every task that succeeds: positional arguments, and a task without
    outlets or alias emissions (most) returns after reading its spec.
    """
    st = sim.state
    dag = st.dags[run.dag_id]
    tasks = dag.spec.tasks
    spec = tasks[task_index] if task_index is not None and task_index < len(tasks) else None
    if spec is None or spec.task_id != task.task_id:
        spec = next((t for t in tasks if t.task_id == task.task_id), None)
    if spec is None:  # the file deployed since has no such task: nothing to emit (DEP-1)
        return
    emissions = alias_events if alias_events is not None else spec.alias_events
    if not spec.outlets and not emissions:
        return  # AS-1: no outlet, nothing added through an alias: no event (most tasks)
    keys = partition_keys if partition_keys is not None else spec.partition_keys
    wrote = task.outcome != "success_no_data"
    store = st.assets
    dag_id, task_id, runs = run.dag_id, task.task_id, dag.runs
    for outlet in spec.outlets:
        if isinstance(outlet, AliasNode):
            continue  # an alias emits only what the task adds through it (AS-9)
        if isinstance(outlet, RefNode):  # Asset.ref outlet: the active asset it names
            resolved = st.assets.resolve_ref(outlet)
            if resolved is None:
                sim.warn(
                    f"{run.run_id}.{task.task_id}: outlet {outlet.label()} resolves to "
                    "no active asset; nothing is emitted"
                )
                continue
            key = resolved
        else:
            key = outlet
        if not st.assets.active.get(key, True):
            sim.warn(
                f"{run.run_id}.{task.task_id}: outlet {key.label()} is an inactive asset "
                "(URI-2 conflict); no event is emitted"
            )
            continue
        for pk in _distinct(keys) if keys else (run.partition_key,):
            date = run.partition_date if pk == run.partition_key else None
            # record_event's origin, without the EventSource it would be read from
            origin = (
                store.task_origin(key, dag_id, task_id, runs, wrote)
                if pk is None and date is None
                else EventOrigin.of_task(key, dag_id, task_id, runs, pk, date, wrote)
            )
            _record(sim, origin, run.nth)
    if emissions:
        aliases = frozenset(o.name for o in spec.outlets if isinstance(o, AliasNode))
        source = EventSource("task", dag_id, task_id, run_nth=run.nth, runs=runs)
        _emit_through_aliases(sim, run, emissions, source, wrote, aliases)


def _emit_through_aliases(
    sim: Host,
    run: DagRun,
    emissions: Iterable[AliasEmission],
    source: EventSource,
    wrote: bool,
    alias_outlets: frozenset[str],
) -> None:
    """One event per (asset, extra); equal extras through several aliases share it (AS-9).

    Only aliases the task declares as outlets count (``register_asset_changes_in_db``);
    extras are compared as sorted JSON, as Airflow compares them.
    """
    grouped: dict[tuple[AssetKey, str], tuple[dict[str, Any], list[str]]] = {}
    for emission in emissions:
        if emission.alias not in alias_outlets:
            sim.warn(
                f"{run.run_id}: {emission.asset.label()} added through alias "
                f"{emission.alias!r}, which is not an outlet of the task: ignored"
            )
            continue
        extra = dict(emission.extra)
        key = (emission.asset, json.dumps(extra, sort_keys=True, default=str))
        named = grouped.setdefault(key, (extra, []))[1]
        if emission.alias not in named:  # RND-5: each alias named once
            named.append(emission.alias)
    for (asset, _), (extra, aliases) in grouped.items():
        if asset not in sim.state.assets.active:  # created on the fly (orphanage)
            sim.state.assets.active[asset] = True
            note_created_by_alias(sim, asset, sim.state.now)
        record_event(
            sim,
            asset,
            source=source,
            partition_key=run.partition_key,
            extra=extra,
            via_aliases=tuple(aliases),
            wrote_data=wrote,
        )


def _distinct(keys: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(keys))


def condition_ready(sim: Host, dag: DagState) -> bool:
    """AS-3 over the DAG's queue rows."""
    cond = dag.spec.timetable.asset_condition
    if cond is None or not dag.adrq:
        return False
    store = sim.state.assets
    return evaluate(cond, dag.adrq.__contains__, store.resolve_ref, store.resolve_alias)


def drop_queue_rows(sim: Host, dag: DagState) -> None:
    """A new definition of ``dag`` was installed (DEP-5): queue rows of assets its
    schedule no longer names go, all of them if it is no longer asset-scheduled; the
    condition is evaluated again."""
    st = sim.state
    for key in [k for k in dag.adrq if not dag.listens_to(k, ())]:
        del dag.adrq[key]
    if not dag.adrq:
        st.asset_queued.discard(dag.dag_id)
    if dag.spec.timetable.asset_condition is None:
        dag.adrq.clear()
        st.asset_queued.discard(dag.dag_id)
        _not_ready(sim, dag.dag_id)
    else:
        refresh_ready(sim, [dag])
    note_limit_changed(sim, dag)  # its max_active_runs may differ now


def refresh_ready(sim: Host, dags: list[DagState] | None) -> None:
    """Re-evaluate the condition of ``dags`` (None: every DAG with queue rows)."""
    st = sim.state
    targets = [st.dags[d] for d in st.asset_queued] if dags is None else dags
    for dag in targets:
        if condition_ready(sim, dag):
            st.asset_ready.add(dag.dag_id)
            if dag.dag_id not in st.asset_full:
                st.asset_open.add(dag.dag_id)
        else:
            _not_ready(sim, dag.dag_id)


def _not_ready(sim: Host, dag_id: str) -> None:
    st = sim.state
    st.asset_ready.discard(dag_id)
    st.asset_open.discard(dag_id)
    st.asset_full.discard(dag_id)


def ready_asset_dags(sim: Host) -> list[DagState]:
    """``dags_needing_dagruns``' asset half: queued, ready, unpaused, below max_active_runs.

    Most ready DAGs of a busy deployment wait at their max_active_runs (AS-4): one
    found so is set aside in ``asset_full`` until a run of it ends or its definition
    changes (:func:`note_limit_changed`), so that a loop reads only the others
    (thousands of ready DAGs, otherwise read at every loop)."""
    st = sim.state
    ready: list[DagState] = []
    full: list[str] = []
    for dag in map(st.dags.__getitem__, st.asset_open):
        if _may_run(dag):
            ready.append(dag)
        elif _only_full(dag):
            full.append(dag.dag_id)
    st.asset_open.difference_update(full)
    st.asset_full.update(full)
    ready.sort(key=lambda d: d.order)
    return ready


def _only_full(dag: DagState) -> bool:
    """Would ``dag`` run but for its active runs? (It stays so until one of them ends or
    its max_active_runs changes: nothing else lowers the count or raises the limit.)"""
    if not dag.deployed or dag.is_paused or dag.exceeds_max_active_runs or dag.is_stale:
        return False
    return len(dag.active) >= dag.spec.max_active_runs


def note_limit_changed(sim: Host, dag: DagState) -> None:
    """A run of ``dag`` ended or its definition changed: if it was set aside at its
    max_active_runs, the next loop reads it again."""
    st = sim.state
    if dag.dag_id in st.asset_full:
        st.asset_full.discard(dag.dag_id)
        if dag.dag_id in st.asset_ready:
            st.asset_open.add(dag.dag_id)


def _may_run(dag: DagState) -> bool:
    if not dag.deployed or dag.is_paused or dag.exceeds_max_active_runs or dag.is_stale:
        return False  # DEP-6: a stale DAG keeps its rows but gets no run
    # AS-4: the live count includes every active run, backfills too (SCH-5): all of
    # ``active``, counted without a pass over it.
    return len(dag.active) < dag.spec.max_active_runs


def asset_runs_due(sim: Host) -> bool:
    """Would a loop now create an asset-triggered run (a reason for a loop, adr/0003)?

    The DAGs found at their max_active_runs are set aside as ``ready_asset_dags`` sets
    them aside: an event that readies a full consumer makes no loop run, and
    the reasons are read at every instant, so they must not read it again until a slot
    frees (AS-4)."""
    st = sim.state
    if not st.asset_open:
        return False
    full: list[str] = []
    for dag in map(st.dags.__getitem__, st.asset_open):
        if _may_run(dag):
            return True
        if _only_full(dag):
            full.append(dag.dag_id)
    st.asset_open.difference_update(full)
    st.asset_full.update(full)
    return False


def asset_run_floor_us(dag: DagState, triggered: int) -> int | None:
    """The AS-5 floor of a run triggered at ``triggered``: the latest asset-triggered
    run_after before it; without one, when the DAG's assets were first seen
    (catchup=False; None when none is named directly) or all history (catchup). In
    epoch microseconds, as the DAG keeps its asset run_afters and the store its events'
    timestamps: a run's creation converts nothing back and forth."""
    latest = dag.asset_run_afters.latest_before(triggered)
    if latest is not None:
        return latest
    first_seen = None if dag.spec.catchup else dag.assets_first_seen
    return None if first_seen is None else epoch_us(first_seen)


def create_asset_run(sim: Host, dag: DagState, now: datetime) -> DagRun:
    """``_create_dag_runs_asset_triggered`` (AS-4, AS-5)."""
    st = sim.state
    triggered = max(dag.adrq.values())
    triggered_us = epoch_us(triggered)
    consumed = consumed_event_ids(sim, dag, asset_run_floor_us(dag, triggered_us), triggered_us)
    info = DagRunInfo(run_after=triggered, data_interval=None)
    run = sim.new_run(
        dag, run_type="asset_triggered", triggered_by="asset", info=info, logical_date=None, now=now
    )
    run.consumed_asset_events = tuple(consumed)
    dag.asset_run_afters.add(triggered_us)
    dag.adrq.clear()  # every row read for the DAG, needed or not (AS-4)
    st.asset_queued.discard(dag.dag_id)
    _not_ready(sim, dag.dag_id)
    if sim.observed:
        sim.emit("run_created", dag.dag_id, run)
    return run


def consumed_events(sim: Host, dag: DagState, triggered: datetime) -> list[AssetEvent]:
    """The events a run of ``dag`` triggered at ``triggered`` consumes: of directly
    named assets and of the DAG's aliases, after its floor and up to ``triggered``
    (AS-5)."""
    events = sim.state.assets.events
    upto = epoch_us(triggered)
    floor = asset_run_floor_us(dag, upto)
    return [events.get(i) for i in consumed_event_ids(sim, dag, floor, upto)]


def consumed_event_ids(sim: Host, dag: DagState, floor: int | None, upto: int) -> list[int]:
    """The ids of :func:`consumed_events`, in its order, without building the events
    (the store keeps them as columns, adr/0006); the bounds in epoch microseconds."""
    store = sim.state.assets
    if len(dag.direct_assets) == 1 and not dag.schedule_aliases:
        # One asset's events, as the store keeps them: appended as recorded, so already
        # in (timestamp, id) order and without duplicates (the usual consumer).
        (key,) = dag.direct_assets
        return store.ids_between_us(key, floor, upto)
    chosen: set[int] = set()
    for key in dag.direct_assets:
        chosen.update(store.ids_between_us(key, floor, upto))
    for alias in dag.schedule_aliases:
        chosen.update(store.ids_between_us(alias, floor, upto))
    stamp = store.events.stamp_us
    return sorted(chosen, key=lambda i: (stamp(i), i))
