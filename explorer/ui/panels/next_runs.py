"""Next runs: for a time-driven DAG, the next N runs at the clock, in its zone and in UTC.

Starts from the scheduler's own next-run cache (``next_dagrun*``) when the
DAG is deployed — what Airflow will actually create next — then continues
with the timetable, as ``explorer next-runs`` does. Each row says what is
unusual about it: a 23/25-hour interval and the DST change behind it, a
trigger run whose ``logical_date`` is its own run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from explorer.document.timeline.dst import transitions_between
from explorer.document.timeline.timebase import fmt_local, fmt_span, fmt_utc, zone_of
from explorer.engine.errors import EngineError
from explorer.engine.types import DagRunInfo, ReferenceRun

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation
    from explorer.ui.session import SimulationSession

__all__ = ["NextRun", "NextRunsPane", "next_runs"]


@dataclass(frozen=True, slots=True)
class NextRun:
    info: DagRunInfo
    note: str


def next_runs(sim: Simulation, dag_id: str, count: int) -> tuple[str, list[NextRun]]:
    """(headline, rows) for ``dag_id`` at the clock; no rows for DAGs the clock does not drive."""
    dag = sim.dags[dag_id]
    spec = dag.spec
    table = spec.timetable
    headline = f"{dag_id}: {table.name}({table.summary}) — {table.description}"
    zone_note = f"; time zone {spec.timezone}; catchup={spec.catchup}"
    if not table.can_be_scheduled or not table.periodic or table.asset_triggered:
        return headline + zone_note + " — not driven by the clock: no next runs to list", []
    infos: list[DagRunInfo] = []
    first_cached = dag.deployed and dag.next_run is not None
    info = dag.next_run if first_cached else None
    try:
        if info is None:
            info = table.next_dagrun_info(last=None, restriction=spec.restriction, now=sim.now)
        while info is not None and len(infos) < count:
            infos.append(info)
            info = table.next_dagrun_info(
                last=ReferenceRun.of(info), restriction=spec.restriction, now=sim.now
            )
    except EngineError as exc:
        headline += f" (stops: {exc})"
    lengths = [i.data_interval.end - i.data_interval.start for i in infos if i.data_interval]
    usual = sorted(lengths)[len(lengths) // 2] if lengths else None
    zones = {spec.timezone, getattr(table, "timezone_name", spec.timezone)}
    rows = []
    for index, item in enumerate(infos):
        notes = []
        if index == 0 and first_cached:
            notes.append("the scheduler's cached next run")
        interval = item.data_interval
        if interval is not None and interval.end == interval.start:
            notes.append("no interval length: logical_date = run_after")
        elif interval is not None and usual is not None and interval.end - interval.start != usual:
            length = interval.end - interval.start
            changes = transitions_between(zones, interval.start, interval.end)
            why = f": {changes[0].label}" if changes else ""
            notes.append(f"{fmt_span(length)} interval (usually {fmt_span(usual)}){why}")
        if item.partition_key:
            notes.append(f"partition {item.partition_key}")
        rows.append(NextRun(item, "; ".join(notes)))
    return headline + zone_note, rows


class NextRunsPane(QtWidgets.QWidget):
    HEADERS = (
        "#",
        "logical_date",
        "logical_date (UTC)",
        "data interval",
        "length",
        "run_after",
        "run_after (UTC)",
        "note",
    )

    def __init__(self, session: SimulationSession, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._dirty = True
        self.dag_box = QtWidgets.QComboBox()
        self.dag_box.currentTextChanged.connect(lambda _: self.refresh())
        self.count_box = QtWidgets.QSpinBox()
        self.count_box.setRange(1, 500)
        self.count_box.setValue(10)
        self.count_box.valueChanged.connect(lambda _: self.refresh())
        self.headline = QtWidgets.QLabel()
        self.headline.setWordWrap(True)
        self.table = QtWidgets.QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels(list(self.HEADERS))
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("DAG:"))
        top.addWidget(self.dag_box)
        top.addWidget(QtWidgets.QLabel("runs:"))
        top.addWidget(self.count_box)
        top.addStretch(1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.headline)
        layout.addWidget(self.table, 1)
        self._fill_dags()
        session.changed.connect(self._changed)
        session.scenario_replaced.connect(self._fill_dags)

    def set_dag(self, dag_id: str) -> None:
        if dag_id in self.session.sim.dags:
            self.dag_box.setCurrentText(dag_id)

    def _fill_dags(self) -> None:
        current = self.dag_box.currentText()
        self.dag_box.blockSignals(True)
        self.dag_box.clear()
        self.dag_box.addItems(list(self.session.sim.dags))
        if current in self.session.sim.dags:
            self.dag_box.setCurrentText(current)
        self.dag_box.blockSignals(False)
        self._changed()

    def _changed(self) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        self._dirty = False
        dag_id = self.dag_box.currentText()
        if not dag_id:
            return
        sim = self.session.sim
        headline, rows = next_runs(sim, dag_id, self.count_box.value())
        zone_name = sim.dags[dag_id].spec.timezone
        zone = zone_of(zone_name)
        self.headline.setText(headline)
        self.table.setHorizontalHeaderLabels(
            [
                "#",
                f"logical_date ({zone_name})",
                "logical_date (UTC)",
                f"data interval ({zone_name})",
                "length",
                f"run_after ({zone_name})",
                "run_after (UTC)",
                "note",
            ]
        )
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            info = row.info
            interval = info.data_interval
            cells = [
                str(r + 1),
                fmt_local(info.logical_date, zone),
                fmt_utc(info.logical_date),
                "—"
                if interval is None
                else f"{_short(interval.start, zone)} → {_short(interval.end, zone)}",
                "—" if interval is None else fmt_span(interval.end - interval.start),
                fmt_local(info.run_after, zone),
                fmt_utc(info.run_after),
                row.note,
            ]
            for c, text in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(text)
                if c == 7 and "interval (usually" in text:
                    item.setForeground(QtCore.Qt.GlobalColor.darkRed)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()


def _short(value: datetime, zone: tzinfo) -> str:
    local = value.astimezone(zone)
    return f"{local:%a %d %b %H:%M} {local.tzname()}"
