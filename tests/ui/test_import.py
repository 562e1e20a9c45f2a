"""File > Import Airflow Project… and Re-import, through the window (pytest-qt).

Each test writes its own small DAG folder; the importer reads it statically.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt

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
