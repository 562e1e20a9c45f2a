"""Files: bad files, newer formats, unsaved changes, drops, recent files, autosave and recovery."""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from explorer.scenario import dumps_scenario, load_scenario
from explorer.ui.autosave import pending_recoveries
from explorer.ui.main_window import MainWindow
from explorer.ui.settings import Preferences
from tests.ui.conftest import EXAMPLES, FakePrompts, FakeTimer

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _edit(window: MainWindow) -> None:
    assert window.workspace is not None
    window.workspace.add_at("asset", QPointF(0, 600))


def test_a_bad_file_shows_a_dialog_with_the_json_path(window, prompts, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    text = ORDERS.read_text().replace('"cron": "0 0 * * *"', '"cron": "0 0 * * * * * *"')
    bad.write_text(text)
    assert not window.open_file(bad)
    assert window.workspace is None  # nothing replaced, the gallery still shows
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1
    box = boxes[0]
    assert box.text() == "Cannot open bad.json"
    assert "$.dags[0].schedule.args.cron" in box.informativeText()
    assert "Traceback" not in box.informativeText() + box.detailedText()
    box.done(0)


def test_malformed_json_is_located(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "schedule-explorer/2", "name": ')
    assert not window.open_file(bad)
    box = next(b for b in window.findChildren(QMessageBox) if b.isVisible())
    assert "malformed JSON at line 1" in box.informativeText()
    box.done(0)


def test_a_newer_format_is_never_overwritten(window, prompts, tmp_path) -> None:  # type: ignore[no-untyped-def]
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": "schedule-explorer/9", "name": "from the future"}))
    before = newer.read_text()
    assert window.open_file(ORDERS)
    prompts.save_paths.append(newer)
    assert not window.files.save_as()
    assert newer.read_text() == before
    assert prompts.errors[-1][0] == "Not saved"
    assert "newer version" in prompts.errors[-1][1]
    # and opening it says so, rather than guessing
    assert not window.open_file(newer)
    assert "written by a newer version" in prompts.errors[-1][1]


def test_unsaved_changes_are_asked_about(window, prompts, tmp_path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "kept.json"
    assert window.open_file(ORDERS)
    assert window.files.save_to(target)  # work on a copy: the example stays untouched
    _edit(window)
    assert window.isWindowModified()
    prompts.save_answers.append("cancel")
    window.registry.trigger("file.new")
    assert prompts.asked == ["save? Orders mart across the New York spring-forward"]
    assert window.document().path == target.resolve()  # cancelled: nothing replaced
    prompts.save_answers.append("save")
    window.registry.trigger("file.new")  # Save writes the file it came from, then New
    assert window.document().path is None
    assert load_scenario(target).assets[-1].name == "asset_1"
    _edit(window)
    prompts.save_answers.append("discard")
    window.registry.trigger("file.new")
    assert window.document().scenario.assets == ()
    assert len(prompts.asked) == 3


def test_close_with_unsaved_changes_can_be_cancelled(window, prompts) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(ORDERS)
    _edit(window)
    prompts.save_answers.append("cancel")
    assert not window.close()
    assert window.isVisible()
    prompts.save_answers.append("discard")
    assert window.close()


def test_dropping_a_scenario_file_opens_it(window) -> None:  # type: ignore[no-untyped-def]
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(ORDERS))])
    enter = QDragEnterEvent(
        QPoint(200, 200),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    event = QDropEvent(
        QPointF(200, 200),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, event)
    assert window.document() is not None
    assert window.document().path == ORDERS.resolve()  # type: ignore[union-attr]


def test_recent_files_and_window_state_persist_in_isolated_settings(
    qtbot, window, prefs, settings_path, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(ORDERS)
    assert prefs.recent_files()[0] == ORDERS.resolve()
    menu = next(
        m
        for m in window.menuBar().findChildren(type(window.menuBar().addMenu("x")))
        if m.objectName() == "menu:Open Recent"
    )
    menu.aboutToShow.emit()
    assert menu.actions()[0].text() == ORDERS.name
    window.history_dock.hide()
    window.save_window()
    fresh = Preferences(QSettings(str(settings_path), QSettings.Format.IniFormat))
    assert fresh.window_geometry() == window.saveGeometry()
    second = MainWindow(
        fresh, prompts=FakePrompts(), recovery_dir=tmp_path / "r2", autosave_timer=FakeTimer()
    )
    qtbot.addWidget(second)
    second.show()
    assert second.history_dock.isHidden()  # the dock layout came back
    assert not second.registry.action("view.dock.history").isChecked()
    assert settings_path.exists()
    assert str(ORDERS.resolve()) in settings_path.read_text()  # written to the test's file


def test_autosave_writes_what_undo_sees_and_recovery_is_offered(
    qtbot, window, timer, prompts, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(ORDERS)
    recovery = tmp_path / "recovery"
    timer.fire()  # nothing edited: nothing written
    assert not list(recovery.glob("*.json"))
    _edit(window)
    timer.fire()
    (written,) = recovery.glob("*.recovery.json")
    assert written.read_text() == dumps_scenario(window.document().scenario)  # type: ignore[union-attr]
    window.document().undo_stack.undo()  # type: ignore[union-attr]
    assert not list(recovery.glob("*.recovery.json"))  # back to the file: nothing to recover
    window.document().undo_stack.redo()  # type: ignore[union-attr]
    timer.fire()
    assert pending_recoveries(recovery) == []  # this process is alive: not a crash
    meta = next(recovery.glob("*.recovery-meta.json"))
    info = json.loads(meta.read_text())
    info["pid"] = 999_999_999  # as if the process had died
    meta.write_text(json.dumps(info))
    # A new window after the "crash" offers it and opens it as unsaved work.
    prompts2 = FakePrompts()
    prompts2.recover_choice = 0
    second = MainWindow(
        window.prefs, prompts=prompts2, recovery_dir=tmp_path / "other", autosave_timer=FakeTimer()
    )
    prompts2.parent = second
    qtbot.addWidget(second)
    assert second.files.offer_recovery(recovery)
    doc = second.document()
    assert doc is not None and doc.is_modified()
    assert doc.path == ORDERS.resolve()
    assert doc.scenario.assets[-1].name == "asset_1"
    assert doc.undo_stack.text(0) == "Recovered unsaved work"
    assert not list(recovery.glob("*.json"))
    doc.undo_stack.setClean()


def test_gallery_lists_the_examples_and_opens_one(window) -> None:  # type: ignore[no-untyped-def]
    examples = window.gallery.examples
    names = [examples.item(i).text().split("\n")[0] for i in range(examples.count())]
    assert len(names) == len(list(EXAMPLES.glob("*.json")))
    assert "Orders mart across the New York spring-forward" in names
    row = names.index("Orders mart across the New York spring-forward")
    examples.setCurrentRow(row)
    examples.setFocus()
    QTest.keyClick(examples, Qt.Key.Key_Return)
    document = window.document()
    assert document is not None
    assert document.scenario == load_scenario(ORDERS)
    assert document.path is None  # a copy: Save asks for a name, the example stays as it is
    assert window.windowTitle().startswith("Untitled")
    for i in range(examples.count()):
        assert examples.item(i).toolTip()


def test_save_writes_the_versioned_file_atomically(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(ORDERS)
    target = tmp_path / "copy.json"
    assert window.files.save_to(target)
    assert json.loads(target.read_text())["format"] == "schedule-explorer/2"
    assert load_scenario(target) == window.document().scenario  # type: ignore[union-attr]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_a_zone_naming_a_tzdata_folder_is_refused_with_a_message(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    document = json.loads(ORDERS.read_text())
    document["dags"][0]["timezone"] = "America"
    bad = tmp_path / "folder_zone.json"
    bad.write_text(json.dumps(document))
    assert not window.open_file(bad)
    box = next(b for b in window.findChildren(QMessageBox) if b.isVisible())
    assert box.text() == "Cannot open folder_zone.json"
    assert "unknown time zone 'America' at $.dags[0].timezone" in box.informativeText()
    box.done(0)
