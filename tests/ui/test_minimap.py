"""The minimap of a big graph shows the whole graph, stays a corner overlay that hides
when the graph fits, and is toggled from View > Minimap or Ctrl+Shift+M (at
2,000 DAGs it showed a meaningless 1:1 fragment)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from explorer.graph.generate import synthetic_scenario
from explorer.scenario import save_scenario
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

pytestmark = pytest.mark.gui


def _accent_pixels(widget: QtWidgets.QWidget, colour: QtGui.QColor) -> int:
    image = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    found = 0
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if (
                abs(c.red() - colour.red())
                + abs(c.green() - colour.green())
                + abs(c.blue() - colour.blue())
                < 30
            ):
                found += 1
    return found


@pytest.fixture
def big(window: MainWindow, tmp_path: Path, qtbot: QtBot) -> MainWindow:
    path = tmp_path / "big.json"
    save_scenario(synthetic_scenario(600), path)
    window.files.background_bytes = 1 << 40  # opened at once: this test is about the canvas
    # opened while the window is not on screen (minimised, or on X before the new panes
    # are exposed): the minimap was asked to fit while invisible, and never fitted again
    window.hide()
    assert window.open_file(path)
    window.show()
    qtbot.waitExposed(window)
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
    return window


def test_the_minimap_shows_the_whole_graph_in_a_corner(big: MainWindow) -> None:
    ws = big.workspace
    assert ws is not None
    minimap = ws.view.minimap
    assert minimap.isVisible()  # the graph does not fit the view at a readable zoom
    graph = ws.scene.itemsBoundingRect()
    shown = minimap.mapToScene(minimap.viewport().rect()).boundingRect()
    assert shown.contains(graph), (shown, graph)
    # scaled to the graph: not a fragment, and not a speck in an empty frame either
    assert shown.width() < graph.width() * 1.5 or shown.height() < graph.height() * 1.5
    # the nodes are drawn (in the DAG accent colour) all over it
    accent = ws.scene.colors.accent("dag")
    assert _accent_pixels(minimap, accent) > 200
    # a corner overlay, inside the canvas view
    viewport = ws.view.viewport().geometry()
    assert viewport.contains(minimap.geometry())
    assert minimap.width() < viewport.width() / 3


def test_the_minimap_hides_when_the_graph_fits_and_toggles_with_its_shortcut(
    big: MainWindow, qtbot: QtBot
) -> None:
    ws = big.workspace
    assert ws is not None
    minimap = ws.view.minimap
    assert minimap.isVisible()
    ws.view.setFocus()
    QTest.keyClick(
        ws.view,
        QtCore.Qt.Key.Key_M,
        QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.ShiftModifier,
    )
    assert not minimap.isVisible()
    assert not big.registry.action("view.minimap").isChecked()
    QTest.keyClick(
        ws.view,
        QtCore.Qt.Key.Key_M,
        QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.ShiftModifier,
    )
    assert minimap.isVisible()
    view_menu = next(
        a.menu() for a in big.menuBar().actions() if a.text().replace("&", "") == "View"
    )
    assert big.registry.action("view.minimap") in view_menu.actions()
    # a graph that fits the view: no minimap
    big.document().undo_stack.setClean()  # type: ignore[union-attr]
    assert big.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    QtWidgets.QApplication.processEvents()
    assert big.workspace is not None and big.workspace is not ws
    big.workspace.view.fit()  # Ctrl+0: the whole graph in the view
    assert not big.workspace.view.minimap.isVisible()


def test_on_a_small_screen_the_minimap_takes_at_most_a_third_of_the_canvas(
    window: MainWindow, qtbot: QtBot
) -> None:
    """At 1280x720 the canvas is under 300 pixels high: the full-size minimap covered
    more than half of it, and the orders mart's last node under it."""
    window.resize(1280, 720)
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
    ws = window.workspace
    assert ws is not None
    view, minimap = ws.view, ws.view.minimap
    view.set_zoom(1.5)  # the graph no longer fits: the minimap shows
    for _ in range(3):
        QtWidgets.QApplication.processEvents()
    assert minimap.isVisible()
    viewport = view.viewport().size()
    assert viewport.height() < 400  # a small canvas, as at 1280x720
    assert minimap.height() <= viewport.height() * 0.34 + 1
    assert minimap.width() <= viewport.width() * 0.34 + 1
    assert abs(minimap.width() / minimap.height() - 1.5) < 0.05  # the same shape, smaller
    # and it still frames the whole graph
    graph = ws.scene.itemsBoundingRect()
    shown = minimap.mapToScene(minimap.viewport().rect()).boundingRect()
    assert shown.contains(graph.adjusted(5, 5, -5, -5))
    # a big canvas gets the full size back
    window.resize(1600, 1400)
    for _ in range(5):
        QtWidgets.QApplication.processEvents()
    big = view.viewport().size()
    assert big.height() * 0.34 >= 160 and big.width() * 0.34 >= 240, big
    assert (minimap.width(), minimap.height()) == (240, 160)


def test_the_schematic_is_drawn_once_per_paint_however_often_the_minimap_resizes(
    big: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each size the minimap takes before it is painted again needs no drawing of its
    own: the swap to a 2,000-DAG document resized it twice, and both sizes drew the whole
    schematic (tens of milliseconds each) during the freeze."""
    ws = big.workspace
    assert ws is not None
    minimap = ws.view.minimap
    assert minimap.isVisible()
    drawn: list[None] = []
    paint = type(minimap)._paint_schematic

    def counted(self: object, painter: QtGui.QPainter, scale: float) -> None:
        drawn.append(None)
        paint(self, painter, scale)  # type: ignore[arg-type]

    monkeypatch.setattr(type(minimap), "_paint_schematic", counted)
    size = minimap.size()
    for grow in (12, 24, 0):
        minimap.setFixedSize(size.width() - grow, size.height() - grow // 2)
    assert drawn == []  # nothing drawn before the paint
    minimap.viewport().repaint()
    assert len(drawn) == 1
    accent = ws.scene.colors.accent("dag")
    assert _accent_pixels(minimap, accent) > 200  # and the picture is the whole graph
