"""File > Import Airflow Project… and Re-import, through the window (pytest-qt).

Each test writes its own small DAG folder; the importer reads it statically.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication

from explorer.ui.import_job import ImportJob
from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES

HEADER = """\
import pendulum
from airflow.sdk import DAG, Asset
from airflow.providers.standard.operators.empty import EmptyOperator
"""


def write_project(root: Path, count: int = 4) -> Path:
    """``count`` DAG files under dags/team_<i % 2>/, each a producer of one asset."""
    dags = root / "dags"
    for i in range(count):
        folder = dags / f"team_{i % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"pipeline_{i}.py").write_text(
            HEADER
            + f"""
with DAG(
    "pipeline_{i}",
    schedule="@daily",
    start_date=pendulum.datetime(2024, 5, 1, tz="UTC"),
    tags=["team_{i % 2}"],
):
    EmptyOperator(task_id="load", outlets=[Asset("s3://lake/table_{i}")])
""",
            encoding="utf-8",
        )
    return dags


def dag_ids(window: MainWindow) -> set[str]:
    document = window.document()
    assert document is not None
    return {d.dag_id for d in document.scenario.dags}


def test_import_a_folder_with_progress_while_the_old_document_stays_usable(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path
) -> None:
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    old = window.document()
    assert old is not None
    folder = write_project(tmp_path, 4)
    imports = window.imports
    imports.ask_folder = lambda: folder
    gate = threading.Event()
    seen: list[tuple[int, int, str]] = []
    imports.progressed.connect(lambda done, total, file: seen.append((done, total, file)))

    def hold(job: ImportJob) -> None:
        # the worker waits after its first file until the test has edited the old document
        job.signals.progress.connect(lambda *_: gate.wait(30), Qt.ConnectionType.DirectConnection)

    imports.started.connect(hold)
    window.registry.trigger("file.import")
    assert imports.progress.isVisible() and imports.cancel_button.isVisible()
    assert not window.registry.action("file.import").isEnabled()
    # meanwhile the old document is edited through the window, as usual
    window.registry.trigger("insert.dag")
    assert old.undo_stack.count() == 1
    with qtbot.waitSignal(imports.ended, timeout=60_000) as ended:
        gate.set()
    assert ended.args == ["imported"]
    assert window.prompts.asked == ["save? Orders mart across the New York spring-forward"]
    assert dag_ids(window) == {f"pipeline_{i}" for i in range(4)}
    document = window.document()
    assert document is not None and document is not old and document.path is None
    assert document.undo_stack.count() == 0
    assert [s[:2] for s in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert not imports.progress.isVisible() and not imports.cancel_button.isVisible()
    assert imports.dock.isVisible()
    assert "4 DAGs imported from 4 files" in imports.panel.summary.text()
    assert "PT10M" in imports.panel.summary.text()


def test_cancel_keeps_the_open_scenario(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
    old = window.document()
    folder = write_project(tmp_path, 6)
    imports = window.imports
    imports.ask_folder = lambda: folder

    def cancel_after_first_file(job: ImportJob) -> None:
        job.signals.progress.connect(lambda *_: job.cancel(), Qt.ConnectionType.DirectConnection)

    imports.started.connect(cancel_after_first_file)
    with qtbot.waitSignal(imports.ended, timeout=60_000) as ended:
        window.registry.trigger("file.import")
        qtbot.mouseClick(imports.cancel_button, Qt.MouseButton.LeftButton)
    assert ended.args == ["cancelled"]
    assert window.document() is old
    assert not imports.cancel_button.isVisible()
    assert window.registry.action("file.import").isEnabled()


MYSTERY = """\
import os
from datetime import datetime
from airflow.sdk import DAG
from airflow.providers.standard.operators.empty import EmptyOperator

with DAG(
    "mystery",
    schedule="@daily",
    start_date=datetime.fromisoformat(os.environ["START"]),
):
    EmptyOperator(task_id="t")
"""


def import_folder(qtbot, window: MainWindow, folder: Path) -> None:  # type: ignore[no-untyped-def]
    window.imports.ask_folder = lambda: folder
    with qtbot.waitSignal(window.imports.ended, timeout=60_000) as ended:
        window.registry.trigger("file.import")
    assert ended.args == ["imported"]


def row_point(tree, row):  # type: ignore[no-untyped-def]
    QApplication.processEvents()  # the dock has its size (set once shown)
    tree.scrollToItem(row)
    rect = tree.visualItemRect(row)
    # a point of the row inside the viewport (the row may be wider than a narrow dock)
    x = min(rect.center().x(), rect.left() + tree.viewport().width() // 2)
    return QPoint(max(x, rect.left() + 1), rect.center().y())


def find_row(panel, prefix: str):  # type: ignore[no-untyped-def]
    tree = panel.tree
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        for j in range(top.childCount()):
            if top.child(j).text(0).startswith(prefix):
                return top.child(j)
    raise AssertionError(f"no row {prefix!r}")


def test_tag_and_folder_filters_of_an_imported_project(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import_folder(qtbot, window, write_project(tmp_path, 4))
    ws = window.workspace
    assert ws is not None
    bar = ws.focus_bar
    assert bar.tag.isVisible() and bar.folder.isVisible()
    assert [bar.tag.itemText(i) for i in range(bar.tag.count())] == ["Any tag", "team_0", "team_1"]
    index = bar.tag.findData("team_1")
    bar.tag.setCurrentIndex(index)
    bar.tag.activated.emit(index)  # what choosing it in the list does
    shown = {n for n, item in ws.scene.nodes.items() if n.startswith("dag:") and item.isVisible()}
    assert shown == {"dag:pipeline_1", "dag:pipeline_3"}
    assert ws.simulation is not None
    lanes = {lane.key for lane in ws.simulation.bench.timeline.lanes}
    assert lanes == {"pipeline_1", "pipeline_3", "s3://lake/table_1", "s3://lake/table_3"}
    qtbot.mouseClick(bar.show_all, Qt.MouseButton.LeftButton)
    index = bar.folder.findData("team_0")
    bar.folder.setCurrentIndex(index)
    bar.folder.activated.emit(index)
    shown = {n for n, item in ws.scene.nodes.items() if n.startswith("dag:") and item.isVisible()}
    assert shown == {"dag:pipeline_0", "dag:pipeline_2"}
    assert bar.summary.text() == "Showing 2 of 4 DAGs: in folder team_0"


def test_a_report_item_leads_to_its_field_where_the_value_is_supplied_in_one_step(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path
) -> None:
    folder = write_project(tmp_path, 2)
    (folder / "mystery.py").write_text(MYSTERY, encoding="utf-8")
    import_folder(qtbot, window, folder)
    panel = window.imports.panel
    assert "1 value to supply" in panel.summary.text()
    ws = window.workspace
    assert ws is not None
    # mystery links to no asset: it sits in its folder's grid, under the folder's title
    label = ws.folder_labels.items[""]
    assert label.text() == "(import root)  ·  1 DAG"
    mystery = ws.scene.nodes["dag:mystery"]
    assert label.sceneBoundingRect().bottom() < mystery.sceneBoundingRect().top()
    row = find_row(panel, "mystery · start_date")
    assert row.text(1) == "mystery.py:9"  # the line of start_date=
    assert "environment" in row.text(2)
    tree = panel.tree
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=row_point(tree, row))
    assert ws.scene.selected_ids() == ["dag:mystery"]
    line = ws.inspector.current.start_date.edit  # type: ignore[union-attr]
    qtbot.waitUntil(line.hasFocus, timeout=3000)
    document = ws.document
    qtbot.keyClicks(line, "2024-06-01T00:00:00Z")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert document.undo_stack.count() == 1
    dag = next(d for d in document.scenario.dags if d.dag_id == "mystery")
    assert dag.start_date is not None and dag.start_date.text == "2024-06-01T00:00:00Z"
    assert dag.supplied == ("start_date",)
    assert find_row(panel, "✓ mystery · start_date") is not None
    assert "Every value is read or supplied" in panel.summary.text()
    document.undo_stack.undo()
    dag = next(d for d in document.scenario.dags if d.dag_id == "mystery")
    assert dag.start_date is None and dag.supplied == ()
    assert "1 value to supply" in panel.summary.text()


def test_reimport_shows_what_changed_keeps_positions_and_supplied_values_and_undoes(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path
) -> None:
    folder = write_project(tmp_path, 3)
    (folder / "mystery.py").write_text(MYSTERY, encoding="utf-8")
    import_folder(qtbot, window, folder)
    ws = window.workspace
    assert ws is not None
    document = ws.document
    # the user supplies the unresolved start_date and moves a node
    ws.scene.select_nodes(["dag:mystery"])
    line = ws.inspector.current.start_date.edit  # type: ignore[union-attr]
    line.setFocus()
    qtbot.keyClicks(line, "2024-06-01T00:00:00Z")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    ws.scene.commit_moves(
        {"dag:pipeline_0": ws.scene.nodes["dag:pipeline_0"].pos() + QPointF(0, 500)}
    )
    moved = document.scenario.layout["dag:pipeline_0"]
    assert document.undo_stack.count() == 2
    before = document.scenario
    # the files change: one DAG removed, one added, one schedule changed
    (folder / "team_0" / "pipeline_2.py").unlink()
    write_project(tmp_path, 1)  # rewrites pipeline_0 as it was
    text = (folder / "team_0" / "pipeline_0.py").read_text(encoding="utf-8")
    (folder / "team_0" / "pipeline_0.py").write_text(
        text.replace('schedule="@daily"', 'schedule="@hourly"'), encoding="utf-8"
    )
    (folder / "team_1" / "late.py").write_text(
        HEADER + '\nwith DAG("late", schedule=None):\n    EmptyOperator(task_id="t")\n',
        encoding="utf-8",
    )
    assert window.registry.action("file.reimport").isEnabled()
    with qtbot.waitSignal(window.imports.ended, timeout=60_000) as ended:
        window.registry.trigger("file.reimport")
    assert ended.args == ["reimported"]
    assert document is window.document()  # updated in place
    assert document.undo_stack.count() == 3
    assert document.undo_stack.text(2) == "Re-import from files"
    dags = {d.dag_id: d for d in document.scenario.dags}
    assert set(dags) == {"pipeline_0", "pipeline_1", "mystery", "late"}
    assert dags["pipeline_0"].schedule == "@hourly"
    assert dags["mystery"].start_date is not None
    assert dags["mystery"].start_date.text == "2024-06-01T00:00:00Z"  # supplied: kept
    assert document.scenario.layout["dag:pipeline_0"] == moved  # positions kept
    panel = window.imports.panel
    changes = {str(c) for c in panel.changes or ()}
    assert "late: added" in changes and "pipeline_2: removed" in changes
    assert any(c.startswith("pipeline_0: schedule changed") for c in changes)
    assert find_row(panel, "late").text(1) == "dag added"
    assert "re-import added 1 DAG, removed 1, changed 1" in panel.summary.text()
    # one undo step puts the scenario back as it was before the re-import
    document.undo_stack.undo()
    assert document.scenario == before


def test_an_import_that_reads_nothing_says_why_in_the_dialog_dock_and_status_bar(  # type: ignore[no-untyped-def]
    qtbot, window, prompts, tmp_path
) -> None:
    folder = tmp_path / "refused"
    folder.mkdir()
    (folder / "old.py").write_text(
        "from airflow.models.dataset import Dataset\nfrom airflow.sdk import DAG\n"
        "with DAG('old', schedule=None):\n    pass\n",
        encoding="utf-8",
    )
    window.imports.ask_folder = lambda: folder
    with qtbot.waitSignal(window.imports.ended, timeout=60_000) as ended:
        window.registry.trigger("file.import")
    assert ended.args == ["empty"]
    title, text = prompts.errors[-1]
    assert title == "Nothing to import"
    assert "old.py" in text and "airflow.models.dataset" in text
    assert "Nothing could be imported" in window.imports.panel.summary.text()
    assert "airflow.models.dataset" in window.statusBar().currentMessage()


def test_a_default_taken_by_the_import_is_flagged_in_the_inspector(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path
) -> None:
    folder = tmp_path / "defaults"
    folder.mkdir()
    (folder / "report.py").write_text(
        "from datetime import datetime\nfrom airflow.sdk import DAG, Variable\n"
        "with DAG('report', schedule=Variable.get('report_cron', default='30 7 * * *'),"
        " start_date=datetime(2024, 1, 1)):\n    pass\n",
        encoding="utf-8",
    )
    import_folder(qtbot, window, folder)
    ws = window.workspace
    ws.scene.select_nodes(["dag:report"])
    form = ws.inspector.current
    assert form is not None
    assert "from the default of Variable `report_cron`" in form.subtitle.text()
