"""The canvas follows the clock: live badges on DAG nodes, timeline lanes in canvas order."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QPointF

from explorer.ui.main_window import MainWindow
from explorer.ui.simulation_panes import SimulationPanes
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=UTC)


def _open(window: MainWindow) -> SimulationPanes:
    assert window.open_file(ORDERS)
    assert window.workspace is not None and window.workspace.simulation is not None
    return window.workspace.simulation


def _live(panes: SimulationPanes, dag_id: str) -> tuple[str, str, str]:
    item = panes.scene.nodes[f"dag:{dag_id}"]
    assert item.live is not None
    return item.live


def test_dag_nodes_show_the_state_at_the_clock(window: MainWindow) -> None:
    panes = _open(window)
    session = panes.session

    session.run_to(utc(2024, 3, 9, 0, 5, 30))  # customers written, orders not yet
    label, tone, _ = _live(panes, "orders_mart")
    assert "1 of 2 assets updated" in label and tone == "waiting"
    tip = panes.scene.nodes["dag:orders_mart"].toolTip()
    assert "At the clock:" in tip and "1 of 2 assets updated" in tip

    session.run_to(utc(2024, 3, 9, 5, 10))  # ingest_orders' 03-08 interval is running
    label, tone, _ = _live(panes, "ingest_orders")
    assert label.startswith("running") and tone == "running"

    session.run_to(utc(2024, 3, 11, 6, 0))  # the overridden write_orders failed at 04:20
    label, tone, _ = _live(panes, "ingest_orders")
    assert label.startswith("failed") and tone == "failed"
    assert "failed" in panes.scene.nodes["dag:ingest_orders"].toolTip()
    mart_label, _, _ = _live(panes, "orders_mart")
    assert "of 2 assets updated" in mart_label

    session.reset()  # stepping back brings the old badges back
    assert not _live(panes, "ingest_orders")[0].startswith("failed")


def test_timeline_lanes_follow_the_canvas_order(window: MainWindow) -> None:
    panes = _open(window)
    timeline = panes.bench.timeline

    def lane_keys() -> list[str]:
        return [lane.key for lane in timeline.lanes]

    opened = panes.canvas_order()
    assert lane_keys() == opened  # on open

    window.workspace.editor.apply_layout("layered", background=False)  # type: ignore[union-attr]
    laid_out = panes.canvas_order()
    assert lane_keys() == laid_out  # after a layout (every node now has a stored position)

    scene = panes.scene
    top = min(item.y() for item in scene.nodes.values())
    mart = scene.nodes["dag:orders_mart"]
    assert scene.commit_moves({"dag:orders_mart": QPointF(mart.x(), top - 400)})
    assert lane_keys()[0] == "orders_mart"
    assert lane_keys() == panes.canvas_order() != laid_out

    document = window.document()
    assert document is not None
    document.undo_stack.undo()
    assert lane_keys() == panes.canvas_order() == laid_out

    panes.session.run_to(utc(2024, 3, 9, 6, 0))  # the order holds as the clock moves
    assert lane_keys() == laid_out
