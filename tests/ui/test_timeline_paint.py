"""A clock step repaints the timeline once, and redraws only what it changed.

The step paints the view (the runs move with the clock); the axes, the lane stripes,
the grid and the DST days under it did not change, and must come from the picture
kept from the last paint (:mod:`explorer.ui.timeline.paint_cache`), not be drawn again.
"""

from __future__ import annotations

from datetime import timedelta

from PySide6 import QtCore, QtGui, QtSvg, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.scenario import load_scenario
from explorer.ui.clock import ManualTicker
from explorer.ui.panels.workbench import Workbench
from explorer.ui.session import SimulationSession
from tests.ui.conftest import EXAMPLES


class _Paints(QtCore.QObject):
    """Counts paint events of a widget."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.Paint:
            self.count += 1
        return False


def _bench(qtbot: QtBot) -> Workbench:
    scenario = load_scenario(EXAMPLES / "ny_rollup_dst.json")
    session = SimulationSession(scenario)
    bench = Workbench(session, ticker=ManualTicker())
    qtbot.addWidget(bench)
    bench.resize(1600, 1000)
    bench.show()
    qtbot.waitExposed(bench)
    session.run_to(session.start + timedelta(days=3))
    qtbot.waitUntil(lambda: not session.busy)
    QtWidgets.QApplication.processEvents()
    return bench


def _step_and_paint(qtbot: QtBot, bench: Workbench, paints: _Paints) -> None:
    before = paints.count
    bench.session.step_next()
    qtbot.waitUntil(lambda: paints.count > before)
    QtWidgets.QApplication.processEvents()


def _count_calls(obj: object, name: str) -> list[int]:
    """Counts calls of one method of one object (the method still runs)."""
    calls = [0]
    method = getattr(obj, name)

    def counted(*args: object) -> object:
        calls[0] += 1
        return method(*args)

    setattr(obj, name, counted)
    return calls


def test_a_step_paints_the_plot_once_and_redraws_no_unchanged_item(qtbot: QtBot) -> None:
    bench = _bench(qtbot)
    pane = bench.timeline
    paints = _Paints()
    pane.plot.viewport().installEventFilter(paints)
    _step_and_paint(qtbot, bench, paints)  # settles what the first paint laid out
    # what really draws an axis's ticks and labels, and the stripes, grid and DST days
    axes = [_count_calls(axis, "generateDrawSpecs") for axis in (pane.bottom_axis, pane.top_axis)]
    bands = _count_calls(pane.bands_item, "_paint_bands")
    runs = _count_calls(pane.runs_item, "_paint_rows")
    before = paints.count
    _step_and_paint(qtbot, bench, paints)
    assert paints.count - before == 1, "a step paints the timeline once"
    assert runs[0] == 1, "the runs, which the step moved, are drawn"
    assert [calls[0] for calls in axes] == [0, 0], "the axes did not move: not drawn again"
    assert bands[0] == 0, "stripes, grid and DST days did not change: not drawn again"


def test_a_zoom_redraws_the_axes_and_the_background(qtbot: QtBot) -> None:
    bench = _bench(qtbot)
    pane = bench.timeline
    kept = (pane.bottom_axis, pane.top_axis, pane.bands_item)
    draws = [item.paint_cache.draws for item in kept]
    (x0, x1), _ = pane.viewbox.viewRange()
    pane.viewbox.setXRange(x0, x0 + (x1 - x0) / 2, padding=0)
    pane.plot.viewport().repaint()
    assert all(
        after > was for after, was in zip([i.paint_cache.draws for i in kept], draws, strict=True)
    ), "a kept picture of another range is never shown"


def svg_of(pane) -> str:  # type: ignore[no-untyped-def]
    """The timeline exported as SVG, as File > Export writes it (no kept pictures)."""
    buffer = QtCore.QBuffer()
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    generator = QtSvg.QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(pane.plot.size())
    painter = QtGui.QPainter(generator)
    pane.plot.render(painter)
    painter.end()
    return bytes(buffer.data().data()).decode()


def test_an_svg_export_draws_vectors_not_kept_pictures(qtbot: QtBot) -> None:
    bench = _bench(qtbot)
    pane = bench.timeline
    pane.plot.viewport().repaint()  # the on-screen paint keeps pictures
    svg = svg_of(pane)
    assert "<image" not in svg, "no axis or band exported as a bitmap"
    assert "Nov" in svg, "the axis labels are text in the SVG"
