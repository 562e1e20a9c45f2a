"""The Expectations dock: what the scenario says must happen, judged live at the clock.

A reviewer states an expectation once (from a run or a range on the timeline, by
right-click) and watches it hold or break while stepping the clock or editing a
schedule. The verdicts come from :mod:`explorer.analysis.expectations`, the code
``explorer check`` runs in CI, over the facts of the live simulation up to the clock:

- **fails**: something already breaks it (the runs or instants are listed and marked
  on the timeline with a red flag in the DAG's lane);
- **open**: nothing breaks it yet, but its range reaches past the clock and a count
  or an accepted list can only be judged at the end;
- **holds**: judged and true up to the clock.

Adding or removing an expectation is an edit like any other: it goes through the
document's undo stack (ADR 0005), written as the scenario file spells it (ADR 0007).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.analysis.expectations import ExpectationResult, Violation, evaluate_all
from explorer.analysis.outcome import facts_of
from explorer.engine.record import iso
from explorer.engine.tz import get_zone
from explorer.scenario.read import read_scenario
from explorer.scenario.write import write_scenario
from explorer.ui.commands import edit
from explorer.ui.timeline.items import DeviceItem

if TYPE_CHECKING:
    from explorer.document.timeline.picking import TimelineTarget
    from explorer.scenario.model import Scenario
    from explorer.ui.document import ScenarioDocument
    from explorer.ui.session import SimulationSession
    from explorer.ui.timeline.pane import TimelinePane

__all__ = [
    "ExpectationsPane",
    "ViolationsItem",
    "expectations_of",
    "with_expectation",
    "without_expectation",
]

#: Kinds judged only once their whole range is simulated (a count, an accepted list).
_AT_THE_END = ("count", "same_as")


def expectations_of(scenario: Scenario) -> tuple[Any, ...]:
    return tuple(getattr(scenario, "expectations", ()) or ())


def with_expectation(scenario: Scenario, item: Mapping[str, Any]) -> Scenario:
    """``scenario`` with one more expectation, written as the file spells it (ADR 0007)."""
    document = write_scenario(scenario)
    listed = list(document.get("expectations") or [])  # type: ignore[arg-type]
    listed.append(dict(item))
    document["expectations"] = listed
    return read_scenario(document)


def without_expectation(scenario: Scenario, index: int) -> Scenario:
    document = write_scenario(scenario)
    listed = list(document.get("expectations") or [])  # type: ignore[arg-type]
    del listed[index]
    if listed:
        document["expectations"] = listed
    else:
        document.pop("expectations", None)
    return read_scenario(document)


@dataclass(frozen=True, slots=True)
class Flag:
    lane: float
    x: float
    text: str


class ViolationsItem(DeviceItem):
    """Red flags where an expectation breaks: in the DAG's lane, at the instant."""

    def __init__(self) -> None:
        super().__init__()
        self.flags: list[Flag] = []

    def set_flags(self, flags: list[Flag]) -> None:
        self.flags = flags
        if flags:
            xs = [f.x for f in flags]
            ys = [f.lane for f in flags]
            self._set_bounds(min(xs), max(xs) + 1, min(ys) - 0.5, max(ys) + 0.5)
        self.update()

    def draw(self, painter: QtGui.QPainter) -> None:
        dm = self._begin(painter)
        if dm is None:
            return
        try:
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
            red = QtGui.QColor("#c62828")
            font = QtGui.QFont()
            font.setPointSizeF(max(7.0, self.style.font_pt * 0.8))
            font.setBold(True)
            painter.setFont(font)
            for flag in self.flags:
                if not (dm.ymin - 1 <= flag.lane <= dm.ymax + 1):
                    continue
                top = dm.point(flag.x, flag.lane - 0.46)
                pole = QtGui.QPen(red, 2)
                painter.setPen(pole)
                bottom = dm.point(flag.x, flag.lane + 0.1)
                painter.drawLine(top, bottom)
                cloth = QtGui.QPolygonF(
                    [top, top + QtCore.QPointF(11, 4), top + QtCore.QPointF(0, 8)]
                )
                painter.setBrush(red)
                painter.drawPolygon(cloth)
        finally:
            painter.restore()


class ExpectationsPane(QtWidgets.QWidget):
    """The dock's contents: one row per expectation with its live status."""

    def __init__(
        self,
        document: ScenarioDocument,
        session: SimulationSession,
        timeline: TimelinePane,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("expectationsPane")
        self.document = document
        self.session = session
        self.timeline = timeline
        self.results: list[ExpectationResult] = []
        self.statuses: list[str] = []
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderLabels(["status", "expectation", "what breaks it"])
        self.tree.setRootIsDecorated(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.itemActivated.connect(self._activated)
        self.tree.setToolTip(
            "Each expectation judged at the clock. Double-click a violation to see it on the "
            "timeline; add expectations by right-clicking a run or a lane of the timeline."
        )
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.remove_button = QtWidgets.QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected expectation (undoable)")
        self.remove_button.clicked.connect(self.remove_selected)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.remove_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)
        self.flags = ViolationsItem()
        self.flags.setZValue(8)
        self.timeline.viewbox.addItem(self.flags, ignoreBounds=True)
        session.changed.connect(self.refresh)
        document.changed.connect(lambda _scenario: self.refresh())
        self.refresh()

    # ------------------------------------------------------------------ judging
    def refresh(self) -> None:
        items = expectations_of(self.document.scenario)
        now = self.session.now
        facts = facts_of(
            self.session.sim, start=self.session.start, until=now, alerts=self.session.alerts()
        )
        self.results = evaluate_all(items, facts) if items else []
        self.statuses = [
            self._status(item, result, now)
            for item, result in zip(items, self.results, strict=True)
        ]
        self._fill()
        self._mark()

    def _status(self, item: Any, result: ExpectationResult, now: datetime) -> str:
        if result.error is not None:
            return "error"
        end = _field(item, "to")
        reaches_past = (self.session.until if end is None else _instant(end)) > now
        if result.kind in _AT_THE_END and reaches_past:
            return "open"
        return "holds" if result.ok else "fails"

    def _fill(self) -> None:
        self.tree.clear()
        colours = {"holds": "#1b5e20", "fails": "#b71c1c", "open": "#8a6d00", "error": "#b71c1c"}
        words = {"holds": "✔ holds", "fails": "✖ fails", "open": "… open", "error": "✖ error"}
        zone = get_zone(self.timeline.display_zone)
        for result, status in zip(self.results, self.statuses, strict=True):
            row = QtWidgets.QTreeWidgetItem(
                [
                    words[status],
                    f"{result.name}: {result.description}",
                    result.error or (result.violations[0].message if result.violations else ""),
                ]
            )
            row.setForeground(0, QtGui.QBrush(QtGui.QColor(colours[status])))
            row.setToolTip(1, f"{result.name}: {result.description}")
            row.setToolTip(2, row.text(2))
            row.setData(0, QtCore.Qt.ItemDataRole.UserRole, result.index)
            if status == "fails":
                for violation in result.violations[:200]:
                    when = (
                        ""
                        if violation.at is None
                        else violation.at.astimezone(zone).strftime("%a %d %b %H:%M %Z")
                    )
                    child = QtWidgets.QTreeWidgetItem(["", when, violation.message])
                    child.setToolTip(2, violation.message)
                    child.setData(1, QtCore.Qt.ItemDataRole.UserRole, violation)
                    row.addChild(child)
            self.tree.addTopLevelItem(row)
        self.tree.resizeColumnToContents(0)
        counts = {s: self.statuses.count(s) for s in ("holds", "fails", "open")}
        if self.results:
            self.summary.setText(
                f"At {iso(self.session.now)}: {counts['holds']} hold, {counts['fails']} fail, "
                f"{counts['open']} open"
            )
        else:
            self.summary.setText(
                "No expectations. Right-click a run or a lane of the timeline to add one."
            )

    def _mark(self) -> None:
        flags = []
        for result, status in zip(self.results, self.statuses, strict=True):
            if status != "fails":
                continue
            for violation in result.violations:
                lane = self.timeline.lane_index(violation.dag_id) if violation.dag_id else None
                if violation.at is None or lane is None:
                    continue
                flags.append(Flag(float(lane), violation.at.timestamp(), result.name))
        self.flags.set_flags(flags)

    def _activated(self, item: QtWidgets.QTreeWidgetItem, _column: int) -> None:
        violation = item.data(1, QtCore.Qt.ItemDataRole.UserRole)
        if isinstance(violation, Violation) and violation.at is not None:
            self.timeline.center_on(violation.at)
            self.timeline.mark_instant(violation.at, "expectation broken")

    # ------------------------------------------------------------------ editing
    def add(self, item: Mapping[str, Any], text: str) -> bool:
        """Add ``item`` (the file's spelling) through the undo stack."""
        return edit(self.document, with_expectation(self.document.scenario, item), text)

    def _add_checked(self, item: Mapping[str, Any], text: str, _checked: bool = False) -> None:
        self.add(item, text)

    def remove_selected(self) -> bool:
        current = self.tree.currentItem()
        while current is not None and current.parent() is not None:
            current = current.parent()
        if current is None:
            return False
        index = current.data(0, QtCore.Qt.ItemDataRole.UserRole)
        return edit(
            self.document,
            without_expectation(self.document.scenario, int(index)),
            "Remove expectation",
        )

    def menu_items(self, menu: QtWidgets.QMenu, target: TimelineTarget) -> None:
        """Timeline right-click: expectations from the run or the visible range."""
        dag_id = target.dag_id
        if dag_id is None:
            return
        menu.addSeparator()
        if target.run is not None:
            self._run_items(menu, dag_id, target.run.run_after)
        start, end = self.timeline.x_range()
        start, end = max(start, self.session.start), min(end, self.session.until)
        runs = [r for r in self.session.sim.runs if r.dag_id == dag_id]
        zone = self.timeline.display_zone
        span = f"{_short(start, zone)} – {_short(end, zone)}"
        menu.addAction(
            f"Expect no run of {dag_id} in the visible range ({span})",
            lambda: self.add(
                {"expect": "no_run", "dag_id": dag_id, "from": iso(start), "to": iso(end)},
                f"Add expectation: no run of {dag_id}",
            ),
        )
        visible = sum(1 for r in runs if start <= r.run_after < end)
        menu.addAction(
            f"Expect exactly {visible} runs of {dag_id} in the visible range",
            lambda: self.add(
                {
                    "expect": "count",
                    "dag_id": dag_id,
                    "from": iso(start),
                    "to": iso(end),
                    "exactly": visible,
                },
                f"Add expectation: {visible} runs of {dag_id}",
            ),
        )
        menu.addAction(
            f"Accept the runs of {dag_id} so far as expected",
            lambda: self.add(
                {"expect": "same_as", "dag_id": dag_id, "runs": [_golden(r) for r in runs]},
                f"Add expectation: {dag_id} runs as accepted",
            ),
        )

    def _run_items(self, menu: QtWidgets.QMenu, dag_id: str, run_after: datetime) -> None:
        zone_name = self.session.sim.dags[dag_id].spec.timezone
        local = run_after.astimezone(get_zone(zone_name))
        after = (local - timedelta(minutes=30)).strftime("%H:%M")
        before = (local + timedelta(minutes=30)).strftime("%H:%M")
        for days, words in (("every_day", "every day"), ("weekdays", "every weekday")):
            item = {
                "expect": "runs_between",
                "dag_id": dag_id,
                "after": after,
                "before": before,
                "timezone": zone_name,
                "days": days,
            }
            text = f"Add expectation: {dag_id} runs {after}–{before} {words}"
            action = menu.addAction(
                f"Expect a run of {dag_id} between {after} and {before} {zone_name}, {words}"
            )
            action.triggered.connect(partial(self._add_checked, item, text))


def _field(item: Any, name: str) -> Any:
    from explorer.analysis.expectations import field_of

    return field_of(item, name)


def _instant(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)


def _short(value: datetime, zone: str) -> str:
    return value.astimezone(get_zone(zone)).strftime("%d %b %H:%M")


def _golden(run: Any) -> dict[str, Any]:
    interval = run.data_interval
    return {
        "run_type": run.run_type,
        "logical_date": iso(run.logical_date),
        "data_interval_start": iso(interval.start if interval else None),
        "data_interval_end": iso(interval.end if interval else None),
        "run_after": iso(run.run_after),
        "partition_key": run.partition_key,
    }


def install(window: QtWidgets.QMainWindow, workspace: Any) -> ExpectationsPane | None:
    """Mount the pane in the window's Expectations dock (made once) for ``workspace``."""
    panes = workspace.simulation
    if panes is None:
        return None
    dock = window.findChild(QtWidgets.QDockWidget, "expectationsDock")
    if dock is None:
        dock = QtWidgets.QDockWidget("Expectations", window)
        dock.setObjectName("expectationsDock")
        dock.setToolTip("The expectations pane (drag its title to move it)")
        window.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)
    pane = ExpectationsPane(workspace.document, panes.session, panes.bench.timeline)
    dock.setWidget(pane)
    panes.bench.injection.extensions.append(pane.menu_items)
    return pane
