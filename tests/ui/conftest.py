"""Fixtures for widget tests: isolated settings, canned answers, a timer fired by hand.

No test reads or writes the user's real settings (``Preferences`` gets an
INI file in ``tmp_path``), no dialog blocks (questions get canned answers;
error boxes are non-blocking and are found and closed by the test), and no
test sleeps (the autosave timer is fired by hand).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QPoint, QPointF, QSettings, QStandardPaths, Qt, Signal
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from explorer.ui.autosave import Recovery
from explorer.ui.dialogs import Prompts, SaveAnswer
from explorer.ui.main_window import MainWindow
from explorer.ui.recovery_dialog import RecoveryAnswer
from explorer.ui.session import SimulationSession
from explorer.ui.settings import Preferences

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "scenarios"

QStandardPaths.setTestModeEnabled(True)


@pytest.fixture(autouse=True)
def whole_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock move finishes before it returns unless a test asks for slices (``chunk_ms``).

    A slice ends by wall time, so on a loaded machine a move the test expects to be
    done could still be under way: widget tests must never race the wall clock.
    """
    monkeypatch.setattr(SimulationSession, "DEFAULT_CHUNK_MS", math.inf)


class FakeTimer(QObject):
    """Stands in for the autosave QTimer: the test calls :meth:`fire`."""

    timeout = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.interval: int | None = None
        self.running = False

    def start(self, msec: int) -> None:
        self.interval, self.running = msec, True

    def stop(self) -> None:
        self.running = False

    def fire(self) -> None:
        self.timeout.emit()


class FakePrompts(Prompts):
    """Real (non-blocking) error boxes; canned answers to the questions that would block."""

    def __init__(self, parent: object = None) -> None:  # parent set by the window later
        self.parent = parent  # type: ignore[assignment]
        self.boxes: list[QMessageBox] = []
        self.save_answers: deque[SaveAnswer] = deque()
        self.open_paths: deque[Path | None] = deque()
        self.save_paths: deque[Path | None] = deque()
        self.recover_choice: int | None = None
        self.discard_choices: list[int] = []
        self.asked: list[str] = []
        self.errors: list[tuple[str, str]] = []

    def _box(self, icon, name, title, text, details):  # type: ignore[no-untyped-def]
        self.errors.append((title, text))
        return super()._box(icon, name, title, text, details)

    def ask_save_changes(self, name: str) -> SaveAnswer:
        self.asked.append(f"save? {name}")
        return self.save_answers.popleft() if self.save_answers else "discard"

    def ask_recover(self, recoveries: list[Recovery]) -> RecoveryAnswer:
        self.asked.append(f"recover? {len(recoveries)}")
        return RecoveryAnswer(
            None if self.recover_choice is None else recoveries[self.recover_choice],
            [recoveries[i] for i in self.discard_choices],
        )

    def open_path(self, folder: str) -> Path | None:
        self.asked.append("open?")
        return self.open_paths.popleft() if self.open_paths else None

    def save_path(self, folder: str, suggested: str) -> Path | None:
        self.asked.append(f"save as? {suggested}")
        return self.save_paths.popleft() if self.save_paths else None

    def close_boxes(self) -> None:
        for box in list(self.boxes):
            box.done(0)


@pytest.fixture
def settings_path(tmp_path: Path) -> Path:
    return tmp_path / "settings.ini"


@pytest.fixture
def prefs(settings_path: Path) -> Preferences:
    return Preferences(QSettings(str(settings_path), QSettings.Format.IniFormat))


@pytest.fixture
def prompts() -> FakePrompts:
    return FakePrompts()


@pytest.fixture
def timer() -> FakeTimer:
    return FakeTimer()


@pytest.fixture
def window(qtbot, prefs, prompts, timer, tmp_path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    win = MainWindow(
        prefs, prompts=prompts, recovery_dir=tmp_path / "recovery", autosave_timer=timer
    )
    prompts.parent = win
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    prompts.close_boxes()
    document = win.document()
    if document is not None:
        document.undo_stack.setClean()
    win.close()


# ----------------------------------------------------------------------------- gestures


def viewport_point(window: MainWindow, scene_pos: QPointF) -> QPoint:
    assert window.workspace is not None
    return window.workspace.view.mapFromScene(scene_pos)


def drag(window: MainWindow, start: QPointF, end: QPointF, steps: int = 6) -> None:
    """Press at ``start``, move in steps, release at ``end`` (scene coordinates)."""
    assert window.workspace is not None
    viewport = window.workspace.view.viewport()
    a, b = viewport_point(window, start), viewport_point(window, end)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, steps + 1):
        p = a + (b - a) * i / steps
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)


def click(window: MainWindow, pos: QPointF, modifier=Qt.KeyboardModifier.NoModifier) -> None:  # type: ignore[no-untyped-def]
    assert window.workspace is not None
    viewport = window.workspace.view.viewport()
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, modifier, viewport_point(window, pos))
