"""The canvas filter: by name, a DAG with its upstream and downstream; the timeline follows."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication, QMenu

from explorer.scenario import save_scenario
from explorer.ui.main_window import MainWindow
from explorer.ui.workspace import Workspace
from tests.graph.helpers import dag, declared, scenario, task
from tests.ui.conftest import click, drag


def platform_file(tmp_path: Path) -> Path:
    """ingest -> raw -> clean (AND with ref_data) -> cleaned -> report; audit reads raw."""
    path = tmp_path / "platform.json"
    save_scenario(
        scenario(
            dag("ingest", "@daily", task("load", {"asset": "raw"})),
            dag("reference", "@daily", task("t", {"asset": "ref_data"})),
            dag(
                "clean", [{"asset": "raw"}, {"asset": "ref_data"}], task("t", {"asset": "cleaned"})
            ),
            dag("report", {"asset": "cleaned"}, task("t")),
            dag("audit", {"asset": "raw"}, task("t")),
            dag("side", "@hourly", task("t")),
            assets=declared("raw", "ref_data", "cleaned"),
        ),
        path,
    )
    return path


def open_platform(window: MainWindow, tmp_path: Path) -> Workspace:
    assert window.open_file(platform_file(tmp_path))
    assert window.workspace is not None
    return window.workspace


def shown_dags(ws: Workspace) -> set[str]:
    return {
        n.removeprefix("dag:")
        for n, item in ws.scene.nodes.items()
        if n.startswith("dag:") and item.isVisible()
    }


def lane_keys(ws: Workspace) -> set[str]:
    assert ws.simulation is not None
    return {lane.key for lane in ws.simulation.bench.timeline.lanes}


def test_typing_a_name_filters_the_canvas_and_the_timeline(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = open_platform(window, tmp_path)
    assert len(lane_keys(ws)) == 9  # six DAGs, three assets
    bar = ws.focus_bar
    qtbot.mouseClick(bar.name, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(bar.name, "repo")
    qtbot.waitUntil(lambda: shown_dags(ws) == {"report"}, timeout=3000)
    assert bar.summary.text() == "Showing 1 of 6 DAGs: name contains 'repo'"
    # its input asset stays visible; the producer of that asset does not
    assert ws.scene.nodes["asset:cleaned"].isVisible()
    assert not ws.scene.nodes["dag:clean"].isVisible()
    edge = next(e for e in ws.scene.edges.values() if e.view.target == "asset:cleaned")
    assert not edge.isVisible()  # clean -> cleaned: one end hidden
    assert lane_keys(ws) == {"report", "s3://warehouse/cleaned"}
    # Fit frames what is shown
    shown = ws.scene.nodes["dag:report"].sceneBoundingRect()
    assert ws.scene.itemsBoundingRect().contains(shown)
    hidden = ws.scene.nodes["dag:ingest"].sceneBoundingRect()
    assert not ws.scene.itemsBoundingRect().intersects(hidden)
    qtbot.mouseClick(bar.show_all, Qt.MouseButton.LeftButton)
    assert shown_dags(ws) == {"ingest", "reference", "clean", "report", "audit", "side"}
    assert len(lane_keys(ws)) == 9
    assert bar.name.text() == ""
    assert ws.document.undo_stack.count() == 0  # a view setting, not an edit


def test_a_dag_with_its_upstream_and_downstream(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = open_platform(window, tmp_path)
    clean = ws.scene.nodes["dag:clean"]
    ws.view.center_on_node("dag:clean")
    click(window, clean.pos())
    assert ws.scene.selected_ids() == ["dag:clean"]
    qtbot.mouseClick(ws.focus_bar.lineage, Qt.MouseButton.LeftButton)
    assert shown_dags(ws) == {"ingest", "reference", "clean", "report"}
    assert ws.focus_bar.lineage.isChecked()
    assert lane_keys(ws) == {
        "ingest",
        "reference",
        "clean",
        "report",
        "s3://warehouse/raw",
        "s3://warehouse/ref_data",
        "s3://warehouse/cleaned",
    }
    # unchecking gives everything back
    qtbot.mouseClick(ws.focus_bar.lineage, Qt.MouseButton.LeftButton)
    assert len(shown_dags(ws)) == 6


@pytest.mark.qt_log_ignore("does not support raise", "grabbing the keyboard", "grabbing the mouse")
def test_the_focus_is_on_the_dags_right_click_menu(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = open_platform(window, tmp_path)
    ws.view.center_on_node("dag:report")
    point = ws.view.mapFromScene(ws.scene.nodes["dag:report"].pos())
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, point, ws.view.viewport().mapToGlobal(point)
    )
    menus: list[QMenu] = []
    ws.view.contextMenuRequested.connect(
        lambda where, on: menus.append(window._context_menu(where, on))
    )
    QApplication.sendEvent(ws.view.viewport(), event)
    (menu,) = menus
    action = window.registry.action("view.focus_dag")
    assert action in menu.actions()
    menu.close()
    action.trigger()
    assert shown_dags(ws) == {"ingest", "reference", "clean", "report"}
    window.registry.trigger("view.show_all")
    assert len(shown_dags(ws)) == 6


def test_select_all_and_delete_while_filtered_leave_the_hidden_dags(
    qtbot, window, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    ws = open_platform(window, tmp_path)
    qtbot.keyClicks(ws.focus_bar.name, "side")
    qtbot.keyClick(ws.focus_bar.name, Qt.Key.Key_Return)
    assert shown_dags(ws) == {"side"}
    window.registry.trigger("edit.select_all")
    window.registry.trigger("edit.delete")
    dag_ids = {d.dag_id for d in ws.document.scenario.dags}
    assert dag_ids == {"ingest", "reference", "clean", "report", "audit"}
    # a DAG added while filtered shows (what the user just made never vanishes)
    window.registry.trigger("insert.dag")
    new = [n for n in ws.scene.nodes if n.startswith("dag:") and n[4:] not in dag_ids]
    assert len(new) == 1 and ws.scene.nodes[new[0]].isVisible()
    assert not ws.scene.nodes["dag:ingest"].isVisible()
    # undo brings "side" back, still matching the filter: shown
    ws.document.undo_stack.undo()
    ws.document.undo_stack.undo()
    assert shown_dags(ws) == {"side"}


def test_the_shown_part_is_arranged_apart_and_a_move_there_moves_the_file_by_as_much(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path
) -> None:
    ws = open_platform(window, tmp_path)
    before = dict(ws.scene.positions)
    ws.scene.select_nodes(["dag:report"])
    window.registry.trigger("view.focus_dag")
    shown = {n for n, item in ws.scene.nodes.items() if item.isVisible()}
    # laid out on their own: left to right along the lineage, none on top of another
    at = {n: ws.scene.nodes[n].pos() for n in shown}
    assert at["dag:ingest"].x() < at["asset:raw"].x() < at["dag:clean"].x()
    assert at["dag:clean"].x() < at["asset:cleaned"].x() < at["dag:report"].x()
    rects = [ws.scene.nodes[n].mapRectToScene(ws.scene.nodes[n].body()) for n in shown]
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
    assert ws.document.scenario.layout == {} and ws.document.undo_stack.count() == 0
    # a drag in the arrangement moves the node in the file by the same distance
    item = ws.scene.nodes["dag:report"]
    ws.view.center_on_node("dag:report")
    start = item.pos()
    drag(window, start, start + QPointF(0, 120))
    assert ws.document.undo_stack.count() == 1
    x, y = ws.document.scenario.layout["dag:report"]
    assert (x, y) == pytest.approx((before["dag:report"][0], before["dag:report"][1] + 120))
    assert item.pos().toTuple() == pytest.approx((start + QPointF(0, 120)).toTuple())
    window.registry.trigger("view.show_all")
    assert (item.pos().x(), item.pos().y()) == pytest.approx((x, y))
    assert ws.scene.nodes["dag:ingest"].pos().toTuple() == ws.scene.positions["dag:ingest"]
    assert ws.scene.view_offsets == {}


def table_dags(ws: Workspace) -> set[str]:
    assert ws.simulation is not None
    return {dag_id for dag_id, _ in ws.simulation.bench.table.visible_keys()}


def test_the_runs_table_follows_the_canvas_filter_as_the_timeline_does(
    qtbot, window, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    ws = open_platform(window, tmp_path)
    assert ws.simulation is not None
    session, table = ws.simulation.session, ws.simulation.bench.table
    session.run_to(session.start + timedelta(days=3))
    everyone = table_dags(ws)
    assert {"ingest", "reference", "side"} <= everyone  # runs of several DAGs to hide
    # the lineage of clean: its producers and its consumer
    ws.view.center_on_node("dag:clean")
    click(window, ws.scene.nodes["dag:clean"].pos())
    qtbot.mouseClick(ws.focus_bar.lineage, Qt.MouseButton.LeftButton)
    lineage = {"ingest", "reference", "clean", "report"}
    assert shown_dags(ws) == lineage
    assert table_dags(ws) <= lineage and "ingest" in table_dags(ws)
    assert {lane.key for lane in ws.simulation.bench.timeline.lanes} >= table_dags(ws)
    assert table.count_label.text().split(" of ")[0] == str(len(table.visible_keys()))
    # runs created while filtered are filtered too
    session.run_to(session.start + timedelta(days=4))
    assert table_dags(ws) <= lineage
    # a name filter
    qtbot.mouseClick(ws.focus_bar.lineage, Qt.MouseButton.LeftButton)
    assert table_dags(ws) >= everyone
    qtbot.keyClicks(ws.focus_bar.name, "side")
    qtbot.waitUntil(lambda: shown_dags(ws) == {"side"}, timeout=3000)
    assert table_dags(ws) == {"side"}
    qtbot.mouseClick(ws.focus_bar.show_all, Qt.MouseButton.LeftButton)
    assert table_dags(ws) >= everyone
