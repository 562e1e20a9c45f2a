"""The simulation panes wired together: clock bar, timeline, runs / explain / next runs / compare.

:class:`Workbench` is a plain ``QWidget`` the main window can mount as its
central widget or split into docks (its parts are public attributes); an
optional ``canvas`` widget is placed above the timeline and kept visible in
presentation mode. :class:`WorkbenchWindow` is the stand-alone window of
``python -m explorer.ui.session FILE``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.engine.alerts import Alert
from explorer.engine.causes import Cause
from explorer.ui.clock import ClockControls, Ticker
from explorer.ui.panels.compare import ComparePane
from explorer.ui.panels.explain import ExplainPane
from explorer.ui.panels.export import export_widget
from explorer.ui.panels.injection import InjectionMenus, Prompter
from explorer.ui.panels.next_runs import NextRunsPane
from explorer.ui.panels.presentation import PresentationMode
from explorer.ui.timeline.pane import TimelinePane
from explorer.ui.timeline.runs_table import RunsTable, link_selection

if TYPE_CHECKING:
    from explorer.ui.session import SimulationSession

__all__ = ["Workbench", "WorkbenchWindow"]


#: How much time either side of a followed cause the timeline shows.
_AROUND = timedelta(hours=6)


class Workbench(QtWidgets.QWidget):
    def __init__(
        self,
        session: SimulationSession,
        *,
        ticker: Ticker | None = None,
        prompter: Prompter | None = None,
        canvas: QtWidgets.QWidget | None = None,
        parent: QtWidgets.QWidget | None = None,
        lane_order: list[str] | None = None,
    ) -> None:
        """``lane_order``: the lanes' order from the start (the canvas's), so the timeline
        is not drawn once in the engine's order and again in the canvas's (2,000 DAGs)."""
        super().__init__(parent)
        self.session = session
        self.canvas = canvas
        #: The DAGs explained before each followed cause (:meth:`navigate_back`).
        self.trail: list[str] = []
        self.clock_bar = ClockControls(session, ticker=ticker)
        self.timeline = TimelinePane()
        if lane_order is not None:
            self.timeline.set_lane_order(lane_order)
        self.table = RunsTable()
        self.explain = ExplainPane(session)
        self.next_runs = NextRunsPane(session)
        self.compare = ComparePane(session)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.table, "Runs")
        self.tabs.addTab(self.explain, "Why? · Alerts")
        self.tabs.addTab(self.next_runs, "Next runs")
        self.tabs.addTab(self.compare, "Compare")
        self.caption = QtWidgets.QLabel()
        self.status = QtWidgets.QLabel()
        self.status.setStyleSheet("color: #555; padding: 0 6px")

        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        if canvas is not None:
            self.splitter.addWidget(canvas)
        self.splitter.addWidget(self.timeline)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(self.splitter.indexOf(self.timeline), 3)
        self.splitter.setStretchFactor(self.splitter.indexOf(self.tabs), 2)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.clock_bar)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.caption)
        layout.addWidget(self.status)

        self.injection = InjectionMenus(
            session, prompter=prompter, zone_name=lambda: self.timeline.display_zone
        )
        self.presentation = PresentationMode(
            session,
            self.timeline,
            host=self,
            caption_label=self.caption,
            hide=[self.clock_bar, self.tabs, self.status, self.timeline.top_bar],
        )
        self._wire()
        self.timeline.set_horizon(session.start, session.until)
        self.refresh()

    def _wire(self) -> None:
        s, t = self.session, self.timeline
        s.changed.connect(self.refresh)
        s.scenario_replaced.connect(lambda: t.set_horizon(s.start, s.until))
        s.message.connect(self.status.setText)
        s.stepped.connect(lambda _report: t.clear_marker())
        link_selection(t, self.table)
        t.dag_selected.connect(self.explain.set_dag)
        t.dag_selected.connect(self.next_runs.set_dag)
        t.context_requested.connect(self.injection.popup)
        t.scrub_requested.connect(s.scrub_to)
        t.display_zone_changed.connect(self.clock_bar.set_display_zone)
        t.display_zone_changed.connect(self.explain.set_display_zone)
        self.explain.alert_activated.connect(self.show_alert)
        self.explain.cause_activated.connect(self.follow_cause)
        # what each deployment change did, on the timeline and in the explain pane
        t.change_mark_selected.connect(lambda mark: self.explain.show_change([mark]))
        t.run_selected.connect(self._explain_run_change)
        self.table.run_selected.connect(self._explain_run_change)
        self.table.template_changed.connect(t.set_template)  # the run card renders it too
        s.scenario_replaced.connect(self.update_deploy_marks)
        self.update_deploy_marks()
        self.clock_bar.set_display_zone(t.display_zone)
        self.explain.set_display_zone(t.display_zone)
        self.table.set_display_zone(t.display_zone)

    def update_deploy_marks(self) -> None:
        """Diff the scenario against itself without its change actions."""
        from explorer.ui.timeline.change_layer import deploy_report_of

        report, problem = deploy_report_of(self.session.inputs, self.session.until)
        if problem:
            self.status.setText(problem)
        self.timeline.set_deploy_report(report)

    def _explain_run_change(self, dag_id: str, run_id: str) -> None:
        self.explain.show_change(self.timeline.change_layer.marks_of_run(dag_id, run_id))

    def refresh(self) -> None:
        sim = self.session.sim
        self.timeline.show_simulation(sim)
        self.table.refresh(sim)

    def follow_cause(self, cause: Cause) -> None:
        """Show a cause: its run selected on the timeline, centred on when it happened, and
        its DAG explained; :meth:`navigate_back` returns to the DAG explained before."""
        if cause.dag_id is None:
            return
        self.trail.append(self.explain.dag_id)
        if cause.at is not None:  # zoomed to half a day around it: a short run is wide enough
            self.timeline.set_x_range(cause.at - _AROUND, cause.at + _AROUND)
        if cause.run_id is None or not self.timeline.select_run(
            cause.dag_id, cause.run_id, emit=True
        ):
            self.timeline.dag_selected.emit(cause.dag_id)

    def navigate_back(self) -> bool:
        """Back to the DAG explained before the last cause was followed (not the clock's
        Back); False when there is none."""
        while self.trail:
            previous = self.trail.pop()
            if previous and previous in self.session.sim.dags:
                self.timeline.dag_selected.emit(previous)
                return True
        return False

    def show_alert(self, alert: Alert) -> None:
        """Select the alert's DAG and move the timeline to its instant."""
        self.timeline.center_on(alert.at)
        self.timeline.mark_instant(alert.at, alert.kind)
        first = alert.subject.split(",")[0].strip()
        if first in self.session.sim.dags:
            self.timeline.dag_selected.emit(first)

    def export_timeline(self, path: str | Path) -> Path:
        return export_widget(self.timeline.plot, path, title="Schedule Explorer timeline")

    def install_shortcuts(self, window: QtWidgets.QWidget) -> None:
        self.clock_bar.install_shortcuts(window)
        shortcut = QtGui.QShortcut(QtGui.QKeySequence("F5"), window)
        shortcut.activated.connect(self.presentation.toggle)


class WorkbenchWindow(QtWidgets.QMainWindow):
    """A window with only the simulation panes (``python -m explorer.ui.session FILE``)."""

    def __init__(self, session: SimulationSession, **kwargs: object) -> None:
        super().__init__()
        self.bench = Workbench(session, **kwargs)  # type: ignore[arg-type]
        self.setCentralWidget(self.bench)
        self.setWindowTitle(f"Schedule Explorer — {session.scenario.name}")
        self.bench.install_shortcuts(self)
        menu = self.menuBar().addMenu("&File")
        export = menu.addAction("Export timeline…")
        export.triggered.connect(self._export)
        menu.addAction("Quit", QtGui.QKeySequence.StandardKey.Quit, self.close)
        view = self.menuBar().addMenu("&View")
        present = view.addAction("Presentation mode (F5)")
        present.triggered.connect(self.bench.presentation.toggle)

    def _export(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export timeline", "timeline.png", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        )
        if path:
            self.bench.export_timeline(path)
