"""Dragging a node on the graph's border measures only what moved (issue 13: move <= 16 ms).

A node on the border may shrink the graph's bounds when it moves, so the kept
bounds cannot just grow. Before, every such drag asked all of the scene's items
for their rectangle again (Qt's ``itemsBoundingRect``). The scene now keeps every
item's rectangle (:mod:`explorer.ui.canvas.extents`) and reads again only the
moved node, its edges and their children. Work is counted, never timed, and the
bounds must stay the ones Qt measures.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QGraphicsScene

from explorer.graph.generate import synthetic_scenario
from explorer.scenario import save_scenario
from explorer.ui.canvas import extents
from explorer.ui.canvas.items import NodeItem
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import drag


def _open(window: MainWindow, tmp_path):  # type: ignore[no-untyped-def]
    """A 120-node platform: enough items that "only what moved" means something."""
    path = tmp_path / "platform.json"
    save_scenario(synthetic_scenario(120), path)
    assert window.open_file(path)
    assert window.workspace is not None
    ws = window.workspace
    ws.view.viewport().repaint()
    QApplication.processEvents()
    return ws


def _grab(item: NodeItem) -> QPointF:
    return item.mapToScene(QPointF(0, item.body().top() + 10))


def _qt_bounds(scene: ScenarioScene):  # type: ignore[no-untyped-def]
    return QGraphicsScene.itemsBoundingRect(scene)


def _count_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    reads = [0]
    original = extents._row

    def counted(item):  # type: ignore[no-untyped-def]
        reads[0] += 1
        return original(item)

    monkeypatch.setattr(extents, "_row", counted)
    return reads


def _rightmost(scene: ScenarioScene) -> NodeItem:
    return max(scene.nodes.values(), key=lambda n: n.sceneBoundingRect().right())


def test_dragging_a_border_node_again_reads_only_what_moved(window, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window, tmp_path)
    scene = ws.scene
    reads = _count_rows(monkeypatch)
    everything = len(scene.items())
    item = _rightmost(scene)
    scene.itemsBoundingRect()  # kept, as the minimap keeps asking
    for i, dx in enumerate((-120.0, 160.0, -90.0)):
        before = reads[0]
        drag(window, _grab(item), _grab(item) + QPointF(dx, 0))
        QApplication.processEvents()
        ws.view.viewport().repaint()
        assert scene.itemsBoundingRect() == _qt_bounds(scene)
        if i > 0:  # the first border move reads every item once
            assert 0 < reads[0] - before < everything // 5
    assert ws.document.undo_stack.count() == 3


def test_the_bounds_grow_and_shrink_with_a_border_node(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window, tmp_path)
    scene = ws.scene
    item = _rightmost(scene)
    first = scene.itemsBoundingRect()
    item.setPos(item.pos() + QPointF(500, 40))  # out alone: the bounds grow
    grown = scene.itemsBoundingRect()
    assert grown == _qt_bounds(scene) and grown.right() > first.right()
    item.setPos(item.pos() + QPointF(-500, -40))  # back: they shrink to what they were
    shrunk = scene.itemsBoundingRect()
    assert shrunk == _qt_bounds(scene) == first


def test_a_badge_is_read_again_alone_and_the_bounds_hold_it(window, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window, tmp_path)
    scene = ws.scene
    item = _rightmost(scene)
    scene.itemsBoundingRect()
    item.setPos(item.pos() + QPointF(-10, 0))  # a border node moved: the rectangles are kept
    scene.itemsBoundingRect()
    reads = _count_rows(monkeypatch)
    item.set_live(("running: " + "a very long badge text " * 6, "running", "detail"))
    bounds = scene.itemsBoundingRect()
    assert bounds == _qt_bounds(scene)
    assert bounds.contains(item.sceneBoundingRect())
    assert 0 < reads[0] < len(scene.items()) // 5


def test_an_added_or_removed_item_drops_the_kept_rectangles(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window, tmp_path)
    scene = ws.scene
    item = _rightmost(scene)
    scene.itemsBoundingRect()
    item.setPos(item.pos() + QPointF(-10, 0))
    scene.itemsBoundingRect()
    extra = QGraphicsRectItem(0, 0, 50, 50)
    extra.setPos(9000, 9000)
    scene.addItem(extra)
    assert scene.itemsBoundingRect() == _qt_bounds(scene)
    assert scene.itemsBoundingRect().contains(extra.sceneBoundingRect())
    scene.removeItem(extra)
    assert scene.itemsBoundingRect() == _qt_bounds(scene)
