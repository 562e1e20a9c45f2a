"""The simulated scheduler: Airflow 3.3.2's loop, run on a simulated clock.

``Simulation`` is the facade the rest of the program drives (the CLI, the GUI's
session, analysis, tests): build it, ``step``/``advance_to``, read ``runs``,
``dags``, ``state``, take and restore checkpoints, ``adopt`` another's. The work
is done by the engine's parts, each a module owning its share of
:class:`~explorer.engine.state.SimState` (adr/0011-engine-parts.md):

- :mod:`~explorer.engine.loop`: the order of an instant and of one scheduler
  tick (SCH-1), loops skipped when nothing can change (adr/0003);
- :mod:`~explorer.engine.dagschedule`: parses and the next-run cache (SCH-2, TT-3);
- :mod:`~explorer.engine.lifecycle`: run creation, task timers, runs ending, the
  run log (adr/0006);
- :mod:`~explorer.engine.script` and :mod:`~explorer.engine.overrides`: the
  script's actions and its overrides, one override path;
- the asset queues (:mod:`~explorer.engine.assets.scheduling`), partition requests
  (:mod:`~explorer.engine.assets.partitioned`), watchers
  (:mod:`~explorer.engine.assets.watching`), backfills
  (:mod:`~explorer.engine.backfill`), deployments (:mod:`~explorer.engine.deployment`).

The parts see this class only through :class:`~explorer.engine.host.Host`; it
keeps the observers, the listener index and the checkpoints.

The engine never reads the wall clock; ``now`` is the simulated clock.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from explorer.engine import actions as act
from explorer.engine import dagschedule, lifecycle, loop
from explorer.engine import script as scripting
from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.listeners import ListenerIndex
from explorer.engine.assets.store import AssetStore
from explorer.engine.assets.watchers import WatcherSpec
from explorer.engine.back_snapshot import BackSnapshot
from explorer.engine.back_snapshot import take as take_back_snapshot
from explorer.engine.config import SchedulerConfig
from explorer.engine.dag import DagSpec
from explorer.engine.dagfile import DagFile, DeployDag
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError, SimulationLimitError
from explorer.engine.options import AirflowOptions
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runs import (
    DagRun,
    RunType,
    TriggeredBy,
)
from explorer.engine.state import SimState
from explorer.engine.ticks import Cadence, GridCadence, NoCadence
from explorer.engine.types import DagRunInfo

__all__ = ["Change", "SchedulerConfig", "Simulation", "SimulationLimitError", "State"]

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


#: What :meth:`Simulation.checkpoint` returns (the GUI keeps some for Back).
State = SimState


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
        spill_rows: int = 0,
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
        #: ``bool(self._observers)``, kept by :meth:`subscribe` (read on every run's
        #: and task's change, by compiled code: an attribute, not a call)
        self.observed = False
        #: Automatic checkpoints (instant, snapshot), oldest first, for :meth:`rewind_to`.
        self.checkpoint_every = checkpoint_every
        self._checkpoints: list[tuple[datetime, SimState]] = []
        self._since_checkpoint = 0
        #: ``spill_rows`` > 0: the run log moves its old packed rows to a scratch file
        #: that many at a time (adr/0006; headless runs: ``runlog.SPILL_ROWS``). Off for
        #: the GUI, whose Back snapshots truncate the log's columns in place.
        log = RunLog(spill_rows)
        every = [*resolved, *added.values()]
        dag_states = {d.dag_id: DagState(d, i, runs=DagRuns(log)) for i, d in enumerate(every)}
        self._dag_ids = list(dag_states)
        self.state = SimState(now=start, dags=dag_states, runs=log, assets=AssetStore(log.pool))
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
            scripting.check_action(self, a)
        self.index_listeners()
        self._initial = self.checkpoint()

    # ------------------------------------------------------------------ asset listeners
    def index_listeners(self) -> None:
        """Which DAGs an event on an asset can reach (AS-2), indexed once (assets/listeners)."""
        self._listeners = ListenerIndex.of(self.state.dags.values())

    def listeners(self, key: AssetKey, via_aliases: tuple[str, ...]) -> list[str]:
        """The DAGs scheduled on ``key`` directly, by reference, or through one of
        ``via_aliases``, in declaration order."""
        st = self.state
        return self._listeners.listeners(key, via_aliases, st.dags, st.assets.activates_at)

    # ------------------------------------------------------------------ observers
    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Call ``observer`` with every :class:`Change`; returns the unsubscribe function."""
        self._observers.append(observer)
        self.observed = True

        def unsubscribe() -> None:
            self._observers.remove(observer)
            self.observed = bool(self._observers)

        return unsubscribe

    def emit(
        self, kind: str, dag_id: str | None = None, run: DagRun | None = None, detail: str = ""
    ) -> None:
        """Tell every subscriber about one change; nobody subscribed, nothing built
        (``observed`` is the flag :meth:`subscribe` keeps, the one compiled code reads)."""
        if self.observed:
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
        scripting.insert(self, self.script, action)

    def next_event_time(self) -> datetime | None:
        """The next instant at which anything happens (``None``: nothing ever will)."""
        return loop.next_event_time(self)

    def step(self) -> datetime | None:
        """Advance to the next event and process it; returns its instant."""
        t = self.next_event_time()
        if t is None:
            return None
        loop.process_instant(self, t)
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
            loop.process_instant(self, t)
            if progress is not None and not progress(t):
                return
        loop.set_clock(self, instant)
        self.emit("clock")

    def rewind_to(
        self, instant: datetime, *, snapshot: SimState | BackSnapshot | None = None
    ) -> None:
        """Go back to ``instant``: restore the nearest earlier checkpoint and replay from it.

        ``snapshot``: a :meth:`checkpoint` the caller took at or before ``instant`` and
        gives up (Back after a step keeps the state before it): when it is nearer than
        every automatic checkpoint it is restored as it is, without a copy, and only
        what lies between it and ``instant`` is replayed (nothing, when it was taken at
        ``instant``). Script actions added since the checkpoint stay and are replayed.
        A :class:`BackSnapshot` (:meth:`back_snapshot`) is used the same way when it is
        still :meth:`~BackSnapshot.valid`.
        """
        if instant < self.start:
            raise EngineError("cannot rewind before the scenario's clock.start")
        while self._checkpoints and self._checkpoints[-1][0] > instant:
            self._checkpoints.pop()
        nearest = self._checkpoints[-1][0] if self._checkpoints else self.start
        if isinstance(snapshot, BackSnapshot) and not snapshot.valid():
            snapshot = None  # its shared structures were cut shorter since: replay instead
        if snapshot is not None and nearest <= snapshot.now <= instant:
            state = snapshot.restore(self.state) if isinstance(snapshot, BackSnapshot) else snapshot
            self.restore(state, owned=True)
        elif self._checkpoints:
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

    def take_checkpoints(self) -> list[SimState]:
        """Hand over the automatic checkpoints (the simulation keeps none).

        For a caller that drops a simulation it no longer runs: its checkpoints are
        most of its memory (about 100 ms to free 60 days in for 200 DAGs), and the
        caller can let them go a few at a time instead of all at once.
        """
        states = [state for _, state in self._checkpoints]
        self._checkpoints = []
        return states

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

    def back_snapshot(self, previous: BackSnapshot | None = None) -> BackSnapshot:
        """A snapshot for Back (:mod:`~explorer.engine.back_snapshot`): the state as
        :meth:`checkpoint` copies it, but the run log, the DAGs' run ids and the asset
        events shared and kept by their lengths, and the DAG states unchanged since
        ``previous`` (this simulation's latest snapshot still kept) borrowed from it.
        Give it to :meth:`rewind_to` at most once."""
        return take_back_snapshot(self.state, self._shared(), previous)

    def restore(self, snapshot: SimState, *, owned: bool = False) -> None:
        """Make a copy of ``snapshot`` the state; ``owned``: the caller gives the snapshot
        up, so it becomes the live state itself and restoring costs no copy."""
        self.state = snapshot if owned else copy.deepcopy(snapshot, self._shared())
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
        scripting.report_unmatched(self)

    def warn(self, message: str) -> None:
        self.state.warnings.append(message)
        self.emit("warning", detail=message)

    # ------------------------------------------------------------------ the parts' Host
    # What the parts may ask of the simulation (host.Host), each delegated to its owner.
    @property
    def dag_ids(self) -> list[str]:
        """dag_id by DAG order (the task timers name DAGs by order)."""
        return self._dag_ids

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
        return lifecycle.new_run(
            self,
            dag,
            run_type=run_type,
            triggered_by=triggered_by,
            info=info,
            logical_date=logical_date,
            now=now,
            backfill_id=backfill_id,
            sort_ordinal=sort_ordinal,
        )

    def activate(self, run: DagRun) -> None:
        lifecycle.activate(self, run)

    def clear_run(self, dag: DagState, run: DagRun, now: datetime) -> None:
        lifecycle.clear_run(self, dag, run, now)

    def sync_parse(self, dag: DagState, t: datetime) -> None:
        dagschedule.sync_parse(self, dag, t)

    def deploy_dag(self, dag: DagState, at: datetime) -> None:
        scripting.deploy_dag(self, dag, at)

    def reschedule(self, dag: DagState) -> None:
        dagschedule.reschedule(self, dag)
