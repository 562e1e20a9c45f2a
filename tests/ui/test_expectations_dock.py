"""The Expectations dock: live verdicts at the clock, flags on the timeline, right-click adds."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from explorer.document.timeline.data import Lane
from explorer.document.timeline.picking import TimelineTarget
from tests.ui.conftest import ROOT

CHECKED = ROOT / "tests" / "data" / "check" / "spring_forward_expectations.json"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def opened(window, qtbot, until: datetime | None = None):  # type: ignore[no-untyped-def]
    assert window.open_file(CHECKED)
    panes = window.workspace.simulation
    if until is not None:
        panes.session.run_to(until)
        qtbot.waitUntil(lambda: not panes.session.busy, timeout=20_000)
    return panes, window.expectations


def statuses(pane) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {r.name: s for r, s in zip(pane.results, pane.statuses, strict=True)}


def test_verdicts_follow_the_clock_and_flag_the_breaking_run(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    panes, pane = opened(window, qtbot)
    dock = window.findChild(type(window.timeline_dock), "expectationsDock")
    assert dock is not None and dock.widget() is pane
    assert pane.tree.topLevelItemCount() == 4
    early = statuses(pane)
    assert early["no report on Sunday"] == "holds"  # nothing has happened yet
    assert early["five customer runs"] == "open"  # a count is judged at the end
    panes.session.run_to(utc(2024, 3, 13, 4))
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20_000)
    late = statuses(pane)
    assert late["five customer runs"] == "holds"  # judged once the clock reaches the end
    assert late["no report on Sunday"] == "fails"
    assert late["orders at midnight New York"] == "holds"
    lane = panes.bench.timeline.lane_index("midnight_report")
    assert [(f.lane, f.x) for f in pane.flags.flags] == [
        (float(lane), utc(2024, 3, 10, 5).timestamp())
    ]
    failing = next(
        pane.tree.topLevelItem(i)
        for i in range(4)
        if pane.tree.topLevelItem(i).text(0) == "✖ fails"
    )
    assert failing.childCount() == 1
    assert "scheduled__2024-03-10T05:00:00+00:00" in failing.child(0).text(2)
    assert "4 hold" not in pane.summary.text() and "1 fail" in pane.summary.text()


@pytest.mark.qt_log_ignore("does not support raise", "grabbing the keyboard", "grabbing the mouse")
def test_right_click_a_run_adds_a_runs_between_through_undo(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    panes, pane = opened(window, qtbot, utc(2024, 3, 12, 6))
    document = window.workspace.document
    run = next(r for r in panes.session.sim.runs if r.dag_id == "ingest_orders")
    target = TimelineTarget(
        "run", Lane("dag", "ingest_orders", "ingest_orders"), run.run_after, run=run
    )
    menu = panes.bench.injection.build_menu(target)
    action = panes.bench.injection.find(
        menu, "Expect a run of ingest_orders between 23:30 and 00:30 America/New_York, every day"
    )
    assert action is not None
    action.trigger()
    assert pane.tree.topLevelItemCount() == 5
    assert document.undo_stack.undoText().startswith("Add expectation: ingest_orders runs")
    assert statuses(pane)["#5 runs_between"] == "holds"
    document.undo_stack.undo()
    assert pane.tree.topLevelItemCount() == 4


def test_a_range_expectation_from_a_lane_and_remove(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    panes, pane = opened(window, qtbot, utc(2024, 3, 13, 4))
    timeline = panes.bench.timeline
    timeline.set_x_range(utc(2024, 3, 9, 12), utc(2024, 3, 10, 12))
    target = TimelineTarget(
        "lane", Lane("dag", "ingest_customers", "ingest_customers"), utc(2024, 3, 10)
    )
    menu = panes.bench.injection.build_menu(target)
    no_run = panes.bench.injection.find(menu, "Expect no run of ingest_customers")
    assert no_run is not None
    no_run.trigger()
    assert statuses(pane)["#5 no_run"] == "fails"  # the 10 Mar 00:00Z run is in the range
    exactly = panes.bench.injection.find(menu, "Expect exactly 1 runs of ingest_customers")
    assert exactly is not None
    exactly.trigger()
    assert statuses(pane)["#6 count"] == "holds"
    pane.tree.setCurrentItem(pane.tree.topLevelItem(4))
    assert pane.remove_selected()
    assert [r.kind for r in pane.results][-1] == "count"
    assert window.workspace.document.undo_stack.undoText() == "Remove expectation"
