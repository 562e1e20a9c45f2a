"""Canvas edits that are not mouse gestures: create, group, copy, paste, lay out.

The palette, quick-add, the Edit and Layout menus call these; each pushes
one command (or, for a force-directed layout, starts a worker whose result
becomes one command). Refusals go to the scene's :attr:`hint` signal.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPointF, Signal
from PySide6.QtGui import QGuiApplication

from explorer.document import clipboard, conditions, edits
from explorer.document.free_space import free_spot
from explorer.document.nodes import (
    ASSET_WIDTH,
    CANVAS_SPACING,
    DAG_HEADER,
    DAG_WIDTH,
    TASK_ROW,
    layout_graph,
    node_size,
    spread,
)
from explorer.scenario import Scenario
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.commands import edit
from explorer.ui.workers import LAYOUTS, LayoutJob, run_layout

__all__ = ["NODE_KINDS", "CanvasEditor"]

#: What the palette and quick-add can make: kind -> (label, tooltip).
NODE_KINDS: dict[str, tuple[str, str]] = {
    "dag": ("DAG", "A new DAG with one task; give it a schedule in the inspector"),
    "asset": ("Asset", "A new asset declared in the scenario; a task's outlet writes it"),
    "alias": ("AssetAlias", "An alias: tasks write through it and add real assets at run time"),
    "ref": ("Asset.ref", "A reference to an asset by name or uri, resolved at parse time"),
    "and": ("AND gate", "Group the selected condition part, DAG condition or gate in an AND"),
    "or": ("OR gate", "Group the selected condition part, DAG condition or gate in an OR"),
}


class CanvasEditor(QObject):
    #: A layout started (name), progressed (0..1), ended (message for the status bar).
    layoutStarted = Signal(str)
    layoutProgress = Signal(float)
    layoutEnded = Signal(str)

    def __init__(self, scene: ScenarioScene) -> None:
        super().__init__(scene)
        self.scene = scene
        self.document = scene.document
        self.job: LayoutJob | None = None

    def _push(self, after: Scenario, text: str) -> bool:
        return edit(self.document, after, text)

    # ----------------------------------------------------------------- creating
    def add_node(self, kind: str, pos: QPointF, name: str | None = None) -> str | None:
        """Make a node of ``kind`` at ``pos``; returns its id (selected), or None if refused."""
        if kind in ("and", "or"):
            self.add_gate("all" if kind == "and" else "any")
            return None
        s, xy = self.document.scenario, self._free_spot(kind, pos)
        makers = {
            "dag": lambda: edits.add_dag(s, xy, name),
            "asset": lambda: edits.add_asset(s, xy, name),
            "alias": lambda: edits.add_alias(s, xy, name),
            "ref": lambda: edits.add_ref(s, xy, name=name),
        }
        try:
            after, node = makers[kind]()
        except edits.EditError as exc:
            self.scene.hint.emit(str(exc))
            return None
        label = NODE_KINDS[kind][0]
        if self._push(after, f"Add {label} {edits.parse_node(node).name}"):
            self.scene.select_nodes([node])
            return node
        return None

    def _free_spot(self, kind: str, pos: QPointF) -> tuple[float, float]:
        """The nearest place to ``pos`` where the new node covers no other."""
        size = (DAG_WIDTH, DAG_HEADER + TASK_ROW + 8.0) if kind == "dag" else (ASSET_WIDTH, 60.0)
        occupied = []
        for item in self.scene.nodes.values():
            r = item.sceneBoundingRect()
            occupied.append((r.left(), r.top(), r.right(), r.bottom()))
        return free_spot((pos.x(), pos.y()), size, occupied)

    def add_gate(self, op: str) -> bool:
        """Wrap the selected gate, condition input or DAG condition in a new AND/OR gate."""
        word = "AND" if op == "all" else "OR"
        target = self._gate_target()
        if target is None:
            self.scene.hint.emit(
                f"select what the new {word} gate groups first: a consumer DAG, a gate, or a "
                "condition input (the edge from an asset into a DAG or a gate)"
            )
            return False
        dag_id, operands = target
        s = self.document.scenario
        try:
            after = edits.wrap_in_gate(s, dag_id, operands, op)
        except edits.EditError as exc:
            self.scene.hint.emit(str(exc))
            return False
        if self._push(after, f"Add {word} gate to {dag_id}"):
            from explorer.graph import gate_node

            self.scene.select_nodes([gate_node(dag_id, operands)])
            return True
        return False

    def _gate_target(self) -> tuple[str, tuple[int, ...]] | None:
        s = self.document.scenario
        for edge in self.scene.selected_edges():
            if edge.kind == "input" and edge.operands is not None:
                return edits.parse_node(edge.target).name, edge.operands
        for node in self.scene.selected_ids():
            ref = edits.parse_node(node)
            if ref.kind == "gate":
                return ref.name, ref.operands
            if ref.kind == "dag":
                dag = next((d for d in s.dags if d.dag_id == ref.name), None)
                if dag is not None and conditions.tree(dag.schedule) is not None:
                    return ref.name, (0,)
        return None

    # ----------------------------------------------------------------- clipboard
    def copy(self) -> bool:
        text = clipboard.copy_nodes(self.document.scenario, self.scene.selected_ids())
        if text is None:
            self.scene.hint.emit("select DAGs, assets, aliases or refs to copy")
            return False
        # Plain text (a scenario file fragment): pastes into a text editor too, and no
        # QMimeData ownership crosses between Python and the clipboard (a crash at exit).
        QGuiApplication.clipboard().setText(text)
        return True

    def cut(self) -> bool:
        return self.copy() and self.scene.delete_selection()

    def paste(self) -> bool:
        text = QGuiApplication.clipboard().text()
        if not text.strip():
            self.scene.hint.emit("the clipboard is empty")
            return False
        try:
            after, added = clipboard.paste(self.document.scenario, text)
        except edits.EditError as exc:
            self.scene.hint.emit(str(exc))
            return False
        if self._push(after, f"Paste {len(added)} node(s)"):
            self.scene.select_nodes(added)
            return True
        return False

    # ----------------------------------------------------------------- layouts
    def apply_layout(self, name: str, *, background: bool | None = None) -> None:
        """Lay out every node; the layered layout runs at once, the others in a worker."""
        if self.job is not None:
            self.scene.hint.emit("a layout is already running (Escape or Cancel stops it)")
            return
        title, layout = LAYOUTS[name]
        graph = layout_graph(self.document.scenario)
        if background is None:
            background = name != "layered"
        sizes = {n: node_size(item.view) for n, item in self.scene.nodes.items()}
        if not background:
            positions = layout(graph, spacing=CANVAS_SPACING, sizes=sizes)
            self._apply(title, spread(positions, sizes) if name == "layered" else positions)
            return
        job = LayoutJob(name, graph, sizes)
        job.signals.progress.connect(self.layoutProgress)
        job.signals.finished.connect(lambda result, t=title: self._finished(t, result))
        job.signals.cancelled.connect(lambda t=title: self._ended(f"{t} cancelled"))
        job.signals.failed.connect(lambda message, t=title: self._ended(f"{t} failed: {message}"))
        self.job = job
        self.layoutStarted.emit(title)
        run_layout(job)

    def cancel_layout(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def _finished(self, title: str, result: dict[str, tuple[float, float]]) -> None:
        self._apply(title, result)  # placed first: whoever hears the end sees the new layout
        self._ended(f"{title} applied")

    def _ended(self, message: str) -> None:
        self.job = None
        self.layoutEnded.emit(message)

    def _apply(self, title: str, positions: dict[str, tuple[float, float]]) -> None:
        s = self.document.scenario
        alive = {k: v for k, v in positions.items() if k in self.scene.nodes}
        self._push(edits.move_nodes(s, alive), title)
