"""The canvas with real mouse and keys: select, move, connect, refuse, delete, copy, zoom, find."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from explorer.ui.canvas.items import Port
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES, click, drag

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _open(window: MainWindow, path=ORDERS):  # type: ignore[no-untyped-def]
    assert window.open_file(path)
    assert window.workspace is not None
    return window.workspace


def test_every_node_and_edge_is_drawn_with_a_tooltip(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    assert set(ws.scene.nodes) == {
        "dag:ingest_orders",
        "dag:ingest_customers",
        "dag:orders_mart",
        "asset:orders",
        "asset:customers",
        "gate:orders_mart:0",
    }
    assert len(ws.scene.edges) == 5
    for item in [*ws.scene.nodes.values(), *ws.scene.edges.values()]:
        assert item.toolTip(), item
    dag = ws.scene.nodes["dag:ingest_orders"]
    assert dag.view.chip == "At 00:00 (America/New_York)"
    assert [t.task_id for t in dag.view.tasks] == ["write_orders"]
    assert ws.scene.nodes["asset:orders"].view.subtitle == "s3://warehouse/orders"


def test_drag_is_one_move_command_on_release(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    item = ws.scene.nodes["asset:orders"]
    start = item.pos()
    grab = item.mapToScene(QPointF(0, item.body().top() + 10))
    drag(window, grab, grab + QPointF(80, 60), steps=10)
    stack = ws.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == "Move orders"
    x, y = ws.document.scenario.layout["asset:orders"]
    assert abs(x - (start.x() + 80)) <= 2 and abs(y - (start.y() + 60)) <= 2  # pixel rounding
    stack.undo()
    assert ws.scene.nodes["asset:orders"].pos() == start


def test_rubber_band_selects_and_delete_removes_as_one_step(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    a, b = ws.scene.nodes["asset:orders"], ws.scene.nodes["asset:customers"]
    top_left = QPointF(min(a.pos().x(), b.pos().x()) - 130, a.pos().y() - 50)
    bottom_right = QPointF(max(a.pos().x(), b.pos().x()) + 130, b.pos().y() + 50)
    drag(window, top_left, bottom_right)
    assert set(ws.scene.selected_ids()) == {"asset:orders", "asset:customers"}
    QTest.keyClick(ws.view, Qt.Key.Key_Delete)
    s = ws.document.scenario
    assert s.assets == ()
    assert ws.document.undo_stack.count() == 1
    assert "asset:orders" not in ws.scene.nodes
    ws.document.undo_stack.undo()
    assert {a.name for a in ws.document.scenario.assets} == {"orders", "customers"}


def test_invalid_connection_is_refused_with_a_hint(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    orders = ws.scene.nodes["asset:orders"]
    customers = ws.scene.nodes["asset:customers"]
    with qtbot.waitSignal(ws.scene.hint) as hint:
        drag(window, orders.scene_port_pos(Port(orders.node_id, "out")), customers.pos())
    assert "assets do not feed assets" in hint.args[0]
    assert ws.document.undo_stack.count() == 0
    assert "assets do not feed assets" in window.statusBar().currentMessage()


def test_outlet_dropped_on_empty_canvas_makes_an_asset(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    dag = ws.scene.nodes["dag:orders_mart"]
    start = dag.scene_port_pos(Port(dag.node_id, "out", "build_mart"))
    drag(window, start, start + QPointF(250, 150))
    mart = next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart")
    assert mart.tasks[0].outlets == ({"asset": "asset_1"},)
    assert ws.document.undo_stack.count() == 1


def test_nudges_with_arrows_merge(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    click(window, ws.scene.nodes["dag:orders_mart"].pos())
    assert ws.scene.selected_ids() == ["dag:orders_mart"]
    before = ws.scene.nodes["dag:orders_mart"].pos()
    for _ in range(3):
        QTest.keyClick(ws.view, Qt.Key.Key_Right)
    assert ws.document.undo_stack.count() == 1
    assert ws.scene.nodes["dag:orders_mart"].pos() == before + QPointF(30, 0)


def test_copy_paste_and_select_all(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    click(window, ws.scene.nodes["dag:ingest_customers"].pos())
    window.registry.trigger("edit.copy")
    window.registry.trigger("edit.paste")
    assert "dag:ingest_customers_2" in ws.scene.nodes
    assert ws.scene.selected_ids() == ["dag:ingest_customers_2"]
    window.registry.trigger("edit.select_all")
    assert len(ws.scene.selected_ids()) == len(ws.scene.nodes)


def test_zoom_and_fit(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    ws.view.set_zoom(1.0)
    QTest.keyClick(window, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert ws.view.zoom() > 1.0
    window.registry.trigger("view.zoom_out")
    window.registry.trigger("view.zoom_out")
    assert ws.view.zoom() < 1.0
    window.registry.trigger("view.fit")
    visible = ws.view.mapToScene(ws.view.viewport().rect()).boundingRect()
    assert visible.contains(ws.scene.itemsBoundingRect())


def test_minimap_shows_for_large_graphs(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from explorer.graph.generate import synthetic_scenario
    from explorer.scenario import save_scenario

    path = tmp_path / "big.json"
    save_scenario(synthetic_scenario(300), path)
    ws = _open(window, path)
    ws.view.set_zoom(1.0)
    ws.view.centerOn(0, 0)
    assert ws.view.minimap.isVisible()
    window.registry.trigger("view.minimap")  # turned off by the user
    assert not ws.view.minimap.isVisible()
    window.registry.trigger("view.minimap")
    assert ws.view.minimap.isVisible()


def test_quick_add_with_tab_names_the_node(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    ws.view.setFocus()
    QTest.keyClick(ws.view, Qt.Key.Key_Tab)
    popup = ws.popup
    assert popup is not None and popup.isVisible()
    QTest.keyClicks(popup.line, "clicks")
    assert popup.list.currentItem().text() == "New DAG 'clicks'"
    QTest.keyClick(popup.line, Qt.Key.Key_Down)
    QTest.keyClick(popup.line, Qt.Key.Key_Return)
    assert "asset:clicks" in ws.scene.nodes
    assert ws.document.undo_stack.text(0) == "Add Asset clicks"


def test_find_selects_and_centres(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    popup = ws.popup
    assert popup is not None and popup.objectName() == "find"
    QTest.keyClicks(popup.line, "customers")
    QTest.keyClick(popup.line, Qt.Key.Key_Return)
    assert ws.scene.selected_ids() == ["dag:ingest_customers"] or ws.scene.selected_ids() == [
        "asset:customers"
    ]


def test_gate_from_the_palette_wraps_the_selection(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    click(window, ws.scene.nodes["gate:orders_mart:0"].pos())
    QTest.mouseClick(window.node_palette.buttons["or"], Qt.MouseButton.LeftButton)
    mart = next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart")
    assert mart.schedule == {"any": [{"all": [{"asset": "orders"}, {"asset": "customers"}]}]}
    assert ws.scene.nodes["gate:orders_mart:0"].view.title == "OR"
    assert ws.scene.nodes["gate:orders_mart:0.0"].view.title == "AND"


def test_gate_without_a_selection_explains_itself(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    with qtbot.waitSignal(ws.scene.hint) as hint:
        window.registry.trigger("insert.and")
    assert "select what the new AND gate groups" in hint.args[0]


@pytest.mark.qt_log_ignore("does not support raise", "grabbing the keyboard", "grabbing the mouse")
def test_right_click_selects_and_offers_the_registry_actions(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    item = ws.scene.nodes["asset:customers"]
    point = ws.view.mapFromScene(item.pos())
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, point, ws.view.viewport().mapToGlobal(point)
    )
    menus: list = []
    ws.view.contextMenuRequested.connect(
        lambda where, on: menus.append(window._context_menu(where, on))
    )
    QApplication.sendEvent(ws.view.viewport(), event)
    assert ws.scene.selected_ids() == ["asset:customers"]
    (menu,) = menus
    assert window.registry.action("edit.delete") in menu.actions()
    menu.close()


def test_keyboard_reaches_canvas_and_inspector(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    ws.scene.select_nodes(["dag:orders_mart"])
    QTest.keyClick(window, Qt.Key.Key_F7)
    assert ws.inspector.isAncestorOf(QApplication.focusWidget())
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6)
    assert QApplication.focusWidget() is ws.view


def test_force_layout_leaves_no_overlapping_nodes(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    with qtbot.waitSignal(ws.editor.layoutEnded, timeout=60_000):
        window.registry.trigger("layout.kamada_kawai")
    boxes = [i.mapRectToScene(i.body()) for i in ws.scene.nodes.values()]
    for n, a in enumerate(boxes):
        for b in boxes[n + 1 :]:
            assert not a.intersects(b)


def test_a_new_node_lands_in_free_space_not_on_top_of_another(window) -> None:  # type: ignore[no-untyped-def]
    window.registry.trigger("file.new")  # a scenario composed by hand: positions as placed
    ws = window.workspace
    first = ws.add_at("dag", QPointF(0, 0))
    target = ws.scene.nodes[first]
    for kind in ("dag", "asset", "dag"):
        node = ws.add_at(kind, target.scenePos())  # asked for right on top of the first DAG
        assert node is not None
        new = ws.scene.nodes[node].sceneBoundingRect()
        for other_id, other in ws.scene.nodes.items():
            if other_id != node:
                assert not new.intersects(other.sceneBoundingRect()), (node, other_id)
        # near where it was asked for: within two node widths
        assert (ws.scene.nodes[node].scenePos() - target.scenePos()).manhattanLength() < 700


def test_a_connection_dropped_just_off_a_node_snaps_to_it(window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    dag = ws.scene.nodes["dag:ingest_customers"]
    orders = ws.scene.nodes["asset:orders"]
    start = dag.scene_port_pos(Port(dag.node_id, "out", "write_customers"))
    body = orders.sceneBoundingRect()
    near = QPointF(body.left() - 14, body.center().y())  # a near miss, left of the asset
    assert ws.scene.node_at(near) is None
    assets_before = len(ws.document.scenario.assets)
    drag(window, start, near)
    task = next(d for d in ws.document.scenario.dags if d.dag_id == "ingest_customers").tasks[0]
    assert {"asset": "orders"} in task.outlets  # connected to the asset it was dropped by
    assert len(ws.document.scenario.assets) == assets_before  # no new asset on top of it
    assert ws.document.undo_stack.count() == 1


def test_the_minimap_keeps_out_of_the_nodes_way(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QRect

    from explorer.graph.generate import synthetic_scenario
    from explorer.scenario import save_scenario

    path = tmp_path / "big.json"
    save_scenario(synthetic_scenario(300), path)
    ws = _open(window, path)
    ws.view.set_zoom(1.0)
    minimap = ws.view.minimap
    viewport = ws.view.viewport()
    corner = QRect(
        viewport.width() - minimap.width() - 12,
        viewport.height() - minimap.height() - 12,
        minimap.width(),
        minimap.height(),
    )
    # centre the view so that a node sits under the bottom-right corner
    node = next(iter(ws.scene.nodes.values()))
    ws.view.centerOn(
        node.sceneBoundingRect().center()
        - (ws.view.mapToScene(corner.center()) - ws.view.mapToScene(viewport.rect().center()))
    )
    QApplication.processEvents()
    assert minimap.isVisible()
    shown = QRect(minimap.pos() - ws.view.viewport().geometry().topLeft(), minimap.size())
    area = ws.view.mapToScene(shown).boundingRect()
    under = [i for i in ws.scene.items(area) if i in set(ws.scene.nodes.values())]
    assert under == []  # it moved to a corner with no node under it
