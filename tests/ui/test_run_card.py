"""The run card: hovering a run shows its facts in the display zone and UTC, a click pins
it and selects the run in the runs table; the explain pane sits beside the timeline."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.engine.run_card import run_card
from explorer.engine.simulation import Simulation
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from explorer.ui.main_window import MainWindow
from explorer.ui.timeline import RunsTable, TimelinePane, link_selection
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"

# Tooltips (of lanes, events) are top-level windows the offscreen platform cannot raise.
pytestmark = pytest.mark.qt_log_ignore(r"does not support raise\(\)")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def orders_sim(until: datetime) -> Simulation:
    sim = make_simulation(build_engine_inputs(load_scenario(ORDERS)))
    sim.advance_to(until)
    return sim


@pytest.fixture(autouse=True)
def every_move_counts() -> Iterator[None]:
    """pyqtgraph's scene drops a mouse move that comes sooner than 1/``mouseRateLimit``
    seconds after the last one; the moves sent here come microseconds apart, so a
    second hover was sometimes dropped (the card stayed up). Off for these tests."""
    before = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", before)


def viewport_pos(pane: TimelinePane, x: float, lane: float) -> QtCore.QPoint:
    scene = pane.viewbox.mapViewToScene(QtCore.QPointF(x, lane))
    return pane.plot.mapFromScene(scene)


def hover(qtbot: QtBot, pane: TimelinePane, x: float, lane: float) -> QtCore.QPoint:
    pos = viewport_pos(pane, x, lane)
    QtWidgets.QApplication.sendEvent(
        pane.plot.viewport(),
        QtGui.QMouseEvent(
            QtCore.QEvent.Type.MouseMove,
            QtCore.QPointF(pos),
            QtCore.QPointF(pane.plot.viewport().mapToGlobal(pos)),
            QtCore.Qt.MouseButton.NoButton,
            QtCore.Qt.MouseButton.NoButton,
            QtCore.Qt.KeyboardModifier.NoModifier,
        ),
    )
    return pos


@pytest.fixture
def pane(qtbot: QtBot) -> TimelinePane:
    widget = TimelinePane()
    qtbot.addWidget(widget)
    widget.resize(1300, 560)
    widget.set_horizon(utc(2024, 3, 8, 5), utc(2024, 3, 13, 4))
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_hovering_a_run_shows_its_card_in_the_display_zone_and_utc(
    qtbot: QtBot, pane: TimelinePane
) -> None:
    sim = orders_sim(utc(2024, 3, 12))
    pane.show_simulation(sim)
    assert pane.display_zone == "America/New_York"
    run = sim.dags["ingest_orders"].runs[2]  # the 23 h interval of 2024-03-10
    assert run.data_interval is not None
    x = (run.data_interval.start.timestamp() + run.data_interval.end.timestamp()) / 2
    lane = pane.lane_index("ingest_orders")
    assert lane is not None
    hover(qtbot, pane, x, lane - 0.2)
    card = pane.run_card
    assert card.isVisible() and not card.pinned
    text = "\n".join(card.lines())
    assert card.lines()[0] == f"ingest_orders · {run.run_id}"
    for field in (
        "run_type",
        "state",
        "logical_date",
        "data_interval_start",
        "data_interval_end",
        "interval length",
        "run_after",
        "created_at",
        "start_date",
        "end_date",
        "partition_key",
        "events consumed",
    ):
        assert field in text, field
    assert "America/New_York" in text and "UTC" in text
    assert "23 h" in text  # DST-4: the spring-forward day is 23 hours long
    assert "Sun 10 Mar 2024 00:00:00 EST" in text and "2024-03-10 05:00:00Z" in text
    assert "Mon 11 Mar 2024 00:00:00 EDT" in text and "2024-03-11 04:00:00Z" in text
    # the card sits inside the window, beside the pointer
    assert card.parentWidget() is pane.window()
    assert card.parentWidget().rect().contains(card.geometry())
    # moving off every run hides an unpinned card
    pane.center_on(utc(2024, 3, 8, 6))
    away = utc(2024, 3, 8, 1)
    target = pane.target_at(away, "ingest_orders")
    assert target is not None and target.run is None
    hover(qtbot, pane, away.timestamp(), lane)
    assert not card.isVisible()


def test_clicking_a_run_pins_its_card_and_selects_it_in_the_runs_table(
    qtbot: QtBot, pane: TimelinePane
) -> None:
    sim = orders_sim(utc(2024, 3, 13))
    table = RunsTable()
    qtbot.addWidget(table)
    link_selection(pane, table)
    pane.show_simulation(sim)
    table.refresh(sim)
    consumer = sim.dags["orders_mart"].runs[-1]
    assert len(consumer.consumed_asset_events) == 3
    lane = pane.lane_index("orders_mart")
    assert lane is not None
    pos = viewport_pos(pane, consumer.created_at.timestamp(), lane - 0.2)
    qtbot.mouseClick(pane.plot.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    card = pane.run_card
    assert card.isVisible() and card.pinned
    assert table.selected_run() == ("orders_mart", consumer.run_id)
    text = "\n".join(card.lines())
    assert "events consumed" in text and "3" in text
    expected = run_card(consumer, sim.state.assets.events)
    assert len(expected.consumed) == 3
    for event in expected.consumed:
        assert f"#{event.id} {event.asset}" in text
    # a pinned card stays while the mouse moves elsewhere
    hover(qtbot, pane, consumer.created_at.timestamp() - 86400, lane - 0.2)
    assert card.isVisible() and card.lines()[0] == f"orders_mart · {consumer.run_id}"
    # the display zone changes what it says
    pane.set_display_zone("UTC")
    assert "America/New_York" not in "\n".join(card.lines())
    # Esc closes it
    card.close_button.click()
    assert not card.isVisible() and not card.pinned


def test_a_run_on_the_timeline_shows_no_pane_tooltip(qtbot: QtBot, pane: TimelinePane) -> None:
    """The dock's own tooltip ("The timeline pane ...") must not cover the run under the mouse."""
    pane.setToolTip("The timeline pane (drag its title to move it)")
    sim = orders_sim(utc(2024, 3, 12))
    pane.show_simulation(sim)
    run = sim.dags["ingest_orders"].runs[2]
    lane = pane.lane_index("ingest_orders")
    assert lane is not None and run.data_interval is not None
    pos = viewport_pos(pane, run.data_interval.start.timestamp() + 3600, lane - 0.2)
    viewport = pane.plot.viewport()
    event = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, pos, viewport.mapToGlobal(pos))
    QtWidgets.QApplication.sendEvent(viewport, event)
    assert QtWidgets.QToolTip.text() != "The timeline pane (drag its title to move it)"
    QtWidgets.QToolTip.hideText()


def test_the_explain_pane_sits_beside_the_timeline_and_follows_the_run(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.open_file(ORDERS)
    window.resize(1600, 1000)
    qtbot.wait(50)
    timeline_dock, explain_dock = window.timeline_dock, window.explain_dock
    assert window.tabifiedDockWidgets(timeline_dock) == []
    assert timeline_dock.isVisible() and explain_dock.isVisible()
    t, e = timeline_dock.geometry(), explain_dock.geometry()
    assert e.left() >= t.right() - 2  # beside it, on the right
    assert e.top() < t.bottom() and t.top() < e.bottom()  # at the same height
    assert window.workspace is not None and window.workspace.simulation is not None
    bench = window.workspace.simulation.bench
    assert bench.explain.isVisible()  # the "why" is what the dock shows first
    session = bench.session
    session.scrub_to(utc(2024, 3, 12))
    sim = session.sim
    pane = bench.timeline
    run = sim.dags["ingest_orders"].runs[2]
    lane = pane.lane_index("ingest_orders")
    assert lane is not None and run.data_interval is not None
    pane.center_on(run.data_interval.start)
    pos = viewport_pos(pane, run.data_interval.start.timestamp() + 3600, lane - 0.2)
    qtbot.mouseClick(pane.plot.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert pane.run_card.pinned
    assert bench.table.selected_run() == ("ingest_orders", run.run_id)
    assert bench.explain.dag_box.currentText() == "ingest_orders"
    assert bench.explain.isVisible()


def test_a_move_off_a_run_dropped_by_the_rate_limit_still_hides_the_card(
    qtbot: QtBot, pane: TimelinePane
) -> None:
    """pyqtgraph passes on at most ``mouseRateLimit`` moves a second and drops the rest:
    a pointer that leaves a run and stops before the next move is passed on must not
    leave the run's card up (the pane looks at the last move once the pointer rests)."""
    sim = orders_sim(utc(2024, 3, 12))
    pane.show_simulation(sim)
    run = sim.dags["ingest_orders"].runs[2]
    assert run.data_interval is not None
    x = (run.data_interval.start.timestamp() + run.data_interval.end.timestamp()) / 2
    lane = pane.lane_index("ingest_orders")
    assert lane is not None
    pg.setConfigOption("mouseRateLimit", 1)  # one move a second: the next one is dropped
    hover(qtbot, pane, x, lane - 0.2)
    card = pane.run_card
    assert card.isVisible()
    pane.center_on(utc(2024, 3, 8, 6))
    away = utc(2024, 3, 8, 1)  # before the first run: no run there
    target = pane.target_at(away, "ingest_orders")
    assert target is not None and target.run is None
    hover(qtbot, pane, away.timestamp(), lane)
    assert card.isVisible()  # the scene dropped that move
    qtbot.waitUntil(lambda: not card.isVisible(), timeout=2000)
