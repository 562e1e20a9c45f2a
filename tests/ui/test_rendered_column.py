"""The runs table's rendered column: a user's template per run (adr/0008), typed in the bar."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from PySide6 import QtCore, QtGui
from pytestqt.qtbot import QtBot

from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from explorer.ui.timeline import RunsTable
from explorer.ui.timeline.runs_table import COLUMNS, RENDERED

SCENARIOS = Path(__file__).resolve().parents[2] / "resources" / "scenarios"


def _table(qtbot: QtBot, name: str, until: datetime) -> RunsTable:
    sim = make_simulation(build_engine_inputs(load_scenario(SCENARIOS / name)))
    sim.advance_to(until)
    table = RunsTable()
    qtbot.addWidget(table)
    table.resize(1400, 500)
    table.show()
    table.refresh(sim)
    return table


def _type_template(qtbot: QtBot, table: RunsTable, text: str) -> None:
    table.template_edit.setFocus()
    qtbot.keyClicks(table.template_edit, text)
    qtbot.keyClick(table.template_edit, QtCore.Qt.Key.Key_Return)


def _cells(table: RunsTable, column: str) -> list[str]:
    model = table.proxy
    col = [
        model.headerData(c, QtCore.Qt.Orientation.Horizontal, 0) for c in range(model.columnCount())
    ].index(column)
    return [str(model.data(model.index(r, col))) for r in range(model.rowCount())]


def test_typing_a_template_adds_a_rendered_column_with_each_runs_ds(qtbot: QtBot) -> None:
    table = _table(qtbot, "ny_dst_spring_forward.json", datetime(2024, 3, 12, tzinfo=UTC))
    assert table.proxy.columnCount() == len(COLUMNS)
    _type_template(qtbot, table, "{{ ds }} -> {{ macros.ds_add(ds, 1) }}")
    assert table.proxy.columnCount() == len(COLUMNS) + 1
    rendered = _cells(table, RENDERED)
    logical = [table.model.run_at(r).logical_date for r in range(table.model.rowCount())]
    assert rendered
    for text, date in zip(rendered, logical, strict=True):
        assert date is not None
        day = date.strftime("%Y-%m-%d")
        assert text.startswith(f"{day} -> ")
        assert text != f"{day} -> {day}"
    # clearing the template removes the column
    table.template_edit.clear()
    qtbot.keyClick(table.template_edit, QtCore.Qt.Key.Key_Return)
    assert table.proxy.columnCount() == len(COLUMNS)


def test_runs_without_logical_date_show_the_error_in_their_cell(qtbot: QtBot) -> None:
    table = _table(qtbot, "or_and_coalescing.json", datetime(2024, 5, 1, 0, 30, tzinfo=UTC))
    _type_template(qtbot, table, "{{ ds }}")
    rendered = _cells(table, RENDERED)
    model = table.model
    column = len(COLUMNS)
    for row, text in enumerate(rendered):
        run = model.run_at(row)
        if run.run_type == "asset_triggered":
            assert text.startswith("error: 'ds' is undefined")
            colour = model.data(model.index(row, column), QtCore.Qt.ItemDataRole.ForegroundRole)
            assert isinstance(colour, QtGui.QColor)
        else:
            assert text == run.logical_date.strftime("%Y-%m-%d")
    assert any(t.startswith("error:") for t in rendered)
