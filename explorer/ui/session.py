"""The Qt-side driver of a running simulation: one clock, many panes.

How to mount the panes (for the main window)
============================================

One :class:`SimulationSession` per open scenario. It owns the engine's
:class:`~explorer.engine.simulation.Simulation`; every pane reads it and
refreshes on :attr:`SimulationSession.changed`. The simplest mount is the
ready-wired composite::

    from explorer.ui.session import SimulationSession
    from explorer.ui.panels.workbench import Workbench

    session = SimulationSession(document.scenario, source=str(path))
    bench = Workbench(session)            # clock bar + timeline + runs/explain/... tabs
    window.setCentralWidget(bench)        # or split: bench.clock_bar, bench.timeline, bench.tabs

or pick the pieces (each is a standalone ``QWidget`` with a small API):

* ``explorer.ui.clock.ClockControls(session)`` — step/back/play/run-to/scrub/reset,
  progress and cancel for long runs. ``install_shortcuts(window)`` binds N, B, Space.
* ``explorer.ui.timeline.TimelinePane`` — call ``show_simulation(session.sim)`` on
  ``session.changed``; signals ``run_selected(dag_id, run_id)``,
  ``dag_selected(dag_id)`` (bind to the canvas), ``context_requested``;
  ``set_lane_order([...])`` with the canvas's top-to-bottom node order.
* ``explorer.ui.timeline.RunsTable`` — sortable, filterable; ``link_selection``
  keeps it and the timeline selecting each other.
* ``explorer.ui.panels.ExplainPane``, ``NextRunsPane``, ``ComparePane``.
* ``explorer.ui.panels.injection.InjectionMenus(session)`` — the failure-injection
  context menu; connect ``timeline.context_requested`` to ``menus.popup``.
* ``explorer.ui.panels.PresentationMode`` — F5: large type, high contrast, caption
  line, arrow keys walk the script. It hides the widgets in its public ``hide``
  list; the main window adds its own docks there (inspector, palette, history,
  explain) so that only the canvas and the timeline stay.
* ``explorer.ui.panels.export.export_widget(widget, path)`` — PNG, SVG or PDF of
  any widget (the canvas too).

Undo, and the document (owned by the main window)
-------------------------------------------------

An injection from the timeline changes the scenario's script. The session
applies it at once (so the user sees its effect) and emits
:attr:`script_action_added` with the *scenario-model* action and
:attr:`scenario_edited` with the new :class:`~explorer.scenario.model.Scenario`.
The document pushes an undo command holding the old and new scenarios whose
undo/redo call :meth:`replace_scenario`; that call is a no-op when the
scenario is already the session's, so ``QUndoStack.push`` (which runs redo)
does no harm. Any other edit (canvas, inspector) also ends in
:meth:`replace_scenario`: a layout-only edit leaves the engine alone; any
other is re-simulated from the old simulation's automatic checkpoint before
the first instant it can affect (:mod:`explorer.document.edit_reach`) and brought
back to the same clock in slices, so the panes show the edited scenario at the
instant the user was at, filling in as the slices arrive.

Canvas badges: :meth:`badges` / :attr:`badges_changed` give per-DAG
:class:`~explorer.document.panels.badges.DagBadge` values (running/failed,
"2 of 3 assets updated", window members) at the clock. They are computed
only while something is connected to :attr:`badges_changed`.

Today ``explorer.ui.simulation_panes`` mounts the :class:`Workbench` in the
main window's timeline dock (its tabs in the explain dock) and turns
:attr:`scenario_edited` into an undoable ``EditScenario``; still open to bind:
``badges_changed`` to the canvas nodes, and ``timeline.set_lane_order`` with
the canvas's top-to-bottom order (lanes default to scenario order).

Threading: the engine is not thread-safe and every pane reads it, so long runs
stay on the GUI thread in slices (``advance_to(..., progress=...)`` returns
when a slice's time is up) with the event loop turning between slices.

Run ``python -m explorer.ui.session FILE`` for a window with only these panes.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import ClassVar

from PySide6 import QtCore

from explorer.document.edit_reach import edit_kind, engine_reach
from explorer.document.panels.badges import AssetCounts, DagBadge, compute_badges
from explorer.document.panels.captions import StepReport
from explorer.engine.alerts import Alert, compute_alerts
from explorer.engine.back_snapshot import BackSnapshot
from explorer.engine.errors import EngineError
from explorer.engine.explain import Explanation, explain
from explorer.engine.simulation import Change, Simulation
from explorer.scenario import ScenarioError, build_engine_inputs, load_scenario
from explorer.scenario.build import EngineInputs
from explorer.scenario.model import Scenario, ScriptAction
from explorer.scenario.simulate import make_simulation

__all__ = [
    "BACK_SNAPSHOTS",
    "CHECKPOINT_EVERY",
    "DEFAULT_HORIZON",
    "Defer",
    "SimulationSession",
    "main",
]

#: Where the clock may run to when the scenario has no ``clock.until``.
DEFAULT_HORIZON = timedelta(days=7)

#: Automatic checkpoints every this many processed instants: Back and an edit replay at
#: most this many instants from the nearest one (instead of from clock.start). A
#: checkpoint copies the engine's state (about 0.2 s for 200 DAGs 60 days in, about as
#: long as 500 instants take): every 1,000 keeps long runs within ~20% of their cost.
CHECKPOINT_EVERY = 1000

#: Back keeps the engine's state from before each of this many latest moves (a Back
#: snapshot: the run log and asset events kept by their lengths, the rest copied,
#: :mod:`explorer.engine.back_snapshot`): Back restores it as it is, without replaying
#: anything. Older moves go back through the automatic checkpoints.
BACK_SNAPSHOTS = 8

Defer = Callable[[Callable[[], None]], None]


def qt_defer(callback: Callable[[], None]) -> None:
    """Run ``callback`` once the event loop has handled what is pending (repaints, input)."""
    QtCore.QTimer.singleShot(0, callback)


#: Milliseconds between two pieces of a replaced simulation let go (:meth:`_retire`).
RETIRE_PAUSE_MS = 100


def qt_reap(callback: Callable[[], None]) -> None:
    """Run ``callback`` a pause later (:data:`RETIRE_PAUSE_MS`), not at the next turn of
    the event loop.

    Letting go of one piece of a replaced simulation (a checkpoint, a whole copy of
    the state) is a few milliseconds; at every turn of the loop, the turns that answer
    the user right after an edit (a drag's events, a step, Back) each paid one: a node
    drag measured 17 ms CPU while pieces were left, 10 ms once they were gone. A
    pause between pieces leaves most turns to the user (at most a few
    percent of the time goes to them); the memory is still given back within seconds.
    """
    QtCore.QTimer.singleShot(RETIRE_PAUSE_MS, callback)


@dataclasses.dataclass(slots=True)
class _Job:
    """A long run to ``target``, done in slices that each return to the event loop."""

    target: datetime
    origin: datetime
    cancelled: bool = False
    last_emit: float = 0.0
    #: How long the panes took to redraw after the last slice they were shown.
    redraw_s: float = 0.0
    #: The next slice is one instant (an edit's first: the panes show the edited scenario
    #: at once, and the slices that fill it in come after that redraw).
    quick: bool = False


#: How many instants at which nothing changes one step may pass over.
_CHANGELESS_PASSES = 8


class SimulationSession(QtCore.QObject):
    """The scenario, its engine inputs and the live simulation, with a clock users drive.

    Every clock movement advances (or rewinds) the engine itself — there is
    no precomputed record — so an injected failure changes what follows.
    Long runs go in slices of ``chunk_ms`` through ``defer`` (a zero-delay
    timer by default; tests pass their own), so the window stays responsive
    and the run can be cancelled.
    """

    changed = QtCore.Signal()
    clock_changed = QtCore.Signal(object)
    script_action_added = QtCore.Signal(object)
    scenario_edited = QtCore.Signal(object)
    scenario_replaced = QtCore.Signal()
    badges_changed = QtCore.Signal(dict)
    busy_changed = QtCore.Signal(bool)
    progress = QtCore.Signal(float)
    message = QtCore.Signal(str)
    stepped = QtCore.Signal(object)

    #: Wall-clock milliseconds of one slice of a long run when ``chunk_ms`` is not given.
    #: Tests that do not study slicing set it to infinity, so a move finishes before
    #: it returns however loaded the machine is (a test never races the wall clock).
    DEFAULT_CHUNK_MS: ClassVar[float] = 30.0

    def __init__(
        self,
        scenario: Scenario,
        *,
        source: str = "<scenario>",
        defer: Defer | None = None,
        chunk_ms: float | None = None,
        publish_badges: bool = True,
        checkpoint_every: int = CHECKPOINT_EVERY,
        prepared: tuple[EngineInputs, Simulation] | None = None,
        reap: Defer | None = None,
        parent: QtCore.QObject | None = None,
    ) -> None:
        """``prepared``: the inputs and fresh simulation of ``scenario``, built elsewhere
        (a file opened in the background); built here otherwise. ``reap``: how a replaced
        simulation's pieces wait for the event loop (``defer`` is for slices of runs)."""
        super().__init__(parent)
        self.checkpoint_every = checkpoint_every
        self.source = source
        self._defer = defer or qt_defer
        self.chunk_s = (self.DEFAULT_CHUNK_MS if chunk_ms is None else chunk_ms) / 1000
        #: During a long run the panes redraw after a slice at most this often (seconds).
        self.redraw_every_s = 0.25
        self.publish_badges = publish_badges
        self._scenario = scenario
        if prepared is not None:  # built with this module's CHECKPOINT_EVERY (workers.py)
            self._inputs, self._sim = prepared
        else:
            self._inputs = build_engine_inputs(scenario, source=source)
            self._sim = make_simulation(self._inputs, checkpoint_every=checkpoint_every)
        #: After an edit: the instant the new simulation took over from the old one's
        #: checkpoint (None: it started over from clock.start).
        self.resumed_at: datetime | None = None
        self._unsubscribe = self._sim.subscribe(self._heard)
        self._history: list[datetime] = []
        #: The engine's state before each of the latest moves (Back restores it as it is).
        self._back: list[BackSnapshot] = []
        self._job: _Job | None = None
        self._last_processed: datetime | None = None
        self._changes: list[Change] = []
        #: The last instant processed before the current move (what the move's report covers).
        self._floor: datetime | None = None
        self._next_cache: tuple[tuple[int, datetime, int], datetime | None] | None = None
        #: What a replaced simulation leaves, dropped a piece per turn (:meth:`_retire`).
        self._retiring: deque[object] = deque()
        #: The badges' asset counts, kept between steps (``compute_badges``' memo).
        self._asset_counts: AssetCounts = {}
        self._reap = reap or qt_reap

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: object) -> SimulationSession:
        return cls(load_scenario(path), source=str(path), **kwargs)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ state
    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def inputs(self) -> EngineInputs:
        return self._inputs

    @property
    def sim(self) -> Simulation:
        return self._sim

    @property
    def now(self) -> datetime:
        return self._sim.now

    @property
    def start(self) -> datetime:
        return self._inputs.start

    @property
    def until(self) -> datetime:
        """The end of the horizon: ``clock.until``, or a week after the start."""
        return self._inputs.until or self._inputs.start + DEFAULT_HORIZON

    @property
    def busy(self) -> bool:
        return self._job is not None

    def next_event_time(self) -> datetime | None:
        """The engine's next event instant, asked once per clock position.

        Asking the engine walks every asset condition (``asset_runs_due``); the
        clock bar and the step itself both need the answer after every move.
        """
        key = (id(self._sim.state), self._sim.now, len(self._sim.script))
        if self._next_cache is None or self._next_cache[0] != key:
            self._next_cache = (key, self._sim.next_event_time())
        return self._next_cache[1]

    # ------------------------------------------------------------------ the clock
    def step_next(self) -> datetime | None:
        """Advance to the next instant at which anything happens and process it."""
        if self.busy:
            return None
        t = self.next_event_time()
        if t is None:
            self.message.emit("nothing else ever happens in this scenario")
            return None
        before = self.now
        self._remember(before)
        self._begin_move()
        self._sim.advance_to(t, progress=self._note)  # checkpoints, unlike Simulation.step()
        # The scheduler's loop right after a completion (a second later, the engine's
        # tick) often changes nothing: the press looked dead, the clock a second on and
        # the caption "nothing visible changed". Go on to where something does.
        for _ in range(_CHANGELESS_PASSES):
            if self._changes:
                break
            later = self._sim.next_event_time()
            if later is None:
                break
            t = later
            self._sim.advance_to(t, progress=self._note)
        self._after_move(before)
        return t

    def step_by(self, delta: timedelta) -> None:
        """Move the clock by ``delta`` (negative: back, through a checkpoint)."""
        self.run_to(self.now + delta)

    def run_to(self, instant: datetime) -> None:
        """Move the clock to ``instant``; far targets run in cancellable slices."""
        if self.busy:
            self.cancel()
        if instant < self.now:
            self._rewind(instant)
            return
        self._remember(self.now)
        self._begin_move()
        self._job = _Job(instant, self.now)
        self.busy_changed.emit(True)
        self._work(self._job)

    def scrub_to(self, instant: datetime) -> None:
        """Move the clock anywhere in the horizon (the scrub bar, dragging the clock line)."""
        instant = min(max(instant, self.start), self.until)
        self.run_to(instant)

    def step_back(self) -> None:
        """Back to where the clock was before the last move (or the previous event)."""
        if self.busy:
            self.cancel()
        target = self._history.pop() if self._history else self._previous_instant()
        if target is None or target >= self.now:
            self.message.emit("already at the start")
            return
        while self._back and self._back[-1].now > target:
            self._back.pop()
        snapshot = self._back.pop() if self._back and self._back[-1].now == target else None
        self._rewind(target, record=False, snapshot=snapshot)

    def reset(self) -> None:
        """Back to ``clock.start`` (the script, with every injected action, stays)."""
        if self.busy:
            self.cancel()
        self._history.clear()
        self._back.clear()
        self._rewind(self.start, record=False)

    def cancel(self) -> None:
        """Stop a long run where it got to."""
        if self._job is not None:
            self._job.cancelled = True
            self._finish_job()

    def action_instant(self) -> datetime:
        """When an action the user injects now takes effect.

        At the clock if nothing was processed at that instant yet; otherwise at
        the next scheduler loop, so that what the user has seen happen at the
        clock stays as it was (a saved file replays the action at that same
        instant, before that loop, exactly as the engine does here).
        """
        now = self.now
        if self._last_processed is None or self._last_processed < now:
            return now
        nxt = self._sim.ticks.after(now)
        return nxt if nxt is not None else now + self._inputs.loop_interval

    # ------------------------------------------------------------------ editing the script
    def apply_script_action(self, action: ScriptAction) -> bool:
        """Add ``action`` to the scenario's script and to the running engine.

        The engine action is built by the scenario layer from the edited
        scenario (:func:`build_engine_inputs`), so what the GUI runs is what
        ``explorer simulate`` will run from the saved file.
        """
        if action.at.value < self.now:
            self.message.emit(
                f"cannot add an action at {action.at.text}: the clock is already later"
            )
            return False
        script = list(self._scenario.script)
        index = len(script)
        while index > 0 and script[index - 1].at.value > action.at.value:
            index -= 1
        script.insert(index, action)
        edited = dataclasses.replace(self._scenario, script=tuple(script))
        try:
            inputs = build_engine_inputs(edited, source=self.source)
            engine_action = inputs.script[index]
            self._sim.add_action(engine_action)
        except (ScenarioError, EngineError) as exc:
            self.message.emit(f"refused: {exc}")
            return False
        self._scenario = edited
        self._inputs = dataclasses.replace(
            self._inputs, script=inputs.script, warnings=inputs.warnings
        )
        self.script_action_added.emit(action)
        self.scenario_edited.emit(edited)
        self._publish()
        return True

    def replace_scenario(self, scenario: Scenario, *, keep_clock: bool = True) -> None:
        """Make ``scenario`` the session's (an undo, redo or other edit).

        A layout-only edit changes nothing the engine reads: the simulation is
        kept and nothing is re-run. Any other edit is re-simulated only from the
        first instant it can affect (:mod:`explorer.document.edit_reach`), starting
        from the old simulation's checkpoint before it, and in slices back to
        where the clock was (the panes update as the slices arrive).
        """
        kind = edit_kind(self._scenario, scenario)
        if kind in ("none", "layout"):
            self._scenario = scenario
            return
        target = self._job.target if self._job is not None else self.now
        inputs = build_engine_inputs(scenario, source=self.source)
        if kind == "view":
            self._scenario = scenario
            self._inputs = dataclasses.replace(
                self._inputs, until=inputs.until, silence_factor=inputs.silence_factor
            )
            self.scenario_replaced.emit()
            self._publish()
            return
        superseded = self._job is not None
        if self._job is not None:  # the run it was making is dropped unseen: no redraw of it
            self._job.cancelled = True
            self._job = None
        old_scenario, old_inputs, old_sim = self._scenario, self._inputs, self._sim
        sim = make_simulation(inputs, checkpoint_every=self.checkpoint_every)
        reach = engine_reach(old_scenario, scenario, old_inputs, inputs, old_sim.script, sim.script)
        #: Where the new simulation took over from the old one (None: from clock.start).
        self.resumed_at = (
            None if reach.since is None else sim.adopt(old_sim, reach.since, reach.changed_dags)
        )
        self._unsubscribe()
        self._scenario = scenario
        self._inputs = inputs
        self._sim = sim
        self._unsubscribe = self._sim.subscribe(self._heard)
        self._history.clear()
        # the old engine's copies of its state, then the rest of it
        self._retire([*old_sim.take_checkpoints(), *self._back, old_sim])
        self._back = []
        del old_sim
        self._last_processed = None
        self.scenario_replaced.emit()
        if keep_clock and target > self.now:
            self._begin_move()  # in slices, like any long run (not a move Back returns from)
            self._job = _Job(target, self.now, quick=True)
            if not superseded:
                self.busy_changed.emit(True)
            self._work(self._job)
        else:
            if superseded:
                self.busy_changed.emit(False)
                self.progress.emit(1.0)
            self._publish()

    # ------------------------------------------------------------------ what panes read
    def badges(self) -> dict[str, DagBadge]:
        return compute_badges(self._sim, self._asset_counts)

    def alerts(self) -> list[Alert]:
        """Alerts raised up to the clock (``compute_alerts`` with ``until`` = now)."""
        return compute_alerts(self._sim, self.now)

    def explain(self, dag_id: str) -> Explanation:
        return explain(self._sim, dag_id)

    def script_instants(self) -> list[datetime]:
        """Instants of the scenario's script actions, in order (presentation mode walks them)."""
        return sorted({a.at.value for a in self._scenario.script})

    def actions_at(self, instant: datetime) -> list[ScriptAction]:
        return [a for a in self._scenario.script if a.at.value == instant]

    # ------------------------------------------------------------------ internals
    def _retire(self, pieces: list[object]) -> None:
        """Let go of ``pieces`` one at a time, a pause apart (:func:`qt_reap`).

        An edit replaces a simulation weeks in: freeing it at once (its automatic
        checkpoints and Back's copies are whole copies of the state) took 100-200 ms,
        between the edit and its first redraw. One copy is a few milliseconds.
        """
        self._retiring.extend(pieces)
        if len(self._retiring) == len(pieces):  # no chain running yet
            self._reap(self._drop_retired)

    def _drop_retired(self) -> None:
        if self._retiring:
            self._retiring.popleft()
        if self._retiring:
            self._reap(self._drop_retired)

    def _note(self, t: datetime) -> bool:
        self._last_processed = t
        return True

    def _heard(self, change: Change) -> None:
        if change.kind != "clock" and len(self._changes) < 500:
            self._changes.append(change)

    def _work(self, job: _Job) -> None:
        """One slice of ``job``; the next one waits for the event loop.

        A slice belongs to its job: one still queued when its job was cancelled or
        superseded (an edit made while the last one re-simulates, a new target) does
        nothing, so one job never runs two chains of slices per turn of the loop.
        """
        if job is not self._job or job.cancelled:
            return
        # (an infinite slice means no slicing at all: tests that do not study it)
        quick = job.quick and not math.isinf(self.chunk_s)
        job.quick = False
        deadline = time.perf_counter() + (0.0 if quick else self.chunk_s)

        def progress(t: datetime) -> bool:
            self._last_processed = t
            return not job.cancelled and time.perf_counter() < deadline

        try:
            self._sim.advance_to(job.target, progress=progress)
        except EngineError as exc:
            self.message.emit(f"the simulation stopped: {exc}")
            self._finish_job()
            return
        if job.cancelled or self.now >= job.target:
            self._finish_job()
            return
        span = (job.target - job.origin).total_seconds() or 1.0
        self.progress.emit(min(1.0, (self.now - job.origin).total_seconds() / span))
        # the panes show the progress, but never take more than a fifth of the time
        now = time.perf_counter()
        if now - job.last_emit >= max(self.redraw_every_s, 4 * job.redraw_s):
            self.changed.emit()
            job.last_emit = time.perf_counter()
            job.redraw_s = job.last_emit - now
        self._defer(lambda: self._work(job))

    def _finish_job(self) -> None:
        job = self._job
        self._job = None
        self.busy_changed.emit(False)
        self.progress.emit(1.0)
        self._after_move(job.origin if job else self.now)

    def _remember(self, before: datetime) -> None:
        """A move forward starts at ``before``: Back will come back to it from a copy of
        the engine's state there (a checkpoint of its own, nothing replayed)."""
        self._history.append(before)
        if self.checkpoint_every:  # the GUI's sessions; headless tests may turn them off
            previous = self._back[-1] if self._back else None
            self._back.append(_checkpoint_without_gc(self._sim, previous))
            del self._back[:-BACK_SNAPSHOTS]

    def _rewind(
        self, instant: datetime, *, record: bool = True, snapshot: BackSnapshot | None = None
    ) -> None:
        before = self.now
        if record:
            self._history.append(before)
        self._begin_move()
        self._sim.rewind_to(max(instant, self.start), snapshot=snapshot)
        now = self.now
        processed = (
            self._sim.state.last_tick == now or self._previous_instant(inclusive=True) == now
        )
        self._last_processed = now if processed else None
        self._changes = []
        self._after_move(before)

    def _previous_instant(self, *, inclusive: bool = False) -> datetime | None:
        """The latest instant before the clock at which a run or an asset changed."""
        now = self.now
        best: datetime | None = None
        for run in self._sim.runs[-2000:]:
            for _, at in run.states:
                if (at < now or (inclusive and at == now)) and (best is None or at > best):
                    best = at
        for event in self._sim.state.assets.events[-500:]:
            at = event.timestamp
            if (at < now or (inclusive and at == now)) and (best is None or at > best):
                best = at
        return best if best is not None or inclusive else self.start

    def _begin_move(self) -> None:
        self._changes = []
        self._floor = self._last_processed

    def _after_move(self, before: datetime) -> None:
        floor, now = self._floor, self.now
        actions = (
            []
            if now < before
            else [
                a
                for a in self._scenario.script
                if (floor is None or a.at.value > floor) and a.at.value <= now
            ]
        )
        report = StepReport(before, now, list(self._changes), actions)
        self._changes = []
        self.clock_changed.emit(self.now)
        self.stepped.emit(report)
        self._publish()

    def _publish(self) -> None:
        self._next_cache = None  # the engine moved or its script changed
        self.changed.emit()
        if self.publish_badges and self.isSignalConnected(
            QtCore.QMetaMethod.fromSignal(self.badges_changed)
        ):
            self.badges_changed.emit(self.badges())


def _checkpoint_without_gc(sim: Simulation, previous: BackSnapshot | None) -> BackSnapshot:
    """``sim.back_snapshot(previous)`` with the cyclic garbage collector paused, its copy then
    filed with the old objects.

    The copy makes thousands of containers and every 700 of them start a young
    collection; after weeks of simulated time those collections took a third of
    the copy, on every step (the copy makes no garbage to collect). Pausing the
    collector alone only moved that cost: the first allocation after it was back
    on started a young collection of the whole copy, whose lists hold every asset
    event and its timestamp (about 200,000 references 60 days in): 25-35 ms of a
    step, now and then a 70 ms middle-generation pass. ``gc.freeze()`` then
    ``gc.unfreeze()`` moves every tracked object to the oldest generation without
    looking at it (and restarts the young count), where the snapshot would land
    after two collections anyway; full collections still see it, and anything
    else young that was garbage is collected by them.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return sim.back_snapshot(previous)
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m explorer.ui.session FILE``: the simulation panes in a window of their own."""
    import argparse

    from PySide6 import QtWidgets

    from explorer.ui.panels.workbench import WorkbenchWindow

    parser = argparse.ArgumentParser(prog="python -m explorer.ui.session")
    parser.add_argument("scenario")
    parser.add_argument("--presentation", action="store_true", help="start in presentation mode")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0]])
    try:
        session = SimulationSession.from_file(args.scenario)
    except ScenarioError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    window = WorkbenchWindow(session)
    window.resize(1400, 900)
    window.show()
    if args.presentation:
        window.bench.presentation.enter()
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
