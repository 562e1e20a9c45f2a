"""Failure injection from the timeline: the context menu on a run, a lane or an event.

What the user picks becomes a scenario script action
(:mod:`explorer.document.panels.script_actions`) applied through
:meth:`SimulationSession.apply_script_action` at the session's
:meth:`~SimulationSession.action_instant` — the clock, or the next scheduler
loop when the clock's instant has already been processed.

Questions (a delay, a logical date, a partition key) go through a
:class:`Prompter`; the default uses ``QInputDialog``, tests pass answers.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.panels import script_actions as sa
from explorer.document.timeline.data import asset_keys_of
from explorer.document.timeline.injected import injected_on_ghost
from explorer.document.timeline.picking import TimelineTarget
from explorer.document.timeline.timebase import fmt_local, fmt_utc, zone_of
from explorer.scenario.model import ScriptAction, TaskOutcome
from explorer.ui.clock import parse_instant_in, parse_step

if TYPE_CHECKING:
    from explorer.document.timeline.data import GhostRun
    from explorer.engine.runs import DagRun
    from explorer.ui.session import SimulationSession

__all__ = ["DialogPrompter", "InjectionMenus", "Prompter"]


class Prompter(Protocol):
    """Asks the user for a value; ``None`` means cancelled."""

    def ask_text(self, title: str, label: str, default: str = "") -> str | None: ...


class DialogPrompter:
    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        self.parent = parent

    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        text, ok = QtWidgets.QInputDialog.getText(self.parent, title, label, text=default)
        return text if ok else None


class InjectionMenus(QtCore.QObject):
    """Builds the context menus; :meth:`popup` is what ``context_requested`` connects to."""

    def __init__(
        self,
        session: SimulationSession,
        *,
        prompter: Prompter | None = None,
        zone_name: Callable[[], str] = lambda: "UTC",
        parent: QtCore.QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.prompter: Prompter = prompter or DialogPrompter()
        self.zone_name = zone_name
        self.last_menu: QtWidgets.QMenu | None = None
        #: More items for every menu (picture exports, expectations), added at the end.
        self.extensions: list[Callable[[QtWidgets.QMenu, TimelineTarget], None]] = []

    # ------------------------------------------------------------------ entry points
    def popup(self, target: TimelineTarget, global_pos: QtCore.QPoint) -> None:
        menu = self.build_menu(target)
        menu.exec(global_pos)

    def build_menu(self, target: TimelineTarget) -> QtWidgets.QMenu:
        menu = QtWidgets.QMenu()
        self.last_menu = menu
        at = self.session.action_instant()
        zone = zone_of(self.zone_name())
        when = f"{fmt_local(at, zone)} · {fmt_utc(at, seconds=True)}"
        title = menu.addAction(f"At {when}")
        title.setEnabled(False)
        menu.addSeparator()
        if target.run is not None:
            self._run_items(menu, target.run, at)
        elif target.ghost is not None:
            self._ghost_items(menu, target.ghost, at)
        if target.lane.kind == "dag":
            self._dag_items(menu, target.lane.key, at)
        else:
            self._asset_items(menu, target.lane.key, at)
        for extend in self.extensions:
            extend(menu, target)
        return menu

    @staticmethod
    def find(menu: QtWidgets.QMenu, text: str) -> QtGui.QAction | None:
        """The enabled action whose text starts with ``text`` (tests and shortcuts use it)."""
        for action in menu.actions():
            if action.text().startswith(text) and action.isEnabled():
                return action
        return None

    # ------------------------------------------------------------------ sections
    def _add(
        self, menu: QtWidgets.QMenu, text: str, make: Callable[[], ScriptAction | None]
    ) -> QtGui.QAction:
        action = menu.addAction(text)

        def run() -> None:
            built = make()
            if built is not None:
                self.session.apply_script_action(built)

        action.triggered.connect(run)
        return action

    def _run_items(self, menu: QtWidgets.QMenu, run: DagRun, at: datetime) -> None:
        header = menu.addAction(f"{run.dag_id} · {run.run_id} ({run.state})")
        header.setEnabled(False)
        if run.state == "running":
            self._add(menu, "Fail this run now", lambda: sa.finish_run(run, at, "failed"))
            self._add(menu, "Succeed this run now", lambda: sa.finish_run(run, at, "success"))
            for task in run.tasks:
                if task.state == "running":
                    self._task_items(menu, run, task.task_id, at)
        if run.active:
            selector = sa.selector_for_run(run)
            self._override_items(menu, selector, at, started=run.state == "running")
        menu.addSeparator()

    def _task_items(self, menu: QtWidgets.QMenu, run: DagRun, task_id: str, at: datetime) -> None:
        self._add(
            menu, f"Fail task {task_id} now", lambda: sa.finish_task(run, task_id, at, "failed")
        )
        self._add(
            menu,
            f"Task {task_id} succeeds now without writing data",
            lambda: sa.finish_task(run, task_id, at, "success_no_data"),
        )

    def _ghost_items(self, menu: QtWidgets.QMenu, ghost: GhostRun, at: datetime) -> None:
        zone = zone_of(self.zone_name())
        # named by when it is created (run_after): its logical date can be a day earlier
        # (a data-interval run), which read as a run created then
        when = f"created {fmt_local(ghost.run_after, zone)}"
        what = f"partition {ghost.partition_key}, {when}" if ghost.partition_key else when
        header = menu.addAction(f"{ghost.dag_id} · next run ({what}, not created yet)")
        header.setEnabled(False)
        injected = injected_on_ghost(self.session.sim, ghost)
        if injected is not None:  # what is already injected, before adding more
            menu.addAction(f"✗ {injected.text}").setEnabled(False)
        self._override_items(menu, sa.selector_for_ghost(ghost), at, started=False)
        menu.addSeparator()

    def _override_items(
        self, menu: QtWidgets.QMenu, selector: object, at: datetime, *, started: bool
    ) -> None:
        from explorer.scenario.model import RunSelectorModel

        assert isinstance(selector, RunSelectorModel)
        verb = "when its tasks end" if started else "when it runs"

        def outcome(value: TaskOutcome) -> Callable[[], ScriptAction]:
            return lambda: sa.override(selector, at, outcome=value)

        self._add(menu, f"Make it fail {verb}", outcome("failed"))
        self._add(menu, f"Make it succeed without writing data {verb}", outcome("success_no_data"))
        if not started:
            self._add(menu, "Delay its tasks by…", lambda: self._delayed(selector, at))

    def _delayed(self, selector: object, at: datetime) -> ScriptAction | None:
        from explorer.scenario.model import RunSelectorModel

        assert isinstance(selector, RunSelectorModel)
        text = self.prompter.ask_text("Delay", "Extra duration (e.g. 2h, 45m, PT3H):", "2h")
        if not text:
            return None
        try:
            delay = parse_step(text)
        except ValueError as exc:
            self.session.message.emit(str(exc))
            return None
        if delay <= timedelta(0):
            self.session.message.emit("a delay must be positive")
            return None
        return sa.override(selector, at, delay=delay)

    def _dag_items(self, menu: QtWidgets.QMenu, dag_id: str, at: datetime) -> None:
        dag = self.session.sim.dags.get(dag_id)
        if dag is None:
            return
        if dag.is_paused:
            self._add(menu, f"Unpause {dag_id}", lambda: sa.unpause(dag_id, at))
        else:
            self._add(menu, f"Pause {dag_id}", lambda: sa.pause(dag_id, at))
        self._add(
            menu, "Trigger a manual run now (no logical date)", lambda: sa.trigger(dag_id, at)
        )
        self._add(
            menu, "Trigger a manual run with logical date…", lambda: self._trigger_dated(dag_id, at)
        )
        table = dag.spec.timetable
        if table.partitioned or table.partitioned_at_runtime:
            self._add(
                menu,
                "Trigger a manual run with partition key…",
                lambda: self._trigger_keyed(dag_id, at),
            )

    def _trigger_dated(self, dag_id: str, at: datetime) -> ScriptAction | None:
        zone = self.zone_name()
        default = at.astimezone(zone_of(zone)).strftime("%Y-%m-%d %H:%M")
        text = self.prompter.ask_text(
            "Trigger", f"logical_date (wall time in {zone}, or ISO with offset):", default
        )
        if not text:
            return None
        try:
            logical = parse_instant_in(text, zone)
        except ValueError:
            self.session.message.emit(f"not an instant: {text!r}")
            return None
        return sa.trigger(dag_id, at, logical_date=logical)

    def _trigger_keyed(self, dag_id: str, at: datetime) -> ScriptAction | None:
        key = self.prompter.ask_text("Trigger", "partition_key:", "")
        return sa.trigger(dag_id, at, partition_key=key) if key else None

    def _asset_items(self, menu: QtWidgets.QMenu, uri: str, at: datetime) -> None:
        key = next((k for k in asset_keys_of(self.session.sim) if k.uri == uri), None)
        if key is None:
            return
        scenario = self.session.scenario
        label = key.name or key.uri
        self._add(
            menu,
            f"Emit an external event on {label} now",
            lambda: sa.external_event(scenario, key, at),
        )

        def keyed() -> ScriptAction | None:
            partition = self.prompter.ask_text("External event", "partition_key:", "")
            if partition is None:
                return None
            return sa.external_event(self.session.scenario, key, at, partition_key=partition)

        self._add(menu, f"Emit an external event on {label} with a partition key…", keyed)
