"""Layouts from networkx: one undoable command each; force-directed ones in a worker."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QTimer

from explorer.graph.generate import synthetic_scenario
from explorer.scenario import load_scenario, save_scenario
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _open(window: MainWindow, path=ORDERS):  # type: ignore[no-untyped-def]
    assert window.open_file(path)
    assert window.workspace is not None
    return window.workspace


def test_layered_layout_is_one_command_and_persists(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    window.registry.trigger("layout.layered")
    stack = ws.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == "Layered layout"
    layout = ws.document.scenario.layout
    assert set(layout) == set(ws.scene.nodes)
    assert layout["dag:ingest_orders"][0] < layout["asset:orders"][0] < layout["dag:orders_mart"][0]
    target = tmp_path / "laid_out.json"
    assert window.files.save_to(target)
    assert load_scenario(target).layout == layout
    stack.undo()
    assert ws.document.scenario.layout == {}


def test_spring_layout_runs_in_a_worker_with_progress(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "big.json"
    save_scenario(synthetic_scenario(200), path)
    ws = _open(window, path)
    progress: list[float] = []
    ticks: list[int] = []
    ws.editor.layoutProgress.connect(progress.append)
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: ticks.append(1))
    heartbeat.start(5)
    with qtbot.waitSignal(ws.editor.layoutEnded, timeout=60_000) as ended:
        window.registry.trigger("layout.spring")
        assert window.progress.isVisible() and window.cancel_button.isVisible()
    heartbeat.stop()
    assert ended.args == ["Spring layout applied"]
    assert progress and progress[-1] == 1.0 and progress == sorted(progress)
    assert ticks  # the event loop kept running while the layout computed
    assert ws.document.undo_stack.text(ws.document.undo_stack.count() - 1) == "Spring layout"
    assert not window.progress.isVisible()
    # the view re-fits: every node of the new layout is in view
    shown = ws.view.mapToScene(ws.view.viewport().rect()).boundingRect()
    nodes = ws.scene.itemsBoundingRect()
    assert shown.adjusted(-2, -2, 2, 2).contains(nodes)


def test_a_running_layout_can_be_cancelled(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "big.json"
    save_scenario(synthetic_scenario(300), path)
    ws = _open(window, path)
    before = ws.document.scenario
    with qtbot.waitSignal(ws.editor.layoutEnded, timeout=60_000) as ended:
        window.registry.trigger("layout.spring")
        window.cancel_button.click()
    assert ended.args == ["Spring layout cancelled"]
    assert ws.document.scenario is before
    assert ws.document.undo_stack.count() == 0


def test_kamada_kawai_ends_with_a_result_or_a_message(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    ws = _open(window)
    with qtbot.waitSignal(ws.editor.layoutEnded, timeout=60_000) as ended:
        window.registry.trigger("layout.kamada_kawai")
    message = ended.args[0]
    assert message == "Kamada-Kawai layout applied" or message.startswith(
        "Kamada-Kawai layout failed"
    )


def test_layered_layout_of_a_large_graph_overlaps_no_nodes(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from benchmarks.bench_gui import scenario_of

    path = tmp_path / "big.json"
    save_scenario(scenario_of(500), path)
    ws = _open(window, path)
    assert len(ws.scene.nodes) >= 500
    window.registry.trigger("layout.layered")
    boxes = sorted(
        (item.mapRectToScene(item.body()) for item in ws.scene.nodes.values()),
        key=lambda r: (r.left(), r.top()),
    )
    for a, b in pairwise(boxes):
        if abs(a.left() - b.left()) < 1:  # same layer
            assert not a.intersects(b), (a, b)
