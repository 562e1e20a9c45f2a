"""The open document's simulation and its panes (clock, timeline, explain), kept in step.

The panes are defined elsewhere (:mod:`explorer.ui.session`, :mod:`explorer.ui.panels`,
:mod:`explorer.ui.timeline`); this module only mounts them, as
``explorer.ui.session`` describes: one :class:`SimulationSession` per open
document, rebuilt from the document's scenario after every command (undo
included), and a failure injected from the timeline comes back as one
command on the document's undo stack, so Save and undo see it too.

The canvas follows the clock: each DAG node carries the session's live badge
(running / failed, "1 of 2 assets updated", window members), and the
timeline's lanes follow the canvas's top-to-bottom order, re-read whenever
the scene is synced (opening, a layout, a move, an undo).

If a command leaves a scenario the engine refuses, the simulation keeps the
last one it could run and the status bar says why; the canvas stays usable.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from explorer.scenario import Scenario, ScenarioError
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.canvas.view import CanvasView
from explorer.ui.commands import EditScenario
from explorer.ui.document import ScenarioDocument

if TYPE_CHECKING:
    from explorer.document.panels.badges import DagBadge
    from explorer.engine.simulation import Simulation

__all__ = ["SimulationPanes", "available", "badge_look"]


def available() -> bool:
    """Whether the simulation panes are installed in this build."""
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
        prepared, document.prepared = document.prepared, None
        self.session = SimulationSession(
            document.scenario,
            source=source,
            prepared=prepared,  # type: ignore[arg-type]  # (inputs, simulation) of OpenJob
            parent=self,
        )
        #: (which simulation, its asset names → uris): asked again only for another one.
        self._uris: tuple[weakref.ref[Simulation], int, dict[str, str]] | None = None
        self._lane_order: list[str] | None = self.canvas_order()
        self.bench = Workbench(self.session, lane_order=self._lane_order)
        #: What the timeline dock shows (clock bar, timeline) and what the explain dock shows.
        self.timeline_widget: QWidget = self.bench
        self.explain_widget: QWidget = self.bench.tabs
        # the dock beside the timeline opens on the "why" of the selected DAG; the tabs leave
        # the bench now, or the timeline dock keeps their height as its minimum
        self.bench.tabs.setCurrentWidget(self.bench.explain)
        self.bench.tabs.setParent(None)
        document.changed.connect(self._scenario_changed)
        self.session.scenario_edited.connect(self._edited)
        self.bench.timeline.dag_selected.connect(self._dag_from_timeline)
        scene.selectionChangedIds.connect(self._dag_from_canvas)
        self._badges: dict[str, DagBadge] = {}
        #: The (node item, badge) each DAG's node was last given (``_show_badges``).
        self._given: dict[str, tuple[object, DagBadge]] = {}
        self.session.badges_changed.connect(self._show_badges)
        scene.synced.connect(self._canvas_synced)
        self._show_badges(
            self.session.badges()
        )  # (the lanes had the canvas's order from the start)

    # ----------------------------------------------------------------- canvas <-> clock
    def _show_badges(self, badges: dict[str, DagBadge]) -> None:
        """Give each DAG node its badge; only the nodes whose badge (or item) changed.

        A step or a Back changes the badges of a few DAGs, and a node drag syncs the
        scene without changing any: looking every badge up again (its label, tone and
        tooltip) for 200 nodes was a few milliseconds of each.
        """
        self._badges = badges
        nodes, given = self.scene.nodes, self._given
        for dag_id, badge in badges.items():
            item = nodes.get(f"dag:{dag_id}")
            if item is None:
                continue
            if given.get(dag_id) == (item, badge):
                continue
            item.set_live(badge_look(badge))
            given[dag_id] = (item, badge)

    def _canvas_synced(self) -> None:
        self._show_badges(self._badges)  # new items get theirs at once
        self._follow_canvas_order()

    def canvas_order(self) -> list[str]:
        """DAG ids and asset uris in the canvas's top-to-bottom (then left-to-right) order."""
        from explorer.document.timeline.data import asset_keys_of

        sim = self.session.sim
        known = len(sim.state.assets.active)
        if self._uris is None or self._uris[0]() is not sim or self._uris[1] != known:
            uris = {key.name: key.uri for key in asset_keys_of(sim) if key.name}
            self._uris = (weakref.ref(sim), known, uris)
        uris = self._uris[2]
        # where the items are shown: the file's places plus the canvas filter's offsets (read
        # from the scene's tables: asking 800 items for x() and y() on every drop was slow),
        # sorted by (y, x), ties in scene order (a stable sort: a key function per node was
        # a millisecond of every node drag)
        places, offsets = self.scene.positions, self.scene.view_offsets
        nodes = list(self.scene.nodes)
        zero = (0.0, 0.0)
        shown = np.array([places.get(n, zero) for n in nodes], dtype=float).reshape(-1, 2)
        if offsets:
            shown += np.array([offsets.get(n, zero) for n in nodes], dtype=float).reshape(-1, 2)
        by_place = np.lexsort((shown[:, 0], shown[:, 1])).tolist()  # (the last key first)
        order: list[str] = []
        for node_id in (nodes[i] for i in by_place):
            kind, _, name = node_id.partition(":")
            if kind == "dag":
                order.append(name)
            elif kind == "asset":
                order.append(uris.get(name, name))
        return order

    def _follow_canvas_order(self) -> None:
        order = self.canvas_order()
        if order != self._lane_order:
            self._lane_order = order
            self.bench.timeline.set_lane_order(order)

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
        self.scene.synced.disconnect(self._canvas_synced)
        for widget in (self.bench.tabs, self.bench):
            widget.setParent(None)
            widget.deleteLater()


def badge_look(badge: DagBadge) -> tuple[str, str, str]:
    """(label, tone, detail) of a DAG node's live badge."""
    if badge.status == "running":
        tone = "running"
    elif badge.status == "failed":
        tone = "failed"
    elif badge.assets_ready is False or badge.members or badge.status in ("queued", "paused"):
        tone = "waiting"
    elif badge.status == "success":
        tone = "ok"
    else:
        tone = "idle"
    label = badge.text
    detail = label
    if tone == "waiting" and badge.status in ("success", "failed") and " · " in label:
        # the count is what the consumer waits on now; the last run's end goes to the tooltip
        label = "waiting · " + label.split(" · ", 1)[1]
    if badge.last_state and badge.status != badge.last_state:
        detail += f" (last run {badge.last_state})"
    return label, tone, detail
