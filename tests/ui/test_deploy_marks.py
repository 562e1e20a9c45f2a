"""Deploy marks on the main timeline: what each change did, with its DEP rule.

The marks come from the behavioural diff of the scenario against itself without its
change actions (explorer.engine.change_marks); these tests open the bundled change_*
examples and a "Deploy This Change At…" result in the window and click the marks."""

from __future__ import annotations

import dataclasses
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.scenario import load_scenario
from explorer.scenario.values import Instant
from explorer.ui.commands import edit
from explorer.ui.deploy_change import apply_deploy_change
from explorer.ui.main_window import MainWindow
from explorer.ui.panels.workbench import Workbench
from tests.ui.conftest import EXAMPLES
from tests.ui.test_run_card import hover, viewport_pos

pytestmark = pytest.mark.qt_log_ignore(r"does not support raise\(\)")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def _bench(qtbot: QtBot, window: MainWindow, path: Path, until: datetime | None) -> Workbench:
    assert window.open_file(path)
    panes = window.workspace.simulation if window.workspace else None
    assert panes is not None
    session = panes.session
    session.run_to(until or session.until)
    qtbot.waitUntil(lambda: not session.busy, timeout=20000)
    panes.bench.timeline.set_display_zone("UTC")
    panes.bench.timeline.fit()
    return panes.bench


def _copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    shutil.copy(EXAMPLES / name, path)
    return path


def test_upgrade_example_marks_the_skipped_day_and_the_shifted_ds(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    bench = _bench(qtbot, window, _copy(tmp_path, "change_airflow2_to_3_daily_cron.json"), None)
    pane, explain = bench.timeline, bench.explain
    layer = pane.change_layer
    # the vertical line at the instant, labelled with what changed
    assert [line.value() for line in layer.lines] == [utc(2024, 6, 4, 12).timestamp()]
    assert "[scheduler] create_cron_data_intervals = False" in layer.lines[0].label.format
    kinds = sorted(p.mark.kind for p in layer.placed)
    assert kinds == ["shifted"] * 4 + ["skipped"]
    lane = pane.lane_index("daily_sales")
    assert lane is not None
    # hovering the hatched day no run covers any more: its tooltip says what and why
    skipped_x = utc(2024, 6, 4, 6).timestamp()
    hover(qtbot, pane, skipped_x, lane - 0.2)
    tip = QtWidgets.QToolTip.text()
    assert "Skipped" in tip and "DEP-7" in tip and "never exists" in tip
    QtWidgets.QToolTip.hideText()
    # clicking it makes the explain pane say it
    qtbot.mouseClick(
        pane.plot.viewport(),
        QtCore.Qt.MouseButton.LeftButton,
        pos=viewport_pos(pane, skipped_x, lane - 0.2),
    )
    text = explain.change_text()
    assert "What the change did" in text and "Skipped" in text
    assert "Tue 04 Jun 2024 00:00 UTC" in text and "rule DEP-7" in text
    # selecting a run after the change: the explain pane says how its ds shifted
    run = next(
        r for r in bench.session.sim.dags["daily_sales"].runs if r.run_after == utc(2024, 6, 6)
    )
    qtbot.mouseClick(
        pane.plot.viewport(),
        QtCore.Qt.MouseButton.LeftButton,
        pos=viewport_pos(pane, run.run_after.timestamp() + 300, lane + 0.18),
    )
    assert pane.selected_run == ("daily_sales", run.run_id)
    text = explain.change_text()
    assert "Shifted" in text and "ds +24 h" in text
    assert "(ds 2024-06-06)" in text and "(ds 2024-06-05)" in text
    # a run before the change: no note
    before = next(
        r for r in bench.session.sim.dags["daily_sales"].runs if r.run_after == utc(2024, 6, 3)
    )
    bench.table.select_run("daily_sales", before.run_id)
    bench.table.run_selected.emit("daily_sales", before.run_id)
    assert explain.change_text() == "" and explain.change_note.isHidden()


def test_marks_follow_the_clock(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    bench = _bench(
        qtbot,
        window,
        _copy(tmp_path, "change_catchup_flipped_after_pause.json"),
        utc(2024, 6, 10, 9, 30),
    )
    layer = bench.timeline.change_layer
    assert len(layer.lines) == 1 and layer.placed == []  # deployed, nothing created yet
    bench.session.run_to(utc(2024, 6, 10, 11))
    qtbot.waitUntil(lambda: not bench.session.busy, timeout=20000)
    marks = [p.mark for p in layer.placed]
    assert [m.kind for m in marks] == ["catchup"] * 6
    assert {m.rule for m in marks} == {"DEP-3"}
    # a label pill of each mark is drawn and picks its mark
    bench.timeline.plot.viewport().repaint()
    assert layer.item.label_rects
    _rect, mark = layer.item.label_rects[0]
    assert mark.label == "created at change"


def test_queue_rows_dropped_and_kept_are_marked(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    bench = _bench(
        qtbot, window, _copy(tmp_path, "change_condition_edited_with_queued_events.json"), None
    )
    marks = {(p.mark.dag_id, p.mark.kind) for p in bench.timeline.change_layer.placed}
    assert ("finance_mart", "events_dropped") in marks
    assert ("sales_mart", "events_kept") in marks
    dropped = next(
        p.mark for p in bench.timeline.change_layer.placed if p.mark.kind == "events_dropped"
    )
    bench.timeline.select_change_mark(dropped)
    text = bench.explain.change_text()
    assert "Queued events dropped" in text and "refunds" in text and "rule DEP-5" in text
    assert bench.explain.dag_id == "finance_mart"


def test_deploy_this_change_at_marks_what_the_edit_does(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = _copy(tmp_path, "change_cron_edit_ny_dst.json")
    # start from the example without its deploy: the saved version runs at 06:00 New York
    saved = load_scenario(path)
    plain = dataclasses.replace(saved, script=())
    from explorer.scenario import save_scenario

    save_scenario(plain, path)
    assert window.open_file(path)
    document = window.document()
    assert document is not None
    dag = document.scenario.dags[0]
    edit(
        document,
        dataclasses.replace(
            document.scenario, dags=(dataclasses.replace(dag, schedule="30 1 * * *"),)
        ),
        "cron",
    )
    assert apply_deploy_change(document, plain, Instant.parse("2024-10-30T15:00:00Z"))
    panes = window.workspace.simulation if window.workspace else None
    assert panes is not None
    panes.session.run_to(panes.session.until)
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20000)
    layer = panes.bench.timeline.change_layer
    assert [line.label.format.strip() for line in layer.lines] == ["deploy ny_morning_report"]
    marks = [p.mark for p in layer.placed]
    assert marks and {m.kind for m in marks} == {"shifted"}
    assert {m.rule for m in marks} == {"DEP-1"}
    # undo: no change action, no marks
    document.undo_stack.undo()
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20000)
    assert layer.lines == [] and layer.placed == []
