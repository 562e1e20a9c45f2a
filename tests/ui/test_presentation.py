"""Presentation mode in the main window: every lane visible, no chrome, captions that say
what a step (forward or back) actually changed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from explorer.document.panels.captions import StepReport, caption
from explorer.document.timeline.timebase import zone_of
from explorer.engine.simulation import Change
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

OR_EXAMPLE = EXAMPLES / "or_and_coalescing.json"


def _settle(qtbot: QtBot) -> None:
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
        qtbot.wait(20)


def _lanes_all_visible(pane) -> bool:  # type: ignore[no-untyped-def]
    _, (y0, y1) = pane.viewbox.viewRange()
    return y0 <= -0.5 and y1 >= len(pane.lanes) - 0.5


@pytest.mark.parametrize("size", [(1472, 920), (1600, 1000), (1280, 720)])
def test_every_lane_fits_and_the_chrome_is_hidden(
    qtbot: QtBot, window: MainWindow, size: tuple[int, int]
) -> None:
    assert window.open_file(OR_EXAMPLE)
    window.resize(*size)
    _settle(qtbot)
    simulation = window.workspace.simulation  # type: ignore[union-attr]
    assert simulation is not None
    bench = simulation.bench
    pane = bench.timeline
    assert len(pane.lanes) >= 7
    bench.presentation.enter()
    _settle(qtbot)
    assert not window.menuBar().isVisible()
    assert all(not bar.isVisible() for bar in window.findChildren(QtWidgets.QToolBar))
    assert not window.statusBar().isVisible()
    assert _lanes_all_visible(pane), pane.viewbox.viewRange()
    # a caption that wraps onto more lines takes height: the lanes still fit
    bench.caption.setText("a long caption " * 40)
    _settle(qtbot)
    assert _lanes_all_visible(pane), pane.viewbox.viewRange()
    bench.presentation.exit()
    _settle(qtbot)
    assert window.menuBar().isVisible() and window.statusBar().isVisible()
    assert all(bar.isVisible() for bar in window.findChildren(QtWidgets.QToolBar))


def test_a_step_where_a_run_starts_says_so(qtbot: QtBot, window: MainWindow) -> None:
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    bench = window.workspace.simulation.bench  # type: ignore[union-attr]
    bench.presentation.enter()
    session = bench.session
    texts = []
    for _ in range(12):
        bench.presentation.next_event()
        texts.append(bench.caption.text())
    started = [t for t in texts if "started" in t]
    assert started, texts
    assert not any("nothing visible changed" in t for t in started)
    before_back = session.now
    bench.presentation.previous()
    assert session.now < before_back
    text = bench.caption.text()
    assert "nothing visible changed" not in text
    assert text.startswith("← back")
    bench.presentation.exit()


def test_the_caption_of_a_run_start_names_the_run() -> None:
    at = datetime(2024, 3, 9, 5, tzinfo=UTC)
    report = StepReport(at, at, [Change("run_state", at, "ingest_orders", None, "running")])
    text = caption(report, zone_of("UTC"))
    assert "ingest_orders: run started" in text
    assert "nothing visible changed" not in text
