"""The explain pane's checks at 1280x720: beside the
timeline the pane is narrow, and each check's detail was cut to its first line behind a
horizontal scroll bar ("cached next run: logical_date …")."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES


def test_every_check_detail_wraps_whole_in_a_narrow_pane(qtbot: QtBot, window: MainWindow) -> None:
    window.resize(1280, 720)
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    panes = window.workspace.simulation  # type: ignore[union-attr]
    panes.session.step_next()
    panes.session.step_next()
    for _ in range(5):
        QApplication.processEvents()
    tree = panes.bench.explain.conditions
    assert tree.isVisible() and tree.topLevelItemCount() >= 5
    header = tree.header()
    # every column inside the pane: nothing to scroll to
    assert sum(header.sectionSize(i) for i in range(4)) <= tree.viewport().width()
    assert not tree.horizontalScrollBar().isVisible()
    width = header.sectionSize(3)
    metrics = tree.fontMetrics()
    multi_line = 0
    for i in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(i)
        needed = metrics.boundingRect(
            QRect(0, 0, width - 10, 100_000), Qt.TextFlag.TextWordWrap, item.text(3)
        ).height()
        assert tree.visualItemRect(item).height() >= needed, item.text(3)
        multi_line += needed > metrics.height()
    assert multi_line >= 2  # the pane is narrow: some details do take several lines
