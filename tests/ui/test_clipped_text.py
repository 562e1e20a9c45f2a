"""Nothing the main window writes is cut at 1280x720: the progress
text of a long run, the History entries, the runs table's cells and the presentation
clock's label. Each is measured against the room the widget actually got."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.ui.commands import EditScenario
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

pytestmark = pytest.mark.gui

ROLLUP = EXAMPLES / "ny_rollup_dst.json"


def _settle(qtbot: QtBot) -> None:
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
        qtbot.wait(10)


@pytest.fixture
def small(qtbot: QtBot, window: MainWindow) -> MainWindow:
    assert window.open_file(ROLLUP)
    window.resize(1280, 720)
    _settle(qtbot)
    return window


def test_the_progress_text_of_a_long_run_is_whole(
    qtbot: QtBot, small: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = small.workspace.simulation.bench  # type: ignore[union-attr]
    session = bench.session
    session.chunk_s = 0.0  # one instant per slice
    # The next slice is held, not queued: the run stays busy while we look, however
    # fast the engine gets through the example (it once finished while we settled).
    held: list[object] = []
    monkeypatch.setattr(session, "_defer", held.append)
    session.run_to(session.until)
    assert session.busy
    _settle(qtbot)
    bar = bench.clock_bar.progress
    assert bar.isVisible()
    text = bar.text()
    assert text.startswith("simulating…")
    needed = bar.fontMetrics().horizontalAdvance("simulating… 100%")
    assert bar.width() >= needed + 12, (bar.width(), needed)
    assert held  # the run was cut into slices, the next one waiting
    session.cancel()


def test_history_entries_are_never_cut(qtbot: QtBot, small: MainWindow) -> None:
    document = small.document()
    assert document is not None
    long_text = "Edit schedule of ingest_hourly_orders: cron '0 * * * *' to '30 */2 * * 1-5'"
    document.push(EditScenario(document, document.scenario, long_text))
    _settle(qtbot)
    view = small.workspace.history  # type: ignore[union-attr]
    model = view.model()
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == long_text)
    index = model.index(row, 0)
    rect = view.visualRect(index)
    assert rect.width() < view.fontMetrics().horizontalAdvance(long_text)  # a narrow dock
    flags = int(QtCore.Qt.TextFlag.TextWordWrap | QtCore.Qt.TextFlag.TextWrapAnywhere)
    needed = view.fontMetrics().boundingRect(
        QtCore.QRect(0, 0, rect.width() - 8, 10_000), flags, long_text
    )
    assert rect.height() >= needed.height(), (rect, needed)  # wrapped onto enough lines
    assert view.entry_tooltip(rect.center()) == long_text


def test_runs_table_cells_fit_or_say_everything_in_their_tooltip(
    qtbot: QtBot, small: MainWindow
) -> None:
    bench = small.workspace.simulation.bench  # type: ignore[union-attr]
    bench.tabs.setCurrentWidget(bench.table)
    session = bench.session
    session.step_next()  # the first runs size the columns (EST, 09 Mar)
    _settle(qtbot)
    session.run_to(session.start + timedelta(days=3))  # later rows: EDT, longer text
    table = bench.table
    view, proxy = table.view, table.proxy
    view.scrollToBottom()
    last = proxy.columnCount() - 1  # the stretched last column

    def every_column_fits() -> bool:
        return all(view.sizeHintForColumn(c) <= view.columnWidth(c) for c in range(last))

    qtbot.waitUntil(every_column_fits, timeout=5000)  # columns grow once the steps settle
    for row in range(max(0, proxy.rowCount() - 20), proxy.rowCount()):
        for column in range(proxy.columnCount()):
            index = proxy.index(row, column)
            shown = str(index.data())
            tip = str(index.data(QtCore.Qt.ItemDataRole.ToolTipRole))
            assert shown in tip, (shown, tip)


def test_presentation_clock_label_stays_inside_the_plot(qtbot: QtBot, small: MainWindow) -> None:
    bench = small.workspace.simulation.bench  # type: ignore[union-attr]
    pane = bench.timeline
    bench.presentation.enter()
    _settle(qtbot)
    session = bench.session
    (x0, x1), _ = pane.viewbox.viewRange()
    for fraction in (0.05, 0.3, 0.45, 0.5, 0.55, 0.7, 0.95):
        target = x0 + (x1 - x0) * fraction
        session.run_to(session.start + timedelta(seconds=target - session.start.timestamp()))
        pane.viewbox.setXRange(x0, x1, padding=0)
        _settle(qtbot)
        label = pane.clock_line.label.sceneBoundingRect()
        plot = pane.viewbox.sceneBoundingRect()
        assert plot.left() - 1 <= label.left() and label.right() <= plot.right() + 1, (
            fraction,
            label,
            plot,
        )
    bench.presentation.exit()


def test_presentation_hides_every_dock_but_the_timeline(qtbot: QtBot, small: MainWindow) -> None:
    bench = small.workspace.simulation.bench  # type: ignore[union-attr]
    bench.presentation.enter()
    _settle(qtbot)
    shown = [
        d.objectName()
        for d in small.findChildren(QtWidgets.QDockWidget)
        if d.isVisible() and d is not small.timeline_dock
    ]
    assert shown == []
    bench.presentation.exit()
    _settle(qtbot)
    assert small.findChild(QtWidgets.QDockWidget, "expectationsDock").isVisible()


def test_a_pinned_run_card_shows_every_row(qtbot: QtBot, window: MainWindow) -> None:
    from datetime import UTC, datetime

    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    window.resize(1600, 1000)
    _settle(qtbot)
    bench = window.workspace.simulation.bench  # type: ignore[union-attr]
    bench.session.run_to(datetime(2024, 3, 11, 9, tzinfo=UTC))
    pane = bench.timeline
    run = bench.session.sim.dags["ingest_orders"].runs[2]  # failed by the file's override
    pane.select_run(run.dag_id, run.run_id, emit=True)
    pane.fit()
    _settle(qtbot)
    right = QtCore.QPoint(pane.width() - pane.run_card.sizeHint().width() - 60, 40)
    assert pane.pin_card(run.dag_id, run.run_id, right)
    pane.dag_selected.emit("orders_mart")
    _settle(qtbot)
    card = pane.run_card
    qtbot.mouseClick(card.context_button, QtCore.Qt.MouseButton.LeftButton)  # open the context
    _settle(qtbot)
    lines = card.lines()
    assert card.isVisible() and lines[lines.index("events consumed") + 1] == "0"
    assert any(line.strip() == "triggering_asset_events" for line in lines)  # context rows last
    assert card.height() >= card.sizeHint().height(), (card.size(), card.sizeHint())


def test_presentation_type_in_the_lanes_shrinks_with_them(qtbot: QtBot, window: MainWindow) -> None:
    """At 1280x720 every lane fits only shrunk: "24 h", "next: 24 h" and the "no interval"
    badges drawn at presentation size ran over the lanes above and below."""
    from PySide6 import QtGui

    from explorer.ui.timeline.style import PRESENTATION

    assert window.open_file(EXAMPLES / "or_and_coalescing.json")
    window.resize(1280, 720)
    _settle(qtbot)
    bench = window.workspace.simulation.bench  # type: ignore[union-attr]
    pane = bench.timeline
    bench.presentation.enter()
    _settle(qtbot)
    _, (y0, y1) = pane.viewbox.viewRange()
    lane_px = pane.viewbox.height() / (y1 - y0)
    assert lane_px < PRESENTATION.lane_px  # shrunk to fit every lane
    for item in (pane.runs_item, pane.overlay_item):
        font = QtGui.QFont()
        font.setPointSizeF(item.style.font_pt * 0.85)
        assert QtGui.QFontMetricsF(font).height() <= lane_px * 0.5, (item, lane_px)
    bench.presentation.exit()
    _settle(qtbot)
    assert pane.runs_item.style == pane.style_  # the normal look back whole
