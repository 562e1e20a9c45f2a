"""Pictures from the main window and the review report from File > Export.

Before this, the main window had no way to export the timeline (File > Export lived only
in ``python -m explorer.ui.session``); these tests drive the main window's own menus.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QContextMenuEvent, QImage
from PySide6.QtWidgets import QApplication, QMenu

from explorer.document.timeline.data import Lane
from explorer.document.timeline.picking import TimelineTarget
from explorer.ui.pictures import window_picture
from tests.ui.conftest import EXAMPLES

DST = EXAMPLES / "ny_dst_spring_forward.json"


def menu_action(window, *path: str):  # type: ignore[no-untyped-def]
    """The action reached through the menu bar by its visible texts (without '&')."""
    actions = window.menuBar().actions()
    for i, name in enumerate(path):
        action = next(a for a in actions if a.text().replace("&", "") == name)
        if i == len(path) - 1:
            return action
        actions = action.menu().actions()
    raise AssertionError(path)


def opened(window, qtbot):  # type: ignore[no-untyped-def]
    assert window.open_file(DST)
    panes = window.workspace.simulation
    panes.session.run_to(datetime(2024, 3, 11, 6, tzinfo=UTC))
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20_000)
    return panes


def test_file_menu_exports_canvas_timeline_and_both(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    opened(window, qtbot)
    asked: list[str] = []
    targets = iter([tmp_path / "canvas.png", tmp_path / "timeline.png", tmp_path / "both.png"])

    def ask(caption: str, suggested: str, filters: str) -> Path:
        asked.append(caption)
        return next(targets)

    window.exports.ask_path = ask
    menu_action(window, "File", "Export", "Export Canvas Picture…").trigger()
    menu_action(window, "File", "Export", "Export Timeline Picture…").trigger()
    menu_action(window, "File", "Export", "Export Canvas and Timeline…").trigger()
    assert asked == [
        "Export canvas picture",
        "Export timeline picture",
        "Export canvas and timeline picture",
    ]
    sizes = {
        name: QImage(str(tmp_path / f"{name}.png")).size()
        for name in ("canvas", "timeline", "both")
    }
    assert all(not s.isEmpty() for s in sizes.values()), sizes
    # Stacked: as wide as each, about as tall as both together.
    assert sizes["both"].width() == sizes["canvas"].width() == sizes["timeline"].width()
    assert sizes["both"].height() > max(sizes["canvas"].height(), sizes["timeline"].height())


def test_svg_and_pdf_carry_title_zone_clock_and_legend(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    opened(window, qtbot)
    svg = window.exports.export("both", tmp_path / "both.svg")
    assert svg is not None
    text = svg.read_text(encoding="utf-8").replace("\xa0", " ")  # the legend keeps words whole
    assert "Daily New York schedules across the spring-forward" in text
    assert "Times in America/New_York" in text
    assert "clock at Mon 11 Mar 2024 02:00 EDT" in text
    for legend in ("logical_date", "run_after", "DST day"):
        assert legend in text
    pdf = window.exports.export("timeline", tmp_path / "timeline.pdf")
    assert pdf is not None and pdf.read_bytes().startswith(b"%PDF")


def test_copy_image_puts_the_stacked_picture_on_the_clipboard(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    opened(window, qtbot)
    QApplication.clipboard().clear()
    menu_action(window, "File", "Copy Image").trigger()
    image = QApplication.clipboard().image()
    assert not image.isNull()
    assert image.width() > 1000 and image.height() > 400


@pytest.mark.qt_log_ignore("does not support raise", "grabbing the keyboard", "grabbing the mouse")
def test_right_click_on_canvas_and_timeline_offers_the_exports(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    panes = opened(window, qtbot)
    view = window.workspace.view
    point = QPoint(5, 5)
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, point, view.viewport().mapToGlobal(point)
    )
    menus: list[QMenu] = []
    view.contextMenuRequested.connect(
        lambda where, on: menus.append(window._context_menu(where, on))
    )
    QApplication.sendEvent(view.viewport(), event)
    (menu,) = menus
    texts = [a.text() for a in menu.actions()]
    menu.close()
    assert "Export &Canvas Picture…" in texts and "Copy &Image" in texts
    target = TimelineTarget(
        "lane", Lane("dag", "ingest_orders", "ingest_orders"), datetime(2024, 3, 10, 5, tzinfo=UTC)
    )
    timeline_menu = panes.bench.injection.build_menu(target)
    found = panes.bench.injection.find(timeline_menu, "Export Timeline Picture")
    assert found is not None
    window.exports.ask_path = lambda *_: tmp_path / "from-menu.svg"
    found.trigger()
    assert "Times in America/New_York" in (tmp_path / "from-menu.svg").read_text(encoding="utf-8")


def test_export_review_report_from_the_file_menu(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    opened(window, qtbot)
    window.exports.ask_path = lambda *_: tmp_path / "review.html"
    menu_action(window, "File", "Export", "Export Review Report…").trigger()
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert html.count("<svg") >= 2
    assert "ingest_orders · 5 runs" in html
    assert "Sun 10 Mar 2024" in html and "23 h" in html  # the DST day


def test_an_exported_timeline_shows_every_lane_not_only_those_in_the_dock(  # type: ignore[no-untyped-def]
    window, qtbot, tmp_path
) -> None:
    """More lanes than the dock's height holds: the picture has them all, with the
    title, zone and clock, at the time window the user looks at."""
    import json

    document = json.loads(DST.read_text(encoding="utf-8"))
    dags = []
    for i in range(30):
        dag = dict(document["dags"][i % len(document["dags"])])
        dag["dag_id"] = f"lane_{i:02d}"
        dags.append(dag)
    document["dags"], document["script"] = dags, []
    path = tmp_path / "many.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert window.open_file(path)
    panes = window.workspace.simulation
    panes.session.run_to(datetime(2024, 3, 11, 6, tzinfo=UTC))
    qtbot.waitUntil(lambda: not panes.session.busy, timeout=20_000)
    live = panes.bench.timeline
    keys = [lane.key for lane in live.lanes]
    assert {f"lane_{i:02d}" for i in range(30)} <= set(keys)
    _, (y0, y1) = live.viewbox.viewRange()
    assert y1 - y0 < len(keys)  # the dock shows only some of the lanes
    picture = window_picture(window, "timeline")
    assert picture is not None
    whole = picture.parts.keep
    assert [lane.key for lane in whole.lanes] == keys  # same lanes, same order
    _, (top, bottom) = whole.viewbox.viewRange()
    assert top <= -0.5 and bottom >= len(keys) - 0.5  # every lane drawn
    assert whole.plot.lane_axis.labels[-1] == live.plot.lane_axis.labels[-1]
    assert whole.display_zone == live.display_zone == "America/New_York"
    x0, x1 = (t.timestamp() for t in whole.x_range())
    assert (x0, x1) == pytest.approx(tuple(t.timestamp() for t in live.x_range()), abs=60)
    png = window.exports.export("timeline", tmp_path / "all.png")
    image = QImage(str(png))
    # at least a lane height per lane (the image is drawn at twice the picture's scale)
    assert image.height() / 2 >= len(keys) * whole.style_.lane_px * picture.width / whole.width()
    svg = window.exports.export("timeline", tmp_path / "all.svg").read_text(encoding="utf-8")
    assert "Times in America/New_York" in svg and "clock at" in svg
    assert "lane_00" in svg and "lane_29" in svg  # the first and the last lane named
