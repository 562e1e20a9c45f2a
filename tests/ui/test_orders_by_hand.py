"""The seed's orders example, built by hand with real widgets, undone, redone, saved, reopened.

Two producer DAGs write ``orders`` and ``customers``; ``orders_mart`` waits
for both (an AND). Every step is a click, a drag or typed keys on the real
window: the palette adds nodes, the inspector renames them and sets
schedules, drags from ports connect them. Then every edit is undone one by
one back to the empty scenario, redone, saved, and the file reopened equal.
"""

from __future__ import annotations

import io
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QLineEdit

from explorer.cli import main as cli_main
from explorer.scenario import load_scenario, validate_scenario
from explorer.ui.canvas.items import DagItem, NodeItem, Port
from explorer.ui.inspector.dag_form import DagForm
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import drag


def _ws(window: MainWindow):  # type: ignore[no-untyped-def]
    assert window.workspace is not None
    return window.workspace


def _type_into(qtbot, line: QLineEdit, text: str) -> None:  # type: ignore[no-untyped-def]
    """Click into a field, select what is there, type, press Enter."""
    QTest.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    QTest.keyClicks(line, text)
    QTest.keyClick(line, Qt.Key.Key_Return)


def _title_point(item: NodeItem) -> QPointF:
    rect = item.body()
    return item.mapToScene(QPointF(rect.center().x(), rect.top() + 12))


def _add_node(qtbot, window: MainWindow, kind: str, where: QPointF) -> NodeItem:  # type: ignore[no-untyped-def]
    """Palette button, then drag the new node (added at the view's centre) to ``where``."""
    ws = _ws(window)
    before = set(ws.scene.nodes)
    QTest.mouseClick(window.node_palette.buttons[kind], Qt.MouseButton.LeftButton)
    (new_id,) = set(ws.scene.nodes) - before
    item = ws.scene.nodes[new_id]
    drag(window, _title_point(item), where + (_title_point(item) - item.pos()))
    item = ws.scene.nodes[new_id]
    assert abs(item.pos().x() - where.x()) < 2 and abs(item.pos().y() - where.y()) < 2
    return item


def _dag_form(window: MainWindow) -> DagForm:
    form = _ws(window).inspector.current
    assert isinstance(form, DagForm)
    return form


def _make_dag(qtbot, window, where, dag_id, task_id, schedule_kind=None, cron=None):  # type: ignore[no-untyped-def]
    _add_node(qtbot, window, "dag", where)
    form = _dag_form(window)
    _type_into(qtbot, form.dag_id.edit, dag_id)
    form = _dag_form(window)
    assert form.dag().dag_id == dag_id  # type: ignore[union-attr]
    name_line = form._task_rows[0].name.edit
    _type_into(qtbot, name_line, task_id)
    if schedule_kind is not None:
        combo: QComboBox = form.schedule.kind
        combo.setFocus()
        combo.setCurrentIndex(combo.findData(schedule_kind))
        if cron is not None:
            cron_line = form.schedule.args["cron"].widget
            _type_into(qtbot, cron_line.edit, cron)  # type: ignore[attr-defined]


def _make_asset(qtbot, window, where, name, uri):  # type: ignore[no-untyped-def]
    _add_node(qtbot, window, "asset", where)
    form = _ws(window).inspector.current
    _type_into(qtbot, form.name.edit, name)  # type: ignore[union-attr]
    form = _ws(window).inspector.current
    _type_into(qtbot, form.uri.edit, uri)  # type: ignore[union-attr]


def _connect_outlet(window: MainWindow, dag_id: str, task_id: str, asset: str) -> None:
    ws = _ws(window)
    dag = ws.scene.nodes[f"dag:{dag_id}"]
    assert isinstance(dag, DagItem)
    start = dag.scene_port_pos(Port(dag.node_id, "out", task_id))
    drag(window, start, ws.scene.nodes[f"asset:{asset}"].pos())


def _connect_input(window: MainWindow, asset: str, dag_id: str) -> None:
    ws = _ws(window)
    item = ws.scene.nodes[f"asset:{asset}"]
    start = item.scene_port_pos(Port(item.node_id, "out"))
    drag(window, start, ws.scene.nodes[f"dag:{dag_id}"].pos())


def build_orders(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    QTest.mouseClick(window.gallery.empty, Qt.MouseButton.LeftButton)
    assert window.workspace is not None
    _make_dag(qtbot, window, QPointF(0, 0), "ingest_orders", "write_orders", "cron", "0 2 * * *")
    _make_dag(
        qtbot, window, QPointF(0, 240), "ingest_customers", "write_customers", "cron", "@daily"
    )
    _make_asset(qtbot, window, QPointF(340, 0), "orders", "s3://warehouse/orders")
    _make_asset(qtbot, window, QPointF(340, 240), "customers", "s3://warehouse/customers")
    _make_dag(qtbot, window, QPointF(760, 120), "orders_mart", "build_mart")
    _connect_outlet(window, "ingest_orders", "write_orders", "orders")
    _connect_outlet(window, "ingest_customers", "write_customers", "customers")
    _connect_input(window, "orders", "orders_mart")
    _connect_input(window, "customers", "orders_mart")


def test_build_undo_redo_save_reopen(qtbot, window, prompts, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """By clicks and keys: the orders example, every step undone and redone, saved, reopened."""
    build_orders(qtbot, window)
    ws = _ws(window)
    s = ws.document.scenario
    dags = {d.dag_id: d for d in s.dags}
    assert set(dags) == {"ingest_orders", "ingest_customers", "orders_mart"}
    assert dags["ingest_orders"].schedule == "0 2 * * *"
    assert dags["ingest_customers"].schedule == "@daily"
    assert dags["ingest_orders"].tasks[0].outlets == ({"asset": "orders"},)
    assert dags["ingest_customers"].tasks[0].outlets == ({"asset": "customers"},)
    assert dags["orders_mart"].schedule == {"all": [{"asset": "orders"}, {"asset": "customers"}]}
    assert [(a.name, a.uri) for a in s.assets] == [
        ("orders", "s3://warehouse/orders"),
        ("customers", "s3://warehouse/customers"),
    ]
    assert validate_scenario(s) == []
    assert "gate:orders_mart:0" in ws.scene.nodes  # the AND gate, drawn
    assert ws.scene.nodes["gate:orders_mart:0"].view.title == "AND"
    built = s
    positions = {n: (i.pos().x(), i.pos().y()) for n, i in ws.scene.nodes.items()}

    # Undo every step, one at a time, with the keyboard: back to the empty scenario.
    stack = ws.document.undo_stack
    steps = stack.count()
    assert steps >= 25  # 5 adds + 5 moves + renames, uris, schedules, 4 connections
    texts = [stack.text(i) for i in range(steps)]
    assert "Connect orders → orders_mart" in texts
    assert any(t.startswith("Move ") for t in texts)
    ws.view.setFocus()
    seen = []
    for _ in range(steps):
        QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        seen.append(ws.document.scenario)
    assert stack.index() == 0
    empty = ws.document.scenario
    assert empty.dags == () and empty.assets == () and empty.layout == {}
    assert ws.scene.nodes == {} and ws.scene.edges == {}
    assert len({id(x) for x in seen}) == steps  # each key press undid exactly one step

    # Redo every step: the very same scenario, drawn in the same places.
    for _ in range(steps):
        QTest.keyClick(
            window,
            Qt.Key.Key_Z,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
    assert ws.document.scenario == built
    assert {n: (i.pos().x(), i.pos().y()) for n, i in ws.scene.nodes.items()} == positions

    # Save (Ctrl+S asks for a name, the first time), then reopen and compare.
    target = tmp_path / "orders.json"
    prompts.save_paths.append(target)
    QTest.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert target.exists()
    assert not ws.document.is_modified()
    assert "*" not in window.windowTitle().replace("[*]", "")
    assert load_scenario(target) == built
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        assert cli_main(["validate", str(target)]) == 0  # the CLI reads what the GUI wrote
    QTest.keyClick(window, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert window.workspace is None
    prompts.open_paths.append(target)
    QTest.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    reopened = _ws(window)
    assert reopened.document.scenario == built
    assert reopened.document.path == target.resolve()
    assert {n: (i.pos().x(), i.pos().y()) for n, i in reopened.scene.nodes.items()} == positions
    assert not prompts.errors
