"""The Simulation menu names every clock action with its key; Help lists every key."""

from __future__ import annotations

from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"
KEYS = {"N", "B", "R", "Space", "Home", "C", "F5"}


def _menu(window: MainWindow, title: str) -> QMenu:
    for action in window.menuBar().actions():
        if action.text().replace("&", "") == title:
            menu = action.menu()
            assert isinstance(menu, QMenu)
            return menu
    raise AssertionError(f"no {title} menu")


def test_the_simulation_menu_has_every_clock_action_with_its_key(
    qtbot: QtBot, window: MainWindow
) -> None:
    menu = _menu(window, "Simulation")
    entries = {a.text().partition("\t")[2]: a for a in menu.actions() if not a.isSeparator()}
    assert set(entries) >= KEYS
    assert not entries["N"].isEnabled()  # nothing to simulate without a document
    assert window.open_file(ORDERS)
    assert entries["N"].isEnabled()
    session = window.workspace.simulation.bench.session  # type: ignore[union-attr]
    start = session.now
    for _ in range(3):  # the first event may be at clock.start itself
        entries["N"].trigger()
    assert session.now > start
    moved = session.now
    entries["B"].trigger()
    assert session.now < moved
    entries["F5"].trigger()
    assert window.workspace.simulation.bench.presentation.active  # type: ignore[union-attr]
    entries["F5"].trigger()
    assert not window.workspace.simulation.bench.presentation.active  # type: ignore[union-attr]


def test_help_lists_every_key(qtbot: QtBot, window: MainWindow) -> None:
    from explorer.ui.simulation_menu import ShortcutsDialog

    help_menu = _menu(window, "Help")
    shortcuts = next(a for a in help_menu.actions() if "Keyboard" in a.text())
    shortcuts.trigger()
    dialog = window.findChild(ShortcutsDialog)
    assert dialog is not None and dialog.isVisible()
    rows = dict(dialog.rows())
    assert set(rows) >= KEYS
    assert "Ctrl+S" in rows and "Ctrl+Z" in rows  # the window's own shortcuts too
    assert "Next Event" in rows["N"]
    dialog.close()
