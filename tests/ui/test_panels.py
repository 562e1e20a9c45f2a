"""The panes around the timeline, driven as a user drives them: inject a failure from the
context menu, step on, ask why the consumer did not run, follow an alert, compare two
timetables, list next runs, present, export — and replay the saved file headless."""

from __future__ import annotations

import dataclasses
import io
import json
import xml.etree.ElementTree as ET
from contextlib import redirect_stdout
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.cli import main as cli_main
from explorer.document.panels.badges import DagBadge
from explorer.engine.alerts import record_with_alerts
from explorer.scenario import load_scenario, save_scenario
from explorer.scenario.model import (
    AssetEventAction,
    OverrideAction,
    PauseAction,
    RunOutcomeAction,
    TaskOutcomeAction,
    TriggerAction,
)
from explorer.ui.clock import ManualTicker
from explorer.ui.panels.export import export_widget
from explorer.ui.panels.injection import InjectionMenus
from explorer.ui.panels.workbench import Workbench
from explorer.ui.session import SimulationSession

pytestmark = pytest.mark.gui

SCENARIOS = Path(__file__).parents[2] / "resources" / "scenarios"
NY = "America/New_York"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


class Answers:
    """A prompter that answers from a list instead of opening dialogs."""

    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        self.asked.append(label)
        return self.answers.pop(0)


def unscripted_session() -> SimulationSession:
    """The contract's orders mart across the spring-forward, without its failure override."""
    scenario = dataclasses.replace(load_scenario(SCENARIOS / "ny_dst_orders_mart.json"), script=())
    return SimulationSession(scenario, source="ny_dst_orders_mart.json")


@pytest.fixture
def bench(qtbot: QtBot) -> Workbench:
    widget = Workbench(unscripted_session(), ticker=ManualTicker(), prompter=Answers())
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def trigger(menu: QtWidgets.QMenu, text: str) -> None:
    action = InjectionMenus.find(menu, text)
    assert action is not None, [a.text() for a in menu.actions()]
    action.trigger()


def step_until(bench: Workbench, instant: datetime) -> None:
    while bench.session.now < instant:
        assert bench.session.step_next() is not None


class TestTheStory:
    """Open the DST example, step, make the producer's next run fail, see the consumer go
    quiet and the alert raised, ask why, and replay the saved file headless."""

    def test_inject_a_failure_and_explain_the_silence(
        self, qtbot: QtBot, bench: Workbench, tmp_path: Path
    ) -> None:
        session, timeline = bench.session, bench.timeline
        added: list[object] = []
        session.script_action_added.connect(added.append)
        # step through the 23-hour day: the band is labelled, the next run is a ghost
        step_until(bench, utc(2024, 3, 10, 5, 20))
        assert timeline.transitions[0].title == "23 h day"
        ghost = timeline.ghosts["ingest_orders"]
        assert ghost.interval_end - ghost.interval_start == timedelta(hours=23)  # type: ignore[operator]
        # right-click the producer's next run: make it fail when it runs
        target = timeline.target_at(utc(2024, 3, 10, 18), "ingest_orders")
        assert target is not None and target.kind == "ghost"
        trigger(bench.injection.build_menu(target), "Make it fail when it runs")
        (action,) = added
        assert isinstance(action, OverrideAction) and action.outcome == "failed"
        assert action.run.logical_date is not None
        assert action.run.logical_date.value == utc(2024, 3, 10, 5)
        assert session.scenario.script == (action,)
        # step on: the 23 h run fails, no orders event, orders_mart stays quiet
        session.run_to(utc(2024, 3, 12))
        failed = session.sim.dags["ingest_orders"].runs[2]
        assert failed.logical_date == utc(2024, 3, 10, 5) and failed.state == "failed"
        row = timeline.runs.find("ingest_orders", failed.run_id)
        assert row is not None and timeline.runs_item.view.state[row] == 3  # drawn failed
        bench.tabs.setCurrentWidget(bench.explain)
        kinds = [a.kind for a in bench.explain.alert_list()]
        assert "consumer_silent" in kinds
        # "why didn't orders_mart run?"
        timeline.dag_selected.emit("orders_mart")
        assert bench.explain.dag_id == "orders_mart"
        assert "missing orders" in bench.explain.verdict.text()
        blocks = [
            bench.explain.conditions.topLevelItem(i)
            for i in range(bench.explain.conditions.topLevelItemCount())
        ]
        assert any(
            item.text(0).endswith("BLOCKS") and "orders" in item.text(3)
            for item in blocks
            if item is not None
        )
        # the alert moves the timeline to its instant
        silent = next(a for a in bench.explain.alert_list() if a.kind == "consumer_silent")
        bench.explain.alerts.setCurrentRow(bench.explain.alert_list().index(silent))
        with qtbot.waitSignal(bench.explain.alert_activated, timeout=1000):
            item = bench.explain.alerts.currentItem()
            bench.explain.alerts.itemClicked.emit(item)
        x0, x1 = timeline.x_range()
        assert abs(((x0 + (x1 - x0) / 2) - silent.at).total_seconds()) < 60
        # the saved file replays identically with the CLI
        session.run_to(session.until)
        path = tmp_path / "story.json"
        save_scenario(session.scenario, path)
        gui = record_with_alerts(session.sim, until=session.until)
        out = io.StringIO()
        with redirect_stdout(out):
            assert cli_main(["simulate", str(path), "--format", "json"]) == 0
        cli = json.loads(out.getvalue())
        assert cli["runs"] == gui["runs"]
        assert cli["asset_events"] == gui["asset_events"]
        assert cli["alerts"] == gui["alerts"]

    def test_the_injection_matches_the_files_own_override(self) -> None:
        """Injected by hand, the failure gives the record the bundled file's override gives."""
        by_hand = unscripted_session()
        by_hand.run_to(utc(2024, 3, 9, 12))
        ghost_menu = InjectionMenus(by_hand)
        by_hand.sim.advance_to(utc(2024, 3, 10, 6))
        from explorer.ui.timeline.pane import TimelinePane

        pane = TimelinePane()
        pane.show_simulation(by_hand.sim)
        target = pane.target_at(utc(2024, 3, 10, 18), "ingest_orders")
        assert target is not None
        trigger(ghost_menu.build_menu(target), "Make it fail")
        by_hand.run_to(by_hand.until)
        bundled = SimulationSession.from_file(SCENARIOS / "ny_dst_orders_mart.json")
        bundled.run_to(bundled.until)
        strip = lambda r: {k: r[k] for k in ("runs", "asset_events", "alerts")}  # noqa: E731
        assert strip(record_with_alerts(by_hand.sim, until=by_hand.until)) == strip(
            record_with_alerts(bundled.sim, until=bundled.until)
        )


class TestInjectionMenu:
    def test_a_running_run_can_fail_now_or_lose_its_data(self, bench: Workbench) -> None:
        session = bench.session
        session.run_to(utc(2024, 3, 9, 5, 10))  # ingest_orders' first run is running
        run = session.sim.dags["ingest_orders"].runs[0]
        assert run.state == "running"
        target = bench.timeline.target_at(utc(2024, 3, 9, 5, 5), "ingest_orders")
        assert target is not None and target.run is run
        menu = bench.injection.build_menu(target)
        texts = [a.text() for a in menu.actions()]
        assert "Fail this run now" in texts
        assert "Task write_orders succeeds now without writing data" in texts
        trigger(menu, "Task write_orders succeeds now without writing data")
        (action,) = session.scenario.script
        assert isinstance(action, TaskOutcomeAction) and action.outcome == "success_no_data"
        assert action.at.value == session.now  # nothing was processed at 05:10 yet
        session.step_next()
        assert run.state == "success"
        event = session.sim.state.assets.events[-1]
        assert event.asset.name == "orders" and event.wrote_data is False

    def test_fail_now_after_a_step_waits_for_the_next_loop(self, bench: Workbench) -> None:
        session = bench.session
        step_until(bench, utc(2024, 3, 9, 5))
        run = session.sim.dags["ingest_orders"].runs[0]
        assert run.state == "running" and run.start_date == session.now
        target = bench.timeline.target_at(utc(2024, 3, 9, 5), "ingest_orders")
        assert target is not None and target.run is run
        trigger(bench.injection.build_menu(target), "Fail this run now")
        (action,) = session.scenario.script
        assert isinstance(action, RunOutcomeAction)
        assert action.at.value == session.now + timedelta(seconds=1)
        session.step_next()
        assert run.state == "failed"

    def test_lane_menu_pauses_and_triggers_with_a_logical_date(self, bench: Workbench) -> None:
        session = bench.session
        bench.injection.prompter = Answers("2024-03-09 12:00")
        session.run_to(utc(2024, 3, 9, 12))
        target = bench.timeline.target_at(utc(2024, 3, 9, 12), "ingest_customers")
        assert target is not None and target.kind == "lane"
        trigger(bench.injection.build_menu(target), "Pause ingest_customers")
        trigger(bench.injection.build_menu(target), "Trigger a manual run with logical date")
        pause, manual = session.scenario.script
        assert isinstance(pause, PauseAction) and isinstance(manual, TriggerAction)
        assert manual.logical_date is not None
        assert manual.logical_date.value == utc(2024, 3, 9, 17)  # 12:00 EST
        session.step_next()
        dag = session.sim.dags["ingest_customers"]
        assert dag.is_paused
        assert dag.runs[-1].run_type == "manual"
        menu = bench.injection.build_menu(target)
        assert InjectionMenus.find(menu, "Unpause ingest_customers") is not None

    def test_asset_lane_menu_emits_an_external_event(self, bench: Workbench) -> None:
        session = bench.session
        session.run_to(utc(2024, 3, 9, 12))
        target = bench.timeline.target_at(utc(2024, 3, 9, 12), "s3://warehouse/orders")
        assert target is not None and target.lane.kind == "asset"
        trigger(bench.injection.build_menu(target), "Emit an external event on orders now")
        (action,) = session.scenario.script
        assert isinstance(action, AssetEventAction) and action.asset == {"asset": "orders"}
        session.step_next()
        event = session.sim.state.assets.events[-1]
        assert event.source.kind == "rest_api" and event.asset.name == "orders"

    def test_delay_asks_for_a_duration(self, bench: Workbench) -> None:
        session = bench.session
        bench.injection.prompter = Answers("3h")
        session.run_to(utc(2024, 3, 9, 12))
        target = bench.timeline.target_at(utc(2024, 3, 9, 18), "ingest_orders")
        assert target is not None and target.kind == "ghost"
        trigger(bench.injection.build_menu(target), "Delay its tasks by")
        (action,) = session.scenario.script
        assert isinstance(action, OverrideAction) and action.delay is not None
        assert action.delay.value == timedelta(hours=3)
        session.run_to(utc(2024, 3, 10, 12))
        run = session.sim.dags["ingest_orders"].runs[1]
        assert run.end_date == utc(2024, 3, 10, 8, 20)  # 05:00Z + 20 min + 3 h

    def test_undo_is_replace_scenario(self, bench: Workbench) -> None:
        session = bench.session
        before = session.scenario
        edited: list[object] = []
        session.scenario_edited.connect(edited.append)
        session.run_to(utc(2024, 3, 9, 12))
        target = bench.timeline.target_at(utc(2024, 3, 9, 12), "ingest_customers")
        assert target is not None
        trigger(bench.injection.build_menu(target), "Pause ingest_customers")
        session.run_to(utc(2024, 3, 10, 12))
        assert session.sim.dags["ingest_customers"].is_paused
        (after,) = edited
        session.replace_scenario(after)  # QUndoStack.push runs redo: a no-op
        assert session.sim.dags["ingest_customers"].is_paused
        session.replace_scenario(before)  # undo
        assert session.now == utc(2024, 3, 10, 12)
        assert not session.sim.dags["ingest_customers"].is_paused
        assert len(session.sim.dags["ingest_customers"].runs) == 3


class TestNextRunsAndCompare:
    def test_next_runs_in_the_dags_zone_and_utc_with_the_dst_note(self, bench: Workbench) -> None:
        bench.tabs.setCurrentWidget(bench.next_runs)
        bench.next_runs.set_dag("ingest_orders")
        bench.next_runs.refresh()
        table = bench.next_runs.table
        rows = [
            [table.item(r, c).text() for c in range(table.columnCount())]  # type: ignore[union-attr]
            for r in range(table.rowCount())
        ]
        assert len(rows) == 10
        dst = next(r for r in rows if r[4] == "23 h")
        assert dst[1] == "Sun 10 Mar 2024 00:00 EST" and dst[2] == "2024-03-10 05:00Z"
        assert dst[6] == "2024-03-11 04:00Z"
        assert "spring forward" in dst[7]
        assert "At 00:00" in bench.next_runs.headline.text()

    def test_asset_driven_dags_have_no_next_runs(self, bench: Workbench) -> None:
        bench.tabs.setCurrentWidget(bench.next_runs)
        bench.next_runs.set_dag("orders_mart")
        bench.next_runs.refresh()
        assert bench.next_runs.table.rowCount() == 0
        assert "not driven by the clock" in bench.next_runs.headline.text()

    def test_compare_trigger_and_data_interval_timetables(self, bench: Workbench) -> None:
        bench.tabs.setCurrentWidget(bench.compare)
        bench.compare.choose("ingest_orders", "as CronTriggerTimetable")
        sides = bench.compare.sides
        assert sides is not None and sides[1].timetable.name == "CronTriggerTimetable"
        # Paired by logical_date (ADR 0009): the trigger run of a date comes a day earlier.
        pairs = bench.compare.pairs
        dst = next(p for p in pairs if p.a and p.a.logical_date == utc(2024, 3, 10, 5))
        assert "run_after: B 23 h earlier" in dst.differences
        labelled = [link.text for link in bench.compare.links.links]
        assert "run_after: B 23 h earlier" in labelled
        assert "run_after: B 24 h earlier" in labelled
        assert "shifted" in bench.compare.summary.text()

    def test_compare_two_dags(self, bench: Workbench) -> None:
        bench.compare.choose("ingest_orders", "ingest_customers")
        # Midnight New York vs midnight UTC: no logical date in common (ADR 0009).
        assert not [p for p in bench.compare.pairs if p.a and p.b]
        assert not bench.compare.links.links
        assert "0 runs paired by logical_date" in bench.compare.summary.text()


class TestBadges:
    def test_consumers_say_how_many_assets_are_updated(self, bench: Workbench) -> None:
        session = bench.session
        seen: list[dict[str, DagBadge]] = []
        session.badges_changed.connect(seen.append)
        session.run_to(utc(2024, 3, 9, 0, 5, 30))  # customers written, orders not yet
        mart = seen[-1]["orders_mart"]
        assert mart.assets == "1 of 2 assets updated" and mart.assets_ready is False
        session.run_to(utc(2024, 3, 9, 5, 10))
        badges = session.badges()
        assert badges["ingest_orders"].status == "running"
        assert badges["orders_mart"].assets is not None


class TestPresentation:
    def test_big_type_few_panes_and_arrow_keys_with_captions(
        self, qtbot: QtBot, bench: Workbench
    ) -> None:
        bench.presentation.enter()
        assert bench.timeline.presentation and not bench.tabs.isVisible()
        assert not bench.clock_bar.isVisible() and bench.caption.isVisible()
        before = bench.session.now
        for _ in range(3):
            qtbot.keyPress(bench.timeline.plot, QtCore.Qt.Key.Key_Right)
        assert bench.session.now > before
        assert "·" in bench.caption.text() and "—" in bench.caption.text()
        qtbot.keyPress(bench.timeline.plot, QtCore.Qt.Key.Key_Left)
        assert bench.session.now > before
        qtbot.keyPress(bench.timeline.plot, QtCore.Qt.Key.Key_Escape)
        assert not bench.presentation.active and bench.tabs.isVisible()
        assert not bench.timeline.presentation

    def test_page_down_jumps_to_the_next_script_action_and_shows_its_caption(
        self, qtbot: QtBot
    ) -> None:
        scenario = load_scenario(SCENARIOS / "ny_dst_orders_mart.json")
        (override,) = scenario.script
        captioned = dataclasses.replace(override, extras={"x-caption": "The 23-hour run fails"})
        session = SimulationSession(dataclasses.replace(scenario, script=(captioned,)))
        bench = Workbench(session, ticker=ManualTicker())
        qtbot.addWidget(bench)
        bench.show()
        bench.presentation.enter()
        qtbot.keyPress(bench.timeline.plot, QtCore.Qt.Key.Key_PageDown)
        assert session.now == override.at.value
        assert "The 23-hour run fails" in bench.caption.text()
        bench.presentation.exit()


class TestExportWidgets:
    @pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
    def test_the_whole_bench_exports(self, bench: Workbench, tmp_path: Path, suffix: str) -> None:
        bench.session.run_to(utc(2024, 3, 11, 12))
        QtWidgets.QApplication.processEvents()
        path = export_widget(bench, tmp_path / f"bench{suffix}")
        data = path.read_bytes()
        if suffix == ".png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            assert QtGui.QImage(str(path)).width() == bench.width() * 2
        elif suffix == ".svg":
            assert ET.parse(path).getroot().tag.endswith("svg")
        else:
            assert data.startswith(b"%PDF-")

    def test_export_timeline_helper(self, bench: Workbench, tmp_path: Path) -> None:
        path = bench.export_timeline(tmp_path / "t.svg")
        assert "23 h" in path.read_text() or "Sun" in path.read_text()


class TestResponsiveLongRun:
    def test_the_window_answers_while_a_long_run_is_sliced(self, qtbot: QtBot) -> None:
        session = SimulationSession(
            load_scenario(SCENARIOS / "ny_dst_orders_mart.json"), chunk_ms=0.0
        )
        bench = Workbench(session, ticker=ManualTicker())
        qtbot.addWidget(bench)
        bench.show()
        clicks: list[bool] = []
        button = QtWidgets.QPushButton("other")
        qtbot.addWidget(button)
        button.clicked.connect(lambda: clicks.append(True))
        session.run_to(session.until)
        assert bench.clock_bar.progress.isVisible() and bench.clock_bar.cancel_button.isVisible()
        qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)  # handled mid-run
        assert clicks == [True] and session.busy
        qtbot.mouseClick(bench.clock_bar.cancel_button, QtCore.Qt.MouseButton.LeftButton)
        assert not session.busy and session.now < session.until
        assert not bench.clock_bar.progress.isVisible()


def test_alerts_wait_for_the_clock_to_rest_but_answer_when_asked(bench: Workbench) -> None:
    """compute_alerts is slow on big scenarios: stepping does not wait for it."""
    bench.tabs.setCurrentWidget(bench.explain)
    bench.explain.alerts_delay_ms = 60_000
    bench.session.run_to(utc(2024, 3, 12))
    assert "updating" in bench.explain.alerts_title.text()
    assert bench.explain.alert_list() == bench.session.alerts()
    assert "updating" not in bench.explain.alerts_title.text()


PARTITIONED = """{
  "format": "schedule-explorer/1",
  "name": "hourly partitions",
  "clock": {"start": "2024-03-09T00:00:00Z", "until": "2024-03-10T00:00:00Z"},
  "assets": [{"name": "hourly", "uri": "s3://lake/hourly"}],
  "dags": [
    {"dag_id": "hourly_producer",
     "schedule": {"timetable": "CronPartitionTimetable",
                  "args": {"cron": "0 * * * *", "timezone": "UTC"}},
     "start_date": "2024-03-09T00:00:00Z",
     "tasks": [{"task_id": "write", "duration": "PT5M", "outlets": [{"asset": "hourly"}]}]}
  ]
}"""


def test_partition_keys_for_manual_runs_and_external_events(qtbot: QtBot) -> None:
    from explorer.scenario import loads_scenario

    session = SimulationSession(loads_scenario(PARTITIONED, source="partitioned.json"))
    prompter = Answers("2024-03-08T07:00:00", "2024-03-08T08:00:00")
    bench = Workbench(session, ticker=ManualTicker(), prompter=prompter)
    qtbot.addWidget(bench)
    session.run_to(utc(2024, 3, 9, 2, 30))
    lane = bench.timeline.target_at(utc(2024, 3, 9, 2, 30), "hourly_producer")
    assert lane is not None
    trigger(bench.injection.build_menu(lane), "Trigger a manual run with partition key")
    asset = bench.timeline.target_at(utc(2024, 3, 9, 2, 30), "s3://lake/hourly")
    assert asset is not None
    trigger(bench.injection.build_menu(asset), "Emit an external event on hourly with a partition")
    manual, event = session.scenario.script
    assert isinstance(manual, TriggerAction) and manual.partition_key == "2024-03-08T07:00:00"
    assert isinstance(event, AssetEventAction) and event.partition_key == "2024-03-08T08:00:00"
    session.step_next()
    run = session.sim.dags["hourly_producer"].runs[-1]
    assert run.run_type == "manual" and run.partition_key == "2024-03-08T07:00:00"
    assert session.sim.state.assets.events[-1].partition_key == "2024-03-08T08:00:00"
    row = bench.timeline.runs.find("hourly_producer", run.run_id)
    assert row is not None and bench.timeline.runs_item.view.no_interval[row] == 1


def test_presentation_in_the_main_window_keeps_only_canvas_and_timeline(
    window: object, qtbot: QtBot
) -> None:
    """The main window mounts the bench (simulation_panes); F5 hides the other docks."""
    from explorer.ui.main_window import MainWindow

    assert isinstance(window, MainWindow)
    assert window.open_file(SCENARIOS / "ny_dst_orders_mart.json")
    simulation = window.workspace.simulation  # type: ignore[union-attr]
    assert simulation is not None
    view = window.workspace.view  # type: ignore[union-attr]
    window.resize(1400, 900)
    view.set_zoom(0.5)
    before = view.zoom()
    simulation.bench.presentation.enter()
    assert not window.inspector_dock.isVisible() and not window.explain_dock.isVisible()
    assert window.timeline_dock.isVisible() and simulation.bench.timeline.isVisible()
    assert window.canvas_host.isVisible()
    # the canvas grows into the freed space: every node in view, magnified for a screen share
    qtbot.waitUntil(lambda: view.zoom() > before, timeout=2000)
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    for node in view.canvas.items():
        if node.isVisible() and node.parentItem() is None:
            assert shown.contains(node.sceneBoundingRect().center())
    simulation.bench.presentation.exit()
    assert window.inspector_dock.isVisible()
    qtbot.waitUntil(lambda: view.zoom() == before, timeout=2000)  # the user's zoom comes back


def _pixels_of(image: QtGui.QImage, colour: str, tolerance: int = 40) -> int:
    """How many pixels of ``image`` are close to ``colour`` (a hatch or an outline)."""
    target = QtGui.QColor(colour)
    view = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    count = 0
    for y in range(0, view.height(), 2):
        for x in range(0, view.width(), 2):
            c = view.pixelColor(x, y)
            if (
                abs(c.red() - target.red())
                + abs(c.green() - target.green())
                + abs(c.blue() - target.blue())
                <= tolerance
            ):
                count += 1
    return count


class TestInjectedFutureFailure:
    """A failure injected on a run that does not exist yet is on the timeline before it
    happens, and the menu names that run by when it will be created."""

    def test_the_doomed_run_is_marked_until_it_fails(self, bench: Workbench) -> None:
        from explorer.ui.timeline.style import NORMAL

        session, timeline = bench.session, bench.timeline
        failed_colour = NORMAL.state_colours[3]
        step_until(bench, utc(2024, 3, 10, 5, 20))  # the 23 h run is the next one
        timeline.set_x_range(utc(2024, 3, 9, 12), utc(2024, 3, 11, 12))
        before = _pixels_of(timeline.plot.grab().toImage(), failed_colour)
        target = timeline.target_at(utc(2024, 3, 10, 18), "ingest_orders")
        assert target is not None and target.kind == "ghost"
        menu = bench.injection.build_menu(target)
        texts = [a.text() for a in menu.actions()]
        # the run is named by its run_after (created Mon 11 Mar 00:00 EDT), not by its
        # logical date (Sun 10 Mar, a day earlier)
        assert any("created Mon 11 Mar 2024 00:00 EDT" in t for t in texts), texts
        assert not any(t.startswith("✗") for t in texts)
        trigger(menu, "Make it fail when it runs")

        ghost = timeline.ghosts["ingest_orders"]
        assert ghost.run_after == utc(2024, 3, 11, 4)
        (mark,) = [g for g in timeline.overlay_item.ghosts if g.run_after == 1710129600.0]
        assert mark.injected == 2
        target = timeline.target_at(utc(2024, 3, 10, 18), "ingest_orders")
        assert target is not None and target.kind == "ghost"
        injected = timeline.injected_of(target)
        assert injected is not None and injected.fails
        from explorer.document.timeline.picking import describe
        from explorer.document.timeline.timebase import zone_of

        tip = describe(target, zone_of(NY), injected=injected)
        assert "injected: its tasks fail" in tip
        again = [a.text() for a in bench.injection.build_menu(target).actions()]
        assert "✗ injected: its tasks fail" in again
        # drawn: hatched and outlined in the failed colour where nothing was failed before
        after = _pixels_of(timeline.plot.grab().toImage(), failed_colour)
        assert after > before + 50, (before, after)

        # created and running: still marked (the failure has not happened yet)
        session.run_to(utc(2024, 3, 11, 4, 5))
        run = session.sim.dags["ingest_orders"].runs[2]
        assert run.state == "running" and run.logical_date == utc(2024, 3, 10, 5)
        assert (run.dag_id, run.run_id) in timeline.injected_runs
        assert len(timeline.overlay_item.doomed) == 1
        # it happened: the run is failed, no more marks, the next ghost is clean
        session.run_to(utc(2024, 3, 12))
        assert run.dag_id == "ingest_orders"
        assert session.sim.dags["ingest_orders"].runs[2].state == "failed"
        assert timeline.injected_runs == {} and timeline.overlay_item.doomed == []
        assert timeline.injected_ghosts == {}
        assert all(g.injected == 0 for g in timeline.overlay_item.ghosts)


def test_a_cause_is_followed_to_the_failed_run_and_back(qtbot: QtBot) -> None:
    """From the waiting consumer's explanation, one click selects the producer run that
    failed on the timeline and explains it; Back returns to the consumer."""
    path = Path(__file__).resolve().parents[2] / "resources" / "scenarios"
    session = SimulationSession(load_scenario(path / "producer_fails_silence.json"))
    bench = Workbench(session, ticker=ManualTicker(), prompter=Answers())
    qtbot.addWidget(bench)
    bench.resize(1400, 900)
    bench.show()
    qtbot.waitExposed(bench)
    session.run_to(utc(2024, 5, 2, 12))
    bench.tabs.setCurrentWidget(bench.explain)
    bench.timeline.dag_selected.emit("orders_report")
    assert bench.explain.question.text().startswith("Why is orders_report waiting?")
    tree = bench.explain.conditions
    children = [
        tree.topLevelItem(i).child(j)  # type: ignore[union-attr]
        for i in range(tree.topLevelItemCount())
        for j in range(tree.topLevelItem(i).childCount())  # type: ignore[union-attr]
    ]
    (follow,) = [c for c in children if "ingest_orders" in c.text(3)]
    assert "write_orders" in follow.text(3)
    with qtbot.waitSignal(bench.explain.cause_activated, timeout=1000):
        tree.itemClicked.emit(follow, 1)
    assert bench.explain.dag_id == "ingest_orders"
    assert bench.explain.question.text().startswith("Why did ingest_orders fail?")
    failed = session.sim.dags["ingest_orders"].runs[1]
    assert failed.state == "failed"
    assert bench.timeline.selected_run == ("ingest_orders", failed.run_id)
    x0, x1 = bench.timeline.x_range()
    assert x0 <= failed.end_date <= x1 and x1 - x0 <= timedelta(hours=12)  # zoomed to it
    assert bench.navigate_back()
    assert bench.explain.dag_id == "orders_report"
