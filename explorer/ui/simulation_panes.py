"""The open document's simulation and its panes (clock, timeline, explain), kept in step.

The panes are part 2's (:mod:`explorer.ui.session`, :mod:`explorer.ui.panels`,
:mod:`explorer.ui.timeline`); this module only mounts them, as
``explorer.ui.session`` describes: one :class:`SimulationSession` per open
document, rebuilt from the document's scenario after every command (undo
included), and a failure injected from the timeline comes back as one
command on the document's undo stack, so Save and undo see it too.

If a command leaves a scenario the engine refuses, the simulation keeps the
last one it could run and the status bar says why; the canvas stays usable.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from explorer.scenario import Scenario, ScenarioError
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.canvas.view import CanvasView
from explorer.ui.commands import EditScenario
from explorer.ui.document import ScenarioDocument

__all__ = ["SimulationPanes", "available"]


def available() -> bool:
    """Whether part 2's panes are installed in this build."""
    try:
        import explorer.ui.panels.workbench
        import explorer.ui.session  # noqa: F401
    except ImportError:
        return False
    return True


class SimulationPanes(QObject):
    message = Signal(str)

    def __init__(
        self,
        document: ScenarioDocument,
        scene: ScenarioScene,
        view: CanvasView,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        from explorer.ui.panels.workbench import Workbench
        from explorer.ui.session import SimulationSession

        self.document = document
        self.scene = scene
        self.view = view
        source = str(document.path) if document.path else document.scenario.name
        self.session = SimulationSession(document.scenario, source=source, parent=self)
        self.bench = Workbench(self.session)
        #: What the timeline dock shows (clock bar, timeline) and what the explain dock shows.
        self.timeline_widget: QWidget = self.bench
        self.explain_widget: QWidget = self.bench.tabs
        document.changed.connect(self._scenario_changed)
        self.session.scenario_edited.connect(self._edited)
        self.bench.timeline.dag_selected.connect(self._dag_from_timeline)
        scene.selectionChangedIds.connect(self._dag_from_canvas)

    def _scenario_changed(self, scenario: Scenario) -> None:
        try:
            self.session.replace_scenario(scenario)
        except ScenarioError as exc:
            self.message.emit(f"Simulation paused on the last valid scenario: {exc.message}")

    def _edited(self, scenario: Scenario) -> None:
        """An injection from the timeline: one undoable command on the document."""
        if scenario != self.document.scenario:
            self.document.push(EditScenario(self.document, scenario, "Inject from the timeline"))

    def _dag_from_timeline(self, dag_id: str) -> None:
        node = f"dag:{dag_id}"
        if node in self.scene.nodes:
            self.scene.select_nodes([node])
            self.view.center_on_node(node)

    def _dag_from_canvas(self) -> None:
        dags = [n.removeprefix("dag:") for n in self.scene.selected_ids() if n.startswith("dag:")]
        if len(dags) == 1 and dags[0] in self.session.sim.dags:
            self.bench.explain.set_dag(dags[0])
            self.bench.next_runs.set_dag(dags[0])

    def dispose(self) -> None:
        self.session.cancel()
        for widget in (self.bench.tabs, self.bench):
            widget.setParent(None)
            widget.deleteLater()
