"""Mouse interactions of the canvas: objects installed on the scene, one at a time.

As in orange-canvas-core's ``document/interactions.py``, a mode (drawing a
new link, a rubber band, moving a selection) is an object the scene hands its
mouse events to while it lasts, not a set of flags in ``mousePressEvent``.
An interaction never edits the model: when it ends it asks the scene to push
one command (a drag is one move command, made on release), or does nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsSceneMouseEvent,
)

from explorer.ui.canvas.items import NodeItem, Port, curve

if TYPE_CHECKING:
    from explorer.ui.canvas.scene import ScenarioScene

__all__ = ["Interaction", "MoveSelection", "NewLink", "RubberBand"]


class Interaction:
    """Receives the scene's mouse events until it calls :meth:`end`."""

    def __init__(self, scene: ScenarioScene) -> None:
        self.scene = scene

    def mouse_press(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def cancel(self) -> None:
        """Stop without any effect (Escape, the scene being rebuilt)."""
        self.end()

    def end(self) -> None:
        self.cleanup()
        self.scene.set_interaction(None)

    def cleanup(self) -> None:
        """Remove whatever the interaction drew."""


class NewLink(Interaction):
    """Drag from a port to another node: an outlet, or a condition input.

    Dragged from an ``out`` port (a task, an asset, an alias) the link ends
    on the node under the cursor; dragged backwards from a DAG's or a gate's
    ``in`` port it starts at the node released on. Released on empty canvas,
    a task's outlet makes a new asset there and an asset's port a new
    consumer DAG (one command each); released within 40 px of a node, it
    snaps to that node (a near miss made a new node on top of it).
    """

    def __init__(self, scene: ScenarioScene, port: Port, at: QPointF) -> None:
        super().__init__(scene)
        self.port = port
        self.origin = scene.node_item(port.node_id)
        self.line = QGraphicsPathItem()
        pen = QPen(scene.colors.selection, 2.0, Qt.PenStyle.DashLine)
        self.line.setPen(pen)
        self.line.setZValue(100)
        scene.addItem(self.line)
        self.hovered: NodeItem | None = None
        self._update(at)

    def _anchor(self) -> QPointF:
        assert self.origin is not None
        return self.origin.scene_port_pos(self.port)

    def _update(self, pos: QPointF) -> None:
        anchor = self._anchor()
        path: QPainterPath = curve(anchor, pos) if self.port.side == "out" else curve(pos, anchor)
        self.line.setPath(path)
        self.scene._forget_bounds()  # (the scene's bounds follow nodes, not this line)
        # a near miss counts: the node it would snap to lights up
        target = self.scene.node_near(pos, exclude=self.origin)
        if target is not self.hovered:
            if self.hovered is not None:
                self.hovered.set_highlight(False)
            if target is not None:
                target.set_highlight(True)
            self.hovered = target

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        self._update(event.scenePos())
        return True

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return True
        pos = event.scenePos()
        # released a little off a node: it is meant for that node, not for a new one on top
        target = self.scene.node_near(pos, exclude=self.origin)
        self.end()
        if target is None:
            self.scene.connect_to_new(self.port, pos)
        elif self.port.side == "out":
            self.scene.connect_nodes(self.port.node_id, target.node_id, task_id=self.port.task_id)
        else:
            self.scene.connect_nodes(target.node_id, self.port.node_id)
        return True

    def cleanup(self) -> None:
        if self.hovered is not None:
            self.hovered.set_highlight(False)
        if self.line.scene() is not None:
            self.scene.removeItem(self.line)


class RubberBand(Interaction):
    """Press on empty canvas and drag: select what the rectangle touches."""

    def __init__(self, scene: ScenarioScene, event: QGraphicsSceneMouseEvent) -> None:
        super().__init__(scene)
        self.origin = event.scenePos()
        self.additive = bool(
            event.modifiers()
            & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier)
        )
        self.before = set(scene.selectedItems()) if self.additive else set()
        if not self.additive:
            scene.clearSelection()
        self.rect = QGraphicsRectItem()
        color = scene.colors.selection
        self.rect.setPen(QPen(color, 1.0, Qt.PenStyle.DashLine))
        fill = color.lighter(150)
        fill.setAlpha(40)
        self.rect.setBrush(fill)
        self.rect.setZValue(100)
        self.rect.setVisible(False)
        scene.addItem(self.rect)

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        area = QRectF(self.origin, event.scenePos()).normalized()
        self.rect.setRect(area)
        self.scene._forget_bounds()
        self.rect.setVisible(True)
        self.scene.select_in(area, keep=self.before)
        return True

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        self.end()
        return True

    def cleanup(self) -> None:
        if self.rect.scene() is not None:
            self.scene.removeItem(self.rect)


class MoveSelection(Interaction):
    """Qt moves the selected items while dragging; on release, one move command."""

    def __init__(self, scene: ScenarioScene) -> None:
        super().__init__(scene)
        self.start = scene.selected_positions()

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False  # Qt's own item dragging moves the items

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        self.end()
        moved = {
            node: pos
            for node, pos in self.scene.selected_positions().items()
            if node in self.start and (pos - self.start[node]).manhattanLength() > 0.5
        }
        if moved:
            self.scene.commit_moves(moved)
        return False  # let Qt finish its own release handling
