"""The timeline after edits: a new lane is on screen, a moved horizon is in view."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _settle(qtbot: QtBot) -> None:
    for _ in range(4):
        QApplication.processEvents()
        qtbot.wait(20)


def test_a_lane_added_by_an_edit_is_on_screen(qtbot: QtBot, window: MainWindow) -> None:
    assert window.open_file(ORDERS)
    window.resize(1600, 1000)
    _settle(qtbot)
    ws = window.workspace
    assert ws is not None and ws.simulation is not None
    pane = ws.simulation.bench.timeline
    before = {lane.key for lane in pane.lanes}
    for _ in range(4):  # the user scrolled the lanes down
        pane.handle_key(Qt.Key.Key_Down)
    _, (y0, _y1) = pane.viewbox.viewRange()
    assert y0 > 0.5  # the first lane is off-screen
    dag = ws.add_at("dag", QPointF(0, 2000))
    assert dag is not None
    _settle(qtbot)
    (new,) = [lane.key for lane in pane.lanes if lane.key not in before]
    index = pane.lane_index(new)
    assert index is not None
    _, (y0, y1) = pane.viewbox.viewRange()
    assert y0 <= index - 0.5 and index + 0.5 <= y1, (y0, y1, index)


def test_moving_clock_start_brings_the_new_horizon_and_the_clock_into_view(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.open_file(ORDERS)
    _settle(qtbot)
    ws = window.workspace
    assert ws is not None and ws.simulation is not None
    ws.scene.clearSelection()  # the scenario form
    start = ws.inspector.current.findChild(QLineEdit, "clock_start")  # type: ignore[union-attr]
    assert start is not None
    start.setFocus()
    start.selectAll()
    QTest.keyClicks(start, "2024-01-02T00:00:00Z")  # two months earlier
    QTest.keyClick(start, Qt.Key.Key_Return)
    _settle(qtbot)
    bench = ws.simulation.bench
    assert bench.session.start == datetime(2024, 1, 2, tzinfo=UTC)
    x0, x1 = bench.timeline.x_range()
    assert x0 <= datetime(2024, 1, 2, tzinfo=UTC) < x1  # the new horizon is what shows
    assert x0 <= bench.session.now <= x1  # and the clock with it


def test_no_interval_is_said_once_per_lane() -> None:
    from math import inf

    import numpy as np

    from explorer.ui.timeline.items import badge_labels

    lanes = np.array([0.0, 0.0, 0.0, 2.0, 2.0])
    keys = ["", "", "", "2024-03-09", "2024-03-10"]
    room = np.array([200.0, 200.0, inf, 200.0, inf])
    texts = badge_labels(lanes, keys, room, lambda t: 7.0 * len(t))
    assert texts == [
        "no interval",
        None,  # a square: the lane said it already
        None,
        "no interval · 2024-03-09",
        "2024-03-10",  # only its key
    ]


def test_the_paused_label_stays_inside_its_span() -> None:
    from explorer.ui.timeline.bands import paused_label_x

    # the view (100..900 px) starts after the unpause (at 40 px): no label
    assert paused_label_x(-5000.0, 40.0, 100.0, 900.0, 50.0) is None
    # a span running through the view: labelled at the view's left edge
    assert paused_label_x(-5000.0, 2000.0, 100.0, 900.0, 50.0) == 104.0
    # a span that begins in the view: at its start
    assert paused_label_x(300.0, 2000.0, 100.0, 900.0, 50.0) == 304.0
    # too short a piece in view for the word: no label rather than one past the unpause
    assert paused_label_x(-5000.0, 130.0, 100.0, 900.0, 50.0) is None
