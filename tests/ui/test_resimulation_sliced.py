"""Re-simulation after an edit, in the main window: sliced, with progress, the views
following the slices, the window answering meanwhile. An edit of clock.start reaches
clock.start: everything is re-simulated, in slices too. Engine work is counted in slices
and runs, never timed."""

from __future__ import annotations

from datetime import UTC, timedelta
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QLineEdit
from pytestqt.qtbot import QtBot

from explorer.graph.generate import synthetic_scenario
from explorer.scenario.save import save_scenario
from explorer.ui.main_window import MainWindow


def opened_days_in(window: MainWindow, qtbot: QtBot, tmp_path: Path, days: int):  # type: ignore[no-untyped-def]
    path = tmp_path / "many.json"
    save_scenario(synthetic_scenario(120), path)
    assert window.open_file(path)
    panes = window.workspace.simulation  # type: ignore[union-attr]
    session = panes.session
    session.run_to(session.start + timedelta(days=days))
    qtbot.waitUntil(lambda: not session.busy, timeout=60_000)
    session.chunk_s = 0.0  # from now on one instant a slice, whatever the machine
    session.redraw_every_s = 0.0
    return panes


def follow(window: MainWindow, panes) -> dict[str, list]:  # type: ignore[no-untyped-def]
    """What the user sees while the re-simulation runs: the progress bar, the runs drawn
    on the timeline, and whether the event loop (a zero timer) gets its turns."""
    seen: dict[str, list] = {"progress": [], "runs": [], "ticks": []}
    bar = panes.bench.clock_bar.progress

    def look(_share: float) -> None:
        seen["progress"].append(bar.value() if bar.isVisible() else None)
        seen["runs"].append(len(panes.bench.timeline.runs))

    panes.session.progress.connect(look)
    timer = QTimer(window)
    timer.timeout.connect(lambda: seen["ticks"].append(1))
    timer.start(0)
    seen["timer"] = [timer]
    return seen


def test_an_edit_of_clock_start_re_simulates_everything_in_slices(
    window: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    panes = opened_days_in(window, qtbot, tmp_path, 3)
    session = panes.session
    clock = session.now
    old_start = session.start
    ws = window.workspace
    assert ws is not None
    ws.scene.clearSelection()  # the scenario's own settings in the inspector
    field = ws.inspector.findChild(QLineEdit, "clock_start")
    assert field is not None and field.isVisible()
    earlier = (old_start - timedelta(hours=6)).astimezone(UTC)
    seen = follow(window, panes)
    field.selectAll()
    QTest.keyClicks(field, earlier.strftime("%Y-%m-%dT%H:%M:%SZ"))
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert window.document().scenario.clock.start.value == earlier  # type: ignore[union-attr]
    assert session.busy  # not done in one go: slices follow
    qtbot.waitUntil(lambda: not session.busy, timeout=120_000)
    seen["timer"][0].stop()
    assert session.resumed_at is None  # it reaches clock.start: nothing could be kept
    assert session.start == earlier and session.now == clock  # back where the clock was
    shown = [p for p in seen["progress"] if p is not None]
    assert len(shown) > 20 and any(0 < p < 1000 for p in shown)  # the bar filled as it went
    assert shown == sorted(shown)
    assert len(set(seen["runs"])) > 5  # the timeline grew with the slices
    assert len(seen["ticks"]) > 20  # the window answered between them
    assert not panes.bench.clock_bar.progress.isVisible()


def test_an_edit_of_an_early_dag_re_simulates_in_slices_with_progress(
    window: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    panes = opened_days_in(window, qtbot, tmp_path, 3)
    session = panes.session
    clock = session.now
    document = window.document()
    assert document is not None
    dag = document.scenario.dags[0]
    ws = window.workspace
    assert ws is not None
    ws.scene.select_nodes([f"dag:{dag.dag_id}"])
    catchup = ws.inspector.findChild(QCheckBox, "catchup")
    assert catchup is not None and catchup.isVisible()
    seen = follow(window, panes)
    catchup.click()  # reaches back to the DAG's first parse, at clock.start
    assert document.scenario.dags[0].catchup is not dag.catchup
    assert session.busy
    qtbot.waitUntil(lambda: not session.busy, timeout=120_000)
    seen["timer"][0].stop()
    assert session.now == clock
    shown = [p for p in seen["progress"] if p is not None]
    assert len(shown) > 20 and any(0 < p < 1000 for p in shown)
    assert len(set(seen["runs"])) > 5
    assert len(seen["ticks"]) > 20
