"""The import report dock: every value the import could not read, where, and why.

The list is the open scenario's own (each imported DAG keeps its
``unresolved`` items and its ``supplied`` fields in the file, ADR 0007), so
it is there again when the file is reopened, and it follows undo: an item
the user supplied is marked so, and loses the mark when the edit is undone.
What only the last import or re-import knows (DAGs it skipped, files it
could not read, what a re-import changed) is listed under it while the
document stays open.

Selecting an unresolved item asks, through :attr:`ImportReportPanel.locate`,
for its DAG to be selected and its field to be focused in the inspector,
where the user types the value (one undo step, recorded as supplied by
:func:`explorer.document.provenance.mark_supplied`).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from explorer.document.provenance import Item, unresolved_items
from explorer.document.wording import count
from explorer.importer import Change, ImportReport
from explorer.scenario import Scenario

__all__ = ["ImportReportPanel"]

_ROLE = Qt.ItemDataRole.UserRole


class ImportReportPanel(QWidget):
    """The dock's content: a summary line and the tree of items."""

    #: (dag_id, field): select this DAG and focus this field in the inspector.
    locate = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importReport")
        self.summary = QLabel("No import yet: File > Import Airflow Project… reads a DAG folder.")
        self.summary.setObjectName("importSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree = QTreeWidget()
        self.tree.setObjectName("importItems")
        self.tree.setHeaderLabels(["Item", "Where", "Reason"])
        self.tree.setRootIsDecorated(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setToolTip("Select an unresolved value to supply it in the inspector")
        self.tree.itemSelectionChanged.connect(self._selected)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self.report: ImportReport | None = None
        self.changes: tuple[Change, ...] | None = None
        self._scenario: Scenario | None = None
        self._items: list[Item] = []

    # ----------------------------------------------------------------- content
    def set_report(
        self, report: ImportReport | None, changes: Sequence[Change] | None = None
    ) -> None:
        """What the last import (or re-import, with its ``changes``) said."""
        self.report = report
        self.changes = tuple(changes) if changes is not None else None
        if self._scenario is not None:
            self.show_scenario(self._scenario, force=True)

    def show_scenario(self, scenario: Scenario | None, *, force: bool = False) -> None:
        """List ``scenario``'s unresolved values (after every edit: supplied marks follow)."""
        self._scenario = scenario
        items = unresolved_items(scenario) if scenario is not None else []
        if items == self._items and not force:
            return
        self._items = items
        self.tree.blockSignals(True)
        try:
            self._rebuild(items)
        finally:
            self.tree.blockSignals(False)

    def _rebuild(self, items: list[Item]) -> None:
        expanded = {top.text(0).split(" (")[0] for top in self._tops() if top.isExpanded()}
        selected = self.selected_key()
        self.tree.clear()
        open_ = sum(1 for i in items if not i.supplied)
        groups: list[tuple[str, list[QTreeWidgetItem]]] = []
        rows = []
        for item in items:
            mark = "✓ supplied" if item.supplied else "unresolved"
            row = QTreeWidgetItem([f"{item.dag_id} · {item.field}", item.where, item.reason])
            row.setData(0, _ROLE, (item.dag_id, item.field))
            row.setToolTip(0, f"{item.dag_id}.{item.field}: {mark}. Select to supply it.")
            row.setToolTip(2, item.reason)
            if item.supplied:
                row.setText(0, f"✓ {item.dag_id} · {item.field}")
            rows.append(row)
        groups.append((f"Unresolved values ({open_} open, {len(items) - open_} supplied)", rows))
        report = self.report
        if report is not None:
            skipped = [
                _row(f"{d.dag_id}", f"{d.file}:{d.line}", d.reason or "skipped")
                for d in report.dags
                if d.status == "skipped"
            ]
            groups.append((f"Skipped DAGs ({len(skipped)})", skipped))
            files = [
                _row(f.file, f.status, f.reason or "") for f in report.files if f.status != "parsed"
            ]
            groups.append((f"Files not imported ({len(files)})", files))
        if self.changes is not None:
            changes = [_row(c.dag_id, c.kind.replace("_", " "), str(c)) for c in self.changes]
            groups.insert(0, (f"Changed by the last re-import ({len(changes)})", changes))
        for title, children in groups:
            if not children and not title.startswith("Unresolved"):
                continue  # an empty group says nothing
            top = QTreeWidgetItem([title])
            top.setFlags(top.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            top.addChildren(children)
            self.tree.addTopLevelItem(top)
            key = title.split(" (")[0]
            top.setExpanded(key in expanded or not expanded)
        self.tree.resizeColumnToContents(0)
        self.tree.resizeColumnToContents(1)
        self._summarise(items)
        if selected is not None:
            self.select(*selected)

    def _summarise(self, items: list[Item]) -> None:
        open_ = sum(1 for i in items if not i.supplied)
        parts = [
            f"{open_} value{'s' if open_ != 1 else ''} to supply"
            if open_
            else "Every value is read or supplied"
        ]
        report = self.report
        if report is not None:
            parts.append(
                f"{count(report.imported, 'DAG')} imported from "
                f"{count(len(report.files), 'file')}; "
                f"every task lasts {report.task_duration} (the stated default: DAG files say "
                f"nothing of durations); parse-time values read at {report.parsed_at}"
            )
        if self.changes is not None:
            parts.append(_change_words(self.changes))
        self.summary.setText(". ".join(parts) + ".")

    # ----------------------------------------------------------------- selection
    def selected_key(self) -> tuple[str, str] | None:
        items = self.tree.selectedItems()
        data = items[0].data(0, _ROLE) if items else None
        return (str(data[0]), str(data[1])) if data else None

    def select(self, dag_id: str, field: str) -> bool:
        """Select the row of ``dag_id``'s ``field`` (no :attr:`locate`); False if none."""
        for top in self._tops():
            for j in range(top.childCount()):
                row = top.child(j)
                data = row.data(0, _ROLE) if row is not None else None
                if row is not None and data and tuple(data) == (dag_id, field):
                    self.tree.blockSignals(True)
                    self.tree.setCurrentItem(row)
                    self.tree.blockSignals(False)
                    return True
        return False

    def _tops(self) -> list[QTreeWidgetItem]:
        tops = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [top for top in tops if top is not None]

    def _selected(self) -> None:
        key = self.selected_key()
        if key is not None:
            self.locate.emit(*key)


def _row(item: str, where: str, reason: str) -> QTreeWidgetItem:
    row = QTreeWidgetItem([item, where, reason])
    row.setToolTip(2, reason)
    return row


def _change_words(changes: Sequence[Change]) -> str:
    if not changes:
        return "The last re-import changed nothing"
    added = sum(1 for c in changes if c.kind == "dag_added")
    removed = sum(1 for c in changes if c.kind == "dag_removed")
    changed = len({c.dag_id for c in changes if c.kind == "changed"})
    return (
        f"The last re-import added {added} DAG{'s' if added != 1 else ''}, removed {removed}, "
        f"changed {changed}"
    )
