"""The explain pane: "why didn't it run?" for the selected DAG at the clock, and the alerts.

It shows the engine's own answer (:func:`explorer.engine.explain.explain`):
the verdict, then each of the scheduler's checks in Airflow's order with
ok / BLOCKS / info and the rule id (SCH-…, AS-…, PT-…) the check follows.
Below, the alerts raised up to the clock; activating one emits
:attr:`ExplainPane.alert_activated` so the window can select its DAG and move
the timeline to its instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.timeline.timebase import fmt_local, fmt_utc, zone_of
from explorer.engine.alerts import Alert

if TYPE_CHECKING:
    from explorer.engine.change_marks import ChangeMark
    from explorer.ui.session import SimulationSession

__all__ = ["ExplainPane"]

_MARKS = {True: ("✔ ok", "#2e7d32"), False: ("✘ BLOCKS", "#c62828"), None: ("ℹ info", "#546e7a")}


class ExplainPane(QtWidgets.QWidget):
    alert_activated = QtCore.Signal(object)
    dag_chosen = QtCore.Signal(str)
    #: A cause row was clicked: the window follows it (the failed run on the timeline).
    cause_activated = QtCore.Signal(object)

    def __init__(self, session: SimulationSession, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.zone_name = "UTC"
        self._alerts: list[Alert] = []
        self._dirty = True
        self._alerts_stale = True
        #: Quiet time before alerts are recomputed (0: with every change).
        self.alerts_delay_ms = 250
        self._alerts_timer = QtCore.QTimer(self)
        self._alerts_timer.setSingleShot(True)
        self._alerts_timer.timeout.connect(self._refresh_alerts)
        self.dag_box = QtWidgets.QComboBox()
        self.dag_box.currentTextChanged.connect(self._dag_picked)
        self.question = QtWidgets.QLabel()
        font = self.question.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.question.setFont(font)
        self.question.setWordWrap(True)  # the pane sits beside the timeline: wrap, never widen
        #: "What did the change do?": the deploy marks of the run or mark selected.
        self.change_note = QtWidgets.QTextBrowser()  # wraps and scrolls in a narrow dock
        self.change_note.setObjectName("changeNote")
        self.change_note.setOpenLinks(False)
        self.change_note.setMinimumHeight(80)
        self.change_note.setStyleSheet(
            "#changeNote { background: #f1f8f7; border: 1px solid #80cbc4; }"
        )
        self.change_note.hide()
        self._change_marks: list[ChangeMark] = []
        self.verdict = QtWidgets.QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.conditions = QtWidgets.QTreeWidget()
        self.conditions.setHeaderLabels(["", "check", "rule", "detail"])
        self.conditions.setRootIsDecorated(False)  # causes hang under their check, expanded
        self.conditions.setWordWrap(True)
        self.conditions.setUniformRowHeights(False)
        self.conditions.setTextElideMode(QtCore.Qt.TextElideMode.ElideNone)
        # the detail takes what the pane leaves and wraps in it: at 1280x720 it was cut to one
        # line ("cached next run: logical_date …") behind a horizontal scroll bar
        header = self.conditions.header()
        fit = QtWidgets.QHeaderView.ResizeMode.ResizeToContents
        for column in (0, 1, 2):
            header.setSectionResizeMode(column, fit)
        header.setSectionResizeMode(3, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(True)
        self.conditions.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # rows measure their wrapped height again when the detail column's width changes
        self._wrap = _WrappedColumn(self.conditions, 3)
        self.conditions.setItemDelegateForColumn(3, self._wrap)
        header.sectionResized.connect(lambda *_: self.conditions.doItemsLayout())
        self.conditions.itemClicked.connect(self._condition_clicked)
        self.conditions.itemActivated.connect(self._condition_clicked)
        self.alerts = QtWidgets.QListWidget()
        self.alerts.setWordWrap(True)
        self.alerts.setToolTip("Click an alert to show its DAG and move the timeline to it")
        self.alerts.itemActivated.connect(self._alert_clicked)
        self.alerts.itemClicked.connect(self._alert_clicked)
        self.alerts_title = QtWidgets.QLabel("<b>Alerts up to the clock</b>")

        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("DAG:"))
        top.addWidget(self.dag_box, 1)
        upper = QtWidgets.QWidget()
        upper_layout = QtWidgets.QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addLayout(top)
        upper_layout.addWidget(self.question)  # its own line: the pane is narrow
        upper_layout.addWidget(self.verdict)
        upper_layout.addWidget(self.conditions, 1)
        lower = QtWidgets.QWidget()
        lower_layout = QtWidgets.QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.alerts_title)
        lower_layout.addWidget(self.alerts, 1)
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self.change_note)  # its own part: never squeezed over the checks
        splitter.addWidget(upper)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 2)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        self._fill_dags()
        session.changed.connect(self._changed)
        session.scenario_replaced.connect(self._fill_dags)

    # ------------------------------------------------------------------ API
    @property
    def dag_id(self) -> str:
        return self.dag_box.currentText()

    def set_dag(self, dag_id: str) -> None:
        if dag_id in self.session.sim.dags and dag_id != self.dag_id:
            self.dag_box.setCurrentText(dag_id)

    def set_display_zone(self, name: str) -> None:
        self.zone_name = name
        self._fill_change_note()
        self._changed()

    def show_change(self, marks: Sequence[ChangeMark]) -> None:
        """Say what a deployment change did to the selected run / mark, and why (DEP rule);
        nothing (hidden) for a run no change touched."""
        self._change_marks = list(marks)
        self._fill_change_note()

    def change_text(self) -> str:
        """The change note as plain text (empty when hidden)."""
        if self.change_note.isHidden():
            return ""
        return self.change_note.toPlainText()

    def _fill_change_note(self) -> None:
        from explorer.ui.timeline.change_layer import mark_html

        if not self._change_marks:
            self.change_note.hide()
            self.change_note.clear()
            return
        parts = [mark_html(mark, self.zone_name) for mark in self._change_marks]
        self.change_note.setHtml("<b>What the change did</b><br>" + "<hr>".join(parts))
        self.change_note.show()

    def alert_list(self) -> list[Alert]:
        """The alerts at the clock (computed now if a refresh is still pending)."""
        if self._alerts_stale:
            self._refresh_alerts()
        return list(self._alerts)

    def refresh(self) -> None:
        """Recompute (the engine's explain and alerts at the clock)."""
        self._dirty = False
        self._refresh_explain()
        self._refresh_alerts()

    # ------------------------------------------------------------------ internals
    def _changed(self) -> None:
        """Explain at once; alerts once the clock rests.

        ``compute_alerts`` derives every consumer's cadence from its producers'
        schedules (tens of milliseconds with hundreds of DAGs): done on every
        step it would set the pace of stepping and playing, so it waits until
        the clock has not moved for :attr:`alerts_delay_ms`.
        """
        self._dirty = True
        self._alerts_stale = True
        if self.isVisible():
            self._dirty = False
            self._refresh_explain()
            if self.alerts_delay_ms <= 0:
                self._refresh_alerts()
            else:
                self.alerts_title.setText("<b>Alerts up to the clock</b>: updating…")
                self._alerts_timer.start(self.alerts_delay_ms)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def _fill_dags(self) -> None:
        current = self.dag_id
        self.dag_box.blockSignals(True)
        self.dag_box.clear()
        self.dag_box.addItems(list(self.session.sim.dags))
        if current in self.session.sim.dags:
            self.dag_box.setCurrentText(current)
        self.dag_box.blockSignals(False)
        self._changed()

    def _dag_picked(self, dag_id: str) -> None:
        if self._change_marks and all(m.dag_id != dag_id for m in self._change_marks):
            self.show_change([])  # the note was about another DAG's run
        if dag_id:
            self._refresh_explain()
            self.dag_chosen.emit(dag_id)

    def _refresh_explain(self) -> None:
        dag_id = self.dag_id
        self.conditions.clear()
        if not dag_id:
            return
        zone = zone_of(self.zone_name)
        answer = self.session.explain(dag_id)
        blocked = bool(answer.blocked_by) or answer.verdict.startswith(
            ("waiting", "blocked", "no ")
        )
        ask = answer.question
        self.question.setText(f"{ask} — at {fmt_local(answer.at, zone)} · {fmt_utc(answer.at)}")
        colour = "#c62828" if blocked else "#2e7d32"
        self.verdict.setText(
            f'<span style="color:{colour}; font-weight:600">{answer.verdict}</span>'
        )
        for condition in answer.conditions:
            mark, mark_colour = _MARKS[condition.ok]
            item = QtWidgets.QTreeWidgetItem(
                [mark, condition.name, condition.rule, condition.detail]
            )
            item.setForeground(0, QtGui.QColor(mark_colour))
            bold = item.font(0)
            bold.setBold(True)
            item.setFont(0, bold)
            item.setToolTip(3, condition.detail)
            self.conditions.addTopLevelItem(item)
            for cause in condition.causes:
                if cause.run_id is None and cause.dag_id is None:
                    continue
                follow = "follow: select the run" if cause.run_id else f"follow: {cause.dag_id}"
                child = QtWidgets.QTreeWidgetItem(["→", follow, cause.rule, cause.sentence])
                child.setData(0, QtCore.Qt.ItemDataRole.UserRole, cause)
                child.setForeground(1, QtGui.QColor("#1565c0"))
                child.setToolTip(1, "Click to show it on the timeline (Alt+Left: back)")
                item.addChild(child)
            item.setExpanded(True)

    def _condition_clicked(self, item: QtWidgets.QTreeWidgetItem, _column: int = 0) -> None:
        cause = item.data(0, QtCore.Qt.ItemDataRole.UserRole)
        if cause is not None:
            self.cause_activated.emit(cause)

    def _refresh_alerts(self) -> None:
        self._alerts_timer.stop()
        self._alerts_stale = False
        zone = zone_of(self.zone_name)
        self._alerts = self.session.alerts()
        self.alerts.clear()
        for alert in self._alerts:
            text = f"{fmt_local(alert.at, zone)} · {alert.kind} · {alert.subject}\n{alert.message}"
            item = QtWidgets.QListWidgetItem(text)
            item.setData(QtCore.Qt.ItemDataRole.UserRole, self.alerts.count())
            item.setForeground(
                QtGui.QColor("#b71c1c" if alert.kind == "consumer_silent" else "#4e342e")
            )
            self.alerts.addItem(item)
        count = len(self._alerts)
        self.alerts_title.setText(
            f"<b>Alerts up to the clock</b> ({count})"
            if count
            else "<b>Alerts up to the clock</b>: none"
        )

    def _alert_clicked(self, item: QtWidgets.QListWidgetItem) -> None:
        index = item.data(QtCore.Qt.ItemDataRole.UserRole)
        if isinstance(index, int) and 0 <= index < len(self._alerts):
            alert = self._alerts[index]
            first = alert.subject.split(",")[0].strip()
            if first in self.session.sim.dags:
                self.set_dag(first)
            self.alert_activated.emit(alert)


class _WrappedColumn(QtWidgets.QStyledItemDelegate):
    """A tree column whose text wraps at the column's width: QTreeView asks its rows'
    heights without the width, so a long detail stayed one clipped line."""

    def __init__(self, tree: QtWidgets.QTreeWidget, column: int) -> None:
        super().__init__(tree)
        self.tree = tree
        self.column = column

    def sizeHint(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> QtCore.QSize:
        size = super().sizeHint(option, index)
        width = max(40, self.tree.header().sectionSize(self.column) - 10)
        text = str(index.data() or "")
        box = option.fontMetrics.boundingRect(
            QtCore.QRect(0, 0, width, 100_000), QtCore.Qt.TextFlag.TextWordWrap, text
        )
        return QtCore.QSize(size.width(), max(size.height(), box.height() + 6))
