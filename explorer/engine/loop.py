"""The scheduler loop: the order of one instant and of one scheduler tick (SCH-1).

Part of the simulation (adr/0011-engine-parts.md). At an instant ``t``
(:func:`process_instant`): task outcomes due, bundle refreshes, script actions in
order (trace README 7.3), watcher polls, then a scheduler loop if ``t`` is on the
loop grid and something may change (adr/0003). A loop (:func:`tick`): partition
requests fire (PT-4), scheduled and asset runs are created, at most
``max_dagruns_to_create_per_loop`` (SCH-2), queued runs are promoted under
max_active_runs and the per-loop cap (SCH-5), tasks start (SCH-10), and at most
``max_dagruns_per_loop_to_schedule`` running runs are examined and finished ones
ended (step 5, RND-6, RND-4).

Owns the loop's bookkeeping in ``SimState``: ``last_tick``, ``dirty``, ``pending``,
``touched``, ``rotation``/``examined_upto``. The steps call the parts that own
what they change: the DAG schedule (``dagschedule``), the run life cycle
(``lifecycle``), the asset rules, partition requests, watchers, the script.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import compress
from typing import TYPE_CHECKING

from explorer.engine import actions as act
from explorer.engine import dagschedule, deployment, lifecycle, script
from explorer.engine.assets import scheduling as asset_rules
from explorer.engine.assets.condition import AliasNode, RefNode
from explorer.engine.assets.orphanage import activate_due, next_activation
from explorer.engine.assets.partitioned import fire_partition_requests
from explorer.engine.assets.watching import poll_due, run_watchers
from explorer.engine.dag import TaskSpec
from explorer.engine.dagstate import DagState
from explorer.engine.runs import DagRun
from explorer.engine.ticks import GridCadence
from explorer.engine.types import ReferenceRun
from explorer.engine.tz import ONE_US

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["next_event_time", "process_instant", "tick"]


def next_event_time(sim: Host) -> datetime | None:
    """The next instant at which anything happens (``None``: nothing ever will).

    Asked before every instant: the earliest of the candidates is kept as they are read,
    the empty sources skipped without a call."""
    st = sim.state
    found = next_needed_tick(sim)
    if st.script_index < len(sim.script):
        at = sim.script[st.script_index].at
        if found is None or at < found:
            found = at
    if st.completions:
        at = st.completions[0][0]
        if found is None or at < found:
            found = at
    if sim.watchers:
        poll = poll_due(sim)
        if poll is not None and (found is None or poll < found):
            found = poll
    if st.deployment.refreshes:
        refresh = deployment.next_refresh(sim)
        if refresh is not None and (found is None or refresh < found):
            found = refresh
    if st.assets.activates_at:
        activation = next_activation(sim)
        if activation is not None:
            activation = max(activation, st.now)
            if found is None or activation < found:
                found = activation
    return found


def next_needed_tick(sim: Host) -> datetime | None:
    """The first loop on the grid at which a loop could change anything (adr/0003)."""
    st = sim.state
    if st.dirty:
        # Something changed since the latest loop: now is a reason, and no reason counts
        # for less than now here. The usual case at step 4 of an instant (a task ended
        # at it): the scan of every other reason is skipped.
        earliest = st.now
    else:
        found = earliest_reason(sim)
        if found is None:
            return None
        earliest = max(found, st.now)
    if st.last_tick is not None and earliest <= st.last_tick:
        return sim.ticks.after(st.last_tick)
    return sim.ticks.at_or_after(earliest)


def earliest_reason(sim: Host, *, rotation: bool = True) -> datetime | None:
    """The earliest instant at which a loop could change anything (None: never).

    ``rotation``: the loops to come are the grid's, each examining the next runs of
    step 5's rotation (False for an explicit Tick, which examines off the grid)."""
    st = sim.state
    reasons: list[datetime] = []
    if st.dirty:
        reasons.append(st.now)
    due = dagschedule.peek_due(sim)
    if due is not None:
        reasons.append(due)
    stale: list[tuple[str, int]] = []
    for key, run in st.pending.items():
        if run.state == "queued":
            if run.run_after > st.now:
                reasons.append(run.run_after)
        elif run.state == "running" and any(t.state == "none" for t in run.tasks):
            if run.logical_date is not None:
                reasons.append(max(run.logical_date, st.now))
        else:  # ended, or every task started: it can never give a reason again
            stale.append(key)
    for key in stale:
        del st.pending[key]
    earliest = min(reasons) if reasons else None
    if earliest is not None and earliest <= st.now:
        # The asset-ready DAGs and the runs waiting for step 5 give no reason before
        # now: under a backlog thousands wait there (RND-6: 20 examined a loop; most
        # ready DAGs at their max_active_runs), and this runs twice an instant.
        return earliest
    if st.asset_ready and asset_rules.asset_runs_due(sim):
        return st.now  # nothing else is earlier than now here
    if st.touched:
        reason = _touched_reason(sim, rotation)
        if reason is not None and (earliest is None or reason < earliest):
            earliest = reason
    return earliest


def _touched_reason(sim: Host, rotation: bool) -> datetime | None:
    """The earliest loop at which step 5 can end a run whose tasks have all finished
    (``SimState.touched``).

    Such a run ends only in a loop that examines it (RND-6: 20 a loop, in the
    rotation's order), so with ``rotation`` the reason is that loop, read from the
    rotation (:meth:`Rotation.examinations_until`), and the loops before it, which
    examine other runs and change nothing else, are skipped and replayed (they were
    most of the loops run). Runs the rotation does not decide stay a reason
    from now on: a run whose logical date is ahead (SCH-10: from that date), of a
    paused DAG (RND-4: the sweep after step 5 ends it) or of a stale one (DEP-6).
    Without ``rotation`` (an explicit Tick, an examination off the grid) every such
    run is a reason now.
    """
    st = sim.state
    now = st.now
    # Beyond the limit (a backlog, RND-6: more runs finished than loops examine) loops
    # are busy anyway and the first running run is a reason now: no walk of the backlog.
    rotation = rotation and len(st.touched) <= _ROTATION_READ_LIMIT
    earliest: datetime | None = None
    wanted: set[int] = set()
    dags = st.dags
    for run in st.touched.values():
        if run.state != "running":
            continue
        logical = run.logical_date
        if rotation and (logical is None or logical <= now):
            dag = dags[run.dag_id]
            if not dag.is_paused and not dag.is_stale:
                wanted.add(id(run))
                continue
        reason = max(logical or now, now)
        if reason == now:
            return now  # none is earlier
        if earliest is None or reason < earliest:
            earliest = reason
    if wanted:
        # The loop found is an instant on the grid, which the loops skipped meanwhile
        # (replayed along the same order) do not move: it is read again only when the
        # order changed otherwise or other runs wait (``Rotation.epoch``).
        rot = st.rotation
        key = (rot.epoch, frozenset(wanted))
        memo = rot.memo
        if memo is not None and memo[0] == key:
            loop_at = memo[1]
        else:
            cap = sim.config.max_dagruns_per_loop_to_schedule
            count = rot.examinations_until(wanted, dags, cap, st.paused_ids)
            loop_at = now if count is None else _examination_loop(sim, count)
            rot.memo = (key, loop_at)
        if loop_at is not None and (earliest is None or loop_at < earliest):
            earliest = max(loop_at, now)
    return earliest


#: Up to this many runs waiting for step 5 the rotation says which loop ends the first;
#: beyond it every loop is run (a bounded walk per call, never one of the backlog).
_ROTATION_READ_LIMIT = 32


def _examination_loop(sim: Host, count: int) -> datetime | None:
    """The loop of the ``count``-th examination to come (1: the next), on the grid."""
    st = sim.state
    ticks = sim.ticks
    at = ticks.first() if st.examined_upto is None else ticks.after(st.examined_upto)
    if isinstance(ticks, GridCadence):
        return None if at is None else at + (count - 1) * ticks.step
    for _ in range(count - 1):
        if at is None:
            break
        at = ticks.after(at)
    return at


def catch_up_examination(sim: Host, t: datetime) -> None:
    """Step 5's rotation as the loops skipped before ``t`` would have moved it (RND-6)."""
    st = sim.state
    last = sim.ticks.at_or_before(t - ONE_US)
    if last is None or (st.examined_upto is not None and last <= st.examined_upto):
        return
    after = st.examined_upto
    st.examined_upto = last
    if not len(st.rotation):
        return

    count = sim.ticks.count_between(after, last)
    cap = sim.config.max_dagruns_per_loop_to_schedule
    st.rotation.skip(st.dags, count, last, cap, st.paused_ids)


def process_instant(sim: Host, t: datetime) -> None:
    st = sim.state
    catch_up_examination(sim, t)
    if (st.script_index < len(sim.script) and sim.script[st.script_index].at <= t) or (
        st.deployment.refreshes and st.deployment.refreshes[0] <= t
    ):
        # A script step or a bundle refresh may pause a DAG, end or restart runs: which
        # runs step 5 examines may change otherwise than loop by loop (RND-4).
        st.rotation.changed()
    st.now = t
    # the orphanage housekeeping (assets/orphanage.py): a reference may resolve now
    if st.assets.activates_at and activate_due(sim, t):
        asset_rules.refresh_ready(sim, None)  # AS-3
        st.dirty = True
    # 1. task outcomes due now (trace README 7.3: before script steps)
    if st.completions:
        lifecycle.finish_due_tasks(sim, t)
    # 1b. the DAG processor's bundle refreshes due now (DEP-6)
    deployment.run_due_refreshes(sim, t)
    # 2. script actions at this instant, in list order (a Tick is a loop in its place)
    script.apply_due(sim, t, explicit_tick)
    # 3. watchers polling now (the triggerer runs beside the scheduler)
    if sim.watchers:
        run_watchers(sim, t)
    # 4. a scheduler loop, if one happens now and anything may change
    if sim.ticks.contains(t) and st.last_tick != t:
        needed = next_needed_tick(sim)
        if needed is not None and needed <= t:
            tick(sim, t)


def set_clock(sim: Host, instant: datetime) -> None:
    """The clock ends at ``instant`` (advance_to: every event up to it is processed)."""
    sim.state.now = instant


def explicit_tick(sim: Host, action: act.Tick) -> None:
    """A loop in its place among the instant's actions (actions.Tick); skipped, like a
    cadence loop, when nothing it does could change anything."""
    st = sim.state
    earliest = earliest_reason(sim, rotation=False)
    if earliest is not None and earliest <= action.at:
        tick(sim, action.at)
    else:  # a loop all the same: step 5's rotation moves on (RND-6)
        cap = sim.config.max_dagruns_per_loop_to_schedule
        st.rotation.examine(st.dags, action.at, cap, st.paused_ids)
    st.rotation.moved()  # an examination off the grid (runs it ended: Rotation.ended)
    st.last_tick = action.at
    st.examined_upto = max(st.examined_upto or action.at, action.at)


def tick(sim: Host, now: datetime) -> None:
    """One scheduler loop (SCH-1): 1 partition requests, 2 scheduled and asset runs,
    4 queued runs promoted and tasks started, 5 finished runs ended."""
    st = sim.state
    st.last_tick = now
    partitioned, requests_left = (
        fire_partition_requests(sim, now) if st.partition_unevaluated else (set(), False)
    )
    create_scheduled_runs(sim, now, skip=partitioned)
    capped = start_queued_runs(sim, now)
    start_waiting_tasks(sim, now)
    # A slot freed by a run finishing in this loop is used by the next one (SCH-1); the
    # requests beyond PT-4's 500 are evaluated by the next one too.
    st.dirty = finish_runs(sim, now) or capped or requests_left


def create_scheduled_runs(sim: Host, now: datetime, skip: set[str] | None = None) -> None:
    st = sim.state
    made_wait = dagschedule.collect_due(sim, now)
    asset_ready = asset_rules.ready_asset_dags(sim) if st.asset_ready else []
    # SCH-2's pick, in dags_needing_dagruns' order; SCH-1: a DAG that got a partition
    # run this loop gets nothing else.
    limit = sim.config.max_dagruns_to_create_per_loop
    taken, left = dagschedule.take_due(sim, now, skip or set(), asset_ready, limit, made_wait)
    ready_ids = {d.dag_id for d in asset_ready}
    for dag in taken:
        # TT-15: a DAG both asset-ready and time-due gets only the asset run this loop.
        if dag.dag_id not in ready_ids:
            create_scheduled_run(sim, dag, now)
            dagschedule.reschedule(sim, dag)
    for dag in taken:
        if dag.dag_id in ready_ids:
            asset_rules.create_asset_run(sim, dag, now)
            dagschedule.reschedule(sim, dag)
    for dag in left:  # asset-ready DAGs left over (due ones wait in SimState.waiting)
        dagschedule.reschedule(sim, dag)


def create_scheduled_run(sim: Host, dag: DagState, now: datetime) -> None:
    info = dag.next_run
    assert info is not None
    if info.logical_date is not None:
        existing = dag.run_with_logical_date(info.logical_date)
        if existing is not None:
            # SCH-9: nothing is created; the cache is recomputed from the run holding the date.
            dagschedule.compute_next_run(
                sim, dag, ReferenceRun(existing.data_interval, existing.run_after), now
            )
            if dag.next_run == info:
                dag.stalled_on = info.logical_date
                wake = dag.spec.timetable.next_changes_after(now)
                dag.wake_at = None if wake is None else max(wake, now + timedelta(microseconds=1))
            return
    run = lifecycle.new_run(
        sim,
        dag,
        run_type="scheduled",
        triggered_by="timetable",
        info=info,
        logical_date=info.logical_date,
        now=now,
    )
    dagschedule.compute_next_run(sim, dag, ReferenceRun.of(info), now)
    dag.exceeds_max_active_runs = dagschedule.exceeds(sim, dag)
    if sim.observed:
        sim.emit("run_created", dag.dag_id, run)


def start_queued_runs(sim: Host, now: datetime) -> bool:
    """Step 4 (SCH-5); True when the per-loop cap left eligible runs for the next loop."""
    st = sim.state
    queued = [
        r
        for r in st.pending.values()
        if r.state == "queued"
        and r.run_after <= now
        and not st.dags[r.dag_id].is_paused
        and not st.dags[r.dag_id].is_stale  # DEP-6
    ]
    if not queued:
        return False
    running: dict[tuple[str, int | None], int] = {}
    for dag_id in dict.fromkeys(r.dag_id for r in queued):
        for r in st.dags[dag_id].active:
            if r.state == "running":
                key = (r.dag_id, r.backfill_id)
                running[key] = running.get(key, 0) + 1

    def limit(r: DagRun) -> int:
        if r.backfill_id is not None:
            return int(st.backfills[r.backfill_id]["max_active_runs"])
        return st.dags[r.dag_id].spec.max_active_runs

    eligible = [r for r in queued if running.get((r.dag_id, r.backfill_id), 0) < limit(r)]
    # get_queued_dag_runs_to_set_running: backfill ordinal (nulls first), DAGs with fewer
    # running runs first, then run_after; creation order breaks ties.
    eligible.sort(
        key=lambda r: (
            r.backfill_sort_ordinal is not None,
            r.backfill_sort_ordinal or 0,
            running.get((r.dag_id, r.backfill_id), 0),
            r.run_after,
        )
    )
    cap = sim.config.max_dagruns_per_loop_to_schedule
    for run in eligible[:cap]:
        key = (run.dag_id, run.backfill_id)
        if running.get(key, 0) >= limit(run):
            continue
        running[key] = running.get(key, 0) + 1
        run.set_state("running", now)
        st.rotation.started(run)
        if all(t.finished for t in run.tasks):  # nothing to run: step 5 ends it
            st.touched[(run.dag_id, run.nth)] = run
        if sim.observed:
            sim.emit("run_state", run.dag_id, run, "running")
    return len(eligible) > cap


def start_waiting_tasks(sim: Host, now: datetime) -> None:
    """Tasks of running runs start once the logical date is not in the future (SCH-10)."""
    st = sim.state
    # Entries that can never give a reason again (ended, or every task started) leave
    # ``pending`` here as well as in earliest_reason, which a dirty instant skips.
    stale: list[tuple[str, int]] = []
    for key, run in st.pending.items():
        if run.state != "running":
            if run.state != "queued":
                stale.append(key)
            continue
        if st.dags[run.dag_id].is_stale:  # DEP-6
            continue
        waits = run.logical_date is not None and run.logical_date > now
        spec_tasks = st.dags[run.dag_id].spec.tasks
        if waits and not any(t.starts_with_run for t in spec_tasks):
            continue
        _start_tasks(sim, run, spec_tasks, waits, now)
        if not any(t.state == "none" for t in run.tasks):
            stale.append(key)
    for key in stale:
        del st.pending[key]


def _start_tasks(
    sim: Host, run: DagRun, spec_tasks: tuple[TaskSpec, ...], waits: bool, now: datetime
) -> None:
    """Start the tasks of ``run`` not started yet (only those starting with the run while
    its logical date is ahead, ``waits``)."""
    st = sim.state
    dag = st.dags[run.dag_id]
    # The script's delays: most DAGs are named by no override, and their tasks are not
    # matched against none one by one (every task of every run asked).
    overrides = st.overrides if st.overrides.names(run.dag_id) else None
    timers: list[tuple[int, datetime]] = []
    for task_index, task in enumerate(run.tasks):
        if task.state != "none" or (waits and not spec_tasks[task_index].starts_with_run):
            continue
        task.state = "running"
        task.start_date = now
        # The file in place now says what the task does (README 7.9: a deploy
        # changes the tasks of runs not started yet); a task it no longer has
        # takes no time and emits nothing.
        spec = (
            spec_tasks[task_index]
            if task_index < len(spec_tasks) and spec_tasks[task_index].task_id == task.task_id
            else next((t for t in spec_tasks if t.task_id == task.task_id), None)
        )
        if spec is not None and spec.inlets:
            task.inlet_events = inlet_events(sim, spec, now)
        if task.held:
            continue
        finish_at = now + (spec.duration if spec is not None else timedelta(0))
        if overrides is not None:
            finish_at += overrides.delay(run, task, dag)
        timers.append((task_index, finish_at))
    if timers:
        lifecycle.start_timers(sim, run, timers)


def inlet_events(sim: Host, spec: TaskSpec, now: datetime) -> tuple[int | None, ...]:
    """The latest event of each inlet asset at ``now`` (refs resolved; aliases: the
    latest event emitted through them)."""
    store = sim.state.assets
    out: list[int | None] = []
    for inlet in spec.inlets:
        if isinstance(inlet, AliasNode):
            out.append(store.latest_id(inlet.name, now))
        else:
            key = store.resolve_ref(inlet) if isinstance(inlet, RefNode) else inlet
            out.append(None if key is None else store.latest_id(key, now))
    return tuple(out)


def finish_runs(sim: Host, now: datetime) -> bool:
    """Step 5 (at most ``max_dagruns_per_loop_to_schedule`` running runs examined,
    RND-6), then the paused sweep (RND-4): runs whose tasks are all done end. A finished
    run left out stays in ``touched`` for a later loop.

    True if a run ended whose DAG has a queued run: the slot it freed is the next loop's
    to fill (step 4, SCH-5), and a queued run already past its run_after gives no other
    reason for a loop. Whatever else an ended run frees gives its own reason: the DAG
    due again (``dagschedule.reschedule``), an asset-ready DAG under its
    max_active_runs (``asset_rules.note_limit_changed``, AS-4). Otherwise every
    ended run would make the next loop run, most of them for nothing."""
    st = sim.state
    cap = sim.config.max_dagruns_per_loop_to_schedule
    examined = st.rotation.examine(st.dags, now, cap, st.paused_ids)
    st.examined_upto = now
    st.rotation.moved()  # runs may end below: the order the reasons read changes
    if not st.touched:
        return False
    touched, dags = st.touched, st.dags
    # A run whose logical date is still ahead is left alone (its tasks are not even
    # scheduled, SCH-10): one without task instances (RND-1) ends only after it. DEP-6:
    # a stale DAG's running runs are not looked at until its file is back. One pass
    # over the examined runs; usually none or one is left, so the sort is skipped.
    done = [
        r
        for r in _examined_touched(examined, touched)
        if (r.logical_date is None or r.logical_date <= now) and not dags[r.dag_id].is_stale
    ]
    if len(done) > 1:  # in activation order (stable, as sorting every examined run)
        done.sort(key=lambda r: st.activation.get((r.dag_id, r.nth), 0))
    if st.paused_ids:
        # RND-4: the sweep of paused DAGs ends their finished running runs after step
        # 5; read from the paused DAGs' active runs, not from every run waiting.
        swept = [
            r
            for dag in map(dags.__getitem__, st.paused_ids)
            if not dag.is_stale
            for r in dag.active
            if r.state == "running" and (r.dag_id, r.nth) in touched
        ]
        done += sorted(swept, key=lambda r: st.activation.get((r.dag_id, r.nth), 0))
        if swept:
            st.rotation.changed()  # their entries are not at the back: dropped when next read
    finished = ended = False
    for run in done:
        if run.state == "running" and all(t.finished for t in run.tasks):
            failed = any(t.state == "failed" for t in run.tasks)
            lifecycle.finish_run(sim, run, "failed" if failed else "success", now)
            ended = True
            finished = finished or any(r.state == "queued" for r in dags[run.dag_id].active)
    if ended:
        # The examined runs that ended leave the rotation now, from the back where the
        # examination put them; none is left for a later loop to pass over.
        st.rotation.ended(len(examined))
    # The runs looked at leave ``touched``; a run that stopped running otherwise left it
    # when it did (lifecycle.finish_run, lifecycle.activate).
    for run in done:
        st.touched.pop((run.dag_id, run.nth), None)
    return finished


def _examined_touched(
    examined: list[DagRun], touched: dict[tuple[str, int], DagRun]
) -> list[DagRun]:
    """The examined runs that are in ``touched``, in examination order.

    Usually a few runs wait in ``touched`` and 20 are examined: they are matched by
    identity (a key's run in ``touched`` is the live run the rotation holds), not by
    building a key per examined run (every loop examines 20). A backlog (more
    runs waiting than examined) is matched by key, without a set of it."""
    if len(touched) > len(examined):
        return [r for r in examined if (r.dag_id, r.nth) in touched]
    wanted = set(map(id, touched.values()))
    return list(compress(examined, map(wanted.__contains__, map(id, examined))))  # in C
