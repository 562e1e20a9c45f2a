"""The simulated scheduler: Airflow 3.3.2's loop, run on a simulated clock.

The loop follows SCH-1: (2) create scheduled runs, (4) promote queued runs,
(5) finish runs whose tasks are done. DAG files are parsed on their own
cadence (SCH-4b). Loops in which nothing can change are skipped, but the
record is the one a loop at every grid instant would give: a loop is run
whenever something happened since the previous one (a script action, a task
finishing) or a DAG's next run is due. Parses are applied lazily: a parse
only matters once something reads the DAG's next-run cache, and parses
between two such reads overwrite each other, so only the latest is applied
(see ``adr/0003-event-driven-loop.md``).

The engine never reads the wall clock; ``now`` is the simulated clock.
"""

from __future__ import annotations

import copy
import hashlib
import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from explorer.engine import actions as act
from explorer.engine import deployment
from explorer.engine.assets import scheduling as asset_rules
from explorer.engine.assets.condition import AliasNode, AssetKey, RefNode
from explorer.engine.assets.orphanage import activate_due, next_activation
from explorer.engine.assets.partitioned import fire_partition_requests
from explorer.engine.assets.store import EventSource
from explorer.engine.assets.watchers import WatcherSpec
from explorer.engine.assets.watching import poll_due, run_watchers
from explorer.engine.backfill import create_backfill, note_run_finished
from explorer.engine.config import SchedulerConfig
from explorer.engine.dag import DagSpec, TaskOutcome, TaskSpec
from explorer.engine.dagfile import DagFile, DeployDag, RemoveDag
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError, SimulationLimitError
from explorer.engine.max_active_flag import parse_flag, refreshes_on_finish
from explorer.engine.options import AirflowOptions
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runs import (
    DagRun,
    RunType,
    TaskInstance,
    TriggeredBy,
    random_suffix,
    standard_run_id,
)
from explorer.engine.selection import select_run
from explorer.engine.state import SimState
from explorer.engine.task_instances import has_task_instances
from explorer.engine.ticks import Cadence, GridCadence, NoCadence
from explorer.engine.timetables import CronDataIntervalTimetable, CronTriggerTimetable
from explorer.engine.types import DagRunInfo, ReferenceRun
from explorer.engine.tz import ONE_US

__all__ = ["Change", "SchedulerConfig", "Simulation", "SimulationLimitError"]

Observer = Callable[["Change"], None]


@dataclass(frozen=True, slots=True)
class Change:
    """What observers hear: ``kind`` in run_created, run_state, task_state, dag_paused,
    dag_unpaused, dag_deployed, warning, clock; and for changing deployments dag_parsed
    (detail ``parse`` or ``deploy``), dag_removed, dag_stale, option_set."""

    kind: str
    at: datetime
    dag_id: str | None = None
    run: DagRun | None = None
    detail: str = ""


#: The state record's former name, kept for code that names it (checkpoints are SimState).
_State = SimState


class Simulation:
    """A scheduler you can drive: advance to the next event, by a duration or to an instant.

    ``script`` actions are applied at their instants; more can be added with
    :meth:`add_action` as long as they are not in the past.
    """

    def __init__(
        self,
        dags: Sequence[DagSpec | DagFile],
        *,
        start: datetime,
        config: SchedulerConfig | None = None,
        script: Iterable[act.Action] = (),
        ticks: Cadence | None = None,
        parses: Cadence | None = None,
        deploy_at_start: bool = True,
        run_limit: int = 5_000_000,
        checkpoint_every: int = 0,
        watchers: Sequence[WatcherSpec] = (),
        seed: int = 0,
        declared_assets: Sequence[AssetKey] = (),
        options: AirflowOptions | None = None,
        refresh_grid: bool = True,
    ) -> None:
        self.config = config or SchedulerConfig()
        self.start = start
        self.ticks = ticks or GridCadence(start, self.config.loop_interval)
        if parses is not None:
            self.parses: Cadence = parses
        elif self.config.parse_interval is None:
            self.parses = NoCadence()
        else:
            self.parses = GridCadence(start, self.config.parse_interval)
        self.run_limit = run_limit
        self.watchers = tuple(watchers)
        #: The scenario's asset declarations, in file order (first declared wins, URI-2).
        self.declared_assets = tuple(declared_assets)
        #: Seed of the random task failures (``TaskSpec.failure_rate``): same seed, same record.
        self.seed = seed
        # DEP-7: a file is read under the options in force; DAGs first added by a
        # DeployDag action exist (undeployed) from the start, after the others.
        options = options or AirflowOptions()
        #: Removed files are noticed on the refresh_interval grid (False: only by
        #: explicit BundleRefresh actions, as the conformance traces drive them).
        self.refresh_grid = refresh_grid
        files = [d if isinstance(d, DagFile) else DagFile.of(d) for d in dags]
        self.script: list[act.Action] = sorted(script, key=lambda a: a.at)
        deployed_later = [a.file for a in self.script if isinstance(a, DeployDag)]
        resolved = [f.resolve(options) for f in files]
        self.specs = {d.dag_id: d for d in resolved}
        if len(self.specs) != len(dags):
            raise EngineError("dag_id values must be unique")
        added = {f.dag_id: f.resolve(options) for f in deployed_later if f.dag_id not in self.specs}
        self._observers: list[Observer] = []
        #: Automatic checkpoints (instant, snapshot), oldest first, for :meth:`rewind_to`.
        self.checkpoint_every = checkpoint_every
        self._checkpoints: list[tuple[datetime, SimState]] = []
        self._since_checkpoint = 0
        log = RunLog()
        every = [*resolved, *added.values()]
        dag_states = {d.dag_id: DagState(d, i, runs=DagRuns(log)) for i, d in enumerate(every)}
        self._dag_ids = list(dag_states)
        self.state = SimState(now=start, dags=dag_states, runs=log)
        self.state.deployment.options = options
        self.state.deployment.files = {f.dag_id: f for f in files}
        if deploy_at_start:
            later = {
                dag_id
                for a in self.script
                if isinstance(a, act.Deploy)
                for dag_id in (a.dag_ids or tuple(self.specs))
            }
            first = [d for d in self.specs if d not in later]
            if first:
                self.script.insert(0, act.Deploy(at=start, dag_ids=tuple(first)))
        for a in self.script:
            self._check_action(a)
        self.index_listeners()
        self._initial = self.checkpoint()

    # ------------------------------------------------------------------ asset listeners
    def index_listeners(self) -> None:
        """Which DAGs an event on an asset can reach (AS-2), indexed once: by the assets
        their conditions name, by ``Asset.ref`` name and uri, and by alias."""
        self._by_asset: dict[AssetKey, list[str]] = {}
        self._by_ref_name: dict[str, list[str]] = {}
        self._by_ref_uri: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        for dag in self.state.dags.values():
            for key in dag.direct_assets:
                self._by_asset.setdefault(key, []).append(dag.dag_id)
            for ref in dag.schedule_refs:
                if ref.name is not None:
                    self._by_ref_name.setdefault(ref.name, []).append(dag.dag_id)
                if ref.uri is not None:
                    self._by_ref_uri.setdefault(ref.uri, []).append(dag.dag_id)
            for alias in dag.schedule_aliases:
                self._by_alias.setdefault(alias, []).append(dag.dag_id)

    def listeners(self, key: AssetKey, via_aliases: tuple[str, ...]) -> list[str]:
        """The DAGs scheduled on ``key`` directly, by reference, or through one of
        ``via_aliases``, in declaration order."""
        found = set(self._by_asset.get(key, ()))
        if key not in self.state.assets.activates_at:  # refs resolve once active (orphanage)
            found.update(self._by_ref_name.get(key.name, ()))
            found.update(self._by_ref_uri.get(key.uri, ()))
        for alias in via_aliases:
            found.update(self._by_alias.get(alias, ()))
        return sorted(found, key=lambda d: self.state.dags[d].order)

    # ------------------------------------------------------------------ observers
    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Call ``observer`` with every :class:`Change`; returns the unsubscribe function."""
        self._observers.append(observer)
        return lambda: self._observers.remove(observer)

    def emit(
        self, kind: str, dag_id: str | None = None, run: DagRun | None = None, detail: str = ""
    ) -> None:
        if self._observers:
            change = Change(kind, self.state.now, dag_id, run, detail)
            for observer in list(self._observers):
                observer(change)

    # ------------------------------------------------------------------ public API
    @property
    def now(self) -> datetime:
        return self.state.now

    @property
    def runs(self) -> RunLog:
        """Every run, in the order the scheduler created them."""
        return self.state.runs

    @property
    def dags(self) -> dict[str, DagState]:
        return self.state.dags

    @property
    def warnings(self) -> list[str]:
        return self.state.warnings

    def add_action(self, action: act.Action) -> None:
        """Add a script action at or after the clock (it becomes part of the script)."""
        if action.at < self.state.now:
            raise EngineError(
                f"cannot add an action at {action.at.isoformat()}: the clock is already at "
                f"{self.state.now.isoformat()}"
            )
        self._check_action(action)
        index = len(self.script)
        while index > self.state.script_index and self.script[index - 1].at > action.at:
            index -= 1
        self.script.insert(index, action)
        self.state.dirty = True

    def next_event_time(self) -> datetime | None:
        """The next instant at which anything happens (``None``: nothing ever will)."""
        candidates: list[datetime] = []
        st = self.state
        if st.script_index < len(self.script):
            candidates.append(self.script[st.script_index].at)
        if st.completions:
            candidates.append(st.completions[0][0])
        if self.watchers:
            poll = poll_due(self)
            if poll is not None:
                candidates.append(poll)
        tick = self._next_needed_tick()
        if tick is not None:
            candidates.append(tick)
        refresh = deployment.next_refresh(self)
        if refresh is not None:
            candidates.append(refresh)
        activation = next_activation(self)
        if activation is not None:
            candidates.append(max(activation, st.now))
        return min(candidates) if candidates else None

    def step(self) -> datetime | None:
        """Advance to the next event and process it; returns its instant."""
        t = self.next_event_time()
        if t is None:
            return None
        self._process_instant(t)
        return t

    def advance_to(
        self, instant: datetime, *, progress: Callable[[datetime], bool] | None = None
    ) -> None:
        """Process every event up to and including ``instant``; the clock ends there.

        ``progress`` is called after each processed instant; returning False stops early
        (the clock then stays at the last processed instant).
        """
        if instant < self.state.now:
            raise EngineError("the simulation cannot go back; restore a checkpoint instead")
        while True:
            t = self.next_event_time()
            if t is None or t > instant:
                break
            self._auto_checkpoint()
            self._process_instant(t)
            if progress is not None and not progress(t):
                return
        self.state.now = instant
        self.emit("clock")

    def rewind_to(self, instant: datetime) -> None:
        """Go back to ``instant``: restore the nearest earlier checkpoint and replay from it.

        Script actions added since that checkpoint stay in the script and are replayed.
        """
        if instant < self.start:
            raise EngineError("cannot rewind before the scenario's clock.start")
        while self._checkpoints and self._checkpoints[-1][0] > instant:
            self._checkpoints.pop()
        if self._checkpoints:
            self.restore(self._checkpoints[-1][1])
        else:
            self.restore(self._initial)
        self._since_checkpoint = 0
        self.advance_to(instant)

    def adopt(
        self, other: Simulation, before: datetime, changed: Iterable[str] = ()
    ) -> datetime | None:
        """Continue from ``other``'s latest checkpoint strictly before ``before``.

        For an edited scenario whose simulation is known to be identical to
        ``other``'s until ``before`` (the same DAGs in the same order, the same
        script before ``before``): re-simulating from there gives the record a
        fresh simulation would, without replaying what the edit cannot change.
        The DAGs in ``changed`` have a different spec; they must not have been
        deployed at the checkpoint (they start from their initial state).
        Returns the checkpoint's instant, or None (nothing adopted) when there
        is no such checkpoint or the precondition does not hold.
        """
        if list(other.specs) != list(self.specs):
            return None
        found = next(((t, s) for t, s in reversed(other._checkpoints) if t < before), None)
        if found is None:
            return None
        at, snapshot = found
        memo: dict[int, Any] = {id(other.specs[d]): spec for d, spec in self.specs.items()}
        state = copy.deepcopy(snapshot, memo)
        for dag_id in changed:
            old = state.dags[dag_id]
            if old.deployed or old.runs:
                return None
            state.dags[dag_id] = DagState(self.specs[dag_id], old.order, runs=DagRuns(state.runs))
        self._checkpoints = [(at, state)]
        self._since_checkpoint = 0
        self.restore(state)
        return at

    def _auto_checkpoint(self) -> None:
        """Every ``checkpoint_every`` instants (0: never; headless runs never rewind)."""
        if not self.checkpoint_every:
            return
        self._since_checkpoint += 1
        if self._since_checkpoint < self.checkpoint_every:
            return
        self._since_checkpoint = 0
        self._checkpoints.append((self.state.now, self.checkpoint()))
        if len(self._checkpoints) > 64:  # keep memory bounded: thin out the older half
            del self._checkpoints[1:32:2]

    def advance_by(self, delta: timedelta) -> None:
        self.advance_to(self.state.now + delta)

    def checkpoint(self) -> SimState:
        """A snapshot of the whole state (specs and timetables are shared, not copied)."""
        return copy.deepcopy(self.state, self._shared())

    def restore(self, snapshot: SimState) -> None:
        self.state = copy.deepcopy(snapshot, self._shared())
        self.index_listeners()  # a restored DAG may have other references (DEP-5, DEP-6)
        self.emit("clock")

    def _shared(self) -> dict[int, Any]:
        """Immutable objects a snapshot shares instead of copying: specs and files."""
        memo: dict[int, Any] = {id(spec): spec for spec in self.specs.values()}
        for dag in self.state.dags.values():
            memo[id(dag.spec)] = dag.spec
        for file in self.state.deployment.files.values():
            memo[id(file)] = file
        return memo

    def finish(self) -> None:
        """Report script actions that never matched a run (contract section 2)."""
        for action in self.state.overrides.unmatched():
            self._unmatched(action)

    # ------------------------------------------------------------------ the loop
    def _next_needed_tick(self) -> datetime | None:
        st = self.state
        earliest = self._earliest_reason()
        if earliest is None:
            return None
        earliest = max(earliest, st.now)
        if st.last_tick is not None and earliest <= st.last_tick:
            return self.ticks.after(st.last_tick)
        return self.ticks.at_or_after(earliest)

    def _earliest_reason(self) -> datetime | None:
        """The earliest instant at which a loop could change anything (None: never)."""
        st = self.state
        reasons: list[datetime] = []
        if st.dirty:
            reasons.append(st.now)
        due = self._peek_due()
        if due is not None:
            reasons.append(due)
        if st.asset_ready and asset_rules.asset_runs_due(self):
            reasons.append(st.now)
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
        for run in st.touched.values():  # done, waiting for step 5 (or its logical date)
            if run.state == "running":
                reasons.append(max(run.logical_date or st.now, st.now))
        return min(reasons) if reasons else None

    def reschedule(self, dag: DagState) -> None:
        """Record when ``dag`` next needs a loop; older heap entries become stale."""
        dag.due_version += 1
        due = self._due_at(dag)
        if due is not None:
            heapq.heappush(self.state.due, (due, dag.order, dag.due_version, dag.dag_id))

    def _peek_due(self) -> datetime | None:
        heap = self.state.due
        while heap:
            due, _, version, dag_id = heap[0]
            if self.state.dags[dag_id].due_version == version:
                return due
            heapq.heappop(heap)
        return None

    def _due_at(self, dag: DagState) -> datetime | None:
        """When this DAG next needs a loop to create a scheduled run (SCH-2)."""
        if not dag.deployed or dag.is_paused or dag.exceeds_max_active_runs or dag.is_stale:
            return None
        if dag.stalled_on is not None:
            return dag.wake_at
        if dag.next_run is None:
            return None
        return dag.next_run.run_after

    def _catch_up_examination(self, t: datetime) -> None:
        """Step 5's rotation as the loops skipped before ``t`` would have moved it (RND-6)."""
        st = self.state
        last = self.ticks.at_or_before(t - ONE_US)
        if last is None or (st.examined_upto is not None and last <= st.examined_upto):
            return
        after = st.examined_upto
        st.examined_upto = last
        if not st.rotation.fresh and not st.rotation.queue:
            return

        count = self.ticks.count_between(after, last)
        st.rotation.skip(st.dags, count, last, self.config.max_dagruns_per_loop_to_schedule)

    def _process_instant(self, t: datetime) -> None:
        st = self.state
        self._catch_up_examination(t)
        st.now = t
        # the orphanage housekeeping (assets/orphanage.py): a reference may resolve now
        if st.assets.activates_at and activate_due(self, t):
            asset_rules.refresh_ready(self, None)  # AS-3
            st.dirty = True
        # 1. task outcomes due now (trace README 7.3: before script steps)
        while st.completions and st.completions[0][0] <= t:
            _, order, nth, task_index, _ = heapq.heappop(st.completions)
            run = st.dags[self._dag_ids[order]].runs[nth]
            task = run.tasks[task_index]
            if task.state == "running" and not task.held:
                self._finish_task(run, task, task.outcome)
        # 1b. the DAG processor's bundle refreshes due now (DEP-6)
        deployment.run_due_refreshes(self, t)
        # 2. script actions at this instant, in list order
        while st.script_index < len(self.script) and self.script[st.script_index].at <= t:
            action = self.script[st.script_index]
            st.script_index += 1
            self._apply(action)
        # 3. watchers polling now (the triggerer runs beside the scheduler)
        if self.watchers:
            run_watchers(self, t)
        # 4. a scheduler loop, if one happens now and anything may change
        if self.ticks.contains(t) and st.last_tick != t:
            needed = self._next_needed_tick()
            if needed is not None and needed <= t:
                self._tick(t)

    def _tick(self, now: datetime) -> None:
        st = self.state
        st.last_tick = now
        partitioned = fire_partition_requests(self, now) if st.partition_requests else set()
        self._create_scheduled_runs(now, skip=partitioned)
        capped = self._start_queued_runs(now)
        self._start_waiting_tasks(now)
        # A slot freed by a run finishing in this loop is used by the next one (SCH-1).
        st.dirty = self._finish_runs(now) or capped

    # ------------------------------------------------------------------ parsing (SCH-4b)
    def sync_parse(self, dag: DagState, t: datetime) -> None:
        """Apply the latest periodic parse at or before ``t`` if it was not applied yet."""
        if not dag.deployed or dag.dag_id not in self.state.deployment.files:
            return  # no file, no parse (DEP-6)
        p = self.parses.at_or_before(t)
        if p is None or (dag.parsed_at is not None and p <= dag.parsed_at):
            return
        if dag.deployed_at is not None and p < dag.deployed_at:
            return
        self._parse(dag, p)

    def _parse(self, dag: DagState, at: datetime) -> None:
        """A parse recomputes the next-run cache from TT-3's reference and refreshes the flag."""
        dag.parsed_at = at
        deployment.reparse(self, dag)  # the file as it is now, under today's options (DEP-7)
        latest = dag.latest_automated
        reference = None if latest is None else ReferenceRun(latest.data_interval, latest.run_after)
        self._compute_next_run(dag, reference, at)
        dag.exceeds_max_active_runs = parse_flag(dag, self._exceeds(dag))
        self.reschedule(dag)

    def _compute_next_run(
        self, dag: DagState, reference: ReferenceRun | None, now: datetime
    ) -> None:
        memo = dag.next_run_memo
        if (
            memo is not None
            and memo[1] <= now
            and (memo[2] is None or now < memo[2])
            and memo[0] == reference
        ):
            return  # the timetable would answer the same (see _stable_until)
        previous = dag.next_run
        dag.next_run_memo = None
        try:
            dag.next_run = dag.spec.timetable.next_dagrun_info(
                last=reference, restriction=dag.spec.restriction, now=now
            )
            dag.next_run_error = None
            dag.next_run_memo = self._stable_until(dag, reference, now)
        except EngineError as exc:
            # Airflow logs the exception and the DAG has no next run (README 1.6).
            dag.next_run = None
            if dag.next_run_error != str(exc):
                self.warn(f"DAG {dag.dag_id!r} stops being scheduled at {now.isoformat()}: {exc}")
            dag.next_run_error = str(exc)
        if dag.next_run != previous:
            dag.stalled_on = None
            dag.wake_at = None

    @staticmethod
    def _stable_until(
        dag: DagState, reference: ReferenceRun | None, now: datetime
    ) -> tuple[Any, datetime, datetime | None] | None:
        """For which clocks the answer just computed holds, for the timetables where that
        is certain: cron trigger / data-interval answers read the clock only through the
        cron period holding it (catchup=False) or not at all (catchup=True), except a
        first run without start date (CronTriggerTimetable's run_immediately buffer)."""
        table = dag.spec.timetable
        if type(table) not in (CronTriggerTimetable, CronDataIntervalTimetable):
            return None
        restriction = dag.spec.restriction
        if reference is None and restriction.earliest is None:
            return None
        if restriction.catchup:
            return (reference, now, None)
        # catchup=False: the latest-tick candidate only overtakes the answer once the clock
        # passes the tick after it (TT-4, TT-5), so the answer holds until then.
        answer = dag.next_run
        horizon = now if answer is None else max(now, answer.run_after)
        return (reference, now, table.next_changes_after(horizon))

    def _exceeds(self, dag: DagState) -> bool:
        return dag.active_runs(include_backfill=False) >= dag.spec.max_active_runs

    # ---------------------------------------------------------- step 2 (SCH-2, SCH-3, SCH-9)
    def _create_scheduled_runs(self, now: datetime, skip: set[str] | None = None) -> None:
        st = self.state
        due: list[DagState] = []
        while st.due and st.due[0][0] <= now:
            _, _, version, dag_id = heapq.heappop(st.due)
            dag = st.dags[dag_id]
            if dag.due_version == version:
                due.append(dag)
        candidates = []
        for dag in due:
            self.sync_parse(dag, now)
            at = self._due_at(dag)
            if at is not None and at <= now and dag.next_run is not None:
                candidates.append(dag)
            else:
                self.reschedule(dag)
        asset_ready = asset_rules.ready_asset_dags(self) if st.asset_ready else []
        if skip:  # SCH-1: a DAG that got a partition run this loop gets nothing else
            for dag in [d for d in candidates if d.dag_id in skip]:
                candidates.remove(dag)
                self.reschedule(dag)
            asset_ready = [d for d in asset_ready if d.dag_id not in skip]
        ready_ids = {d.dag_id for d in asset_ready}
        chosen = {d.dag_id: d for d in [*asset_ready, *candidates]}
        # dags_needing_dagruns: ORDER BY next_dagrun_create_after (NULL first, as SQLite
        # sorts it: asset-only DAGs), LIMIT max_dagruns_to_create_per_loop.
        ordered = sorted(
            chosen.values(),
            key=lambda d: (
                d.next_run is not None,
                d.next_run.run_after if d.next_run else now,
                d.order,
            ),
        )
        limit = self.config.max_dagruns_to_create_per_loop
        taken, left = ordered[:limit], ordered[limit:]
        for dag in taken:
            # TT-15: a DAG both asset-ready and time-due gets only the asset run this loop.
            if dag.dag_id not in ready_ids:
                self._create_scheduled_run(dag, now)
                self.reschedule(dag)
        for dag in taken:
            if dag.dag_id in ready_ids:
                asset_rules.create_asset_run(self, dag, now)
                self.reschedule(dag)
        for dag in left:
            self.reschedule(dag)  # still due: the next loop takes it

    def _create_scheduled_run(self, dag: DagState, now: datetime) -> None:
        info = dag.next_run
        assert info is not None
        if info.logical_date is not None:
            existing = dag.run_with_logical_date(info.logical_date)
            if existing is not None:
                # SCH-9: nothing is created; the cache is recomputed from the run holding the date.
                self._compute_next_run(
                    dag, ReferenceRun(existing.data_interval, existing.run_after), now
                )
                if dag.next_run == info:
                    dag.stalled_on = info.logical_date
                    wake = dag.spec.timetable.next_changes_after(now)
                    dag.wake_at = (
                        None if wake is None else max(wake, now + timedelta(microseconds=1))
                    )
                return
        run = self.new_run(
            dag,
            run_type="scheduled",
            triggered_by="timetable",
            info=info,
            logical_date=info.logical_date,
            now=now,
        )
        self._compute_next_run(dag, ReferenceRun.of(info), now)
        dag.exceeds_max_active_runs = self._exceeds(dag)
        self.emit("run_created", dag.dag_id, run)

    def new_run(
        self,
        dag: DagState,
        *,
        run_type: RunType,
        triggered_by: TriggeredBy,
        info: DagRunInfo,
        logical_date: datetime | None,
        now: datetime,
        backfill_id: int | None = None,
        sort_ordinal: int | None = None,
    ) -> DagRun:
        st = self.state
        if len(st.runs) >= self.run_limit:
            raise SimulationLimitError(
                f"the scenario would create more than {self.run_limit:,} runs "
                f"(at {now.isoformat()}); raise the limit to simulate it"
            )
        nth = len(dag.runs)
        run_id, standard = self._run_id(dag, run_type, info, nth)
        run = DagRun(
            dag_id=dag.dag_id,
            nth=nth,
            run_id=run_id,
            run_type=run_type,
            triggered_by=triggered_by,
            logical_date=logical_date,
            data_interval=info.data_interval,
            run_after=info.run_after,
            created_at=now,
            partition_key=info.partition_key,
            partition_date=info.partition_date,
            backfill_id=backfill_id,
            backfill_sort_ordinal=sort_ordinal,
        )
        # RND-1 / DEP-3: a task inherits the DAG's start/end dates; outside them the run
        # gets no task instances (a cron trigger DAG whose start_date moved later).
        gets_instances = has_task_instances(dag.spec, run.logical_date, run.run_type)
        run.tasks = [
            TaskInstance(t.task_id, self._outcome(dag.dag_id, nth, t), held=t.hold)
            for t in dag.spec.tasks
            if gets_instances
        ]
        run.set_state("queued", now)
        st.runs.append(run, derived_run_id=standard)
        dag.note_created(run)
        self.activate(run)
        st.dirty = True
        st.overrides.resolve(run, dag, st.runs)  # the one override path (overrides.py)
        return run

    def activate(self, run: DagRun) -> None:
        """``run`` becomes active (created, or queued again by a backfill)."""
        st = self.state
        key = (run.dag_id, run.nth)
        st.active.pop(key, None)
        st.active[key] = run
        st.pending.pop(key, None)
        st.pending[key] = run
        st.activations += 1
        st.activation[key] = st.activations

    def cancel_task_timers(self, run: DagRun) -> None:
        """Drop the queued task completions of ``run`` (a backfill clears and requeues it)."""
        st = self.state
        order = st.dags[run.dag_id].order
        st.completions = [c for c in st.completions if (c[1], c[2]) != (order, run.nth)]
        heapq.heapify(st.completions)

    def _outcome(self, dag_id: str, nth: int, task: TaskSpec) -> TaskOutcome:
        """The declared outcome, or a seeded random failure at ``failure_rate``."""
        if task.failure_rate <= 0:
            return task.outcome
        draw = (
            int.from_bytes(
                hashlib.sha256(f"{self.seed}|{dag_id}|{nth}|{task.task_id}".encode()).digest()[:8],
                "big",
            )
            / 2**64
        )
        return "failed" if draw < task.failure_rate else task.outcome

    def _run_id(
        self, dag: DagState, run_type: RunType, info: DagRunInfo, nth: int
    ) -> tuple[str, bool]:
        """TT-21 / TT-16: the suffix is run_after; CronPartition DAGs add a random tail.

        The flag: the id is :func:`standard_run_id`'s, which the run log can rebuild.
        """
        table = dag.spec.timetable
        if run_type != "asset_triggered" and table.partitioned and table.periodic:
            key = f"__{info.partition_key}" if run_type != "manual" and info.partition_key else ""
            stamp = info.run_after.isoformat()
            return f"{run_type}__{stamp}{key}__{random_suffix(dag.dag_id, nth)}", False
        return standard_run_id(run_type, info.run_after, dag.dag_id, nth), True

    # ------------------------------------------------------------------ step 4 (SCH-5)
    def _start_queued_runs(self, now: datetime) -> bool:
        """Step 4 (SCH-5); True when the per-loop cap left eligible runs for the next loop."""
        st = self.state
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
        cap = self.config.max_dagruns_per_loop_to_schedule
        for run in eligible[:cap]:
            key = (run.dag_id, run.backfill_id)
            if running.get(key, 0) >= limit(run):
                continue
            running[key] = running.get(key, 0) + 1
            run.set_state("running", now)
            st.rotation.started(run)
            if all(t.finished for t in run.tasks):  # nothing to run: step 5 ends it
                st.touched[(run.dag_id, run.nth)] = run
            self.emit("run_state", run.dag_id, run, "running")
        return len(eligible) > cap

    def _start_waiting_tasks(self, now: datetime) -> None:
        """Tasks of running runs start once the logical date is not in the future (SCH-10)."""
        st = self.state
        for run in st.pending.values():
            if run.state != "running" or st.dags[run.dag_id].is_stale:  # DEP-6
                continue
            waits = run.logical_date is not None and run.logical_date > now
            spec_tasks = st.dags[run.dag_id].spec.tasks
            if waits and not any(t.starts_with_run for t in spec_tasks):
                continue
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
                    if task_index < len(spec_tasks)
                    and spec_tasks[task_index].task_id == task.task_id
                    else next((t for t in spec_tasks if t.task_id == task.task_id), None)
                )
                if spec is not None and spec.inlets:
                    task.inlet_events = self._inlet_events(spec, now)
                if task.held:
                    continue
                duration = spec.duration if spec is not None else timedelta(0)
                task.finish_at = now + duration + st.overrides.delay(run, task, st.dags[run.dag_id])
                st.seq += 1
                heapq.heappush(
                    st.completions,
                    (task.finish_at, st.dags[run.dag_id].order, run.nth, task_index, st.seq),
                )

    def _inlet_events(self, spec: TaskSpec, now: datetime) -> tuple[int | None, ...]:
        """The latest event of each inlet asset at ``now`` (refs resolved; aliases: the
        latest event emitted through them)."""
        store = self.state.assets
        out: list[int | None] = []
        for inlet in spec.inlets:
            events: list[Any]
            if isinstance(inlet, AliasNode):
                events = store.between(inlet.name, None, now)
            else:
                key = store.resolve_ref(inlet) if isinstance(inlet, RefNode) else inlet
                events = [] if key is None else store.between(key, None, now)
            out.append(events[-1].id if events else None)
        return tuple(out)

    # ------------------------------------------------------------------ step 5
    def _finish_runs(self, now: datetime) -> bool:
        """Step 5 (at most ``max_dagruns_per_loop_to_schedule`` running runs examined,
        RND-6), then the paused sweep (RND-4): runs whose tasks are all done end; True if
        any did. A finished run left out stays in ``touched`` for a later loop."""
        st = self.state
        cap = self.config.max_dagruns_per_loop_to_schedule
        examined = st.rotation.examine(st.dags, now, cap)
        st.examined_upto = now
        if not st.touched:
            return False
        examined.sort(key=lambda r: st.activation.get((r.dag_id, r.nth), 0))
        # A run whose logical date is still ahead is left alone (its tasks are not even
        # scheduled, SCH-10): one without task instances (RND-1) ends only after it.
        done = [
            r
            for r in examined
            if (r.dag_id, r.nth) in st.touched and (r.logical_date is None or r.logical_date <= now)
        ]
        # DEP-6: a stale DAG's running runs are not looked at until its file is back.
        done = [r for r in done if not st.dags[r.dag_id].is_stale]
        # RND-4: the sweep of paused DAGs ends their finished running runs after step 5.
        swept = [
            r
            for r in st.touched.values()
            if r.state == "running"
            and st.dags[r.dag_id].is_paused
            and not st.dags[r.dag_id].is_stale
        ]
        done += sorted(swept, key=lambda r: st.activation.get((r.dag_id, r.nth), 0))
        finished = False
        for run in done:
            if run.state == "running" and all(t.finished for t in run.tasks):
                failed = any(t.state == "failed" for t in run.tasks)
                self._finish_run(run, "failed" if failed else "success", now)
                finished = True
        seen = {id(r) for r in done}
        for key in [k for k, r in st.touched.items() if r.state != "running" or id(r) in seen]:
            del st.touched[key]
        return finished

    def _finish_run(self, run: DagRun, state: Any, now: datetime) -> None:
        run.set_state(state, now)
        dag = self.state.dags[run.dag_id]
        key = (run.dag_id, run.nth)
        self.state.active.pop(key, None)
        self.state.activation.pop(key, None)
        # by identity: DagRun's dataclass __eq__ builds two 18-field tuples per comparison
        del dag.active[next(i for i, r in enumerate(dag.active) if r is run)]
        self.sync_parse(dag, now)
        # --- backfill hook: _schedule_dag_run refreshes the flag only when a scheduled,
        # manual or asset-triggered run ends, never a backfill run (SCH-5).
        if run.run_type != "backfill" and refreshes_on_finish(dag):  # RND-4
            dag.exceeds_max_active_runs = self._exceeds(dag)
        if run.backfill_id is not None:
            note_run_finished(self, run, now)  # completion (backfill.py, step 5)
        # --- end backfill hook
        self.reschedule(dag)
        self.emit("run_state", run.dag_id, run, state)
        self.state.runs.freeze(run)  # nothing changes an ended run again (runlog)

    def _finish_task(
        self, run: DagRun, task: TaskInstance, outcome: str, action: act.TaskFinish | None = None
    ) -> None:
        task.state = "failed" if outcome == "failed" else "success"
        task.outcome = outcome  # type: ignore[assignment]
        task.end_date = self.state.now
        task.finish_at = self.state.now
        self.state.dirty = True
        self.state.touched[(run.dag_id, run.nth)] = run
        self.emit("task_state", run.dag_id, run, f"{task.task_id}:{task.state}")
        if task.state == "success":  # only SUCCESS emits (AS-1)
            asset_rules.emit_task_events(
                self,
                run,
                task,
                partition_keys=None if action is None else action.partition_keys,
                alias_events=None if action is None else action.alias_events,
            )

    # ------------------------------------------------------------------ script actions
    def _check_action(self, action: act.Action) -> None:
        dag_ids: tuple[str, ...] = ()
        if isinstance(action, deployment.DeploymentAction):
            if isinstance(action, RemoveDag):
                dag_ids = (action.dag_id,)
        elif isinstance(action, act.Deploy):
            dag_ids = action.dag_ids or ()
        elif isinstance(action, act.Pause | act.Unpause | act.Trigger | act.Backfill):
            dag_ids = (action.dag_id,)
        elif isinstance(action, act.TaskFinish | act.RunOutcome | act.Override):
            dag_ids = (action.run.dag_id,)
        for dag_id in dag_ids:
            if dag_id not in self.state.dags:
                raise EngineError(f"unknown dag_id {dag_id!r} in a script action")

    def _apply(self, action: act.Action) -> None:
        st = self.state
        if isinstance(action, act.Tick):
            # A loop in its place among the instant's actions (actions.Tick); skipped,
            # like a cadence loop, when nothing it does could change anything.
            earliest = self._earliest_reason()
            if earliest is not None and earliest <= action.at:
                self._tick(action.at)
            else:  # a loop all the same: step 5's rotation moves on (RND-6)
                cap = self.config.max_dagruns_per_loop_to_schedule
                st.rotation.examine(st.dags, action.at, cap)
            st.last_tick = action.at
            st.examined_upto = max(st.examined_upto or action.at, action.at)
            return
        st.dirty = True
        if isinstance(action, deployment.DeploymentAction):
            deployment.apply(self, action)
        elif isinstance(action, act.Deploy):
            # Only files that exist are parsed (DEP-6: a removed DAG waits for its file).
            files = st.deployment.files
            ids = action.dag_ids or tuple(st.dags)
            parsed = [st.dags[dag_id] for dag_id in ids if dag_id in files]
            for dag in parsed:
                self.deploy_dag(dag, action.at)
            asset_rules.activate_assets(self, parsed, action.at)
            for dag in parsed:
                self.emit("dag_parsed", dag.dag_id, detail="parse")
        elif isinstance(action, act.Pause | act.Unpause):
            dag = st.dags[action.dag_id]
            self.sync_parse(dag, action.at)
            dag.is_paused = isinstance(action, act.Pause)
            self.reschedule(dag)
            self.emit("dag_paused" if dag.is_paused else "dag_unpaused", dag.dag_id)
        elif isinstance(action, act.Trigger):
            self._trigger(action)
        elif isinstance(action, act.TaskFinish):
            self._task_finish(action)
        elif isinstance(action, act.RunOutcome):
            self._run_outcome(action)
        elif isinstance(action, act.Override):
            pending = st.overrides.add(action, st.seq)
            st.seq += 1
            for run in st.runs:
                st.overrides.resolve(run, st.dags[run.dag_id], st.runs, only=pending)
        elif isinstance(action, act.ExternalEvent):
            asset_rules.record_event(
                self,
                action.asset,
                source=EventSource("rest_api"),
                partition_key=action.partition_key,
                extra={**dict(action.extra), "from_rest_api": True},
            )
        elif isinstance(action, act.Backfill):
            create_backfill(self, action)

    def deploy_dag(self, dag: DagState, at: datetime) -> None:
        if not dag.deployed:
            dag.deployed = True
            dag.deployed_at = at
            dag.is_paused = dag.spec.is_paused_upon_creation
            self.emit("dag_deployed", dag.dag_id)
        self._parse(dag, at)

    def _trigger(self, action: act.Trigger) -> None:
        """REST ``POST /dags/{dag_id}/dagRuns`` (TT-19, PT-17)."""
        dag = self.state.dags[action.dag_id]
        now = action.at
        if not dag.deployed:
            self.warn(f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} is not deployed")
            return
        self.sync_parse(dag, now)
        table = dag.spec.timetable
        partition_date = None
        if action.partition_key is not None:
            if not (table.partitioned or table.partitioned_at_runtime):
                self.warn(
                    f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} is not "
                    "partitioned (DagNotPartitionedError)"
                )
                return
            try:
                partition_date = table.resolve_partition_date(action.partition_key)
            except EngineError as exc:
                self.warn(f"trigger at {now.isoformat()} refused: {exc}")
                return
        interval = None
        if action.logical_date is not None:
            if action.logical_date in dag.logical_dates:
                self.warn(
                    f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} already "
                    f"has a run with logical_date {action.logical_date.isoformat()}"
                )
                return
            interval = table.infer_manual_data_interval(run_after=action.logical_date)
        info = DagRunInfo(now, interval, action.partition_key, partition_date)
        run_id, _ = self._run_id(dag, "manual", info, len(dag.runs))
        if any(r.run_id == run_id for r in dag.active) or any(
            r.run_id == run_id for r in reversed(dag.runs[-50:])
        ):
            self.warn(
                f"trigger at {now.isoformat()} refused: DAG {dag.dag_id!r} already has a "
                f"run {run_id!r} (409 Conflict)"
            )
            return
        run = self.new_run(
            dag,
            run_type="manual",
            triggered_by="rest_api",
            info=info,
            logical_date=action.logical_date,
            now=now,
        )
        self.emit("run_created", dag.dag_id, run)

    def _select(self, selector: act.RunSelector, at: datetime) -> DagRun | None:
        return select_run(self.state.dags[selector.dag_id], selector, at)

    def _task_finish(self, action: act.TaskFinish) -> None:
        run = self._select(action.run, action.at)
        task = (
            None
            if run is None
            else next((t for t in run.tasks if t.task_id == action.task_id), None)
        )
        if run is None or task is None or task.state != "running":
            self._unmatched(action)
            return
        self._finish_task(run, task, action.outcome, action)

    def _run_outcome(self, action: act.RunOutcome) -> None:
        run = self._select(action.run, action.at)
        if run is None or run.state != "running":
            self._unmatched(action)
            return
        for task in run.tasks:
            if task.state in ("running", "none"):
                self._finish_task(run, task, action.outcome)

    def _unmatched(self, action: act.Action) -> None:
        kind = type(action).__name__
        selector = getattr(action, "run", None)
        what = selector.describe() if isinstance(selector, act.RunSelector) else ""
        message = f"{kind} at {action.at.isoformat()} matched no run ({what})"
        self.state.unmatched.append(message)
        self.warn(message)

    def warn(self, message: str) -> None:
        self.state.warnings.append(message)
        self.emit("warning", detail=message)
