"""What the app says, read as a new user reads it: counts, chips, the next-runs line."""

from __future__ import annotations

import dataclasses

from explorer.document.files import Example
from explorer.document.schedule_kinds import summarize
from explorer.scenario import load_scenario
from explorer.ui.gallery import Gallery
from explorer.ui.inspector.dag_form import DagForm
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def test_one_dag_is_not_one_dags(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    gallery = Gallery()
    qtbot.addWidget(gallery)
    gallery.fill_examples([Example(ORDERS, "One", "", 1, 1)])
    assert "1 DAG ·" in gallery.examples.item(0).text()
    scenario = load_scenario(ORDERS)
    one = dataclasses.replace(
        scenario, dags=scenario.dags[:1], assets=scenario.assets[:1], script=()
    )
    assert window.open_file(ORDERS)
    form = window.workspace.inspector.forms["scenario"]  # type: ignore[union-attr]
    form.refresh(one)
    assert form.summary.text() == "1 DAG, 1 declared asset, 0 script actions."


def test_a_utc_dags_chip_names_its_zone() -> None:
    scenario = load_scenario(ORDERS)
    customers = next(d for d in scenario.dags if d.dag_id == "ingest_customers")
    assert customers.timezone == "UTC"
    assert summarize(customers, scenario).chip == "At 00:00 (UTC)"
    orders = next(d for d in scenario.dags if d.dag_id == "ingest_orders")
    assert summarize(orders, scenario).chip == "At 00:00 (America/New_York)"


def test_an_asset_scheduled_dag_says_when_it_runs(window: MainWindow) -> None:
    assert window.open_file(ORDERS)
    ws = window.workspace
    assert ws is not None
    ws.scene.select_nodes(["dag:orders_mart"])
    form = ws.inspector.current
    assert isinstance(form, DagForm)
    text = form.schedule.runs.text()
    assert "No automatic runs" not in text
    assert "when orders AND customers are updated" in text


def test_the_zone_box_shows_the_whole_zone_name(window: MainWindow) -> None:
    assert window.open_file(ORDERS)
    box = window.workspace.simulation.bench.timeline.zone_box  # type: ignore[union-attr]
    assert box.currentText() == "America/New_York"
    needed = box.fontMetrics().horizontalAdvance("America/New_York")
    assert box.width() >= needed + 20  # the text and the arrow
    from PySide6.QtWidgets import QWidgetItem

    assert QWidgetItem(box).minimumSize().width() >= needed + 20  # no layout squeezes it


def test_the_next_run_menu_names_the_run_by_when_it_is_created(window: MainWindow) -> None:
    from datetime import UTC, datetime

    assert window.open_file(ORDERS)
    bench = window.workspace.simulation.bench  # type: ignore[union-attr]
    bench.session.run_to(datetime(2024, 3, 9, 12, tzinfo=UTC))
    ghost = bench.timeline.ghosts["ingest_orders"]
    assert ghost.logical_date is not None and ghost.run_after > ghost.logical_date
    target = bench.timeline.target_at(ghost.run_after, "ingest_orders")
    assert target is not None and target.ghost is not None
    texts = [a.text() for a in bench.injection.build_menu(target).actions()]
    header = next(t for t in texts if "next run" in t)
    assert "created Sun 10 Mar 2024 00:00 EST" in header  # run_after, 2024-03-10T05:00Z
    assert "Sat 09 Mar" not in header  # not its logical date


def test_the_legend_wraps_between_entries_not_inside_one() -> None:
    from explorer.ui.timeline.pane import legend_entries, legend_html
    from explorer.ui.timeline.style import NORMAL

    html = legend_html(NORMAL)
    for words in (
        "next&nbsp;run",
        "no&nbsp;interval",
        "window&nbsp;members",
        "DST&nbsp;day",
        "no&nbsp;task&nbsp;instances",
    ):
        assert words in html
    for group in legend_entries(NORMAL):
        for _, words in group:  # every entry's words stay on one line
            assert words.replace(" ", "&nbsp;") in html
    assert "</span> " not in html  # no swatch is left alone at a line's end
