"""The canvas scene: draws the document's scenario and turns gestures into commands.

Only the scene binds the model to items (orange-canvas-core's rule): it
observes :attr:`ScenarioDocument.changed` and brings its items in line with
the new scenario (:func:`explorer.document.nodes.canvas_model`), keeping the items
whose nodes survive, so a selection or a hover is not lost on every edit.
Mouse modes are :mod:`~explorer.ui.canvas.interactions` objects; what they
decide becomes one command (:mod:`explorer.ui.commands`) pushed on the
document's undo stack. The scene never writes the model itself.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPalette, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSceneMouseEvent

from explorer.document import edits
from explorer.document.edit_reach import moved_only
from explorer.document.nodes import (
    CanvasModel,
    EdgeView,
    canvas_model,
    canvas_model_after,
    node_size,
    place,
)
from explorer.scenario import Scenario
from explorer.ui.canvas.extents import ItemExtents
from explorer.ui.canvas.interactions import Interaction, MoveSelection, NewLink, RubberBand
from explorer.ui.canvas.items import EdgeItem, NodeItem, Port, make_node_item
from explorer.ui.commands import edit
from explorer.ui.document import ScenarioDocument
from explorer.ui.theme import CanvasColors, canvas_colors

__all__ = ["ScenarioScene"]

_SCENE_MARGIN = 1500.0


class ScenarioScene(QGraphicsScene):
    """Items for every node and edge of the document's scenario."""

    #: A refusal or a note for the user (an invalid connection and how to make a valid one).
    hint = Signal(str)
    #: The selection as node ids and edges changed (after a sync too).
    selectionChangedIds = Signal()
    #: Items were brought in line with a new scenario.
    synced = Signal()

    def __init__(
        self, document: ScenarioDocument, palette: QPalette, *, build: bool = True
    ) -> None:
        """``build=False``: no items yet; :meth:`build_steps` adds them a few at a time
        (a file opened in the background)."""
        super().__init__()
        self.document = document
        self.colors: CanvasColors = canvas_colors(palette)
        self.nodes: dict[str, NodeItem] = {}
        self.edges: dict[tuple[str, str, str, str | None], EdgeItem] = {}
        self.model = CanvasModel()
        self._interaction: Interaction | None = None
        self._syncing = False
        #: True while the canvas filter hides nodes (:meth:`set_filtered`).
        self.filtered = False
        #: Every node's position in the file (or placed), as of the last sync.
        self.positions: dict[str, tuple[float, float]] = {}
        #: Where the canvas filter shows nodes instead, as offsets from their file position
        #: (:meth:`arrange`); a move there moves the node in the file by as much.
        self.view_offsets: dict[str, tuple[float, float]] = {}
        #: The scenario the items show (a layout-only change skips rebuilding the model).
        self._synced_with: Scenario | None = None
        #: The last :func:`place` asked, with what it read (:meth:`_place`).
        self._placed: tuple[object, dict[str, tuple[float, float]]] | None = None
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.selectionChanged.connect(self._on_selection_changed)
        #: The scene's items' bounding rectangle, measured once per change (at 2,000 DAGs
        #: one measure walks 4,000 items: tens of milliseconds, asked a dozen times a fit).
        #: A moved node keeps it up to date (:meth:`node_moving`): a drag, then the
        #: minimap's refresh after its move command, no longer walk every item.
        self._bounds: QRectF | None = None
        #: Each item's rectangle, kept once a node moved along the border: the next
        #: measure reads an array, not every item (a node move must stay within 16 ms).
        self._extents: ItemExtents | None = None
        document.changed.connect(self.sync)
        if build:
            self.sync(document.scenario)

    def build_steps(self) -> Iterator[float]:
        """Add the items of the document's scenario one at a time, yielding the share done
        after each: a driver (:class:`explorer.ui.sliced.SlicedRun`) returns to the event
        loop between slices, so the window never freezes while 4,000 items are made.
        The scene is complete (and :attr:`synced` emitted) when the iterator ends."""
        scenario = self.document.scenario
        prepared, self.document.prepared_canvas = self.document.prepared_canvas, None
        model, positions = (
            prepared
            if prepared is not None
            else (m := canvas_model(scenario), place(m, scenario.layout))
        )
        total = max(1, len(model.nodes) + len(model.edges))
        done = 0
        self._syncing = True
        try:
            for node_id, view in model.nodes.items():
                item = make_node_item(view, self.colors)
                x, y = positions.get(node_id, (0.0, 0.0))
                item.setPos(x, y)
                self.addItem(item)
                self.nodes[node_id] = item
                done += 1
                yield done / total
            for link in model.edges:
                if link.source in self.nodes and link.target in self.nodes:
                    edge = EdgeItem(
                        link, self.nodes[link.source], self.nodes[link.target], self.colors
                    )
                    self.addItem(edge)
                    self.edges[link.key] = edge
                done += 1
                yield done / total
        finally:
            self._syncing = False
        self.positions = dict(positions)
        self.model = model
        self._synced_with = scenario
        self._fit_scene_rect()
        self.synced.emit()
        self.selectionChangedIds.emit()

    # ----------------------------------------------------------------- sync
    def sync(self, scenario: Scenario) -> None:
        """Bring the items in line with ``scenario`` (the only way items change)."""
        if self._interaction is not None:
            self._interaction.cancel()
        previous, self._synced_with = self._synced_with, scenario
        moved = previous is not None and moved_only(previous, scenario)
        if moved and previous is not None and self._move_only(previous, scenario):
            return
        # a file opened in the background comes with its model and places (workers.OpenJob)
        prepared, self.document.prepared_canvas = self.document.prepared_canvas, None
        if previous is None and prepared is not None:
            model, positions = prepared
        else:
            # a move or a layout: the items stay, only their places change (edges follow)
            model = (
                self.model
                if moved
                else canvas_model(scenario)
                if previous is None
                else canvas_model_after(self.model, previous, scenario)
            )
            kept = self._moved_positions(previous, scenario) if moved else None
            positions = self._place(model, scenario) if kept is None else kept
        self.positions = positions
        selected = set(self.selected_ids())
        self._syncing = True
        try:
            self._sync_nodes(model, positions)
            if not moved and model.edges is not self.model.edges:  # (the same: kept whole)
                self._sync_edges(model)
            for node_id in selected & set(self.nodes):
                self.nodes[node_id].setSelected(True)
        finally:
            self._syncing = False
        self.model = model
        self._fit_scene_rect()
        self.synced.emit()
        self.selectionChangedIds.emit()

    def _place(self, model: CanvasModel, scenario: Scenario) -> dict[str, tuple[float, float]]:
        """:func:`place`, again only when what it reads changed: the graph, the nodes'
        sizes or the saved places (an edit of a DAG's schedule changes none of them, and
        laying out the unplaced nodes of a big graph takes a tenth of a second)."""
        key = (
            tuple((n, node_size(v)) for n, v in model.nodes.items()),
            tuple(model.graph.nodes(data=True)),
            tuple(model.graph.edges(data=True)),
            tuple(scenario.layout.items()),
        )
        if self._placed is None or self._placed[0] != key:
            self._placed = (key, place(model, scenario.layout))
        return dict(self._placed[1])

    def _move_only(self, previous: Scenario, scenario: Scenario) -> bool:
        """A drag, a nudge, their undo: only the nodes whose saved place changed move
        (their edges follow them), nothing is rebuilt, and the scene only grows to hold
        them. False when a saved place was dropped (that node is placed afresh)."""
        old, new = previous.layout, scenario.layout
        if any(n in old and n not in new for n in self.nodes):
            return False
        changed = [n for n in self.nodes if n in new and old.get(n) != new[n]]
        bounds = self.sceneRect()
        m = _SCENE_MARGIN
        for node_id in changed:
            x, y = float(new[node_id][0]), float(new[node_id][1])
            self.positions[node_id] = (x, y)
            dx, dy = self.view_offsets.get(node_id, (0.0, 0.0))
            item = self.nodes[node_id]
            if item.pos() != QPointF(x + dx, y + dy):
                item.setPos(x + dx, y + dy)
            bounds = bounds.united(item.sceneBoundingRect().adjusted(-m, -m, m, m))
        if bounds != self.sceneRect():
            self.setSceneRect(bounds)
        # (the items' bounds followed each move: node_moving, node_moved)
        self.synced.emit()
        return True

    def _moved_positions(
        self, previous: Scenario | None, scenario: Scenario
    ) -> dict[str, tuple[float, float]] | None:
        """Saved places, else where the items are; None when a saved place was dropped (an
        undo of a node's first move): that node is placed afresh."""
        layout = scenario.layout
        dropped = previous is not None and any(
            n in previous.layout and n not in layout for n in self.nodes
        )
        if dropped:
            return None
        return {
            n: (float(layout[n][0]), float(layout[n][1]))
            if n in layout
            else self.file_position(n, item.pos())  # where it is, the filter's offset undone
            for n, item in self.nodes.items()
        }

    def _sync_nodes(self, model: CanvasModel, positions: dict[str, tuple[float, float]]) -> None:
        for node_id in [n for n in self.nodes if n not in model.nodes]:
            self._remove_node(node_id)
        for node_id, view in model.nodes.items():
            item = self.nodes.get(node_id)
            if item is not None and _family(item.view.kind) != _family(view.kind):
                self._remove_node(node_id)
                item = None
            if item is None:
                item = make_node_item(view, self.colors)
                self.addItem(item)
                self.nodes[node_id] = item
            else:
                item.set_view(view)
            x, y = positions.get(node_id, (0.0, 0.0))
            dx, dy = self.view_offsets.get(node_id, (0.0, 0.0))
            if item.pos() != QPointF(x + dx, y + dy):
                item.setPos(x + dx, y + dy)

    def _sync_edges(self, model: CanvasModel) -> None:
        wanted = {
            e.key: e for e in model.edges if e.source in self.nodes and e.target in self.nodes
        }
        for key, item in list(self.edges.items()):
            view = wanted.get(key)
            stale = (
                view is None
                or item.source is not self.nodes[view.source]
                or item.target is not self.nodes[view.target]
            )
            if stale:
                item.detach()
                self.removeItem(item)
                del self.edges[key]
            elif view is not None and view != item.view:
                item.view = view
                item.adjust()
        for key, view in wanted.items():  # (an edge kept follows its nodes: itemChange and
            if key not in self.edges:  # set_view adjust it when they move or change size)
                edge = EdgeItem(view, self.nodes[view.source], self.nodes[view.target], self.colors)
                self.addItem(edge)
                self.edges[key] = edge

    def _remove_node(self, node_id: str) -> None:
        item = self.nodes.pop(node_id)
        for edge in list(item.edges):
            edge.detach()
            self.edges.pop(edge.view.key, None)
            if edge.scene() is self:
                self.removeItem(edge)
        self.removeItem(item)

    def _forget_bounds(self, *_: object) -> None:
        self._bounds = None
        self._extents = None

    def node_resized(self, item: NodeItem) -> None:
        """``item``'s box changed (a badge, a new view): the bounds are measured again,
        and only this item's kept rectangle."""
        self._bounds = None
        if self._extents is not None:
            self._extents.touch(item, *item.edges)  # (its edges follow its ports)

    def node_moving(self, item: NodeItem) -> None:
        """Before ``item`` moves: the bounds stay right (and only grow with its new place,
        :meth:`node_moved`) unless it or one of its edges lies on their border; then the
        items' kept rectangles answer (made once, the first time a border node moves)."""
        b = self._bounds
        if b is None:
            return
        if self.filtered:
            self._bounds = None
            return
        for r in _rects_of(item):
            inside = (
                r.left() > b.left()
                and r.top() > b.top()
                and r.right() < b.right()
                and r.bottom() < b.bottom()
            )
            if not inside:
                self._bounds = None
                if self._extents is None:
                    self._extents = ItemExtents(self.items())
                return

    def node_moved(self, item: NodeItem) -> None:
        if self._extents is not None:
            self._extents.touch(item, *item.edges)
        b = self._bounds
        if b is None:
            return
        for r in _rects_of(item):
            b = b.united(r)
        self._bounds = b

    def addItem(self, item: QGraphicsItem) -> None:
        self._forget_bounds()
        super().addItem(item)

    def removeItem(self, item: QGraphicsItem) -> None:
        self._forget_bounds()
        super().removeItem(item)

    def _fit_scene_rect(self) -> None:
        self._forget_bounds()
        bounds = self.itemsBoundingRect()
        if bounds.isNull():
            bounds = QRectF(-400, -300, 800, 600)
        m = _SCENE_MARGIN
        self.setSceneRect(bounds.adjusted(-m, -m, m, m))

    # ----------------------------------------------------------------- filter (explorer.ui.focus)
    def set_filtered(self, on: bool) -> None:
        """Some nodes are hidden by the canvas filter: bounds, fit and minimap see the rest."""
        self.filtered = on
        self._extents = None
        self._fit_scene_rect()

    def arrange(self, shown_at: dict[str, tuple[float, float]]) -> None:
        """Show these nodes at these positions (the others where the file has them); a view
        arrangement, never an edit. ``{}`` puts every node back."""
        self.view_offsets = {
            node: (x - self.positions[node][0], y - self.positions[node][1])
            for node, (x, y) in shown_at.items()
            if node in self.positions
        }
        for node_id, item in self.nodes.items():
            x, y = self.positions.get(node_id, (0.0, 0.0))
            dx, dy = self.view_offsets.get(node_id, (0.0, 0.0))
            if item.pos() != QPointF(x + dx, y + dy):
                item.setPos(x + dx, y + dy)
        self._fit_scene_rect()

    def file_position(self, node_id: str, shown: QPointF) -> tuple[float, float]:
        """Where a node shown at ``shown`` is in the file (:meth:`arrange`'s offset undone)."""
        dx, dy = self.view_offsets.get(node_id, (0.0, 0.0))
        return (shown.x() - dx, shown.y() - dy)

    def itemsBoundingRect(self) -> QRectF:
        """The items shown (all of them unless the canvas filter hides some); measured
        again after the scene changed (a sync, a move, a drag step: Qt's ``changed``)."""
        if self._bounds is not None:
            return QRectF(self._bounds)
        self._bounds = self._measure_bounds()
        return QRectF(self._bounds)

    def _measure_bounds(self) -> QRectF:
        if not self.filtered:
            if self._extents is not None:
                return self._extents.bounds()
            return super().itemsBoundingRect()
        rect = QRectF()
        for item in self.nodes.values():
            if item.isVisible():
                rect = rect.united(item.sceneBoundingRect())
        return rect

    def set_palette(self, palette: QPalette) -> None:
        self.colors = canvas_colors(palette)
        for item in self.nodes.values():
            item.set_colors(self.colors)
        for edge in self.edges.values():
            edge.set_colors(self.colors)
        # the views cache their background (CanvasView): the grid's colour changed too
        self.invalidate(self.sceneRect(), QGraphicsScene.SceneLayer.BackgroundLayer)
        self.update()

    # ----------------------------------------------------------------- queries
    def node_item(self, node_id: str) -> NodeItem | None:
        return self.nodes.get(node_id)

    def node_at(self, pos: QPointF, exclude: QGraphicsItem | None = None) -> NodeItem | None:
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape):
            if isinstance(item, NodeItem) and item is not exclude:
                return item
        return None

    def node_near(
        self, pos: QPointF, reach: float = 40.0, exclude: QGraphicsItem | None = None
    ) -> NodeItem | None:
        """The node under ``pos``, else the nearest whose box is within ``reach`` of it."""
        hit = self.node_at(pos, exclude)
        if hit is not None:
            return hit
        best: tuple[float, NodeItem] | None = None
        for item in self.nodes.values():
            if item is exclude:
                continue
            box = item.sceneBoundingRect()
            dx = max(box.left() - pos.x(), 0.0, pos.x() - box.right())
            dy = max(box.top() - pos.y(), 0.0, pos.y() - box.bottom())
            distance = (dx * dx + dy * dy) ** 0.5
            if distance <= reach and (best is None or distance < best[0]):
                best = (distance, item)
        return None if best is None else best[1]

    def edge_at(self, pos: QPointF) -> EdgeItem | None:
        for item in self.items(pos, Qt.ItemSelectionMode.IntersectsItemShape):
            if isinstance(item, EdgeItem):
                return item
        return None

    def port_at(self, pos: QPointF) -> Port | None:
        area = QRectF(pos.x() - 14, pos.y() - 14, 28, 28)
        for item in self.items(area):
            if isinstance(item, NodeItem):
                port = item.port_at(pos)
                if port is not None:
                    return port
        return None

    def selected_ids(self) -> list[str]:
        return [i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)]

    def selected_edges(self) -> list[EdgeView]:
        return [i.view for i in self.selectedItems() if isinstance(i, EdgeItem)]

    def selected_positions(self) -> dict[str, QPointF]:
        return {i.node_id: i.pos() for i in self.selectedItems() if isinstance(i, NodeItem)}

    def select_nodes(self, node_ids: Iterable[str], *, clear: bool = True) -> None:
        wanted = set(node_ids)
        self.blockSignals(True)
        try:
            if clear:
                self.clearSelection()
            for node_id in wanted:
                item = self.nodes.get(node_id)
                if item is not None:
                    item.setSelected(True)
        finally:
            self.blockSignals(False)
        self.selectionChangedIds.emit()

    def select_in(self, area: QRectF, keep: set[QGraphicsItem]) -> None:
        """Rubber band: select the nodes touching ``area`` (plus ``keep``)."""
        inside = {
            i
            for i in self.items(area, Qt.ItemSelectionMode.IntersectsItemShape)
            if isinstance(i, NodeItem | EdgeItem)
        }
        self.blockSignals(True)
        try:
            for item in [*self.nodes.values(), *self.edges.values()]:
                item.setSelected(item in inside or item in keep)
        finally:
            self.blockSignals(False)
        self.selectionChangedIds.emit()

    def _on_selection_changed(self) -> None:
        if not self._syncing:
            self.selectionChangedIds.emit()

    # ----------------------------------------------------------------- commands
    def _push(
        self, make: Callable[[], Scenario], text: str, merge_key: Hashable | None = None
    ) -> bool:
        """Run a pure edit and push its result; an EditError becomes a hint."""
        try:
            after = make()
        except edits.EditError as exc:
            self.hint.emit(str(exc))
            return False
        return edit(self.document, after, text, merge_key=merge_key)

    def connect_nodes(self, source: str, target: str, *, task_id: str | None = None) -> bool:
        s = self.document.scenario
        src, dst = self._title(source), self._title(target)
        what = f"{task_id} → {dst}" if task_id else f"{src} → {dst}"
        return self._push(
            lambda: edits.connect(s, source, target, task_id=task_id), f"Connect {what}"
        )

    def connect_to_new(self, port: Port, pos: QPointF) -> bool:
        """A link dropped on empty canvas: a new asset (from an outlet) or DAG (from an asset)."""
        s = self.document.scenario
        kind = edits.parse_node(port.node_id).kind
        xy = (pos.x(), pos.y())
        if port.side == "out" and kind == "dag":

            def make() -> Scenario:
                with_asset, node = edits.add_asset(s, xy)
                return edits.connect(with_asset, port.node_id, node, task_id=port.task_id)

            return self._push(make, "New asset from outlet")
        if port.side == "out" and kind in ("asset", "alias", "ref"):

            def make_consumer() -> Scenario:
                with_dag, node = edits.add_dag(s, xy)
                return edits.connect(with_dag, port.node_id, node)

            return self._push(make_consumer, "New consumer DAG")
        self.hint.emit(
            "drop the link on a node: an asset into a DAG or a gate, a task's outlet into an asset"
        )
        return False

    def commit_moves(self, moved: dict[str, QPointF]) -> bool:
        positions = {node: self.file_position(node, p) for node, p in moved.items()}
        s = self.document.scenario
        text = (
            f"Move {self._title(next(iter(moved)))}"
            if len(moved) == 1
            else f"Move {len(moved)} nodes"
        )
        return self._push(lambda: edits.move_nodes(s, positions), text)

    def nudge(self, dx: float, dy: float) -> bool:
        """Arrow keys: move the selection; repeated presses merge into one command."""
        selected = self.selected_positions()
        if not selected:
            return False
        positions = {
            n: self.file_position(n, QPointF(p.x() + dx, p.y() + dy)) for n, p in selected.items()
        }
        s = self.document.scenario
        key = ("nudge", frozenset(selected))
        return self._push(lambda: edits.move_nodes(s, positions), "Nudge", merge_key=key)

    def delete_selection(self) -> bool:
        nodes, edges = self.selected_ids(), self.selected_edges()
        if not nodes and not edges:
            return False
        s = self.document.scenario
        count = len(nodes) + len(edges)
        if count == 1:
            text = f"Delete {self._title(nodes[0])}" if nodes else "Delete connection"
        else:
            text = f"Delete {count} items"
        return self._push(lambda: edits.remove(s, nodes, [e.ref() for e in edges]), text)

    def _title(self, node_id: str) -> str:
        item = self.nodes.get(node_id)
        return item.view.title if item is not None else edits.parse_node(node_id).name

    # ----------------------------------------------------------------- interactions
    def set_interaction(self, interaction: Interaction | None) -> None:
        self._interaction = interaction

    @property
    def interaction(self) -> Interaction | None:
        return self._interaction

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._interaction is not None and self._interaction.mouse_press(event):
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            pos = event.scenePos()
            port = self.port_at(pos)
            if port is not None:
                self.set_interaction(NewLink(self, port, pos))
                event.accept()
                return
            if self.itemAt(pos, QTransform()) is None:
                self.set_interaction(RubberBand(self, event))
                event.accept()
                return
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and self.selected_ids():
            self.set_interaction(MoveSelection(self))

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._interaction is not None and self._interaction.mouse_move(event):
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._interaction is not None and self._interaction.mouse_release(event):
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def cancel_interaction(self) -> bool:
        if self._interaction is None:
            return False
        self._interaction.cancel()
        return True


def _family(kind: str) -> str:
    """Kinds drawn by the same item class share an item across edits."""
    return {"alias": "asset", "ref": "asset"}.get(kind, kind)


def _rects_of(item: NodeItem) -> list[QRectF]:
    """A node's box and its edges' in the scene (what its move changes in the bounds)."""
    return [item.sceneBoundingRect(), *(e.sceneBoundingRect() for e in item.edges)]
