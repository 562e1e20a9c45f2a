"""The run card shows what the run's task reads: the template context (adr/0008, CTX-1..CTX-5)
and the runs table's template rendered for that run."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from explorer.engine.context import template_context
from explorer.engine.run_card import context_rows, run_card
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from explorer.ui.main_window import MainWindow
from explorer.ui.panels.workbench import Workbench
from explorer.ui.timeline.pane import TimelinePane
from tests.ui.conftest import EXAMPLES
from tests.ui.test_run_card import hover

pytestmark = pytest.mark.qt_log_ignore(r"does not support raise\(\)")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def _bench(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, name: str, until: datetime
) -> Workbench:
    path = tmp_path / name
    shutil.copy(EXAMPLES / name, path)
    assert window.open_file(path)
    panes = window.workspace.simulation if window.workspace else None
    assert panes is not None
    panes.session.run_to(until)
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20000)
    return panes.bench


def _type_template(qtbot: QtBot, bench: Workbench, text: str) -> None:
    edit = bench.table.template_edit
    edit.setFocus()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, QtCore.Qt.Key.Key_Return)


def _open_context(
    qtbot: QtBot, pane: TimelinePane, run_id: str, dag_id: str = "daily_sales"
) -> None:
    """Pin the run's card and click its template-context toggle, as a user does."""
    assert pane.pin_card(dag_id, run_id)
    button = pane.run_card.context_button
    if not button.isChecked():
        qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
    assert button.isChecked() and "hide template context" in button.text()


def test_card_of_a_daily_run_lists_its_context_and_renders_the_template(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    bench = _bench(
        qtbot, window, tmp_path, "change_airflow2_to_3_daily_cron.json", utc(2024, 6, 7, 1)
    )
    pane = bench.timeline
    pane.set_display_zone("UTC")
    sim = bench.session.sim
    runs = list(sim.dags["daily_sales"].runs)
    # the Airflow 2 style run at 06-03 00:00 covers 06-02; the 3.3 run at 06-06 00:00 its own day
    old = next(r for r in runs if r.run_after == utc(2024, 6, 3))
    new = next(r for r in runs if r.run_after == utc(2024, 6, 6))
    _type_template(qtbot, bench, "WHERE dt >= '{{ data_interval_start }}' AND ds = '{{ ds }}'")
    lane = pane.lane_index("daily_sales")
    assert lane is not None
    assert old.data_interval is not None
    middle = (old.data_interval.start.timestamp() + old.data_interval.end.timestamp()) / 2
    hover(qtbot, pane, middle, lane - 0.2)
    card = pane.run_card
    assert card.isVisible() and card.card is not None and card.card.run_id == old.run_id
    # hovering gives the run's facts; the context waits behind the pinned card's toggle
    hovered = "\n".join(card.lines())
    assert "ds_nodash" not in hovered and "click the run to pin" in hovered
    _open_context(qtbot, pane, old.run_id)
    text = "\n".join(card.lines())
    for key in (
        "ds",
        "ds_nodash",
        "ts",
        "logical_date",
        "data_interval_start",
        "data_interval_end",
        "prev_data_interval_start_success",
        "prev_start_date_success",
        "partition_key",
        "triggering_asset_events",
    ):
        assert f"{key}" in text, key
    assert "2024-06-02" in text and "20240602" in text
    assert "2024-06-02T00:00:00+00:00" in text  # ts / data_interval_start as {{ }} renders them
    assert "WHERE dt >= '2024-06-02 00:00:00+00:00' AND ds = '2024-06-02'" in text
    # the 3.3 run: logical date = run_after, an empty interval, ds its own day
    pane.run_card.dismiss()
    hover(qtbot, pane, new.run_after.timestamp() + 300, lane + 0.18)  # its execution bar
    assert pane.run_card.card is not None and pane.run_card.card.run_id == new.run_id
    # the toggle stays open for the view's next pinned card
    assert pane.pin_card("daily_sales", new.run_id)
    assert pane.run_card.context_button.isChecked()
    text = "\n".join(pane.run_card.lines())
    assert "WHERE dt >= '2024-06-06 00:00:00+00:00' AND ds = '2024-06-06'" in text
    assert "absent" not in text


def test_card_of_an_asset_triggered_run_says_which_keys_are_absent(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    bench = _bench(
        qtbot,
        window,
        tmp_path,
        "change_condition_edited_with_queued_events.json",
        utc(2024, 6, 1, 12, 30),
    )
    pane = bench.timeline
    run = next(iter(bench.session.sim.dags["sales_mart"].runs))
    assert run.logical_date is None
    _type_template(qtbot, bench, "{{ ds }}")
    _open_context(qtbot, pane, run.run_id, dag_id="sales_mart")
    text = "\n".join(pane.run_card.lines())
    assert "absent" in text and "ds, ds_nodash, ts" in text
    assert "a template reading them fails the task" in text
    assert "error: 'ds' is undefined" in text
    assert "orders ×1" in text  # triggering_asset_events: the kept orders row's event (DEP-5)


def test_context_rows_are_the_values_a_template_renders() -> None:
    sim = make_simulation(
        build_engine_inputs(load_scenario(EXAMPLES / "change_airflow2_to_3_daily_cron.json"))
    )
    sim.advance_to(utc(2024, 6, 4))
    run = next(r for r in sim.dags["daily_sales"].runs if r.run_after == utc(2024, 6, 4))
    rows, absent = context_rows(template_context(sim, run))
    values = dict(rows)
    assert values["ds"] == "2024-06-03"
    assert values["logical_date"] == "2024-06-03 00:00:00+00:00"
    assert values["prev_data_interval_start_success"] == "2024-06-02 00:00:00+00:00"
    assert values["partition_key"] == "None"
    assert absent == ()
    card = run_card(
        run, context=template_context(sim, run), template="{{ ds }}", rendered=("2024-06-03", None)
    )
    assert card.as_dict()["template_context"]["ds_nodash"] == "20240603"
    assert card.as_dict()["rendered"] == "2024-06-03"


def test_a_pinned_card_keeps_the_context_closed_until_asked(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """On a screen share the card must leave the timeline in view: the context (a dozen
    rows) opens on demand, and closes again with the toggle."""
    bench = _bench(
        qtbot, window, tmp_path, "change_airflow2_to_3_daily_cron.json", utc(2024, 6, 7, 1)
    )
    pane = bench.timeline
    run = next(iter(bench.session.sim.dags["daily_sales"].runs))
    assert pane.pin_card("daily_sales", run.run_id)
    card = pane.run_card
    closed_height = card.height()
    assert "ds_nodash" not in "\n".join(card.lines())
    assert card.lines()[-1] == "▸ template context"
    qtbot.mouseClick(card.context_button, QtCore.Qt.MouseButton.LeftButton)
    assert "ds_nodash" in "\n".join(card.lines())
    assert card.height() > closed_height + 100
    qtbot.mouseClick(card.context_button, QtCore.Qt.MouseButton.LeftButton)
    assert "ds_nodash" not in "\n".join(card.lines())
    assert card.height() < closed_height + 20
