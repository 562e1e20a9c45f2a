"""View > Compare with saved version / another file: both simulations on one timeline.

The edits of a session are easy to lose track of; what matters to the people who
depend on a schedule is which *runs* move. This window simulates the saved file and
the document as it is now to the same instant, pairs their runs with the one
behavioural diff model (ADR 0009, :mod:`explorer.engine.diff`, the same answer as
``explorer diff``) and draws each DAG twice, saved above, now below: a shifted run is
joined to its old place by a dashed line labelled with the shift, an added run carries a
filled square, a removed run a crossed one. The table lists every change.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtWidgets

from explorer.document.timeline.timebase import fmt_local, fmt_span, zone_of
from explorer.engine.diff import BehaviourDiff, RunChange, RunFacts
from explorer.ui.timeline.items import RunsItem, RunsView
from explorer.ui.timeline.marks import BoxMark, LinkMark, OverlayItem
from explorer.ui.timeline.plot import TimePlot
from explorer.ui.timeline.style import NORMAL

if TYPE_CHECKING:
    from explorer.ui.actions import ActionRegistry

__all__ = ["BehaviourDiffView", "CompareActions", "DiffWindow"]

_TYPES = {"scheduled": 0, "manual": 1, "asset_triggered": 2, "backfill": 3}


def _ts(value: datetime | None) -> float:
    return math.nan if value is None else value.timestamp()


def _shift(change: RunChange) -> str:
    if change.before is None or change.after is None:
        return change.kind
    delta = change.after.run_after - change.before.run_after
    if delta == timedelta(0):
        return "interval changed"
    word = "later" if delta > timedelta(0) else "earlier"
    return f"{fmt_span(abs(delta))} {word}"


def _lane_label(dag_id: str, side: str) -> str:
    """``dag · side``; a long side name (the Airflow 2 vs 3 labels) on a line of its own."""
    text = f"{dag_id} · {side}"
    if len(text) <= 40:
        return text
    head, paren, rest = side.partition(" (")
    return f"{dag_id} · {head}\n({rest}" if paren else f"{dag_id}\n{side}"


class BehaviourDiffView(QtWidgets.QWidget):
    """Two lanes per DAG (before, after) with the changes of ``diff`` marked."""

    def __init__(
        self,
        diff: BehaviourDiff,
        before: Sequence[RunFacts],
        after: Sequence[RunFacts],
        *,
        labels: tuple[str, str] = ("saved", "now"),
        zone: str = "UTC",
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.diff = diff
        self.labels = labels
        self.zone = zone
        dags = sorted({r.dag_id for r in (*before, *after)})
        self.lane_of = {dag: i for i, dag in enumerate(dags)}
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.plot = TimePlot(NORMAL)
        self.plot.setMinimumHeight(160)
        self.runs_item = RunsItem()
        self.marks = OverlayItem()
        for z, item in enumerate((self.runs_item, self.marks)):
            item.setZValue(z - 5)
            self.plot.viewbox.addItem(item, ignoreBounds=True)
        self.table = QtWidgets.QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(
            ["DAG", "change", "logical_date", f"run_after ({labels[0]} → {labels[1]})", "what"]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self.plot)
        splitter.addWidget(self.table)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        self.plot.set_zone(zone)
        self.plot.set_lanes([_lane_label(dag, side) for dag in dags for side in labels])
        self._draw(before, after)
        self._fill_table()
        counts = diff.counts()
        self.summary.setText(
            f"<b>{html.escape(labels[0])}</b> vs <b>{html.escape(labels[1])}</b>: "
            f"{counts['added']} added "
            f"(■), {counts['removed']} removed (☒), {counts['shifted']} shifted (dashed line); "
            f"{len(diff.alerts)} alert changes; {len(diff.expectations)} expectations flip"
            if not diff.same
            else f"<b>{html.escape(labels[0])}</b> and <b>{html.escape(labels[1])}</b> "
            "behave the same."
        )

    def _lane(self, dag_id: str, side: int) -> float:
        return float(2 * self.lane_of[dag_id] + side)

    def _draw(self, before: Sequence[RunFacts], after: Sequence[RunFacts]) -> None:
        rows = [(self._lane(r.dag_id, 0), r) for r in before]
        rows += [(self._lane(r.dag_id, 1), r) for r in after]
        n = len(rows)

        def col(values: list[float]) -> np.ndarray:
            return np.array(values, dtype=np.float64)

        view = RunsView(
            lane=col([lane for lane, _ in rows]),
            ival_start=col([_ts(r.data_interval_start) for _, r in rows]),
            ival_end=col([_ts(r.data_interval_end) for _, r in rows]),
            logical=col([_ts(r.logical_date) for _, r in rows]),
            run_after=col([_ts(r.run_after) for _, r in rows]),
            created=np.full(n, np.nan),
            start=np.full(n, np.nan),
            end=np.full(n, np.nan),
            state=np.zeros(n, dtype=np.int32),
            type=np.array([_TYPES.get(r.run_type, 0) for _, r in rows], dtype=np.int32),
            no_interval=np.array(
                [int(r.data_interval_start is None) for _, r in rows], dtype=np.int32
            ),
        )
        self.runs_item.set_view(view)
        links, boxes = [], []
        for change in self.diff.runs:
            if change.dag_id not in self.lane_of:
                continue
            b, a = change.before, change.after
            if change.kind == "shifted" and b and a:
                links.append(
                    LinkMark(
                        b.run_after.timestamp(),
                        self._lane(change.dag_id, 0),
                        a.run_after.timestamp(),
                        self._lane(change.dag_id, 1),
                        _shift(change),
                    )
                )
            elif change.kind == "added" and a:
                boxes.append(BoxMark(self._lane(change.dag_id, 1), a.run_after.timestamp(), 0, 0))
            elif change.kind == "removed" and b:
                boxes.append(BoxMark(self._lane(change.dag_id, 0), b.run_after.timestamp(), 2, 0))
        self.links, self.boxes = links, boxes
        self.marks.set_marks(links=links, boxes=boxes)
        xs = [x for x in np.concatenate([view.ival_start, view.run_after]) if not math.isnan(x)]
        if xs:
            x0, x1 = min(xs), max(xs)
            pad = (x1 - x0) * 0.03 or 3600.0
            self.plot.viewbox.setXRange(x0 - pad, x1 + pad, padding=0)
            self.plot.viewbox.setYRange(-0.6, 2 * len(self.lane_of) - 0.4, padding=0)

    def _fill_table(self) -> None:
        zone = zone_of(self.zone)
        self.table.setRowCount(len(self.diff.runs))
        for r, change in enumerate(self.diff.runs):
            facts = change.after or change.before
            assert facts is not None
            b, a = change.before, change.after
            moved = f"{fmt_local(b.run_after, zone) if b else '—'} → " + (
                fmt_local(a.run_after, zone) if a else "—"
            )
            values = [
                change.dag_id,
                change.kind,
                fmt_local(facts.logical_date, zone),
                moved,
                _shift(change) + (f" ({', '.join(change.fields)})" if change.fields else ""),
            ]
            for c, text in enumerate(values):
                self.table.setItem(r, c, QtWidgets.QTableWidgetItem(text))
        self.table.resizeColumnsToContents()


class DiffWindow(QtWidgets.QDialog):
    """A non-modal window holding one :class:`BehaviourDiffView`."""

    def __init__(
        self, view: BehaviourDiffView, title: str, parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("behaviourDiff")
        self.setWindowTitle(title)
        self.view = view
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(view)
        self.resize(1200, 700)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)


class CompareActions(QtCore.QObject):
    """View > Compare with Saved Version / with Another File; ``ask_path`` is replaceable."""

    def __init__(self, window: QtWidgets.QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.ask_path = self._dialog
        #: Asks whether catchup_by_default is compared too (None: cancelled); replaceable.
        self.ask_catchup = self._ask_catchup
        self.last: DiffWindow | None = None

    def register(self, registry: ActionRegistry) -> None:
        registry.register(
            "view.compare_saved",
            "Compare with &Saved Version",
            self.compare_saved,
            tip="Simulate the saved file and the document now; draw both with what changed",
        )
        registry.register(
            "view.compare_file",
            "Compare with &Another File…",
            self.compare_file,
            tip="Simulate another scenario file beside this one and mark what changes",
        )
        registry.register(
            "view.compare_airflow",
            "Compare Airflow &2 vs 3 Behaviour…",
            self.compare_airflow,
            tip="Simulate the scenario with create_cron_data_intervals true (Airflow 2) and "
            "false (3.3) on one timeline, the differences marked",
        )

    def _ask_catchup(self) -> bool | None:
        from explorer.ui.upgrade_compare import ask_catchup

        return ask_catchup(self.window)

    def compare_airflow(self, catchup: bool | None = None) -> DiffWindow | None:
        """The document as Airflow 2 and as Airflow 3.3 read it (DEP-7), in the compare window."""
        from explorer.ui.upgrade_compare import compare_airflow_versions

        workspace = getattr(self.window, "workspace", None)
        if workspace is None:
            return None
        if catchup is None:
            catchup = self.ask_catchup()
            if catchup is None:
                return None
        zone = "UTC"
        if workspace.simulation is not None:
            zone = workspace.simulation.bench.timeline.display_zone
        scenario = workspace.document.scenario
        try:
            window = compare_airflow_versions(
                self.window,
                scenario,
                str(workspace.document.path or scenario.name),
                zone,
                catchup=catchup,
            )
        except Exception as exc:  # the message, not a traceback
            self._say(f"Cannot compare: {exc}")
            return None
        self.last = window
        return window

    def _dialog(self) -> Path | None:
        name, _ = QtWidgets.QFileDialog.getOpenFileName(
            self.window, "Compare with", "", "Scenario files (*.json)"
        )
        return Path(name) if name else None

    def _say(self, text: str) -> None:
        show = getattr(self.window, "show_message", None)
        if callable(show):
            show(text)

    def compare_saved(self) -> DiffWindow | None:
        workspace = getattr(self.window, "workspace", None)
        if workspace is None or workspace.document.path is None:
            self._say("Save the scenario first: there is no saved version to compare with")
            return None
        return self.compare_with(Path(workspace.document.path), "saved", "now")

    def compare_file(self, path: Path | None = None) -> DiffWindow | None:
        target = path or self.ask_path()
        if target is None:
            return None
        return self.compare_with(target, target.name, "this document")

    def compare_with(self, path: Path, before: str, after: str) -> DiffWindow | None:
        from explorer.analysis.commands import behaviour_diff, simulate_scenario
        from explorer.scenario import ScenarioError, build_engine_inputs, load_scenario

        workspace = getattr(self.window, "workspace", None)
        if workspace is None:
            return None
        now = workspace.document.scenario
        try:
            saved = load_scenario(path)
            ends = [
                i.until
                for i in (build_engine_inputs(saved, source=str(path)), build_engine_inputs(now))
                if i.until is not None
            ]
            until = max(ends) if ends else None
            old = simulate_scenario(saved, str(path), until)
            new = simulate_scenario(now, str(workspace.document.path or now.name), old.until)
        except (ScenarioError, Exception) as exc:  # the message, not a traceback
            self._say(f"Cannot compare: {exc}")
            return None
        diff = behaviour_diff(old, new)
        zone = "UTC"
        panes = workspace.simulation
        if panes is not None:
            zone = panes.bench.timeline.display_zone
        view = BehaviourDiffView(
            diff,
            [r.facts() for r in old.outcome.facts.runs],
            [r.facts() for r in new.outcome.facts.runs],
            labels=(before, after),
            zone=zone,
        )
        window = DiffWindow(view, f"{before} vs {after} — {now.name}", self.window)
        window.show()
        self.last = window
        return window
