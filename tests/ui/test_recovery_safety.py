"""Nothing lost after a crash: every recovery file is offered, a bad sidecar is set aside
and reported (never fatal), and only what the user discards is deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from explorer.scenario import load_scenario, save_scenario
from explorer.ui.autosave import pending_recoveries
from explorer.ui.main_window import MainWindow
from explorer.ui.recovery_dialog import RecoveryDialog
from tests.ui.conftest import EXAMPLES, FakePrompts, FakeTimer

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _left_behind(folder: Path, token: str, meta: object) -> Path:
    """A recovery file and its sidecar as a crashed session leaves them."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{token}.recovery.json"
    save_scenario(load_scenario(ORDERS), path)
    (folder / f"{token}.recovery-meta.json").write_text(
        meta if isinstance(meta, str) else json.dumps(meta), encoding="utf-8"
    )
    return path


DEAD = 4_000_000  # a valid process id that no test machine runs


@pytest.mark.parametrize("pid", ["abc", 10**30, [1, 2], -1, 0, None, True, 4_194_305], ids=repr)
def test_a_sidecar_with_a_bad_pid_is_set_aside_and_its_work_still_offered(
    tmp_path: Path, pid: object
) -> None:
    folder = tmp_path / "recovery"
    path = _left_behind(folder, "a1", {"pid": pid, "name": "mine", "saved_at": "x"})
    (found,) = pending_recoveries(folder)
    assert found.path == path
    assert found.problem is not None and "process" in found.problem
    assert found.name == "mine"
    assert pending_recoveries(folder)[0].path == path  # offered again next time


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '"a string"', ""])
def test_a_sidecar_that_is_not_an_object_is_not_fatal(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "recovery"
    _left_behind(folder, "b2", text)
    (found,) = pending_recoveries(folder)
    assert found.problem is not None and "set aside" in found.problem
    assert (folder / "b2.recovery-meta.json.bad").exists()


def _second_window(qtbot, prefs, tmp_path: Path, prompts: FakePrompts) -> MainWindow:  # type: ignore[no-untyped-def]
    window = MainWindow(
        prefs, prompts=prompts, recovery_dir=tmp_path / "other", autosave_timer=FakeTimer()
    )
    prompts.parent = window  # type: ignore[assignment]
    qtbot.addWidget(window)
    return window


def test_recovering_one_keeps_the_others(qtbot, prefs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "recovery"
    first = _left_behind(folder, "c1", {"pid": DEAD, "name": "one", "saved_at": "2026-01-02"})
    other = _left_behind(folder, "c2", {"pid": DEAD, "name": "two", "saved_at": "2026-01-01"})
    prompts = FakePrompts()
    prompts.recover_choice = 0
    window = _second_window(qtbot, prefs, tmp_path, prompts)
    assert window.files.offer_recovery(folder)
    assert not first.exists()
    assert other.exists(), "recovering one deleted another"
    assert [r.path for r in pending_recoveries(folder)] == [other]
    window.document().undo_stack.setClean()  # type: ignore[union-attr]


def test_not_now_keeps_every_recovery_file(qtbot, prefs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "recovery"
    kept = [
        _left_behind(folder, f"d{i}", {"pid": DEAD, "name": f"n{i}", "saved_at": str(i)})
        for i in range(2)
    ]
    window = _second_window(qtbot, prefs, tmp_path, FakePrompts())
    assert not window.files.offer_recovery(folder)
    assert all(path.exists() for path in kept)


def test_only_the_discarded_one_is_deleted(qtbot, prefs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "recovery"
    gone = _left_behind(folder, "e1", {"pid": DEAD, "name": "one", "saved_at": "2"})
    kept = _left_behind(folder, "e2", {"pid": DEAD, "name": "two", "saved_at": "1"})
    prompts = FakePrompts()
    prompts.discard_choices = [0]
    window = _second_window(qtbot, prefs, tmp_path, prompts)
    assert not window.files.offer_recovery(folder)
    assert not gone.exists() and kept.exists()


def test_the_dialog_lists_every_file_and_states_a_problem(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "recovery"
    _left_behind(folder, "f1", {"pid": DEAD, "name": "good", "saved_at": "2"})
    _left_behind(folder, "f2", {"pid": "abc", "name": "bad", "saved_at": "1"})
    found = pending_recoveries(folder)
    dialog = RecoveryDialog(found)
    qtbot.addWidget(dialog)
    texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert len(texts) == 2 and any("no valid process" in t for t in texts)
    dialog.list.setCurrentRow(1)
    dialog.discard_now(found[1])
    assert dialog.list.count() == 1 and dialog.answer.discard == [found[1]]
    dialog.list.setCurrentRow(0)
    qtbot.mouseClick(dialog.recover_button, Qt.MouseButton.LeftButton)
    assert dialog.answer.recover == found[0]


def test_names_from_the_file_are_shown_as_written_never_as_rich_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    from explorer.ui.inspector.fields import section_title

    title = section_title('Asset <img src="http://example.invalid/x.png"><b>bold</b>')
    qtbot.addWidget(title)
    assert title.textFormat() == Qt.TextFormat.PlainText
    assert "<img" in title.text()


def test_dialogs_start_in_documents_or_home_then_the_last_folder_never_the_examples(
    tmp_path: Path,
) -> None:
    from PySide6.QtCore import QSettings

    from explorer.document.files import examples_dir
    from explorer.ui.settings import Preferences

    prefs = Preferences(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    first = Path(prefs.last_directory())
    assert first.is_dir()
    examples = examples_dir()
    assert examples is not None
    prefs.set_last_directory(examples)
    assert Path(prefs.last_directory()) == first  # never the installed examples
    prefs.set_last_directory(tmp_path)
    assert Path(prefs.last_directory()) == tmp_path
