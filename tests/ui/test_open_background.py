"""Opening a big file: read, checked and simulated in the background with progress, the
open document usable until the new one is ready."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QTimer
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES, FakePrompts

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"
SPRING = EXAMPLES / "ny_dst_spring_forward.json"


def big_file(tmp_path: Path, count: int = 400) -> Path:
    """``count`` DAGs copied from the spring-forward example (a file of some hundred KB)."""
    document = json.loads(SPRING.read_text(encoding="utf-8"))
    dags = []
    for i in range(count):
        dag = dict(document["dags"][i % len(document["dags"])])
        dag["dag_id"] = f"{dag['dag_id']}_{i:04d}"
        dags.append(dag)
    document["dags"], document["script"] = dags, []
    document["name"] = f"{count} DAGs"
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _smaller_threshold(window: MainWindow) -> None:
    """Files from 50 kB open in the background here (the default, 256 kB, is about
    1,000 DAGs: slow to make and read on a shared test machine)."""
    window.files.background_bytes = 50_000


def test_a_big_file_opens_in_the_background_and_the_old_document_stays_usable(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    big = big_file(tmp_path)
    assert big.stat().st_size >= window.files.background_bytes
    assert window.open_file(ORDERS)
    old = window.document()
    assert old is not None
    assert window.open_file(big)  # started
    # right away: the old document is still open, and the window says what it is doing
    assert window.document() is old
    assert window.files.opening
    assert window.opening.isVisible() and "Opening big.json" in window.opening.label.text()
    with qtbot.waitSignal(window.files.opened, timeout=120_000):
        pass
    # then its canvas is drawn in slices before it replaces the old document
    qtbot.waitUntil(lambda: window.document() is not old, timeout=120_000)
    document = window.document()
    assert document is not None and document is not old
    assert document.path == big.resolve()
    assert len(document.scenario.dags) == 400
    assert not window.opening.isVisible()
    session = window.workspace.simulation.session  # type: ignore[union-attr]
    assert len(session.sim.specs) == 400  # the simulation built in the background


def test_edits_made_while_opening_are_asked_about(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, tmp_path: Path
) -> None:
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    old = window.document()
    assert window.open_file(big)
    assert window.workspace is not None
    window.workspace.add_at("asset", QPointF(0, 600))  # the old document is still editable
    assert old is not None and old.is_modified()
    prompts.save_answers.append("cancel")
    qtbot.waitUntil(lambda: not window.files.opening, timeout=120_000)
    assert prompts.asked == ["save? Orders mart across the New York spring-forward"]
    assert window.document() is old  # kept: the user said cancel


def test_opening_can_be_cancelled(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    old = window.document()
    assert window.open_file(big)
    window.opening.cancel.click()
    assert not window.files.opening and not window.opening.isVisible()
    qtbot.wait(200)
    assert window.document() is old


def test_a_bad_big_file_shows_the_error(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    big = big_file(tmp_path)
    big.write_text(big.read_text().replace('"0 0 * * *"', '"0 0 * * * * * *"', 1))
    assert window.open_file(big)
    qtbot.waitUntil(lambda: not window.files.opening, timeout=120_000)
    assert window.files.prompts.errors[-1][0] == "Cannot open big.json"  # type: ignore[attr-defined]
    assert window.document() is None


def test_the_canvas_of_a_big_file_is_read_and_laid_out_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph model and the layered layout of 400 DAGs (seconds at 2,000) are made by
    the open job; the GUI thread only adds the items."""
    import threading

    from explorer.document import nodes
    from explorer.ui.canvas import scene as scene_module

    calls: list[str] = []

    def spy(real):  # type: ignore[no-untyped-def]
        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(threading.current_thread().name)
            return real(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(nodes, "canvas_model", spy(nodes.canvas_model))
    monkeypatch.setattr(scene_module, "canvas_model", spy(scene_module.canvas_model))
    monkeypatch.setattr(nodes, "place", spy(nodes.place))
    monkeypatch.setattr(scene_module, "place", spy(scene_module.place))
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    calls.clear()
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(len(ticks)))
    timer.start(5)
    old = window.document()
    assert window.open_file(big)
    assert window.document() is old  # the old document stays until the swap
    with qtbot.waitSignal(window.files.opened, timeout=120_000):
        pass
    # then its canvas is drawn in slices before it replaces the old document
    qtbot.waitUntil(lambda: window.document() is not old, timeout=120_000)
    timer.stop()
    assert ticks  # the event loop ran while the file was read and laid out
    main = threading.main_thread().name
    assert calls and main not in calls, calls  # model and places: made by the job
    ws = window.workspace
    assert ws is not None and ws.document is not old
    assert len([n for n in ws.scene.nodes if n.startswith("dag:")]) == 400
    assert ws.document.prepared_canvas is None  # taken by the scene, not kept
    # an edit after that builds the model on the GUI thread as before
    calls.clear()
    ws.add_at("asset", QPointF(0, 0))
    assert calls and set(calls) == {main}


def test_the_canvas_of_a_big_file_is_drawn_in_slices_the_old_document_usable_meanwhile(
    qtbot: QtBot,
    window: MainWindow,
    prompts: FakePrompts,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scene items are made on the GUI thread: a slice at a time, the event loop running
    between slices with the share done in the status bar, the old document on screen and
    editable until the new canvas is complete (otherwise a 2 s freeze at 2,000)."""
    from explorer.ui.sliced import SlicedRun

    monkeypatch.setattr(SlicedRun, "slice_ms", 0.0)  # one item a slice, whatever the machine
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    old = window.document()
    old_scene = window.workspace.scene  # type: ignore[union-attr]
    with qtbot.waitSignal(window.files.opened, timeout=120_000):
        assert window.open_file(big)
    # the file is read: its canvas is being drawn, the old document still the open one
    building = window.building
    assert building is not None
    assert window.document() is old and window.workspace.scene is old_scene  # type: ignore[union-attr]
    assert window.opening.isVisible()
    assert "drawing the canvas" in window.opening.label.text()
    shares: list[int] = []
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.timeout.connect(lambda: shares.append(window.opening.bar.value()))
    timer.start(0)
    qtbot.waitUntil(lambda: len(building.scene.nodes) >= 50, timeout=60_000)
    assert window.document() is old  # half drawn: nothing replaced yet
    window.workspace.add_at("asset", QPointF(0, 600))  # type: ignore[union-attr]
    assert old is not None and old.is_modified()
    prompts.save_answers.append("discard")
    qtbot.waitUntil(lambda: window.building is None, timeout=120_000)
    timer.stop()
    assert len(ticks) > 10  # the event loop ran between the slices
    assert any(0 < s < 100 for s in shares)  # the share done, shown as it grew
    assert building.run.slices > 100
    # edited while drawing: asked again, then replaced
    assert prompts.asked == ["save? Orders mart across the New York spring-forward"]
    document = window.document()
    assert document is not None and document.path == big.resolve()
    ws = window.workspace
    assert ws is not None and ws.scene is building.scene
    assert len([n for n in ws.scene.nodes if n.startswith("dag:")]) == 400
    assert len(ws.scene.edges) == len(ws.scene.model.edges)
    assert not window.opening.isVisible()


def test_cancel_while_the_canvas_is_drawn_keeps_the_old_document(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from explorer.ui.sliced import SlicedRun

    monkeypatch.setattr(SlicedRun, "slice_ms", 0.0)
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    old = window.document()
    with qtbot.waitSignal(window.files.opened, timeout=120_000):
        assert window.open_file(big)
    assert window.building is not None
    window.opening.cancel.click()
    assert window.building is None and not window.opening.isVisible()
    qtbot.wait(100)
    assert window.document() is old


def test_the_badges_are_drawn_with_the_canvas_not_at_the_swap(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap to the opened document is one freeze (panes made, view fitted): the DAG
    nodes' live badges are made in the canvas's slices before it, so the panes find each
    badge shown already and the swap changes none of them (it used to change every one)."""
    from explorer.ui.canvas.items import NodeItem

    big = big_file(tmp_path)
    assert big.stat().st_size >= window.files.background_bytes
    assert window.open_file(ORDERS)
    swapping = [False]
    changed_at_swap: list[str] = []
    set_live = NodeItem.set_live

    def counted(item: NodeItem, live: tuple[str, str, str] | None) -> None:
        if swapping[0] and live != item.live:
            changed_at_swap.append(item.view.node_id)
        set_live(item, live)

    monkeypatch.setattr(NodeItem, "set_live", counted)
    show = MainWindow._show_document

    def swap(self: MainWindow, *args: object, **kwargs: object) -> None:
        swapping[0] = True
        try:
            show(self, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            swapping[0] = False

    monkeypatch.setattr(MainWindow, "_show_document", swap)
    assert window.open_file(big)
    qtbot.waitUntil(
        lambda: window.document() is not None and len(window.document().scenario.dags) == 400,
        timeout=120_000,
    )
    scene = window.workspace.scene  # type: ignore[union-attr]
    badged = [n for n, item in scene.nodes.items() if n.startswith("dag:") and item.live]
    assert len(badged) == 400  # every DAG shows its badge
    assert changed_at_swap == []
    panes = window.workspace.simulation  # type: ignore[union-attr]
    from explorer.ui.simulation_panes import badge_look

    expected = {f"dag:{d}": badge_look(b) for d, b in panes.session.badges().items()}
    assert {n: scene.nodes[n].live for n in expected} == expected
