"""A node drag does only the work the move needs (budget: move <= 16 ms on 200 DAGs).

Work is counted, never timed: whole-scene bounds walks, node bounds measured
again, grid repaints. The bounds the scene keeps must stay the bounds Qt
would measure, whichever way a node moves.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QGraphicsScene

from explorer.graph.generate import synthetic_scenario
from explorer.scenario import save_scenario
from explorer.ui.canvas import extents
from explorer.ui.canvas.items import NodeItem
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.canvas.view import CanvasView
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES, drag

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _open(window: MainWindow):  # type: ignore[no-untyped-def]
    assert window.open_file(ORDERS)
    assert window.workspace is not None
    ws = window.workspace
    ws.view.viewport().repaint()
    QApplication.processEvents()
    return ws


def _grab(item: NodeItem) -> QPointF:
    return item.mapToScene(QPointF(0, item.body().top() + 10))


def _qt_bounds(scene: ScenarioScene):  # type: ignore[no-untyped-def]
    return QGraphicsScene.itemsBoundingRect(scene)


def _count(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> list[int]:
    calls = [0]
    original = getattr(owner, name)

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_drag_and_its_move_command_never_walk_every_item(window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    bounds = ws.scene.itemsBoundingRect()  # measured once, as the minimap does
    walks = _count(monkeypatch, ScenarioScene, "_measure_bounds")
    # a node inside the graph (one on its border may shrink the bounds: measured again)
    item = ws.scene.nodes["asset:orders"]
    assert bounds.adjusted(1, 1, -1, -1).contains(item.sceneBoundingRect())
    drag(window, _grab(item), _grab(item) + QPointF(30, 20))
    QApplication.processEvents()
    ws.view.viewport().repaint()
    assert ws.document.undo_stack.count() == 1  # the move command ran (and the minimap refresh)
    assert walks[0] == 0
    assert ws.scene.itemsBoundingRect() == _qt_bounds(ws.scene)


@pytest.mark.parametrize("outward", [True, False])
def test_the_kept_bounds_follow_a_node_on_the_border(window, outward) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    scene = ws.scene
    # the node whose box reaches furthest right: moving it grows or shrinks the bounds
    item = max(scene.nodes.values(), key=lambda n: n.sceneBoundingRect().right())
    before = scene.itemsBoundingRect()
    dx = 300.0 if outward else -150.0
    item.setPos(item.pos() + QPointF(dx, 0))
    after = scene.itemsBoundingRect()
    assert after == _qt_bounds(scene)
    assert (after.right() > before.right()) if outward else (after.right() < before.right())


def test_node_bounds_are_measured_once_not_at_every_walk(window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    measured = _count(monkeypatch, NodeItem, "live_rect")
    body = _count(monkeypatch, NodeItem, "body")
    _qt_bounds(ws.scene)  # Qt asks every item's boundingRect
    ws.view.viewport().repaint()
    assert measured[0] == 0 and body[0] == 0
    # a new badge is measured again: the bounds grow to hold it
    item = ws.scene.nodes["dag:ingest_orders"]
    before = item.boundingRect()
    item.set_live(("running: a long badge text to widen it", "running", "detail"))
    live = item.live_rect()
    assert live is not None and item.boundingRect() != before
    assert item.boundingRect().contains(live)


def test_a_drag_does_not_repaint_the_grid_but_a_palette_change_does(window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    grid = _count(monkeypatch, CanvasView, "drawBackground")  # (before the view is made)
    ws = _open(window)
    assert grid[0] >= 1  # the first paint draws the grid
    grid[0] = 0
    item = ws.scene.nodes["asset:orders"]
    drag(window, _grab(item), _grab(item) + QPointF(40, 0))
    QApplication.processEvents()
    ws.view.viewport().repaint()
    assert ws.document.undo_stack.count() == 1
    assert grid[0] == 0
    palette = QPalette(QApplication.palette())
    palette.setColor(QPalette.ColorRole.Base, QColor("#202830"))
    ws.scene.set_palette(palette)
    QApplication.processEvents()
    ws.view.viewport().repaint()
    assert grid[0] >= 1


# ------------------------------------------------------------- a node on the border
# A node on the border may shrink the graph's bounds when it moves, so the kept bounds
# cannot just grow. Before, every such drag asked all of the scene's items for their
# rectangle again; the scene now keeps every item's rectangle
# (:mod:`explorer.ui.canvas.extents`) and reads again only the moved node, its edges
# and their children.


def _open_platform(window: MainWindow, tmp_path):  # type: ignore[no-untyped-def]
    """A 120-node platform: enough items that "only what moved" means something."""
    path = tmp_path / "platform.json"
    save_scenario(synthetic_scenario(120), path)
    assert window.open_file(path)
    assert window.workspace is not None
    ws = window.workspace
    ws.view.viewport().repaint()
    QApplication.processEvents()
    return ws


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
    ws = _open_platform(window, tmp_path)
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
    ws = _open_platform(window, tmp_path)
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
    ws = _open_platform(window, tmp_path)
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
    ws = _open_platform(window, tmp_path)
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
