"""Presentation mode, walked with the keyboard as a presenter does: every → press moves
the clock to where something changes, and its caption says what; the canvas's filter bar
is chrome and hides with the rest."""

from __future__ import annotations

from itertools import pairwise

from PySide6 import QtWidgets
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES


def test_every_right_arrow_press_moves_to_something_that_changes(
    qtbot: QtBot, window: MainWindow
) -> None:
    """In the orders mart, a run's success at 00:05 was followed by the scheduler's loop
    a second later: one press in two moved the clock by a second, said "nothing visible
    changed", and showed the same minute again."""
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    bench = window.workspace.simulation.bench  # type: ignore[union-attr]
    session = bench.session
    bench.presentation.enter()
    target = bench.timeline.plot
    target.setFocus()
    texts, clocks = [], [session.now]
    for _ in range(10):
        QTest.keyClick(target, Qt.Key.Key_Right)
        texts.append(bench.caption.text())
        clocks.append(session.now)
    assert not any("nothing visible changed" in t for t in texts), texts
    # (the first press processes clock.start itself, where the clock already stands)
    assert all(b > a for a, b in pairwise(clocks[1:])), (clocks, texts)
    # the minute each caption names differs from the one before (no "00:05" twice)
    minutes = [t.split(" — ")[0] for t in texts]
    assert len(set(minutes)) == len(minutes), minutes
    bench.presentation.exit()


def test_the_filter_bar_hides_with_the_chrome(qtbot: QtBot, window: MainWindow) -> None:
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    ws = window.workspace
    assert ws is not None and ws.focus_bar.isVisible()
    ws.simulation.bench.presentation.enter()  # type: ignore[union-attr]
    QtWidgets.QApplication.processEvents()
    assert not ws.focus_bar.isVisible()
    ws.simulation.bench.presentation.exit()  # type: ignore[union-attr]
    QtWidgets.QApplication.processEvents()
    assert ws.focus_bar.isVisible()


def test_closing_while_presenting_saves_the_users_docks_not_the_shows(
    qtbot: QtBot, window: MainWindow
) -> None:
    """The window's layout is saved on close; closed in presentation mode, it was saved
    with every dock, the menu bar's neighbours and the toolbar hidden, and the next start
    came up without them."""
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    QtWidgets.QApplication.processEvents()
    shown = {d.objectName() for d in window.findChildren(QtWidgets.QDockWidget) if d.isVisible()}
    assert {"inspectorDock", "timelineDock", "explainDock"} <= shown
    window.workspace.simulation.bench.presentation.enter()  # type: ignore[union-attr]
    QtWidgets.QApplication.processEvents()
    assert not window.inspector_dock.isVisible()
    window.save_window()
    saved = window.prefs.window_state()
    assert saved is not None
    fresh = MainWindow(window.prefs, prompts=window.prompts)
    qtbot.addWidget(fresh)
    fresh.resize(1400, 900)
    fresh.show()
    assert fresh.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    QtWidgets.QApplication.processEvents()
    again = {d.objectName() for d in fresh.findChildren(QtWidgets.QDockWidget) if d.isVisible()}
    assert {"inspectorDock", "timelineDock", "explainDock"} <= again
    assert all(bar.isVisible() for bar in fresh.findChildren(QtWidgets.QToolBar))
    fresh.document().undo_stack.setClean()  # type: ignore[union-attr]
    fresh.close()
