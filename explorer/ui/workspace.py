"""Everything that exists per open document: the canvas, its editor, the inspector, history.

Opening another file builds a new :class:`Workspace` and disposes of the
old one, so no pane ever shows one document while editing another. The
workspace wires the panes to its document and to each other (a selection on
the canvas drives the inspector; the scene's hints go to the window) and
owns the document's autosaver.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QPoint, QPointF, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from explorer.document.edits import check_airflow_id
from explorer.scenario import ScenarioError
from explorer.ui.autosave import Autosaver, Timer
from explorer.ui.canvas.editor import NODE_KINDS, CanvasEditor
from explorer.ui.canvas.folders import FolderLabels
from explorer.ui.canvas.quick_add import Entry, SearchPopup
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.canvas.view import CanvasView
from explorer.ui.document import ScenarioDocument
from explorer.ui.focus import CanvasFocus, FocusBar
from explorer.ui.history_view import HistoryView
from explorer.ui.inspector import Inspector
from explorer.ui.simulation_panes import SimulationPanes
from explorer.ui.simulation_panes import available as simulation_available

__all__ = ["Workspace"]


class Workspace(QObject):
    #: A message for the status bar (a refused edit's hint, a layout's end).
    message = Signal(str)

    def __init__(
        self,
        document: ScenarioDocument,
        parent: QWidget,
        *,
        recovery_dir: Path | None = None,
        autosave_ms: int = 30_000,
        autosave_timer: Timer | None = None,
        simulation: bool = True,
        scene: ScenarioScene | None = None,
    ) -> None:
        """``scene``: the document's canvas, already built (a slice at a time)."""
        super().__init__(parent)
        self.document = document
        document.setParent(self)
        self.scene = scene if scene is not None else ScenarioScene(document, parent.palette())
        self.scene.setParent(self)
        self.view = CanvasView(self.scene)
        self.editor = CanvasEditor(self.scene)
        # the canvas filter (large projects): its bar above the canvas, in one pane
        self.focus = CanvasFocus(self.scene, self.view)
        self.focus_bar = FocusBar(self.focus)
        self.folder_labels = FolderLabels(self.scene)
        self.focus.changed.connect(self.folder_labels.refresh)
        self.canvas_pane = QWidget()
        self.canvas_pane.setObjectName("canvasPane")
        column = QVBoxLayout(self.canvas_pane)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.focus_bar)
        column.addWidget(self.view, 1)
        self.inspector = Inspector(document, self.scene)
        self.history = HistoryView(document.undo_stack)
        self.history.setObjectName("history")
        self.history.setEmptyLabel("Opened")
        self.history.setToolTip("Every edit, in order: click one to go back to it")
        self.autosaver: Autosaver | None = None
        if recovery_dir is not None and (autosave_ms > 0 or autosave_timer is not None):
            self.autosaver = Autosaver(
                document, recovery_dir, interval_ms=autosave_ms, timer=autosave_timer
            )
        self.popup: SearchPopup | None = None
        self.simulation: SimulationPanes | None = None
        #: Why the simulation panes could not start (the scenario the engine refused), if so.
        self.startup_problem: str | None = None
        if simulation and simulation_available():
            try:
                self.simulation = SimulationPanes(document, self.scene, self.view, self)
            except ScenarioError as exc:
                self.startup_problem = exc.message
            else:
                self.simulation.message.connect(self.message)
                self.focus.lanesChanged.connect(self.simulation.bench.timeline.set_lane_filter)
                self.focus.lanesChanged.connect(self.simulation.bench.table.set_dag_filter)
                self.simulation.bench.install_shortcuts(self.simulation.bench)
        self.scene.hint.connect(self.message)
        self.editor.layoutEnded.connect(self.message)
        self.view.quickAddRequested.connect(self.quick_add)
        self.view.paletteDropped.connect(self.add_at)

    def dispose(self) -> None:
        """The document is closed (saved or discarded): stop autosaving, drop the panes."""
        self.editor.cancel_layout()
        if self.autosaver is not None:
            self.autosaver.stop()
        if self.simulation is not None:
            self.simulation.dispose()
        self.view.minimap.setScene(None)
        self.view.setScene(None)
        for widget in (self.view, self.canvas_pane, self.inspector, self.history):
            widget.setParent(None)
            widget.deleteLater()
        self.deleteLater()

    # ----------------------------------------------------------------- adding nodes
    def center(self) -> QPointF:
        return self.view.mapToScene(self.view.viewport().rect().center())

    def add_at(self, kind: str, pos: QPointF | None = None, name: str | None = None) -> str | None:
        return self.editor.add_node(kind, pos if pos is not None else self.center(), name)

    def quick_add(self, pos: QPointF) -> SearchPopup:
        """Tab: a searchable list of what can be added here; typed text names the new node."""
        entries = [Entry(kind, f"New {label}", tip) for kind, (label, tip) in NODE_KINDS.items()]

        def named(text: str) -> list[Entry]:
            try:
                check_airflow_id(text, "name")
            except ValueError:
                return [Entry(f"asset={text}", f"New asset {text!r}")]
            return [
                Entry(f"dag={text}", f"New DAG {text!r}"),
                Entry(f"asset={text}", f"New asset {text!r}"),
            ]

        popup = SearchPopup(self.view, "Add a node: type to filter or to name it", entries, named)
        popup.setObjectName("quickAdd")

        def chosen(key: str, _text: str) -> None:
            kind, _, name = key.partition("=")
            self.add_at(kind, pos, name or None)
            self.view.setFocus()

        popup.chosen.connect(chosen)
        self.popup = popup
        popup.popup_at(self.view.mapFromScene(pos))
        return popup

    def find(self) -> SearchPopup:
        """Ctrl+F: find a node by name, select it and bring it into view."""
        entries = [
            Entry(node_id, f"{item.view.title}  ({item.view.kind})", item.view.tooltip)
            for node_id, item in self.scene.nodes.items()
        ]
        popup = SearchPopup(self.view, "Find a DAG, asset, alias or gate", entries)
        popup.setObjectName("find")

        def chosen(key: str, _text: str) -> None:
            self.scene.select_nodes([key])
            self.view.center_on_node(key)
            self.view.setFocus()

        popup.chosen.connect(chosen)
        self.popup = popup
        popup.popup_at(QPoint(12, 12))
        return popup
