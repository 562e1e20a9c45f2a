"""View > Compare Airflow 2 vs 3 Behaviour…: a plain daily cron under both defaults on one
timeline (DEP-7, TT-1): the same logical dates, each run a day earlier in 3.3."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from explorer.ui.upgrade_compare import AIRFLOW2, AIRFLOW3, UpgradeDialog
from tests.ui.test_pictures import menu_action

DAILY = {
    "format": "schedule-explorer/2",
    "name": "plain daily cron",
    "clock": {"start": "2024-06-01T00:00:00Z", "until": "2024-06-05T01:00:00Z"},
    "dags": [
        {
            "dag_id": "daily_sales",
            "schedule": "0 0 * * *",
            "start_date": "2024-05-25T00:00:00Z",
            "tasks": [{"task_id": "load", "duration": "PT10M"}],
        }
    ],
}


def _open(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "daily.json"
    path.write_text(json.dumps(DAILY), encoding="utf-8")
    assert window.open_file(path)


def test_the_menu_compares_a_daily_cron_as_airflow_2_and_3(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    _open(window, tmp_path)

    def answer() -> None:  # the dialog: leave catchup_by_default out, press OK
        dialog = window.findChild(UpgradeDialog)
        assert dialog is not None and dialog.isVisible()
        assert not dialog.catchup.isChecked()
        buttons = dialog.findChild(QtWidgets.QDialogButtonBox)
        ok = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, QtCore.Qt.MouseButton.LeftButton)

    QtCore.QTimer.singleShot(200, answer)
    menu_action(window, "View", "Compare Airflow 2 vs 3 Behaviour…").trigger()
    result = window.compares.last
    assert result is not None and result.isVisible()
    view = result.view
    assert view.labels == (AIRFLOW2, AIRFLOW3)
    assert view.plot.lane_axis.labels == [
        "daily_sales · Airflow 2 style\n(create_cron_data_intervals=true)",
        f"daily_sales · {AIRFLOW3}",
    ]
    lanes = (
        [view.plot.lane_axis.labels[i] for i in range(2)]
        if hasattr(view.plot.lane_axis, "labels")
        else None
    )
    if lanes is not None:
        assert lanes == [
            "daily_sales · Airflow 2 style\n(create_cron_data_intervals=true)",
            f"daily_sales · {AIRFLOW3}",
        ]
    # Airflow 2: the run at 06-02 00:00 has logical_date 06-01 ([06-01, 06-02));
    # 3.3: logical_date 06-01 runs at 06-01 00:00 = run_after, an empty interval.
    changes = view.diff.runs
    shifted = [c for c in changes if c.kind == "shifted"]
    assert shifted, changes
    for change in shifted:
        assert change.before is not None and change.after is not None
        assert change.after.run_after == change.before.run_after - timedelta(days=1)
        assert change.after.logical_date == change.after.run_after
        assert change.before.data_interval_end == change.before.run_after
        assert change.fields == ("run_after", "data_interval")
    day = shifted[0].after
    assert day is not None and day.logical_date == datetime(2024, 6, 1, tzinfo=UTC)
    assert {link.text for link in view.links} == {"24 h earlier"}
    assert len(view.links) == len(shifted)
    assert "shifted" in view.summary.text() and AIRFLOW2 in view.summary.text()
    assert view.table.rowCount() == len(changes)
    result.close()


def test_catchup_by_default_compared_too_adds_the_back_filled_days(
    window: MainWindow, tmp_path: Path
) -> None:
    _open(window, tmp_path)
    window.compares.ask_catchup = lambda: True
    result = window.compares.compare_airflow()
    assert result is not None
    view = result.view
    assert "catchup_by_default=true" in view.labels[0]
    # Airflow 2 with catchup: every day since start_date 05-25 runs; 3.3 only from the latest
    removed = [c.before.logical_date for c in view.diff.runs if c.kind == "removed" and c.before]
    assert removed == [datetime(2024, 5, d, tzinfo=UTC) for d in range(25, 32)]
    assert view.boxes  # the removed runs are marked (crossed boxes)
    result.close()


def test_cancelling_the_dialog_compares_nothing(window: MainWindow, tmp_path: Path) -> None:
    _open(window, tmp_path)
    window.compares.ask_catchup = lambda: None
    assert window.compares.compare_airflow() is None
