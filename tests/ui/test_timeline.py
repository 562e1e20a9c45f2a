"""The timeline pane and the runs table, as real widgets: what they draw, what clicks select,
what the keyboard and the zone picker do, and exports that open as PNG, SVG and PDF."""

from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from explorer.document.timeline.picking import describe
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.engine.timetables.trigger import CronTriggerTimetable
from explorer.engine.types import DataInterval
from explorer.engine.tz import get_zone
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from explorer.ui.panels.export import export_widget
from explorer.ui.timeline import RunsTable, TimelinePane, link_selection
from explorer.ui.timeline.runs_table import COLUMNS

pytestmark = pytest.mark.gui

SCENARIOS = Path(__file__).parents[2] / "resources" / "scenarios"
NY = "America/New_York"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def orders_mart_sim(until: datetime) -> Simulation:
    inputs = build_engine_inputs(load_scenario(SCENARIOS / "ny_dst_orders_mart.json"))
    sim = make_simulation(inputs)
    sim.advance_to(until)
    return sim


@pytest.fixture
def pane(qtbot: QtBot) -> TimelinePane:
    widget = TimelinePane()
    qtbot.addWidget(widget)
    widget.resize(1300, 520)
    widget.set_horizon(utc(2024, 3, 8, 5), utc(2024, 3, 13, 4))
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def click_at(
    qtbot: QtBot,
    pane: TimelinePane,
    x: float,
    y: float,
    button: QtCore.Qt.MouseButton = QtCore.Qt.MouseButton.LeftButton,
) -> None:
    scene = pane.viewbox.mapViewToScene(QtCore.QPointF(x, y))
    pos = pane.plot.mapFromScene(scene)
    qtbot.mouseClick(pane.plot.viewport(), button, pos=pos)


class TestWhatIsDrawn:
    def test_lanes_runs_and_the_23_hour_interval(self, pane: TimelinePane) -> None:
        sim = orders_mart_sim(utc(2024, 3, 12))
        pane.show_simulation(sim)
        assert [lane.label for lane in pane.lanes] == [
            "ingest_orders",
            "ingest_customers",
            "orders_mart",
            "orders",
            "customers",
        ]
        assert pane.lane_axis.labels[3] == "◆ orders"
        view = pane.runs_item.view
        assert len(view) == len(sim.runs)
        lengths = (view.ival_end - view.ival_start)[view.lane == 0]
        assert 23 * 3600 in lengths.tolist()  # the 2024-03-10 interval of ingest_orders
        QtWidgets.QApplication.processEvents()
        pane.plot.grab()  # paint
        assert pane.runs_item.drawn > 0

    def test_the_spring_forward_day_is_a_labelled_band(self, pane: TimelinePane) -> None:
        pane.show_simulation(orders_mart_sim(utc(2024, 3, 9)))
        (band,) = pane.transitions
        assert band.zone == NY and band.label == "23 h day · spring forward · America/New_York"
        assert pane.bands_item.transitions == [band] and pane.band_labels.labels

    def test_the_display_zone_defaults_to_the_dags_and_labels_the_axis(
        self, pane: TimelinePane
    ) -> None:
        pane.show_simulation(orders_mart_sim(utc(2024, 3, 9)))
        assert pane.display_zone == NY
        x0, x1 = utc(2024, 3, 8).timestamp(), utc(2024, 3, 14).timestamp()
        (step, majors), _ = pane.bottom_axis.tickValues(x0, x1, 900.0)
        assert step == 86400 and utc(2024, 3, 11, 4).timestamp() in majors  # local midnight
        labels = dict(zip(majors, pane.bottom_axis.tickStrings(majors, 1, step), strict=True))
        assert labels[utc(2024, 3, 11, 4).timestamp()] == "Mon 11 Mar\n00:00 EDT"
        (step, majors), _ = pane.top_axis.tickValues(x0, x1, 900.0)
        labels = dict(zip(majors, pane.top_axis.tickStrings(majors, 1, step), strict=True))
        assert labels[utc(2024, 3, 11, 4).timestamp()] == "Mon 11 Mar\n04:00Z"
        assert labels[utc(2024, 3, 10, 5).timestamp()] == "Sun 10 Mar\n05:00Z"
        pane.zone_box.setCurrentText("UTC")
        assert pane.display_zone == "UTC"

    def test_asset_events_and_the_next_run_ghost(self, pane: TimelinePane) -> None:
        sim = orders_mart_sim(utc(2024, 3, 10, 12))
        pane.show_simulation(sim)
        assert pane.events_item.t.size == len(sim.state.assets.events)
        assert set(pane.events_item.lane.tolist()) == {3.0, 4.0}
        ghost = pane.ghosts["ingest_orders"]
        assert ghost.logical_date == utc(2024, 3, 10, 5)
        target = pane.target_at(utc(2024, 3, 10, 20), "ingest_orders")
        assert target is not None and target.kind == "ghost"

    def test_the_clock_is_a_line_at_the_engines_clock(self, pane: TimelinePane) -> None:
        sim = orders_mart_sim(utc(2024, 3, 10, 12))
        pane.show_simulation(sim)
        assert pane.clock_line.value() == utc(2024, 3, 10, 12).timestamp()
        assert "EDT" in pane.clock_line.label.format and "12:00Z" in pane.clock_line.label.format

    def test_hundred_thousand_runs_are_reduced_to_what_pixels_show(
        self, pane: TimelinePane
    ) -> None:
        sim = many_runs(2000, 50)
        pane.show_simulation(sim)
        pane.fit()
        QtWidgets.QApplication.processEvents()
        pane.plot.grab()
        assert len(pane.runs_item.view) == 100_000
        assert 0 < pane.runs_item.drawn < 100_000 * 3


def many_runs(per_dag: int, dags: int) -> Simulation:
    """A simulation holding ``per_dag`` finished hourly runs for each of ``dags`` DAGs.

    The runs are made directly (as the engine would record them): simulating
    100,000 runs would make this a test of the engine's speed, not the timeline's.
    """
    start = utc(2024, 1, 1)
    specs = [
        DagSpec(
            f"dag_{i:03d}",
            CronTriggerTimetable("0 * * * *"),
            start_date=start,
            tasks=(TaskSpec("t", timedelta(minutes=10)),),
        )
        for i in range(dags)
    ]
    sim = Simulation(specs, start=start)
    for i, spec in enumerate(specs):
        for n in range(per_dag):
            at = start + timedelta(hours=n, minutes=i % 60)
            run = DagRun(
                spec.dag_id,
                n,
                f"scheduled__{at.isoformat()}",
                "scheduled",
                "timetable",
                at,
                DataInterval(at, at),
                at,
                at,
            )
            run.set_state("queued", at)
            run.set_state("running", at)
            run.set_state("failed" if n % 97 == 0 else "success", at + timedelta(minutes=10))
            sim.state.runs.append(run)
    sim.state.now = start + timedelta(hours=per_dag)
    return sim


class TestPicking:
    def test_tooltips_speak_airflow_in_both_zones(self, pane: TimelinePane) -> None:
        sim = orders_mart_sim(utc(2024, 3, 12))
        pane.show_simulation(sim)
        target = pane.target_at(utc(2024, 3, 10, 12), "ingest_orders")
        assert target is not None and target.kind == "run" and target.run is not None
        assert target.run.logical_date == utc(2024, 3, 10, 5)
        html = describe(target, get_zone(NY), pane.transitions)
        for text in (
            "logical_date",
            "data_interval_end",
            "run_after",
            "23 h",
            "Mon 11 Mar 2024 00:00:00 EDT",
            "2024-03-11 04:00:00Z",
            "skipped",
        ):
            assert text in html

    def test_asset_events_are_picked_on_asset_lanes(self, pane: TimelinePane) -> None:
        sim = orders_mart_sim(utc(2024, 3, 12))
        pane.show_simulation(sim)
        event = sim.state.assets.events[0]
        target = pane.target_at(event.timestamp, event.asset.uri)
        assert target is not None and target.event is event
        assert "wrote data" in describe(target, get_zone(NY))

    def test_no_interval_runs_say_so(self, pane: TimelinePane) -> None:
        sim = orders_mart_sim(utc(2024, 3, 12))
        pane.show_simulation(sim)
        mart = sim.dags["orders_mart"].runs[0]
        target = pane.target_at(mart.created_at, "orders_mart")
        assert target is not None and target.run is mart
        assert "<i>none</i>" in describe(target, get_zone(NY))


class TestSelection:
    def test_clicking_a_run_selects_it_in_the_table_and_tells_the_canvas(
        self, qtbot: QtBot, pane: TimelinePane
    ) -> None:
        sim = orders_mart_sim(utc(2024, 3, 12))
        table = RunsTable()
        qtbot.addWidget(table)
        link_selection(pane, table)
        pane.show_simulation(sim)
        table.refresh(sim)
        run = sim.dags["ingest_orders"].runs[2]  # the 23 h interval
        x = (run.data_interval.start.timestamp() + run.data_interval.end.timestamp()) / 2
        picked: list[tuple[str, str]] = []
        pane.run_selected.connect(lambda dag_id, run_id: picked.append((dag_id, run_id)))
        with qtbot.waitSignal(pane.dag_selected, timeout=1000):
            click_at(qtbot, pane, x, 0 - 0.2)
        assert picked == [("ingest_orders", run.run_id)]
        assert table.selected_run() == ("ingest_orders", run.run_id)
        assert pane.selected_run == ("ingest_orders", run.run_id)

    def test_selecting_in_the_table_selects_on_the_timeline_and_links_consumed_events(
        self, qtbot: QtBot, pane: TimelinePane
    ) -> None:
        sim = orders_mart_sim(utc(2024, 3, 13))
        table = RunsTable()
        qtbot.addWidget(table)
        link_selection(pane, table)
        pane.show_simulation(sim)
        table.refresh(sim)
        consumer = sim.dags["orders_mart"].runs[-1]
        assert len(consumer.consumed_asset_events) == 3  # orders + two customers events
        row = table.model.store.find("orders_mart", consumer.run_id)
        assert row is not None
        with qtbot.waitSignal(pane.dag_selected, timeout=1000):
            table.view.selectRow(table.proxy.mapFromSource(table.model.index(row, 0)).row())
        assert pane.selected_run == ("orders_mart", consumer.run_id)
        assert sorted(pane.events_item.highlight.tolist()) == sorted(consumer.consumed_asset_events)
        assert len(pane.overlay_item.links) == 3

    def test_right_click_asks_for_a_context_menu_with_the_target(
        self, qtbot: QtBot, pane: TimelinePane
    ) -> None:
        pane.show_simulation(orders_mart_sim(utc(2024, 3, 12)))
        with qtbot.waitSignal(pane.context_requested, timeout=1000) as blocker:
            click_at(
                qtbot, pane, utc(2024, 3, 9, 12).timestamp(), 1.0, QtCore.Qt.MouseButton.RightButton
            )
        target, where = blocker.args
        assert target.lane.key == "ingest_customers" and isinstance(where, QtCore.QPoint)


class TestRunsTable:
    def test_sorting_by_instant_and_filtering(self, qtbot: QtBot) -> None:
        sim = orders_mart_sim(utc(2024, 3, 13))
        table = RunsTable()
        qtbot.addWidget(table)
        table.refresh(sim)
        assert table.model.rowCount() == len(sim.runs)
        table.view.sortByColumn(COLUMNS.index("run_after"), QtCore.Qt.SortOrder.DescendingOrder)
        keys = table.visible_keys()
        after = {(r.dag_id, r.run_id): r.run_after for r in sim.runs}
        assert [after[k] for k in keys] == sorted(after.values(), reverse=True)
        table.filter_edit.setText("orders_mart")
        assert {k[0] for k in table.visible_keys()} == {"orders_mart"}
        table.filter_edit.clear()
        table.state_box.setCurrentText("failed")
        assert [k[0] for k in table.visible_keys()] == ["ingest_orders"]
        assert "of" in table.count_label.text()

    def test_rows_follow_the_engine_incrementally(self, qtbot: QtBot) -> None:
        inputs = build_engine_inputs(load_scenario(SCENARIOS / "ny_dst_orders_mart.json"))
        sim = make_simulation(inputs)
        table = RunsTable()
        qtbot.addWidget(table)
        sim.advance_to(utc(2024, 3, 9, 5, 5))
        table.refresh(sim)
        inserted: list[int] = []
        table.model.rowsInserted.connect(lambda _p, first, last: inserted.append(last - first + 1))
        changed: list[int] = []
        table.model.dataChanged.connect(lambda a, _b: changed.append(a.row()))
        count = table.model.rowCount()
        sim.advance_to(utc(2024, 3, 10, 12))
        table.refresh(sim)
        assert sum(inserted) == len(sim.runs) - count
        assert changed  # the run that was running at 05:05Z
        state = table.model.index(changed[0], COLUMNS.index("state")).data()
        assert state == "success"

    def test_instants_show_in_the_display_zone(self, qtbot: QtBot) -> None:
        sim = orders_mart_sim(utc(2024, 3, 12))
        table = RunsTable()
        qtbot.addWidget(table)
        table.refresh(sim)
        table.set_display_zone(NY)
        row = table.model.store.find("ingest_orders", sim.dags["ingest_orders"].runs[2].run_id)
        assert row is not None
        index = table.model.index(row, COLUMNS.index("data_interval_end"))
        assert index.data() == "2024-03-11 00:00 EDT"
        assert table.model.index(row, COLUMNS.index("interval")).data() == "23 h"


def _python_order(runs: list[DagRun], column: str, descending: bool) -> list[tuple[str, str]]:
    """The order the table must show: a stable sort on the cell's value as Python sees it
    (instants and spans as numbers, none first; text as text)."""

    def key(run: DagRun) -> float | str:
        interval = run.data_interval
        if column == "interval":
            return (
                -math.inf if interval is None else (interval.end - interval.start).total_seconds()
            )
        value = {
            "data_interval_start": None if interval is None else interval.start,
            "data_interval_end": None if interval is None else interval.end,
        }.get(column, getattr(run, column, None))
        if isinstance(value, datetime):
            return value.timestamp()
        if column in ("logical_date", "data_interval_start", "data_interval_end") or column in (
            "start_date",
            "end_date",
        ):
            return -math.inf
        return str(value or "")

    ordered = sorted(runs, key=key, reverse=descending)  # reverse keeps ties stable
    return [(r.dag_id, r.run_id) for r in ordered]


class TestRunsTableSorting:
    @pytest.mark.parametrize("column", COLUMNS)
    @pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
    def test_every_column_sorts_as_python_would(
        self, qtbot: QtBot, column: str, descending: bool
    ) -> None:
        sim = orders_mart_sim(utc(2024, 3, 13))
        table = RunsTable()
        qtbot.addWidget(table)
        table.refresh(sim)
        order = (
            QtCore.Qt.SortOrder.DescendingOrder
            if descending
            else QtCore.Qt.SortOrder.AscendingOrder
        )
        table.view.sortByColumn(COLUMNS.index(column), order)
        assert table.visible_keys() == _python_order(list(sim.runs), column, descending)

    def test_selection_survives_sorting_and_new_rows_land_in_order(self, qtbot: QtBot) -> None:
        inputs = build_engine_inputs(load_scenario(SCENARIOS / "ny_dst_orders_mart.json"))
        sim = make_simulation(inputs)
        sim.advance_to(utc(2024, 3, 10, 12))
        table = RunsTable()
        qtbot.addWidget(table)
        table.refresh(sim)
        chosen = sim.runs[1]
        assert table.select_run(chosen.dag_id, chosen.run_id)
        table.view.sortByColumn(COLUMNS.index("run_after"), QtCore.Qt.SortOrder.DescendingOrder)
        assert table.selected_run() == (chosen.dag_id, chosen.run_id)
        sim.advance_to(utc(2024, 3, 13))
        table.refresh(sim)  # new runs and state changes while sorted
        assert table.visible_keys() == _python_order(list(sim.runs), "run_after", True)
        assert table.selected_run() == (chosen.dag_id, chosen.run_id)
        table.view.sortByColumn(-1, QtCore.Qt.SortOrder.AscendingOrder)  # back to creation order
        assert table.visible_keys() == [(r.dag_id, r.run_id) for r in sim.runs]

    def test_a_hundred_thousand_runs_sort_by_text_and_instant(self, qtbot: QtBot) -> None:
        sim = many_runs(1000, 100)
        table = RunsTable()
        qtbot.addWidget(table)
        table.refresh(sim)
        runs = list(sim.runs)
        for column in ("run_id", "end_date", "state"):
            table.view.sortByColumn(COLUMNS.index(column), QtCore.Qt.SortOrder.DescendingOrder)
            keys = table.visible_keys()
            assert keys[:50] == _python_order(runs, column, True)[:50]
            assert len(keys) == 100_000
        table.state_box.setCurrentText("failed")
        assert {
            table.model.run_at(table.proxy.mapToSource(table.proxy.index(r, 0)).row()).state
            for r in range(table.proxy.rowCount())
        } == {"failed"}


class TestKeyboard:
    def test_keys_zoom_pan_and_fit(self, pane: TimelinePane) -> None:
        pane.show_simulation(orders_mart_sim(utc(2024, 3, 12)))
        pane.fit()
        (x0, x1), _ = pane.viewbox.viewRange()
        key = QtCore.Qt.Key
        assert pane.handle_key(key.Key_Plus)
        (a0, a1), _ = pane.viewbox.viewRange()
        assert a1 - a0 == pytest.approx((x1 - x0) / 2)
        assert pane.handle_key(key.Key_Right)
        (b0, _), _ = pane.viewbox.viewRange()
        assert b0 > a0
        assert pane.handle_key(key.Key_Home)
        (c0, c1), _ = pane.viewbox.viewRange()
        assert (c0, c1) == pytest.approx((x0, x1))
        assert pane.handle_key(key.Key_C)
        (d0, d1), _ = pane.viewbox.viewRange()
        assert (d0 + d1) / 2 == pytest.approx(utc(2024, 3, 12).timestamp())

    def test_clock_closes_in_on_a_horizon_of_months(self, qtbot: QtBot) -> None:
        """An eight-month horizon fitted on screen: centring that view on the clock
        changed nothing visible (the range is clamped to the horizon); C now shows
        the days around the clock."""
        widget = TimelinePane()
        qtbot.addWidget(widget)
        widget.resize(1300, 520)
        scenario = load_scenario(SCENARIOS / "ny_rollup_dst.json")
        sim = make_simulation(build_engine_inputs(scenario))
        sim.advance_to(utc(2024, 3, 9, 11))
        widget.set_horizon(utc(2024, 3, 9, 5), utc(2024, 11, 4, 11))
        widget.show_simulation(sim)
        widget.show()
        qtbot.waitExposed(widget)
        widget.fit()
        assert widget.handle_key(QtCore.Qt.Key.Key_C)
        start, end = widget.x_range()
        assert start <= sim.now <= end
        assert end - start <= timedelta(days=2)
        widget.set_x_range(sim.now - timedelta(hours=2), sim.now + timedelta(hours=4))
        widget.center_on_clock()  # a view already close keeps its width
        start, end = widget.x_range()
        assert end - start == timedelta(hours=6)

    def test_wheel_zooms_time_only(self, qtbot: QtBot, pane: TimelinePane) -> None:
        pane.show_simulation(orders_mart_sim(utc(2024, 3, 12)))
        pane.fit()
        (x0, x1), (y0, y1) = pane.viewbox.viewRange()
        centre = pane.plot.mapFromScene(pane.viewbox.sceneBoundingRect().center())
        event = QtGui.QWheelEvent(
            QtCore.QPointF(centre),
            QtCore.QPointF(pane.plot.mapToGlobal(centre)),
            QtCore.QPoint(0, 0),
            QtCore.QPoint(0, 240),
            QtCore.Qt.MouseButton.NoButton,
            QtCore.Qt.KeyboardModifier.NoModifier,
            QtCore.Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QtWidgets.QApplication.sendEvent(pane.plot.viewport(), event)
        (a0, a1), (b0, b1) = pane.viewbox.viewRange()
        assert a1 - a0 < x1 - x0
        assert (b0, b1) == pytest.approx((y0, y1))


class TestExport:
    @pytest.fixture
    def drawn(self, pane: TimelinePane) -> TimelinePane:
        pane.show_simulation(orders_mart_sim(utc(2024, 3, 12)))
        QtWidgets.QApplication.processEvents()
        return pane

    def test_png(self, drawn: TimelinePane, tmp_path: Path) -> None:
        path = export_widget(drawn.plot, tmp_path / "timeline.png", scale=2.0)
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        image = QtGui.QImage(str(path))
        assert (image.width(), image.height()) == (drawn.plot.width() * 2, drawn.plot.height() * 2)
        colours = {
            image.pixelColor(x, y).name()
            for x in range(0, image.width(), 7)
            for y in range(0, image.height(), 7)
        }
        assert len(colours) > 10, "more than a blank page"

    def test_svg_is_xml_with_the_bars_where_the_screen_has_them(
        self, drawn: TimelinePane, tmp_path: Path
    ) -> None:
        path = export_widget(drawn.plot, tmp_path / "timeline.svg")
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        text = path.read_text()
        assert "Mon 11 Mar" in text  # the axis labels are text
        rects = [e for e in root.iter() if e.tag.endswith("rect")]
        xs = [float(e.get("x", "0")) for e in rects]
        assert xs and max(abs(x) for x in xs) < 10_000, "device pixels, not epoch seconds"

    def test_pdf(self, drawn: TimelinePane, tmp_path: Path) -> None:
        path = export_widget(drawn.plot, tmp_path / "timeline.pdf")
        data = path.read_bytes()
        assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:]
        assert len(data) > 2000

    def test_unknown_format_is_refused(self, drawn: TimelinePane, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="png"):
            export_widget(drawn.plot, tmp_path / "timeline.bmp")


def test_lane_order_follows_the_canvas(pane: TimelinePane) -> None:
    sim = orders_mart_sim(utc(2024, 3, 12))
    pane.show_simulation(sim)
    pane.set_lane_order(["orders_mart", "s3://warehouse/orders", "ingest_orders"])
    assert [lane.key for lane in pane.lanes[:3]] == [
        "orders_mart",
        "s3://warehouse/orders",
        "ingest_orders",
    ]
    mart_rows = [i for i, r in enumerate(pane.runs.runs) if r.dag_id == "orders_mart"]
    assert np.all(pane.runs_item.view.lane[mart_rows] == 0)


def test_scenario_without_script_shows_the_same_lanes(pane: TimelinePane) -> None:
    scenario = dataclasses.replace(load_scenario(SCENARIOS / "ny_dst_orders_mart.json"), script=())
    sim = make_simulation(build_engine_inputs(scenario))
    pane.show_simulation(sim)
    assert len(pane.lanes) == 5 and len(pane.runs) == 0


def paused_rollup() -> Simulation:
    """An hourly partitioned producer paused at 06:30 and a daily rollup waiting on it (PT-8)."""
    from explorer.engine import actions as act
    from explorer.engine.assets.condition import AssetKey, AssetNode
    from explorer.engine.partitions import DayWindow, RollupMapper, StartOfDayMapper
    from explorer.engine.timetables.partitioned import PartitionedAssetTimetable
    from explorer.engine.timetables.trigger import CronPartitionTimetable

    start = utc(2024, 3, 9)
    hourly = AssetKey("hourly", "s3://lake/hourly")
    producer = DagSpec(
        "hourly_producer",
        CronPartitionTimetable("0 * * * *", timezone="UTC"),
        start_date=start,
        tasks=(TaskSpec("write", timedelta(minutes=5), outlets=(hourly,)),),
    )
    rollup = RollupMapper(upstream_mapper=StartOfDayMapper(), window=DayWindow())
    consumer = DagSpec(
        "daily_rollup",
        PartitionedAssetTimetable(assets=AssetNode(hourly), default_partition_mapper=rollup),
        tasks=(TaskSpec("roll", timedelta(minutes=10)),),
    )
    sim = Simulation(
        [producer, consumer],
        start=start,
        script=[act.Pause(start + timedelta(hours=6, minutes=30), "hourly_producer")],
    )
    sim.advance_to(start + timedelta(hours=12))
    return sim


class TestPartitionWindows:
    def test_window_members_are_boxes_arrived_or_never(self, pane: TimelinePane) -> None:
        sim = paused_rollup()
        pane.set_horizon(utc(2024, 3, 9), utc(2024, 3, 10))
        pane.show_simulation(sim)
        boxes = pane.window_boxes
        assert len(boxes) == 24  # the day's hours
        assert sum(b.status == "arrived" for b in boxes) == 7  # 00:00 … 06:00
        never = [b for b in boxes if b.status == "never"]
        assert len(never) == 17 and "paused" in never[0].note
        assert {m.lane for m in pane.overlay_item.boxes} == {1.0}  # on daily_rollup's lane
        target = pane._pick(never[0].at, 1.25, 6)
        assert target is not None and target.member is not None
        assert "can never arrive" in describe(target, get_zone("UTC"))

    def test_a_paused_dag_is_hatched_and_has_no_ghost(self, pane: TimelinePane) -> None:
        sim = paused_rollup()
        pane.show_simulation(sim)
        assert "hourly_producer" not in pane.ghosts
        (span,) = pane.bands_item.paused
        assert span == (0.0, utc(2024, 3, 9, 6, 30).timestamp(), utc(2024, 3, 9, 12).timestamp())


def test_a_failing_paint_leaves_the_item_blank_instead_of_crashing(
    pane: TimelinePane, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """On PySide6 6.11 an exception escaping ``paint`` crashes the next repaint."""
    pane.show_simulation(orders_mart_sim(utc(2024, 3, 12)))

    def broken(painter: QtGui.QPainter) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(pane.runs_item, "draw", broken)
    pane.plot.grab()
    pane.plot.grab()
    assert "RunsItem failed to paint" in caplog.text
