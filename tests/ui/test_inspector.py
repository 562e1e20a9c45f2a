"""The inspector: live validation in the engine's words, refusals in place, one command an edit."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QWidget,
)

from explorer.engine.cron import CronError, validate_cron
from explorer.scenario import dumps_scenario
from explorer.ui.inspector.asset_form import AssetForm
from explorer.ui.inspector.condition_form import ConditionForm
from explorer.ui.inspector.dag_form import DagForm
from explorer.ui.inspector.partition_form import PartitionEditor
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _select(window: MainWindow, node: str):  # type: ignore[no-untyped-def]
    if window.workspace is None:
        assert window.open_file(ORDERS)
    ws = window.workspace
    assert ws is not None
    ws.scene.select_nodes([node])
    return ws, ws.inspector.current


def _type(line: QLineEdit, text: str, enter: bool = True) -> None:
    line.setFocus()
    line.selectAll()
    if text:
        QTest.keyClicks(line, text)
    else:
        QTest.keyClick(line, Qt.Key.Key_Backspace)
    if enter:
        QTest.keyClick(line, Qt.Key.Key_Return)


def _engine_message(expression: str) -> str:
    try:
        validate_cron(expression)
    except CronError as exc:
        return str(exc)
    raise AssertionError("valid")


def test_cron_is_validated_as_typed_with_croniters_message(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:ingest_customers")
    assert isinstance(form, DagForm)
    combo: QComboBox = form.schedule.kind
    combo.setCurrentIndex(combo.findData("cron"))
    assert ws.document.undo_stack.count() == 0  # "@daily" is already a cron string
    cron = form.schedule.args["cron"].widget
    _type(cron.edit, "61 * * * *", enter=False)  # type: ignore[attr-defined]
    message = cron.message.text()  # type: ignore[attr-defined]
    assert message == _engine_message("61 * * * *")
    assert cron.edit.property("invalid") is True  # type: ignore[attr-defined]
    QTest.keyClick(cron.edit, Qt.Key.Key_Return)  # type: ignore[attr-defined]
    assert ws.document.undo_stack.count() == 0  # refused in place
    _type(cron.edit, "30 4 * * 1-5")  # type: ignore[attr-defined]
    dag = next(d for d in ws.document.scenario.dags if d.dag_id == "ingest_customers")
    assert dag.schedule == "30 4 * * 1-5"
    assert ws.document.undo_stack.count() == 1
    assert "04:30" in form.schedule.description.text()
    assert "Mon" in form.schedule.runs.text()


def test_next_runs_are_in_the_dags_time_zone(window) -> None:  # type: ignore[no-untyped-def]
    _ws, form = _select(window, "dag:ingest_orders")
    runs = form.schedule.runs.text()  # type: ignore[union-attr]
    assert "America/New_York" in runs
    assert "EST" in runs and "EDT" in runs  # the spring-forward is in the first five runs
    assert "data interval" in runs


def test_every_schedule_kind_can_be_chosen_or_says_why_not(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:ingest_customers")
    assert isinstance(form, DagForm)
    combo = form.schedule.kind
    kinds = [combo.itemData(i) for i in range(combo.count())]
    assert "timetable:CronPartitionTimetable" in kinds and "timetable:EventsTimetable" in kinds
    for kind in kinds:
        form = ws.inspector.current
        assert isinstance(form, DagForm)
        combo = form.schedule.kind
        combo.setCurrentIndex(combo.findData(kind))
        dag = next(d for d in ws.document.scenario.dags if d.dag_id == "ingest_customers")
        from explorer.document.schedule_kinds import kind_of

        if kind_of(dag.schedule) != kind:
            assert form.schedule.kind_error.text(), kind  # refused with a reason


def test_catchup_without_start_date_is_refused_with_airflows_message(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:ingest_customers")
    assert isinstance(form, DagForm)
    _type(form.start_date.edit, "")
    assert (
        next(d for d in ws.document.scenario.dags if d.dag_id == "ingest_customers").start_date
        is None
    )
    count = ws.document.undo_stack.count()
    box = form.catchup
    QTest.mouseClick(
        box, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(8, box.height() // 2)
    )
    assert ws.document.undo_stack.count() == count
    assert not form.catchup.isChecked()
    assert "start_date is required when catchup=True" in form.catchup_error.text()


def test_continuous_needs_max_active_runs_1(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:ingest_customers")
    assert isinstance(form, DagForm)
    combo = form.schedule.kind
    combo.setCurrentIndex(combo.findData("continuous"))
    assert "max_active_runs" in form.schedule.kind_error.text()
    spin: QSpinBox = form.max_active_runs
    spin.setValue(1)
    form = ws.inspector.current
    combo = form.schedule.kind  # type: ignore[union-attr]
    combo.setCurrentIndex(combo.findData("continuous"))
    dag = next(d for d in ws.document.scenario.dags if d.dag_id == "ingest_customers")
    assert dag.schedule == "@continuous" and dag.max_active_runs == 1


def test_spin_box_clicks_merge_into_one_command(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:orders_mart")
    spin = form.max_active_runs  # type: ignore[union-attr]
    for value in (2, 3, 4):
        spin.setValue(value)
    assert ws.document.undo_stack.count() == 1
    assert (
        next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart").max_active_runs == 4
    )


def test_dag_id_rename_keeps_the_selection_and_refuses_duplicates(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:orders_mart")
    _type(form.dag_id.edit, "ingest_orders", enter=False)  # type: ignore[union-attr]
    assert "already exists" in form.dag_id.message.text()  # type: ignore[union-attr]
    _type(form.dag_id.edit, "mart")  # type: ignore[union-attr]
    assert ws.scene.selected_ids() == ["dag:mart"]
    assert isinstance(ws.inspector.current, DagForm)
    assert ws.inspector.current.dag_id.value() == "mart"


def test_asset_uri_shows_the_stored_form_and_near_misses(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "asset:orders")
    assert isinstance(form, AssetForm)
    _type(form.uri.edit, "S3://warehouse/customers/", enter=False)
    assert form.stored.text() == "s3://warehouse/customers"
    warnings = form.warnings.text()
    assert "conflict" in warnings and "customers" in warnings
    _type(form.uri.edit, "airflow://nope", enter=False)
    assert form.uri.message.text()  # Airflow refuses the airflow scheme (URI-4)
    QTest.keyClick(form.uri.edit, Qt.Key.Key_Return)
    assert ws.document.undo_stack.count() == 0
    _type(form.uri.edit, "s3://warehouse/orders_v2")
    assert ws.document.scenario.assets[0].uri == "s3://warehouse/orders_v2"


def test_gate_form_toggles_and_nests(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "gate:orders_mart:0")
    assert isinstance(form, ConditionForm)
    # A radio button takes clicks on its indicator and label, not on the whole row.
    label_point = QPoint(8, form.or_button.height() // 2)
    QTest.mouseClick(
        form.or_button, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, label_point
    )
    mart = next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart")
    assert mart.schedule == {"any": [{"asset": "orders"}, {"asset": "customers"}]}
    assert ws.scene.nodes["gate:orders_mart:0"].view.title == "OR"
    form = ws.inspector.current
    assert isinstance(form, ConditionForm)
    first = form.tree.topLevelItem(0).child(1)
    form.tree.setCurrentItem(first)
    QTest.mouseClick(form.wrap_and, Qt.MouseButton.LeftButton)
    mart = next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart")
    assert mart.schedule == {"any": [{"asset": "orders"}, {"all": [{"asset": "customers"}]}]}
    assert "gate:orders_mart:0.1" in ws.scene.nodes


def test_partitioned_consumer_mapper_is_checked_by_the_engine(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:orders_mart")
    combo = form.schedule.kind  # type: ignore[union-attr]
    combo.setCurrentIndex(combo.findData("timetable:PartitionedAssetTimetable"))
    mart = next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart")
    assert mart.schedule["timetable"] == "PartitionedAssetTimetable"  # type: ignore[index]
    form = ws.inspector.current
    editor = form.schedule.args["default_partition_mapper"].widget  # type: ignore[union-attr]
    assert isinstance(editor, PartitionEditor)
    editor.mapper.setCurrentText("RollupMapper")
    editor.upstream.setCurrentText("IdentityMapper")
    assert "cannot pair IdentityMapper with DayWindow" in editor.error.text()
    editor.upstream.setCurrentText("StartOfHourMapper")
    editor.policy.setCurrentText("MinimumCount")
    editor.count.setValue(20)
    editor.count.editingFinished.emit()
    mart = next(d for d in ws.document.scenario.dags if d.dag_id == "orders_mart")
    spec = mart.schedule["args"]["default_partition_mapper"]  # type: ignore[index]
    assert spec["mapper"] == "RollupMapper"
    assert spec["args"]["wait_policy"] == {"policy": "MinimumCount", "args": {"n": 20}}
    assert (
        "RollupMapper · DayWindow · MinimumCount(20)"
        in ws.scene.nodes["dag:orders_mart"].view.partition
    )


def test_every_inspector_control_has_a_tooltip(window) -> None:  # type: ignore[no-untyped-def]
    for node in ("dag:orders_mart", "asset:orders", "gate:orders_mart:0", ""):
        ws, form = _select(window, node) if node else (window.workspace, None)
        if not node:
            ws.scene.select_nodes([])
            form = ws.inspector.current
        for widget in form.findChildren(QWidget):  # type: ignore[union-attr]
            if not widget.isVisibleTo(form) or not isinstance(
                widget, QLineEdit | QComboBox | QSpinBox | QAbstractButton
            ):
                continue
            if (
                isinstance(widget, QLineEdit)
                and widget.parent() is not None
                and isinstance(widget.parent(), QSpinBox | QComboBox)
            ):
                continue
            tip = widget.toolTip() or (widget.parent().toolTip() if widget.parent() else "")  # type: ignore[union-attr]
            assert tip, f"{node}: {widget.objectName() or type(widget).__name__} has no tooltip"


def test_asset_watchers_are_drawn_and_edited(window) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(EXAMPLES / "watcher_incremental_scan.json")
    ws, form = _select(window, "asset:landing_files")
    assert ws.scene.nodes["asset:landing_files"].view.watchers == (
        "landing_scan · polls every 5 min · 5 items",
    )
    assert isinstance(form, AssetForm)
    row = form.watchers.rows.itemAt(0).widget()
    interval = row.findChildren(QLineEdit)[1]
    _type(interval, "P1M", enter=False)  # a month has no fixed length
    QTest.keyClick(interval, Qt.Key.Key_Return)
    assert ws.document.undo_stack.count() == 0
    _type(interval, "PT15M")
    (watcher,) = ws.document.scenario.assets[0].watchers
    assert watcher.poll_interval.text == "PT15M" and len(watcher.source) == 5
    assert "polls every 15 min" in ws.scene.nodes["asset:landing_files"].view.watchers[0]
    form = ws.inspector.current
    QTest.mouseClick(form.watchers.add, Qt.MouseButton.LeftButton)  # type: ignore[union-attr]
    assert [w.name for w in ws.document.scenario.assets[0].watchers] == [
        "landing_scan",
        "watcher_1",
    ]
    assert ws.document.undo_stack.count() == 2


def test_watcher_source_items_are_edited_added_and_removed(window) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(EXAMPLES / "watcher_incremental_scan.json")
    ws, form = _select(window, "asset:landing_files")
    assert isinstance(form, AssetForm)

    def lines() -> list[QLineEdit]:
        row = ws.inspector.current.watchers.rows.itemAt(0).widget()  # type: ignore[union-attr]
        return row.findChildren(QLineEdit)  # name, interval, trigger, then at/item per item

    def source() -> tuple[Any, ...]:
        return ws.document.scenario.assets[0].watchers[0].source  # type: ignore[no-any-return]

    first = source()[0]
    at = lines()[3]
    _type(at, "2026-05-04T08:02:00", enter=False)  # naive: refused, nothing changes
    QTest.keyClick(at, Qt.Key.Key_Return)
    assert ws.document.undo_stack.count() == 0 and source()[0] == first
    _type(lines()[3], "2026-05-04T08:02:00Z")
    _type(lines()[4], "orders_0802.csv")
    assert source()[0].at.text == "2026-05-04T08:02:00Z"
    assert source()[0].item == "orders_0802.csv" and source()[0].payload == first.payload
    count = len(source())
    add = ws.inspector.current.watchers.findChild(QPushButton, "addSourceItem")  # type: ignore[union-attr]
    QTest.mouseClick(add, Qt.MouseButton.LeftButton)
    added = source()[-1]
    assert len(source()) == count + 1 and added.item == f"item_{count + 1}"
    poll = ws.document.scenario.assets[0].watchers[0].poll_interval.value
    assert added.at.value == max(s.at.value for s in source()[:-1]) + poll
    drop = [
        b
        for b in ws.inspector.current.watchers.findChildren(QToolButton)  # type: ignore[union-attr]
        if b.toolTip() == f"Remove source item {first.item}"
    ]
    assert not drop  # renamed above: its button names the new item
    (drop,) = [
        b
        for b in ws.inspector.current.watchers.findChildren(QToolButton)  # type: ignore[union-attr]
        if b.toolTip() == "Remove source item orders_0802.csv"
    ]
    QTest.mouseClick(drop, Qt.MouseButton.LeftButton)
    assert "orders_0802.csv" not in [s.item for s in source()] and len(source()) == count
    assert ws.document.undo_stack.count() == 4
    for _ in range(4):
        ws.document.undo_stack.undo()
    assert source()[0] == first and len(source()) == count


def test_asset_shorthand_entries_are_edited_as_written(window) -> None:  # type: ignore[no-untyped-def]
    from explorer.ui.inspector.asset_dag_form import AssetDagForm

    assert window.open_file(EXAMPLES / "asset_decorator_and_inlets.json")
    ws, form = _select(window, "dag:orders")
    assert isinstance(form, AssetDagForm)
    assert form.title.text() == "@asset orders"
    assert "s3://warehouse/orders" in form.writes.text()

    def entry() -> Any:
        return ws.document.scenario.asset_dags[0]

    _type(form.duration.edit, "ten minutes", enter=False)  # not a duration: refused in place
    QTest.keyClick(form.duration.edit, Qt.Key.Key_Return)
    assert ws.document.undo_stack.count() == 0 and entry().duration.text == "PT10M"
    _type(form.duration.edit, "PT30M")
    assert entry().duration.text == "PT30M"
    _type(form.uri.edit, "s3://warehouse/orders_v2")
    assert entry().uri == "s3://warehouse/orders_v2"
    assert ws.scene.nodes["asset:orders"].view.subtitle.startswith("s3://warehouse/orders_v2")
    assert not form.catchup.isEnabled()  # @asset takes no catchup argument
    _type(form.start_date.edit, "2024-03-01", enter=False)  # naive: refused in place
    QTest.keyClick(form.start_date.edit, Qt.Key.Key_Return)
    assert entry().start_date is None
    _type(form.start_date.edit, "2024-03-01T00:00:00Z")
    QTest.mouseClick(form.paused, Qt.MouseButton.LeftButton)
    assert entry().start_date.text == "2024-03-01T00:00:00Z"
    assert entry().is_paused_upon_creation is True
    assert ws.document.undo_stack.count() == 4
    saved = dumps_scenario(ws.document.scenario)  # written as the shorthand, not expanded
    assert '"duration": "PT30M"' in saved and '"dag_id": "orders"' not in saved
    for _ in range(4):
        ws.document.undo_stack.undo()
    assert entry().duration.text == "PT10M" and entry().uri == "s3://warehouse/orders"
    assert entry().start_date is None and not entry().is_paused_upon_creation
    _, form = _select(window, "dag:load_dimensions")
    assert isinstance(form, AssetDagForm) and form.title.text() == "@asset.multi load_dimensions"
    assert form.writes.text() == "customers, products" and not form.uri.isEnabled()


def test_inspecting_every_node_of_every_example_changes_nothing(window) -> None:  # type: ignore[no-untyped-def]
    """Forms show values without echoing them back as edits (and every example's mapper
    specs survive the partition form exactly)."""
    for path in sorted(EXAMPLES.glob("*.json")):
        assert window.open_file(path), path.name
        ws = window.workspace
        for node in list(ws.scene.nodes):
            ws.scene.select_nodes([node])
            form = ws.inspector.current
            if isinstance(form, DagForm):
                editor = form.schedule.args.get("default_partition_mapper")
                if editor is not None:
                    dag = form.dag()
                    loaded = dag.schedule["args"].get("default_partition_mapper")  # type: ignore[index,union-attr]
                    assert editor.widget.spec() == loaded, (path.name, node)  # type: ignore[attr-defined]
        assert ws.document.undo_stack.count() == 0, path.name


# The zone completer's popup opens while typing; the offscreen platform cannot raise it.
@pytest.mark.qt_log_ignore(r"does not support raise\(\)", "does not support grabbing the keyboard")
def test_typing_a_zone_through_a_tzdata_folder_says_unknown_time_zone(window) -> None:  # type: ignore[no-untyped-def]
    ws, form = _select(window, "dag:ingest_customers")
    assert isinstance(form, DagForm)
    line = form.timezone
    _type(line.edit, "America", enter=False)  # a folder of tzdata, on the way to America/...
    assert line.message.text() == "unknown time zone 'America'"
    assert line.edit.property("invalid") is True
    QTest.keyClick(line.edit, Qt.Key.Key_Return)
    assert ws.document.undo_stack.count() == 0  # refused in place
    QTest.keyClicks(line.edit, "/Chicago")
    assert line.message.text() == ""
    QTest.keyClick(line.edit, Qt.Key.Key_Return)
    dag = next(d for d in ws.document.scenario.dags if d.dag_id == "ingest_customers")
    assert dag.timezone == "America/Chicago"


def test_a_hint_is_muted_again_once_the_field_is_valid(window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPalette

    _ws, form = _select(window, "dag:ingest_orders")
    cron = form.schedule.args["cron"].widget
    message = cron.message  # type: ignore[attr-defined]

    def colour() -> str:
        message.ensurePolished()
        return message.palette().color(QPalette.ColorRole.WindowText).name()

    assert message.text() == "At 00:00"
    muted = colour()
    _type(cron.edit, "61 * * * *", enter=False)  # type: ignore[attr-defined]
    red = colour()
    assert red != muted
    _type(cron.edit, "0 1 * * *", enter=False)  # type: ignore[attr-defined]
    assert message.text() == "At 01:00"
    assert colour() == muted  # a hint, not an error


def test_a_new_selection_shows_its_form_from_the_top(window) -> None:  # type: ignore[no-untyped-def]
    ws, _form = _select(window, "dag:ingest_orders")
    window.resize(1400, 700)
    inspector = ws.inspector
    bar = inspector.verticalScrollBar()
    QTest.qWait(50)
    assert bar.maximum() > 0  # the DAG form is taller than the dock
    bar.setValue(bar.maximum())
    asset = ws.add_at("asset")  # adding an asset selects it
    assert asset is not None
    QTest.qWait(50)
    current = inspector.current
    assert isinstance(current, AssetForm)
    assert bar.value() == 0
    top = current.mapTo(inspector.viewport(), QPoint(0, 0))
    assert 0 <= top.y() < 40  # the form's title is in view, not scrolled away
