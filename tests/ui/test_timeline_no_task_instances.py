"""The timeline marks a run without task instances (RND-1), a classic surprise: a manual
run whose logical date lies before the DAG's start_date succeeds at once and emits nothing.
The mark is looked for in the pixels the pane paints, next to a run that has its tasks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import NullTimetable
from explorer.ui.timeline import TimelinePane
from explorer.ui.timeline.pane import legend_html
from explorer.ui.timeline.style import NORMAL

pytestmark = pytest.mark.gui

T0 = datetime(2025, 1, 2, tzinfo=UTC)


def scenario() -> Simulation:
    """Run 0: logical date before start_date (no task instances); run 1: inside (tasks)."""
    dag = DagSpec(
        "reports",
        NullTimetable(),
        start_date=datetime(2025, 1, 1, tzinfo=UTC),
        tasks=(TaskSpec("build", timedelta(minutes=20)),),
    )
    sim = Simulation(
        [dag],
        start=T0,
        script=[
            act.Trigger(
                at=T0 + timedelta(hours=1), dag_id="reports", logical_date=T0 - timedelta(days=30)
            ),
            act.Trigger(at=T0 + timedelta(hours=3), dag_id="reports", logical_date=T0),
        ],
    )
    sim.advance_to(T0 + timedelta(hours=5))
    return sim


@pytest.fixture
def pane(qtbot: QtBot) -> TimelinePane:
    widget = TimelinePane()
    qtbot.addWidget(widget)
    widget.resize(1100, 420)
    widget.set_horizon(T0, T0 + timedelta(hours=5))
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def mark_pixels(pane: TimelinePane, image: QtGui.QImage, at: datetime, lane: float) -> int:
    """Pixels of the no-task-instances colour in a small box around the mark's place."""
    scene = pane.viewbox.mapViewToScene(QtCore.QPointF(at.timestamp(), lane + 0.24))
    centre = pane.plot.mapFromScene(scene)
    want = QtGui.QColor(NORMAL.no_task_instances)
    count = 0
    for dx in range(-10, 11):
        for dy in range(-10, 11):
            x, y = centre.x() + dx, centre.y() + dy
            if not (0 <= x < image.width() and 0 <= y < image.height()):
                continue
            got = image.pixelColor(x, y)
            if (
                abs(got.red() - want.red()) < 40
                and abs(got.green() - want.green()) < 40
                and abs(got.blue() - want.blue()) < 40
            ):
                count += 1
    return count


def test_a_run_without_task_instances_is_marked(pane: TimelinePane) -> None:
    sim = scenario()
    pane.show_simulation(sim)
    pane.fit()
    QtWidgets.QApplication.processEvents()
    without, with_tasks = sim.dags["reports"].runs
    assert without.tasks == [] and with_tasks.tasks
    assert pane.runs.no_task_instances().tolist() == [1, 0]

    image = pane.plot.viewport().grab().toImage()
    lane = float(pane._lane_of_dag["reports"])
    assert mark_pixels(pane, image, without.run_after, lane) > 6
    assert mark_pixels(pane, image, with_tasks.run_after, lane) == 0
    assert pane.runs_item.view.no_task_instances.tolist() == [1, 0]


def test_the_legend_names_the_mark() -> None:
    assert "no&nbsp;task&nbsp;instances" in legend_html(NORMAL)  # one unbreakable entry
