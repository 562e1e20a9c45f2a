"""Opening a big file: read, checked and simulated in the background with progress, the
open document usable until the new one is ready."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF
from pytestqt.qtbot import QtBot

from explorer.ui.main_window import MainWindow
from tests.ui.conftest import EXAMPLES, FakePrompts

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"
SPRING = EXAMPLES / "ny_dst_spring_forward.json"


def big_file(tmp_path: Path, count: int = 400) -> Path:
    """``count`` DAGs copied from the spring-forward example (a file of some hundred KB)."""
    document = json.loads(SPRING.read_text(encoding="utf-8"))
    dags = []
    for i in range(count):
        dag = dict(document["dags"][i % len(document["dags"])])
        dag["dag_id"] = f"{dag['dag_id']}_{i:04d}"
        dags.append(dag)
    document["dags"], document["script"] = dags, []
    document["name"] = f"{count} DAGs"
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _smaller_threshold(window: MainWindow) -> None:
    """Files from 50 kB open in the background here (the default, 256 kB, is about
    1,000 DAGs: slow to make and read on a shared test machine)."""
    window.files.background_bytes = 50_000


def test_a_big_file_opens_in_the_background_and_the_old_document_stays_usable(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    big = big_file(tmp_path)
    assert big.stat().st_size >= window.files.background_bytes
    assert window.open_file(ORDERS)
    old = window.document()
    assert old is not None
    assert window.open_file(big)  # started
    # right away: the old document is still open, and the window says what it is doing
    assert window.document() is old
    assert window.files.opening
    assert window.opening.isVisible() and "Opening big.json" in window.opening.label.text()
    with qtbot.waitSignal(window.files.opened, timeout=120_000):
        pass
    document = window.document()
    assert document is not None and document is not old
    assert document.path == big.resolve()
    assert len(document.scenario.dags) == 400
    assert not window.opening.isVisible()
    session = window.workspace.simulation.session  # type: ignore[union-attr]
    assert len(session.sim.specs) == 400  # the simulation built in the background


def test_edits_made_while_opening_are_asked_about(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, tmp_path: Path
) -> None:
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    old = window.document()
    assert window.open_file(big)
    assert window.workspace is not None
    window.workspace.add_at("asset", QPointF(0, 600))  # the old document is still editable
    assert old is not None and old.is_modified()
    prompts.save_answers.append("cancel")
    qtbot.waitUntil(lambda: not window.files.opening, timeout=120_000)
    assert prompts.asked == ["save? Orders mart across the New York spring-forward"]
    assert window.document() is old  # kept: the user said cancel


def test_opening_can_be_cancelled(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    big = big_file(tmp_path)
    assert window.open_file(ORDERS)
    old = window.document()
    assert window.open_file(big)
    window.opening.cancel.click()
    assert not window.files.opening and not window.opening.isVisible()
    qtbot.wait(200)
    assert window.document() is old


def test_a_bad_big_file_shows_the_error(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    big = big_file(tmp_path)
    big.write_text(big.read_text().replace('"0 0 * * *"', '"0 0 * * * * * *"', 1))
    assert window.open_file(big)
    qtbot.waitUntil(lambda: not window.files.opening, timeout=120_000)
    assert window.files.prompts.errors[-1][0] == "Cannot open big.json"  # type: ignore[attr-defined]
    assert window.document() is None
