"""Folder titles over the grids of DAGs without asset links (large, imported projects).

The layered layout (:mod:`explorer.graph.layout`) puts the DAGs that no
asset links in a grid per folder of their source files. Without a title, a
screen of such grids is a wall of look-alike boxes; :class:`FolderLabels`
writes the folder's name and its count above each grid. A title is drawn
only where the folder's DAGs still form a block no other node enters (after
the user has moved things about, a title could otherwise name the wrong
boxes), and only for what is shown (the canvas filter hides the rest).
"""

from __future__ import annotations

from posixpath import dirname

from PySide6.QtCore import QObject, QRectF
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from explorer.ui.canvas.items import NodeItem
from explorer.ui.canvas.scene import ScenarioScene

__all__ = ["FolderLabels"]

#: Above the grid, in scene units; the title's point size in scene units.
_GAP = 10.0
_POINT_SIZE = 18


class FolderLabels(QObject):
    """One title per folder grid of the scene; refreshed after each sync or filter change."""

    def __init__(self, scene: ScenarioScene) -> None:
        super().__init__(scene)
        self.scene = scene
        self.items: dict[str, QGraphicsSimpleTextItem] = {}
        scene.synced.connect(self.refresh)
        self.refresh()

    def groups(self) -> dict[str, list[NodeItem]]:
        """Folder -> the shown DAGs of that folder that no edge touches."""
        graph = self.scene.model.graph
        found: dict[str, list[NodeItem]] = {}
        if graph is None:
            return found
        for node, item in self.scene.nodes.items():
            if not node.startswith("dag:") or not item.isVisible() or node not in graph:
                continue
            data = graph.nodes[node]
            file = data.get("file")
            if isinstance(file, str) and graph.degree(node) == 0:
                found.setdefault(dirname(file.replace("\\", "/")), []).append(item)
        return found

    def refresh(self) -> None:
        wanted: dict[str, tuple[str, QRectF]] = {}
        for folder, members in self.groups().items():
            block = QRectF()
            for item in members:
                block = block.united(item.mapRectToScene(item.body()))
            inside = set(members)
            intruders = [
                i
                for i in self.scene.items(block)
                if isinstance(i, NodeItem) and i.isVisible() and i not in inside
            ]
            if intruders:
                continue
            count = len(members)
            title = f"{folder or '(import root)'}  ·  {count} DAG{'s' if count != 1 else ''}"
            wanted[folder] = (title, block)
        for folder in [f for f in self.items if f not in wanted]:
            self.scene.removeItem(self.items.pop(folder))
        font = QFont()
        font.setPointSize(_POINT_SIZE)
        font.setBold(True)
        colour = QColor(self.scene.colors.muted)
        for folder, (title, block) in wanted.items():
            label = self.items.get(folder)
            if label is None:
                label = QGraphicsSimpleTextItem()
                label.setZValue(0.5)  # under edges and nodes
                label.setToolTip(f"DAGs without asset links whose files are in {folder or '.'}")
                self.scene.addItem(label)
                self.items[folder] = label
            before = (label.text(), label.pos())
            label.setText(title)
            label.setFont(font)
            label.setBrush(colour)
            height = label.boundingRect().height()
            label.setPos(block.left(), block.top() - height - _GAP)
            if (label.text(), label.pos()) != before:
                self.scene._forget_bounds()  # the scene's kept bounds follow nodes only
