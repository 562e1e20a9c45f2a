"""A step or a Back draws again only the timeline lanes it changed (budgets: step and
back <= 50 ms): the runs and the events keep their picture (:mod:`explorer.ui.timeline.
lane_cache`), and the lanes drawn again look exactly as a whole redraw draws them.

Work is counted (which lanes' runs are drawn), never timed; every partial picture is
compared pixel for pixel with a whole redraw of the same data.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.ui.timeline.items import RunsItem, RunsView
from explorer.ui.timeline.marks import EventsItem
from explorer.ui.timeline.pane import TimelinePane
from tests.ui.test_back_snapshots import session_at
from tests.ui.test_timeline_paint import svg_of

pytestmark = pytest.mark.gui

DAY = 86400.0
T0 = 1_700_000_000.0


def lanes_drawn(monkeypatch: pytest.MonkeyPatch, item: RunsItem) -> list[set[int]]:
    """For each drawing of the runs item from now on, the lanes of the runs it drew."""
    drawings: list[set[int]] = []
    paint_rows = item._paint_rows

    def counted(painter: QtGui.QPainter, dm: Any, rows: Any, *args: Any) -> int:
        drawings.append({int(lane) for lane in item.view.lane[rows].tolist()})
        return paint_rows(painter, dm, rows, *args)

    monkeypatch.setattr(item, "_paint_rows", counted)
    return drawings


def picture(pane: TimelinePane) -> QtGui.QImage:
    """The plot's viewport painted now (kept pictures and all)."""
    return pane.plot.viewport().grab().toImage()


def whole_redraw(pane: TimelinePane) -> QtGui.QImage:
    """The plot (its viewport) with every lane item drawn afresh from its data."""
    pane.runs_item.update()
    pane.events_item.update()
    return pane.plot.viewport().grab().toImage()


def grid_view(lanes: int, runs_per_lane: int) -> RunsView:
    """Daily runs on each lane: done, except the last of each lane, still running."""
    n = lanes * runs_per_lane
    lane = np.repeat(np.arange(lanes, dtype=np.float64), runs_per_lane)
    k = np.tile(np.arange(runs_per_lane, dtype=np.float64), lanes)
    start = T0 + k * DAY + lane * 600
    end = start + 3600 * 5
    end[runs_per_lane - 1 :: runs_per_lane] = np.nan
    return RunsView(
        lane=lane,
        ival_start=start - DAY,
        ival_end=start,
        logical=start - DAY,
        run_after=start,
        created=start,
        start=start + 60,
        end=end,
        state=np.where(np.isnan(end), 1, 2).astype(np.int32),
        type=np.zeros(n, dtype=np.int32),
        no_interval=np.zeros(n, dtype=np.int32),
        no_task_instances=np.zeros(n, dtype=np.int32),
        now=T0 + runs_per_lane * DAY,
    )


def grid_pane(qtbot: QtBot, view: RunsView) -> TimelinePane:
    pane = TimelinePane()
    qtbot.addWidget(pane)
    pane.resize(1200, 800)
    pane.show()
    qtbot.waitExposed(pane)
    pane.runs_item.set_view(view)
    pane.viewbox.setXRange(T0 - 2 * DAY, T0 + 12 * DAY, padding=0)
    pane.viewbox.setYRange(-0.5, 15.5, padding=0)
    picture(pane)
    return pane


def with_rows(view: RunsView, **columns: Any) -> RunsView:
    """A copy of ``view`` (the caller's columns are never changed in place here)."""
    fields = {name: getattr(view, name) for name in RunsView.__slots__}
    fields.update(columns)
    return RunsView(
        **{k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in fields.items()}
    )


class TestOneLaneChanged:
    def test_a_run_that_ends_draws_its_lane_and_its_neighbours_only(
        self, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        view = grid_view(lanes=16, runs_per_lane=10)
        pane = grid_pane(qtbot, view)
        item = pane.runs_item
        drawings = lanes_drawn(monkeypatch, item)
        row = 7 * 10 + 9  # lane 7's running run ends
        end = view.end.copy()
        end[row] = view.start[row] + 3600
        state = view.state.copy()
        state[row] = 3
        item.set_view(with_rows(view, end=end, state=state), changed=[row])
        after_step = picture(pane)
        assert drawings == [{7}], "lane 7 alone: its marks stay inside its band"
        assert item.lane_cache.strip_draws == [(7, 7)]
        assert after_step == whole_redraw(pane), "exactly what a whole redraw draws"
        assert len(drawings[-1]) == 16, "the whole redraw drew every lane"

    def test_the_clock_moving_draws_the_lanes_of_unfinished_runs(
        self, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        view = grid_view(lanes=16, runs_per_lane=10)
        end = view.end.copy()
        end[np.isnan(end)] = view.start[np.isnan(end)] + 3600  # every run done...
        end[3 * 10 + 9] = np.nan  # ...but lane 3's last, and lane 12's last
        end[12 * 10 + 9] = np.nan
        view = with_rows(view, end=end)
        pane = grid_pane(qtbot, view)
        drawings = lanes_drawn(monkeypatch, pane.runs_item)
        pane.runs_item.set_view(with_rows(view, now=view.now + 3 * 3600), changed=[])
        after_step = picture(pane)
        assert drawings == [{3, 12}], "one drawing, of the two running lanes"
        assert after_step == whole_redraw(pane)

    def test_a_new_run_and_a_cut_one_draw_their_lanes(
        self, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        view = grid_view(lanes=16, runs_per_lane=10)
        pane = grid_pane(qtbot, view)
        drawings = lanes_drawn(monkeypatch, pane.runs_item)
        cut = with_rows(
            view,
            **{
                name: getattr(view, name)[:-1]
                for name in (
                    "lane",
                    "ival_start",
                    "ival_end",
                    "logical",
                    "run_after",
                    "created",
                    "start",
                    "end",
                    "state",
                    "type",
                    "no_interval",
                    "no_task_instances",
                )
            },
        )  # Back: the last run (lane 15) is gone
        pane.runs_item.set_view(cut, changed=[])
        assert picture(pane) == whole_redraw(pane)
        assert drawings[0] == {15}, "the lane of the run gone, alone"
        drawings.clear()
        pane.runs_item.set_view(view, changed=[])  # and a step brings it back
        assert picture(pane) == whole_redraw(pane)
        assert drawings[0] == {15}

    def test_selecting_a_run_draws_the_lanes_of_both_outlines(
        self, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        pane = grid_pane(qtbot, grid_view(lanes=16, runs_per_lane=10))
        pane.runs_item.set_selected(2 * 10 + 4)
        picture(pane)
        drawings = lanes_drawn(monkeypatch, pane.runs_item)
        pane.runs_item.set_selected(11 * 10 + 4)
        assert picture(pane) == whole_redraw(pane)
        assert drawings[0] == {1, 2, 3, 10, 11, 12}
        drawings.clear()
        pane.runs_item.set_selected(11 * 10 + 4)  # the same run again: nothing to draw
        picture(pane)
        assert drawings == []


def on_screen(pane: TimelinePane) -> QtGui.QImage:
    """The plot's pixels as the window shows them (what the repaints really left there,
    not a fresh render): a region a change forgot to repaint keeps its old pixels."""
    viewport = pane.plot.viewport()
    shot = QtWidgets.QApplication.primaryScreen().grabWindow(pane.winId()).toImage()
    area = QtCore.QRect(viewport.mapTo(pane, QtCore.QPoint(0, 0)), viewport.size())
    return shot.copy(area).convertToFormat(QtGui.QImage.Format.Format_RGB32)


def test_steps_and_backs_of_a_session_draw_few_lanes_and_match_a_whole_redraw(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, defer = session_at(30)
    pane = TimelinePane()
    qtbot.addWidget(pane)
    pane.resize(1400, 1200)
    pane.show()
    qtbot.waitExposed(pane)
    pane.show_simulation(session.sim)
    pane.fit()
    QtWidgets.QApplication.processEvents()
    drawings = lanes_drawn(monkeypatch, pane.runs_item)
    shown = len(pane.lanes)
    partial = 0
    for action in (session.step_next,) * 6 + (session.step_back,) * 4:
        action()
        defer.drain()
        pane.show_simulation(session.sim)
        drawings.clear()
        QtWidgets.QApplication.processEvents()  # the repaint the step asked for, as in the app
        screen = on_screen(pane)
        partial += sum(len(lanes) < shown for lanes in drawings)
        whole = whole_redraw(pane).convertToFormat(QtGui.QImage.Format.Format_RGB32)
        assert screen == whole, "the screen shows the data as it is, every lane of it"
        QtWidgets.QApplication.processEvents()  # the repaint whole_redraw asked for: done
    assert partial >= 5, "most steps and backs draw only some of the lanes"


def grid_events(count: int, lanes: int) -> tuple[Any, Any, Any, Any]:
    t = T0 + np.arange(count, dtype=np.float64) * 3600 * 6
    lane = (np.arange(count) % lanes).astype(np.float64)
    return t, lane, np.zeros(count, dtype=np.int32), np.ones(count, dtype=np.int32)


def test_an_svg_export_draws_the_runs_and_events_as_vectors(qtbot: QtBot) -> None:
    view = grid_view(lanes=16, runs_per_lane=10)
    pane = grid_pane(qtbot, view)
    pane.events_item.set_events(*grid_events(40, 16))
    picture(pane)
    pane.runs_item.set_view(with_rows(view, now=view.now + 3600), changed=[])
    picture(pane)  # the runs and events keep pictures on screen now
    assert pane.runs_item.lane_cache.full_draws and pane.events_item.lane_cache.full_draws
    svg = svg_of(pane).lower()
    assert "<image" not in svg, "no run or event exported as a bitmap"
    style = pane.style_
    # interval bars, success and running bars, task events: filled vector shapes
    for colour in (*style.type_colours[:1], *style.state_colours[1:3], style.source_colours[0]):
        assert f'fill="{colour[:7].lower()}"' in svg


def test_events_draw_again_only_the_lane_of_a_new_event(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    pane = grid_pane(qtbot, grid_view(lanes=16, runs_per_lane=4))
    item: EventsItem = pane.events_item
    t, lane, source, wrote = grid_events(40, 16)
    item.set_events(t[:39], lane[:39], source[:39], wrote[:39])
    picture(pane)
    drawn: list[Any] = []
    draw_lanes = item.draw_lanes
    monkeypatch.setattr(
        item, "draw_lanes", lambda p, lanes: (drawn.append(lanes), draw_lanes(p, lanes))
    )
    item.set_events(t, lane, source, wrote)  # one more event, on lane 39 % 16 = 7
    assert picture(pane) == whole_redraw(pane)
    assert drawn[0] == ((6, 8),)
    drawn.clear()
    item.set_events(t, lane, source, wrote)  # nothing new: nothing drawn
    picture(pane)
    assert drawn == []
