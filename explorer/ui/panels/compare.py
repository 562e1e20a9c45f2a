"""Compare: two schedules on one axis, their differences marked.

Pick two DAGs, or one DAG and a variant of its timetable (the same cron as
``CronTriggerTimetable`` vs ``CronDataIntervalTimetable``). Lane A and lane B
are drawn like the timeline's runs (interval bar, ``logical_date`` and
``run_after`` marks); runs paired by the behavioural diff rule (ADR 0009: the same
``logical_date``) whose ``run_after`` moved are joined by a dashed line labelled
with the shift, and the table lists, per pair,
what differs (interval length, ``logical_date``, ``run_after``).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.panels.compare_model import (
    Pair,
    Side,
    compare,
    side_of,
    variants_of,
)
from explorer.document.timeline.dst import transitions_between
from explorer.document.timeline.timebase import fmt_local, fmt_span, zone_of
from explorer.ui.timeline.bands import BandsItem
from explorer.ui.timeline.items import RunsItem, RunsView
from explorer.ui.timeline.marks import LinkMark, OverlayItem
from explorer.ui.timeline.plot import TimePlot
from explorer.ui.timeline.style import NORMAL

if TYPE_CHECKING:
    from explorer.engine.types import DagRunInfo
    from explorer.ui.session import SimulationSession

__all__ = ["ComparePane"]


class ComparePane(QtWidgets.QWidget):
    def __init__(self, session: SimulationSession, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.pairs: list[Pair] = []
        self.sides: tuple[Side, Side] | None = None
        self.a_box = QtWidgets.QComboBox()
        self.b_box = QtWidgets.QComboBox()
        for box in (self.a_box, self.b_box):  # long labels must not widen the dock
            box.setSizeAdjustPolicy(
                QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.setMinimumContentsLength(12)
        self.from_box = QtWidgets.QComboBox()
        self.from_box.addItems(["from clock.start", "from the clock"])
        self.count_box = QtWidgets.QSpinBox()
        self.count_box.setRange(2, 400)
        self.count_box.setValue(8)
        for box in (self.a_box, self.b_box, self.from_box):
            box.currentIndexChanged.connect(lambda _: self.refresh())
        self.a_box.currentIndexChanged.connect(lambda _: self._fill_b())
        self.count_box.valueChanged.connect(lambda _: self.refresh())
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.plot = TimePlot(NORMAL)
        self.plot.setMinimumHeight(90)  # the dock sits beside the timeline: keep it short
        self.bands = BandsItem()
        self.runs_item = RunsItem()
        self.links = OverlayItem()
        self.band_labels = BandsItem(labels=True)
        for z, item in enumerate((self.bands, self.runs_item, self.links, self.band_labels)):
            item.setZValue(z - 10)
            self.plot.viewbox.addItem(item, ignoreBounds=True)
        self.table = QtWidgets.QTableWidget(0, 5)
        self.table.setMinimumHeight(60)
        self.table.setHorizontalHeaderLabels(
            [
                "run_after",
                "A: logical_date · interval",
                "B: logical_date · interval",
                "differences",
                "",
            ]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("A:"))
        top.addWidget(self.a_box, 1)
        top.addWidget(QtWidgets.QLabel("B:"))
        top.addWidget(self.b_box, 2)
        second = QtWidgets.QHBoxLayout()  # a second row: the pane sits beside the timeline
        second.addWidget(self.from_box)
        second.addWidget(QtWidgets.QLabel("runs:"))
        second.addWidget(self.count_box)
        second.addStretch(1)
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self.plot)
        splitter.addWidget(self.table)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(second)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        self._fill_a()
        session.scenario_replaced.connect(self._fill_a)

    # ------------------------------------------------------------------ choosing
    def _specs(self) -> dict[str, object]:
        return dict(self.session.sim.specs)

    def _fill_a(self) -> None:
        self.a_box.blockSignals(True)
        self.a_box.clear()
        self.a_box.addItems(list(self.session.sim.specs))
        self.a_box.blockSignals(False)
        self._fill_b()

    def _fill_b(self) -> None:
        spec = self.session.sim.specs.get(self.a_box.currentText())
        self.b_box.blockSignals(True)
        self.b_box.clear()
        # a variant, or the id of another DAG whose side is made when chosen (at 2,000
        # DAGs making every side took a third of a second of the file's opening)
        self._b_sides: list[Side | str] = []
        if spec is not None:
            for variant in variants_of(spec):
                self.b_box.addItem(variant.label)
                self._b_sides.append(variant)
        others = [d for d in self.session.sim.specs if d != self.a_box.currentText()]
        self.b_box.addItems(others)
        self._b_sides.extend(others)
        self.b_box.blockSignals(False)
        self.refresh()

    def choose(self, a_dag: str, b_label: str) -> None:
        """Select A by DAG id and B by its label (a DAG id or a variant's label)."""
        self.a_box.setCurrentText(a_dag)
        index = self.b_box.findText(b_label)
        if index < 0:
            index = next(
                (i for i in range(self.b_box.count()) if b_label in self.b_box.itemText(i)), -1
            )
        if index >= 0:
            self.b_box.setCurrentIndex(index)
        self.refresh()

    # ------------------------------------------------------------------ drawing
    def refresh(self) -> None:
        spec = self.session.sim.specs.get(self.a_box.currentText())
        b_index = self.b_box.currentIndex()
        if spec is None or not (0 <= b_index < len(getattr(self, "_b_sides", []))):
            return
        chosen = self._b_sides[b_index]
        a = side_of(spec)
        b = side_of(self.session.sim.specs[chosen]) if isinstance(chosen, str) else chosen
        self.sides = (a, b)
        start = self.session.start if self.from_box.currentIndex() == 0 else self.session.now
        self.pairs = compare(a, b, start, self.count_box.value())
        zone_name = a.zone if a.zone not in ("UTC", "Etc/UTC") else b.zone
        self.plot.set_zone(zone_name)
        self.plot.set_lanes([f"A: {_short_label(a.label)}", f"B: {_short_label(b.label)}"])
        self._draw(zone_name)
        self._fill_table(zone_name)
        paired = [p for p in self.pairs if p.a and p.b]
        shifted = sum(1 for p in paired if p.differences)
        alone_a = sum(1 for p in self.pairs if p.b is None)
        alone_b = sum(1 for p in self.pairs if p.a is None)
        self.summary.setText(
            f"<b>A</b> {a.label}: {a.timetable.name}({a.timetable.summary}) · "
            f"<b>B</b> {b.label}: {b.timetable.name}({b.timetable.summary}) — "
            f"{len(paired)} runs paired by logical_date, {shifted} of them shifted; "
            f"{alone_a} only in A, {alone_b} only in B (runs differ when their logical "
            "dates differ: ADR 0009)"
        )

    def _draw(self, zone_name: str) -> None:
        rows: list[tuple[int, DagRunInfo]] = []
        for pair in self.pairs:
            if pair.a:
                rows.append((0, pair.a))
            if pair.b:
                rows.append((1, pair.b))
        n = len(rows)

        def col(get: object) -> np.ndarray:
            values = [get(info) for _, info in rows]  # type: ignore[operator]
            return np.array(values, dtype=np.float64)

        def ts(value: datetime | None) -> float:
            return math.nan if value is None else value.timestamp()

        view = RunsView(
            lane=np.array([lane for lane, _ in rows], dtype=np.float64),
            ival_start=col(lambda i: ts(i.data_interval.start if i.data_interval else None)),
            ival_end=col(lambda i: ts(i.data_interval.end if i.data_interval else None)),
            logical=col(lambda i: ts(i.logical_date)),
            run_after=col(lambda i: ts(i.run_after)),
            created=np.full(n, np.nan),
            start=np.full(n, np.nan),
            end=np.full(n, np.nan),
            state=np.zeros(n, dtype=np.int32),
            type=np.zeros(n, dtype=np.int32),
            no_interval=np.array([int(i.data_interval is None) for _, i in rows], dtype=np.int32),
            now=self.session.now.timestamp(),
        )
        self.runs_item.set_view(view)
        links = []
        for pair in self.pairs:
            # The same run (same logical_date) moved: join its two run_after marks.
            if pair.a and pair.b and pair.a.run_after != pair.b.run_after:
                text = next((d for d in pair.differences if d.startswith("run_after")), "")
                links.append(
                    LinkMark(
                        pair.a.run_after.timestamp(),
                        -0.26,
                        pair.b.run_after.timestamp(),
                        0.74,
                        text,
                    )
                )
        self.links.set_marks(links=links)
        if rows:
            xs = [v for v in np.concatenate([view.ival_start, view.run_after]) if not math.isnan(v)]
            x0, x1 = min(xs), max(xs)
            zones = {zone_name, *(s.zone for s in self.sides or ())}
            transitions = transitions_between(
                zones, datetime.fromtimestamp(x0, UTC), datetime.fromtimestamp(x1, UTC)
            )
            self.bands.set_bands(2, transitions)
            self.band_labels.set_bands(2, transitions)
            pad = (x1 - x0) * 0.03
            self.plot.viewbox.setXRange(x0 - pad, x1 + pad, padding=0)
            self.plot.viewbox.setYRange(-0.6, 1.6, padding=0)

    def _fill_table(self, zone_name: str) -> None:
        zone = zone_of(zone_name)
        self.table.setRowCount(len(self.pairs))

        def cell(info: DagRunInfo | None) -> str:
            if info is None:
                return "—"
            interval = info.data_interval
            length = "no interval" if interval is None else fmt_span(interval.end - interval.start)
            return f"{fmt_local(info.logical_date, zone)} · {length}"

        for r, pair in enumerate(self.pairs):
            values = [
                fmt_local(pair.run_after, zone),
                cell(pair.a),
                cell(pair.b),
                "; ".join(pair.differences) or "same",
                "",
            ]
            for c, text in enumerate(values):
                item = QtWidgets.QTableWidgetItem(text)
                if c == 3 and pair.differences:
                    item.setForeground(QtGui.QColor("#b71c1c"))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()


def _short_label(label: str) -> str:
    return label if len(label) <= 34 else label[:31] + "…"
