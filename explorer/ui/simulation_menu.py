"""The Simulation menu (every clock action with its key) and Help > Keyboard shortcuts.

The clock's keys are bound by the panes that own them (N, B, R, Space by the clock
bar, Home and C by the timeline, F5 by presentation mode), so the menu names a key
after a tab instead of binding it a second time: two bindings of one key would make
Qt call the shortcut ambiguous and run neither. The help dialog lists those keys
and every shortcut the window's actions carry, read from the actions themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from explorer.ui.actions import ActionRegistry
    from explorer.ui.panels.workbench import Workbench

__all__ = ["CLOCK_ACTIONS", "OTHER_KEYS", "ShortcutsDialog", "register", "shortcut_rows"]

#: (action id, menu text, key, what it does, how the bench does it).
CLOCK_ACTIONS: tuple[tuple[str, str, str, str, Callable[[Workbench], object]], ...] = (
    (
        "sim.next",
        "&Next Event",
        "N",
        "Step to the next instant at which anything happens",
        lambda b: b.clock_bar.step_next(),
    ),
    (
        "sim.back",
        "&Back",
        "B",
        "Undo the last clock move",
        lambda b: b.session.step_back(),
    ),
    (
        "sim.play",
        "&Play / Pause",
        "Space",
        "Play the clock, or pause it",
        lambda b: b.clock_bar.toggle_play(),
    ),
    (
        "sim.reset",
        "&Reset to clock.start",
        "R",
        "Back to the scenario's clock.start",
        lambda b: b.session.reset(),
    ),
    (
        "sim.center",
        "&Centre Timeline on the Clock",
        "C",
        "Scroll the timeline to the clock (timeline focused)",
        lambda b: b.timeline.center_on_clock(),
    ),
    (
        "sim.fit",
        "&Fit Timeline",
        "Home",
        "Show the whole horizon and every lane (timeline focused)",
        lambda b: b.timeline.fit(),
    ),
    (
        "sim.present",
        "Presentation &Mode",
        "F5",
        "Big type, canvas and timeline only; arrows walk the script, Esc leaves",
        lambda b: b.presentation.toggle(),
    ),
)

#: Keys that belong to no menu action: (key, what it does).
OTHER_KEYS: tuple[tuple[str, str], ...] = (
    ("← / →", "Timeline: pan (Shift: by half a screen)"),
    ("+ / −", "Timeline: zoom time in / out"),
    ("↑ / ↓", "Timeline: scroll the lanes"),
    ("Esc", "Timeline: close the pinned run card"),
    ("→ / ←", "Presentation mode: next event / back"),
    ("PgDn / Shift+→", "Presentation mode: next script action"),
    ("Esc / F5", "Presentation mode: leave"),
)


def register(registry: ActionRegistry, bench: Callable[[], Workbench | None]) -> list[str]:
    """Register the clock actions; ``bench`` gives the open document's panes (or None)."""
    ids = []
    for action_id, text, key, tip, call in CLOCK_ACTIONS:

        def run(call: Callable[[Workbench], object] = call) -> None:
            current = bench()
            if current is not None:
                call(current)

        registry.register(action_id, f"{text}\t{key}", run, tip=f"{tip} ({key})")
        ids.append(action_id)

    def navigate_back() -> None:
        current = bench()
        if current is not None:
            current.navigate_back()

    registry.register(
        "sim.navigate_back",
        "Back to the DAG E&xplained Before",
        navigate_back,
        shortcut="Alt+Left",
        tip="After following a cause in the explain pane, explain the DAG you came from",
    )
    ids.append("sim.navigate_back")
    return ids


def shortcut_rows(registry: ActionRegistry) -> list[tuple[str, str]]:
    """(keys, what) for every shortcut of the window: actions first, then the pane keys."""
    rows: list[tuple[str, str]] = []
    for action_id in registry.ids():
        action = registry.action(action_id)
        text, _, named = action.text().partition("\t")
        keys = named or action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            rows.append((keys, text.replace("&", "")))
    rows += list(OTHER_KEYS)
    return rows


class ShortcutsDialog(QDialog):
    """A table of every key: what a new user looks for before the first presentation."""

    def __init__(self, rows: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.table = QTableWidget(len(rows), 2, self)
        self.table.setHorizontalHeaderLabels(["Keys", "Action"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for row, (keys, what) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(what))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 640)

    def rows(self) -> list[tuple[str, str]]:
        def text(row: int, column: int) -> str:
            item = self.table.item(row, column)
            return item.text() if item is not None else ""

        return [(text(r, 0), text(r, 1)) for r in range(self.table.rowCount())]
