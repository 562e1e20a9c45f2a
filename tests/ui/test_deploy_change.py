"""Edit > Deploy This Change At…: the edits since the save shipped at an instant."""

from __future__ import annotations

import dataclasses
import shutil
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from explorer.scenario.model import DeployAction
from explorer.ui.commands import edit
from explorer.ui.deploy_change import DeployChangeDialog
from explorer.ui.main_window import MainWindow

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "scenarios"


def test_deploying_an_edited_cron_at_an_instant(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "report.json"
    shutil.copy(EXAMPLES / "catchup_flood.json", path)
    assert window.open_file(path)
    document = window.document()
    assert document is not None
    saved = document.scenario
    dag = saved.dags[0]
    edit(
        document,
        dataclasses.replace(saved, dags=(dataclasses.replace(dag, schedule="0 6 * * *"),)),
        "cron",
    )
    window.registry.action("edit.deploy_change").trigger()
    dialog = window.findChild(DeployChangeDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.at_edit.clear()
    qtbot.keyClicks(dialog.at_edit, "2024-06-01T03:00:00Z")
    assert "deploy daily_sales" in dialog.summary.text()
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    scenario = document.scenario
    assert scenario.dags == saved.dags  # the saved version runs before the instant
    deploys = [a for a in scenario.script if isinstance(a, DeployAction)]
    assert [(a.at.value, a.dag.schedule) for a in deploys] == [
        (datetime(2024, 6, 1, 3, tzinfo=UTC), "0 6 * * *")
    ]
    # the simulation follows: the 06:00 run of the new cron exists, created after 03:00
    panes = window.workspace.simulation if window.workspace else None
    assert panes is not None
    panes.session.run_to(datetime(2024, 6, 1, 6, 30, tzinfo=UTC))
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20000)
    created = [
        r.run_after
        for r in panes.session.sim.runs
        if r.created_at > datetime(2024, 6, 1, 3, tzinfo=UTC)
    ]
    assert datetime(2024, 6, 1, 6, tzinfo=UTC) in created
    document.undo_stack.undo()  # one step gives the plain edit back
    assert document.scenario.dags[0].schedule == "0 6 * * *"
    assert not any(isinstance(a, DeployAction) for a in document.scenario.script)


def test_a_bad_instant_or_no_edit_disables_ok(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "report.json"
    shutil.copy(EXAMPLES / "catchup_flood.json", path)
    assert window.open_file(path)
    window.registry.action("edit.deploy_change").trigger()
    dialog = window.findChild(DeployChangeDialog)
    assert dialog is not None
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()
    assert dialog.summary.text() == "No edits since the save."
    dialog.at_edit.clear()
    qtbot.keyClicks(dialog.at_edit, "tomorrow")
    assert not ok.isEnabled() and dialog.summary.text().startswith("Not an instant")
    dialog.reject()
