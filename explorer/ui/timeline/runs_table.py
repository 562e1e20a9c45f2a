"""The runs table: every run with Airflow's field names, sortable and filterable.

The model follows the engine incrementally (:class:`RunStore`): new runs are
inserted rows and runs that changed state are ``dataChanged`` rows.

The model sorts itself, from the store's numpy columns (:func:`sort_keys`: instants
as numbers, so ``2024-03-10`` sorts by instant, not by its text in the display
zone; text columns by rank): a ``QSortFilterProxyModel`` would call back into
Python twice per comparison, about twenty seconds for 100,000 runs. The proxy only
filters, and hands header clicks to the model. :data:`SORT_ROLE` still gives each
cell's sort value.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.timeline.data import RUN_STATES, RUN_TYPES, RunStore
from explorer.document.timeline.timebase import fmt_span, fmt_utc, zone_of
from explorer.engine.context import ContextBuilder
from explorer.engine.render import Rendered, TemplateRenderer
from explorer.ui.timeline.style import NORMAL

if TYPE_CHECKING:
    from explorer.engine.runs import DagRun
    from explorer.engine.simulation import Simulation
    from explorer.ui.timeline.pane import TimelinePane

__all__ = [
    "COLUMNS",
    "SORT_ROLE",
    "RunsFilterProxy",
    "RunsTable",
    "RunsTableModel",
    "link_selection",
    "sort_keys",
]

SORT_ROLE = int(QtCore.Qt.ItemDataRole.UserRole) + 1
KEY_ROLE = int(QtCore.Qt.ItemDataRole.UserRole) + 2

COLUMNS = (
    "dag_id",
    "run_id",
    "run_type",
    "state",
    "logical_date",
    "data_interval_start",
    "data_interval_end",
    "interval",
    "run_after",
    "created_at",
    "start_date",
    "end_date",
    "partition_key",
)
_INSTANTS = {
    "logical_date",
    "run_after",
    "created_at",
    "start_date",
    "end_date",
    "data_interval_start",
    "data_interval_end",
}
_ROOT = QtCore.QModelIndex()
_STATE_COLOURS = dict(
    zip(("queued", "running", "success", "failed"), NORMAL.state_colours, strict=True)
)


def _value(run: DagRun, column: str) -> Any:
    interval = run.data_interval
    if column == "data_interval_start":
        return None if interval is None else interval.start
    if column == "data_interval_end":
        return None if interval is None else interval.end
    if column == "interval":
        return None if interval is None else interval.end - interval.start
    return getattr(run, column)


#: Header of the column a user's template fills (adr/0008).
RENDERED = "rendered"

_STORE_INSTANTS = {
    "logical_date": "logical",
    "data_interval_start": "ival_start",
    "data_interval_end": "ival_end",
    "run_after": "run_after",
    "created_at": "created",
    "start_date": "start",
    "end_date": "end",
}


def _ranks(names: list[str]) -> npt.NDArray[np.float64]:
    """Each name's position in alphabetical order."""
    order = sorted(range(len(names)), key=names.__getitem__)
    ranks = np.empty(len(names), dtype=np.float64)
    ranks[order] = np.arange(len(names), dtype=np.float64)
    return ranks


def sort_keys(store: RunStore, column: str) -> npt.NDArray[np.float64]:
    """One number per stored run that orders ``column`` as the table shows it.

    Instants and interval lengths as numbers (none first); dag_id, run_type and
    state by the alphabetical rank of their text; run_id and partition_key by
    rank (none as empty text).
    """
    n = len(store)
    if column in _STORE_INSTANTS or column == "interval":
        if column == "interval":
            values = store.col("ival_end") - store.col("ival_start")
        else:
            values = store.col(_STORE_INSTANTS[column]).astype(np.float64)
        return np.where(np.isnan(values), -np.inf, values)
    if column == "dag_id":
        return _ranks(store.dag_ids or [""])[store.dag_codes()]
    if column == "state":
        return _ranks(list(RUN_STATES))[store.states()]
    if column == "run_type":
        return _ranks(list(RUN_TYPES))[store.types()]
    texts = [str(_value(run, column) or "") for run in store.runs[:n]]
    _, inverse = np.unique(np.array(texts, dtype=object), return_inverse=True)
    return np.asarray(inverse, dtype=np.float64)


class RunsTableModel(QtCore.QAbstractTableModel):
    """Rows are the store's runs; when sorted, through a permutation kept in numpy."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.store = RunStore()
        self._count = 0
        self.zone = zone_of("UTC")
        self._sorted_by: tuple[int, QtCore.Qt.SortOrder] | None = None
        #: model row → store row, and its inverse (None: unsorted, the identity).
        self._order: npt.NDArray[np.int64] | None = None
        self._where: npt.NDArray[np.int64] | None = None
        #: A user's Jinja template, rendered per run in an extra last column (adr/0008).
        self.template: TemplateRenderer | None = None
        self._contexts: ContextBuilder | None = None
        self._rendered: dict[int, Rendered] = {}

    def set_template(self, source: str) -> None:
        """Show ``source`` rendered per run in a last column (empty: no column)."""
        self.beginResetModel()
        self.template = TemplateRenderer(source) if source.strip() else None
        self._rendered.clear()
        self.endResetModel()

    def rendered(self, store_row: int) -> Rendered | None:
        """The template rendered for a run, computed when first shown."""
        if self.template is None or self._contexts is None:
            return None
        found = self._rendered.get(store_row)
        if found is None:
            context = self._contexts.context(self.store.runs[store_row])
            found = self._rendered[store_row] = self.template.render(context)
        return found

    def set_display_zone(self, name: str) -> bool:
        """Show times in ``name``; False when they already were (nothing to redraw: the
        timeline names its zone again on every edit, and telling 50,000 rows of a
        replaced simulation they changed had the proxy filter each of them)."""
        zone = zone_of(name)
        if zone == self.zone:
            return False
        self.zone = zone
        if self._count:
            self.dataChanged.emit(self.index(0, 0), self.index(self._count - 1, len(COLUMNS) - 1))
        return True

    def refresh(self, sim: Simulation) -> None:
        self._contexts = ContextBuilder(sim)  # the clock moved: contexts are read again
        self._rendered.clear()
        result = self.store.sync(sim.runs)
        removed = result.removed
        if removed and self._order is None and not result.reset:  # Back: the latest rows go
            self.beginRemoveRows(QtCore.QModelIndex(), self._count - removed, self._count - 1)
            self._count -= removed
            self.endRemoveRows()
            removed = 0
        if result.reset or removed:  # (sorted: the rows removed are anywhere)
            self.beginResetModel()
            self._count = len(self.store)
            self._order = self._where = None
            if self._sorted_by is not None:
                self._order, self._where = self._permutation(*self._sorted_by)
            self.endResetModel()
            return
        last = self.columnCount() - 1
        for row in result.changed:
            if row < self._count:
                model_row = self.model_row(row)
                self.dataChanged.emit(self.index(model_row, 0), self.index(model_row, last))
        inserted = len(self.store) > self._count
        if inserted:
            self.beginInsertRows(QtCore.QModelIndex(), self._count, len(self.store) - 1)
            if self._order is not None and self._where is not None:
                fresh = np.arange(self._count, len(self.store), dtype=np.int64)
                self._order = np.concatenate([self._order, fresh])  # at the end for now
                self._where = np.concatenate([self._where, fresh])
            self._count = len(self.store)
            self.endInsertRows()
        if self._sorted_by is not None and (inserted or result.changed):
            order, where = self._permutation(*self._sorted_by)
            if self._order is None or not np.array_equal(order, self._order):
                self._apply_order(order, where)  # only when a row really moved

    def run_at(self, row: int) -> DagRun:
        """The run shown at model ``row``."""
        return self.store.runs[self.store_row(row)]

    def store_row(self, model_row: int) -> int:
        return model_row if self._order is None else int(self._order[model_row])

    def model_row(self, store_row: int) -> int:
        return store_row if self._where is None else int(self._where[store_row])

    # ------------------------------------------------------------------ sorting
    def _permutation(
        self, column: int, order: QtCore.Qt.SortOrder
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        keys = sort_keys(self.store, COLUMNS[column])[: self._count]
        if order == QtCore.Qt.SortOrder.DescendingOrder:
            keys = -keys  # a stable sort of the negated keys keeps ties in creation order
        permutation = np.argsort(keys, kind="stable").astype(np.int64)
        inverse = np.empty_like(permutation)
        inverse[permutation] = np.arange(len(permutation), dtype=np.int64)
        return permutation, inverse

    def sort(
        self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder
    ) -> None:
        """Order the rows by ``column`` (-1: creation order), keeping the selection."""
        if column < 0 or column >= len(COLUMNS):  # the rendered column is not sortable
            self._sorted_by = None
            self._apply_order(None, None)
        else:
            self._sorted_by = (column, order)
            self._apply_order(*self._permutation(column, order))

    def _apply_order(
        self, order: npt.NDArray[np.int64] | None, where: npt.NDArray[np.int64] | None
    ) -> None:
        """A layout change to the permutation ``order`` (model row → store row)."""
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        store_rows = [self.store_row(index.row()) for index in persistent]
        self._order, self._where = order, where
        self.changePersistentIndexList(
            persistent,
            [
                self.index(self.model_row(row), index.column())
                for row, index in zip(store_rows, persistent, strict=True)
            ],
        )
        self.layoutChanged.emit()

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS) + (self.template is not None)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = 0) -> Any:
        if role == QtCore.Qt.ItemDataRole.DisplayRole and orientation == (
            QtCore.Qt.Orientation.Horizontal
        ):
            return COLUMNS[section] if section < len(COLUMNS) else RENDERED
        return None

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or index.row() >= self._count:
            return None
        if index.column() >= len(COLUMNS):
            return self._rendered_data(index.row(), role)
        run = self.store.runs[self.store_row(index.row())]
        column = COLUMNS[index.column()]
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return self._display(run, column)
        if role == SORT_ROLE:
            value = _value(run, column)
            if isinstance(value, datetime):
                return value.timestamp()
            if value is None:
                return -math.inf if column in _INSTANTS or column == "interval" else ""
            if column == "interval":
                return value.total_seconds()
            return str(value)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            # the whole cell, whatever the column's width (a cut cell says nothing)
            value = _value(run, column)
            if isinstance(value, datetime):
                return f"{self._display(run, column)} · {fmt_utc(value, seconds=True)}"
            return self._display(run, column)
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and column == "state":
            return QtGui.QColor(_STATE_COLOURS.get(run.state, "#000000"))
        if role == KEY_ROLE:
            return (run.dag_id, run.run_id)
        return None

    def _rendered_data(self, row: int, role: int) -> Any:
        result = self.rendered(self.store_row(row))
        if result is None:
            return None
        if role in (QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.ToolTipRole):
            return result.display
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and result.error is not None:
            return QtGui.QColor(_STATE_COLOURS["failed"])  # the task would fail on it
        if role == KEY_ROLE:
            run = self.store.runs[self.store_row(row)]
            return (run.dag_id, run.run_id)
        return None

    def _display(self, run: DagRun, column: str) -> str:
        value = _value(run, column)
        if value is None:
            return "—"
        if isinstance(value, datetime):
            local = value.astimezone(self.zone)
            return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"
        if column == "interval":
            return fmt_span(value)
        return str(value)


class RunsFilterProxy(QtCore.QSortFilterProxyModel):
    """Filter by free text (dag_id, run_id, run_type, state, partition_key) and by state."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._state = ""
        self._dag = ""
        #: The DAGs the canvas filter shows (:mod:`explorer.ui.focus`); None: every DAG.
        self._dags: frozenset[str] | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self._text = text.strip().lower()
        self.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)

    def set_state(self, state: str) -> None:
        self.beginFilterChange()
        self._state = state
        self.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)

    def sort(
        self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder
    ) -> None:
        """Header clicks sort the source model (numpy), not this proxy (Python calls)."""
        model = self.sourceModel()
        assert isinstance(model, RunsTableModel)
        model.sort(column, order)

    def set_dag(self, dag_id: str) -> None:
        self.beginFilterChange()
        self._dag = dag_id
        self.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)

    def set_dags(self, dag_ids: Collection[str] | None) -> None:
        """Only the runs of these DAGs (the canvas filter, as the timeline's lanes)."""
        dags = None if dag_ids is None else frozenset(dag_ids)
        if dags == self._dags:
            return
        self.beginFilterChange()
        self._dags = dags
        self.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(
        self, source_row: int, source_parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex
    ) -> bool:
        if not (self._state or self._dag or self._text or self._dags is not None):
            return True  # called for every row on each layout change: keep it cheap
        model = self.sourceModel()
        assert isinstance(model, RunsTableModel)
        if self._dags is not None:  # from the store's codes: no run object for a hidden row
            store = model.store
            code = int(store.dag_codes()[model.store_row(source_row)])
            if store.dag_ids[code] not in self._dags:
                return False
            if not (self._state or self._dag or self._text):
                return True
        run = model.run_at(source_row)
        if self._state and run.state != self._state:
            return False
        if self._dag and run.dag_id != self._dag:
            return False
        if not self._text:
            return True
        haystack = f"{run.dag_id} {run.run_id} {run.run_type} {run.state} {run.partition_key or ''}"
        return all(word in haystack.lower() for word in self._text.split())


class RunsTable(QtWidgets.QWidget):
    """The table with its filter bar; emits :attr:`run_selected` (dag_id, run_id)."""

    run_selected = QtCore.Signal(str, str)
    #: The user's template was entered (empty: none); the run card renders it too.
    template_changed = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RunsTableModel(self)
        self.proxy = RunsFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter_edit = QtWidgets.QLineEdit()
        self.filter_edit.setPlaceholderText("filter: dag_id, run_id, type, state, partition key")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.proxy.set_text)
        self.state_box = QtWidgets.QComboBox()
        self.state_box.addItems(["any state", "queued", "running", "success", "failed"])
        self.state_box.currentTextChanged.connect(
            lambda text: self.proxy.set_state("" if text == "any state" else text)
        )
        self.count_label = QtWidgets.QLabel()
        self.template_edit = QtWidgets.QLineEdit()
        self.template_edit.setPlaceholderText("template per run, e.g. {{ ds }}")
        self.template_edit.setToolTip(
            "A Jinja template rendered for every run with the context its task gets in "
            "Airflow 3.3.2 (ds, ts, logical_date, data_interval_start/end, dag_run, "
            "prev_*_success, triggering_asset_events, macros.ds_add...). Enter shows it "
            "in the 'rendered' column; errors show in the run's cell."
        )
        self.template_edit.setClearButtonEnabled(True)
        self.template_edit.editingFinished.connect(self._template_entered)
        self.view = QtWidgets.QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, QtCore.Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.setAlternatingRowColors(True)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.horizontalHeader().setResizeContentsPrecision(50)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(self.filter_edit, 1)
        bar.addWidget(self.state_box)
        bar.addWidget(self.count_label)
        bar.addWidget(self.template_edit, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        self._echo = False
        #: Columns grow to fit what new rows (or a new display zone) show, once the burst
        #: of refreshes settles; they never shrink under the user's hand.
        self._grow_timer = QtCore.QTimer(self)
        self._grow_timer.setSingleShot(True)
        self._grow_timer.setInterval(120)
        self._grow_timer.timeout.connect(self.grow_columns)
        self._sized_rows = 0
        #: Columns to grow once the table is shown: a hidden view measures every row.
        self._grow_when_shown = False

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if self._grow_when_shown:
            self._grow_timer.start()

    def refresh(self, sim: Simulation) -> None:
        empty = self.model.rowCount() == 0
        self.model.refresh(sim)
        self._update_count()
        if empty and self.model.rowCount():  # size the columns once, from the first rows
            self.view.resizeColumnsToContents()
            self._sized_rows = self.model.rowCount()
        elif self.model.rowCount() != self._sized_rows:
            self._grow_timer.start()

    def set_display_zone(self, name: str) -> None:
        if self.model.set_display_zone(name):
            self._grow_timer.start()

    def set_dag_filter(self, keys: Collection[str] | None) -> None:
        """Follow the canvas filter: the runs of the DAGs among ``keys`` (lane keys: DAG ids
        and asset uris) or, with None, every run."""
        self.proxy.set_dags(keys)
        self._update_count()

    def grow_columns(self) -> None:
        """Widen every column whose shown cells no longer fit (a longer run_id, EDT after
        EST...): sized once from the first rows, later cells were cut.

        Only while the table is shown: a hidden ``QTableView`` measures every row of
        the model (Qt reads the visible rows only when it has a viewport on screen),
        which took a second at 50,000 runs in the middle of a step; a hidden table
        grows its columns when it is shown."""
        if not self.view.isVisible():
            self._grow_when_shown = True
            return
        self._grow_when_shown = False
        self._sized_rows = self.model.rowCount()
        header = self.view.horizontalHeader()
        last = header.count() - 1
        for column in range(header.count()):
            if column == last and header.stretchLastSection():
                continue
            need = max(self.view.sizeHintForColumn(column), header.sectionSizeHint(column))
            if need > self.view.columnWidth(column):
                self.view.setColumnWidth(column, need)

    def select_run(self, dag_id: str, run_id: str) -> bool:
        """Select and show a run's row without emitting :attr:`run_selected`."""
        found = self.model.store.find(dag_id, run_id)
        if found is None:
            return False
        row = self.model.model_row(found)
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():  # filtered out: clear the filters that hide it
            self.filter_edit.clear()
            self.state_box.setCurrentIndex(0)
            index = self.proxy.mapFromSource(self.model.index(row, 0))
        self._echo = True
        try:
            self.view.selectionModel().setCurrentIndex(
                index,
                QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QtCore.QItemSelectionModel.SelectionFlag.Rows,
            )
            self.view.scrollTo(index)
        finally:
            self._echo = False
        return True

    def selected_run(self) -> tuple[str, str] | None:
        index = self.view.selectionModel().currentIndex()
        if not index.isValid():
            return None
        key = self.proxy.data(index, KEY_ROLE)
        return None if key is None else (str(key[0]), str(key[1]))

    def visible_keys(self) -> list[tuple[str, str]]:
        """(dag_id, run_id) of the rows as the view shows them (sorted and filtered)."""
        return [
            tuple(self.proxy.data(self.proxy.index(r, 0), KEY_ROLE))
            for r in range(self.proxy.rowCount())
        ]

    def _current_changed(self, current: QtCore.QModelIndex, _previous: QtCore.QModelIndex) -> None:
        if self._echo or not current.isValid():
            return
        key = self.proxy.data(current, KEY_ROLE)
        if key is not None:
            self.run_selected.emit(key[0], key[1])

    def _template_entered(self) -> None:
        """Render the typed template and bring its column into view."""
        text = self.template_edit.text()
        current = self.model.template.source if self.model.template else ""
        if text.strip() == current.strip():
            return
        self.model.set_template(text)
        self.template_changed.emit(text)
        if self.model.template is not None and self.proxy.rowCount():
            last = self.proxy.columnCount() - 1
            self.view.resizeColumnToContents(last)
            self.view.scrollTo(self.proxy.index(0, last))

    def _update_count(self, *args: object) -> None:
        self.count_label.setText(f"{self.proxy.rowCount()} of {self.model.rowCount()} runs")


def link_selection(timeline: TimelinePane, table: RunsTable) -> None:
    """Selecting a run in either selects it in the other (no echo loops).

    A selection made in the table also moves the timeline to the run when it is
    off-screen, and re-emits the timeline's :attr:`dag_selected` for the canvas.
    """

    def from_timeline(dag_id: str, run_id: str) -> None:
        table.select_run(dag_id, run_id)

    def from_table(dag_id: str, run_id: str) -> None:
        if timeline.select_run(dag_id, run_id, emit=False):
            row = timeline.runs.find(dag_id, run_id)
            if row is not None:
                run = timeline.runs.runs[row]
                x0, x1 = timeline.x_range()
                if not (x0 <= run.created_at <= x1):
                    timeline.center_on(run.created_at)
            timeline.dag_selected.emit(dag_id)

    timeline.run_selected.connect(from_timeline)
    table.run_selected.connect(from_table)
    timeline.display_zone_changed.connect(table.set_display_zone)
