"""The DAG form: dag_id, schedule, dates with time zone, catchup, max_active_runs, tasks.

Field names are Airflow's. Each field commits one command; a value that
would make the DAG invalid (Airflow's own refusals, checked by the scenario
layer: ``catchup=True`` without a ``start_date``, ``@continuous`` with
``max_active_runs > 1``, an end before the start...) is refused in place
with that message and nothing is pushed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.document import edits, schedule_kinds, validation
from explorer.document.nodes import import_flags
from explorer.document.provenance import mark_supplied
from explorer.engine.errors import EngineError
from explorer.engine.tz import get_zone
from explorer.scenario import Dag, Duration, Instant, Scenario
from explorer.scenario.options import effective_catchup, effective_max_active_runs
from explorer.scenario.values import JsonValue, parse_instant
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form
from explorer.ui.inspector.fields import (
    MessageLabel,
    ValidatedLine,
    check_duration,
    check_instant,
)
from explorer.ui.inspector.schedule_form import ScheduleEditor, check_zone, zone_completer

__all__ = ["DagForm"]

OUTCOMES = ("success", "failed", "success_no_data")


class DagForm(Form):
    title_text = "DAG"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("dagForm")
        self.dag_id = ValidatedLine(self._check_dag_id, tooltip="dag_id: letters, digits, _ . -")
        self.dag_id.edit.setObjectName("dag_id")
        self.dag_id.committed.connect(self._rename)
        self.add_row("dag_id", self.dag_id)
        self.schedule = ScheduleEditor(self)
        self.schedule.candidate.connect(self._set_schedule)
        self.add_row("schedule", self.schedule)
        self.timezone = ValidatedLine(
            check_zone, tooltip="timezone: the IANA zone cron strings are read in"
        )
        self.timezone.edit.setObjectName("timezone")
        self.timezone.edit.setCompleter(zone_completer(self.timezone))
        self.timezone.committed.connect(lambda t: self._set("timezone", t.strip() or "UTC"))
        self.add_row("timezone", self.timezone)
        self.start_date = ValidatedLine(
            check_instant,
            tooltip="start_date: ISO-8601 with an offset or Z (blank: none)",
            placeholder="2024-05-01T00:00:00Z",
        )
        self.start_date.edit.setObjectName("start_date")
        self.start_date.note = lambda t: self._local(t)
        self.start_date.committed.connect(lambda t: self._set_instant("start_date", t))
        self.add_row("start_date", self.start_date)
        self.end_date = ValidatedLine(
            check_instant,
            tooltip="end_date: ISO-8601 with an offset or Z (blank: none)",
            placeholder="none",
        )
        self.end_date.edit.setObjectName("end_date")
        self.end_date.note = lambda t: self._local(t)
        self.end_date.committed.connect(lambda t: self._set_instant("end_date", t))
        self.add_row("end_date", self.end_date)
        self.catchup = QCheckBox("catchup")
        self.catchup.setObjectName("catchup")
        self.catchup.setToolTip("catchup: create the runs missed since start_date (default false)")
        self.catchup.toggled.connect(lambda on: self._set("catchup", on))
        self.catchup_error = MessageLabel()
        self.add_row("", self.catchup)
        self.add_row("", self.catchup_error)
        self.max_active_runs = QSpinBox()
        self.max_active_runs.setObjectName("max_active_runs")
        self.max_active_runs.setRange(1, 10_000)
        self.max_active_runs.setToolTip("max_active_runs: runs of this DAG at once (default 16)")
        self.max_active_runs.valueChanged.connect(
            lambda n: self._set("max_active_runs", n, merge=True)
        )
        self.mar_error = MessageLabel()
        self.add_row("max_active_runs", self.max_active_runs)
        self.add_row("", self.mar_error)
        self.paused = QCheckBox("is_paused_upon_creation")
        self.paused.setObjectName("is_paused_upon_creation")
        self.paused.setToolTip("The DAG starts paused; a script action unpauses it")
        self.paused.toggled.connect(lambda on: self._set("is_paused_upon_creation", on))
        self.add_row("", self.paused)
        self.tasks_box = QGroupBox("tasks")
        self.tasks_box.setToolTip("Tasks run side by side; each may write assets (outlets)")
        self.tasks_layout = QVBoxLayout(self.tasks_box)
        self.add_task = QPushButton("Add task")
        self.add_task.setObjectName("addTask")
        self.add_task.setToolTip("Add a task (10 minutes) to this DAG")
        self.add_task.clicked.connect(self._add_task)
        self.outer.addWidget(self.tasks_box)
        self.outer.addStretch(1)
        self._task_rows: list[_TaskRow] = []
        self._loading = False

    # ----------------------------------------------------------------- model -> widgets
    def dag(self, scenario: Scenario | None = None) -> Dag | None:
        s = scenario or self.document.scenario
        name = edits.parse_node(self.target).name if self.target else ""
        return next((d for d in s.dags if d.dag_id == name), None)

    def refresh(self, scenario: Scenario) -> None:
        dag = self.dag(scenario)
        if dag is None:
            return
        self._loading = True
        try:
            self.title.setText(f"DAG {dag.dag_id}")
            summary = schedule_kinds.summarize(dag, scenario)
            flags = [f"⚑ {flag}" for flag in import_flags(dag)]  # what the import could not read
            self.subtitle.setText("\n".join([summary.chip, *flags]))
            self.dag_id.set_value(dag.dag_id)
            self.schedule.set_context(dag.schedule, dag, scenario)
            self.timezone.set_value(dag.timezone)
            self.start_date.set_value(dag.start_date.text if dag.start_date else "")
            self.end_date.set_value(dag.end_date.text if dag.end_date else "")
            # An unset field shows the value the scenario's options give it (ADR 0007).
            config = scenario.airflow_config
            catchup = effective_catchup(dag.catchup, config)
            limit = effective_max_active_runs(dag.max_active_runs, config)
            _quiet(self.catchup, lambda: self.catchup.setChecked(catchup))
            _quiet(self.max_active_runs, lambda: self.max_active_runs.setValue(limit))
            _quiet(self.paused, lambda: self.paused.setChecked(dag.is_paused_upon_creation))
            self.catchup_error.clear_message()
            self.mar_error.clear_message()
            self._fill_tasks(dag)
        finally:
            self._loading = False

    def _fill_tasks(self, dag: Dag) -> None:
        if [r.task_id for r in self._task_rows] != [t.task_id for t in dag.tasks]:
            for row in self._task_rows:
                row.setParent(None)
                row.deleteLater()
            self._task_rows = []
            self.tasks_layout.removeWidget(self.add_task)
            for task in dag.tasks:
                row = _TaskRow(self, task.task_id)
                self.tasks_layout.addWidget(row)
                self._task_rows.append(row)
            self.tasks_layout.addWidget(self.add_task)
        for row, task in zip(self._task_rows, dag.tasks, strict=True):
            row.show_task(task)

    def _local(self, text: str) -> str:
        dag = self.dag()
        if dag is None or not text.strip():
            return ""
        try:
            value: datetime = parse_instant(text.strip()).astimezone(get_zone(dag.timezone))
        except (ValueError, EngineError):
            return ""
        return f"{value.strftime('%a %Y-%m-%d %H:%M %Z')} in {dag.timezone}"

    # ----------------------------------------------------------------- widgets -> commands
    def _check_dag_id(self, text: str) -> str | None:
        try:
            edits.check_airflow_id(text, "dag_id")
        except edits.EditError as exc:
            return str(exc)
        dag = self.dag()
        if (
            dag is not None
            and text != dag.dag_id
            and any(d.dag_id == text for d in self.document.scenario.dags)
        ):
            return f"a DAG with dag_id {text!r} already exists"
        return None

    def _rename(self, text: str) -> None:
        dag = self.dag()
        if dag is None:
            return
        old = dag.dag_id
        from explorer.graph import dag_node

        scene_target = dag_node(text)
        if self.push(
            lambda: edits.rename_dag(self.document.scenario, old, text),
            f"Rename DAG {old} to {text}",
            on_error=self.dag_id.set_error,
        ):
            self.set_target(scene_target)

    def _commit_dag(
        self,
        after: Dag,
        text: str,
        show: Callable[[str], None],
        *,
        merge: bool = False,
        revert: bool = False,
    ) -> bool:
        """Check ``after`` with the scenario's rules; refuse it in place, or push it.

        ``revert``: a check box or spin box goes back to the model's value (a
        line edit keeps the refused text, marked, for the user to fix).
        """
        before = self.dag()
        if before is None or after == before:
            return False
        problems = validation.new_problems(self.document.scenario, before, after)
        if problems:
            if revert:
                self._loading = True
                try:
                    self.refresh(self.document.scenario)
                finally:
                    self._loading = False
            show(problems[0].message)
            return False
        after = mark_supplied(before, after)  # an imported value typed here: kept by re-import
        s = self.document.scenario
        key = ("dag-field", before.dag_id, text) if merge else None
        return self.push(lambda: edits.replace_dag(s, before.dag_id, after), text, merge_key=key)

    def _set(self, name: str, value: object, *, merge: bool = False) -> None:
        if self._loading:
            return
        dag = self.dag()
        if dag is None:
            return
        show: dict[str, Callable[[str], None]] = {
            "catchup": self.catchup_error.show_error,
            "max_active_runs": self.mar_error.show_error,
            "timezone": self.timezone.set_error,
            "is_paused_upon_creation": self.message.show_error,
        }
        after = dataclasses.replace(dag, **{name: value})  # type: ignore[arg-type]
        self._commit_dag(
            after,
            f"Set {name} of {dag.dag_id}",
            show[name],
            merge=merge,
            revert=name != "timezone",
        )

    def _set_instant(self, name: str, text: str) -> None:
        dag = self.dag()
        if dag is None:
            return
        value = Instant.parse(text.strip()) if text.strip() else None
        line = self.start_date if name == "start_date" else self.end_date
        if name == "start_date":
            after = dataclasses.replace(dag, start_date=value)
        else:
            after = dataclasses.replace(dag, end_date=value)
        self._commit_dag(after, f"Set {name} of {dag.dag_id}", line.set_error)

    def _set_schedule(self, schedule: JsonValue) -> None:
        dag = self.dag()
        if dag is None:
            return
        after = dataclasses.replace(dag, schedule=schedule)
        self._commit_dag(after, f"Set schedule of {dag.dag_id}", self.schedule.show_error)

    def _add_task(self) -> None:
        dag = self.dag()
        if dag is None:
            return
        s = self.document.scenario
        self.push(lambda: edits.add_task(s, dag.dag_id), f"Add task to {dag.dag_id}")

    def remove_task(self, task_id: str) -> None:
        dag = self.dag()
        if dag is None:
            return
        s = self.document.scenario
        self.push(lambda: edits.remove_task(s, dag.dag_id, task_id), f"Remove task {task_id}")

    def rename_task(self, old: str, new: str, show: Callable[[str], None]) -> None:
        dag = self.dag()
        if dag is None:
            return
        s = self.document.scenario
        self.push(
            lambda: edits.rename_task(s, dag.dag_id, old, new),
            f"Rename task {old} to {new}",
            on_error=show,
        )

    def set_task_field(self, task_id: str, **changes: object) -> None:
        dag = self.dag()
        if dag is None:
            return
        task = next((t for t in dag.tasks if t.task_id == task_id), None)
        if task is None:
            return
        new_task = dataclasses.replace(task, **changes)  # type: ignore[arg-type]
        tasks = tuple(new_task if t.task_id == task_id else t for t in dag.tasks)
        field = next(iter(changes))
        self._commit_dag(
            dataclasses.replace(dag, tasks=tasks),
            f"Set {field} of {task_id}",
            self.message.show_error,
        )

    def remove_outlet(self, task_id: str, index: int) -> None:
        dag = self.dag()
        if dag is None:
            return
        task = next((t for t in dag.tasks if t.task_id == task_id), None)
        if task is None:
            return
        outlets = tuple(o for i, o in enumerate(task.outlets) if i != index)
        self.set_task_field(task_id, outlets=outlets)


class _TaskRow(QWidget):
    """One task: task_id, duration, outcome, outlets (each removable)."""

    def __init__(self, form: DagForm, task_id: str) -> None:
        super().__init__()
        self.form = form
        self.task_id = task_id
        self.setObjectName(f"task:{task_id}")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 4)
        self.name = ValidatedLine(
            lambda t: _id_problem(t), tooltip="task_id", placeholder="task_id"
        )
        self.name.committed.connect(
            lambda t: form.rename_task(self.task_id, t, self.name.set_error)
        )
        self.duration = ValidatedLine(
            check_duration, tooltip="duration: ISO-8601 (PT10M, PT1H30M)", placeholder="PT10M"
        )
        self.duration.committed.connect(
            lambda t: form.set_task_field(self.task_id, duration=Duration.parse(t.strip()))
        )
        self.outcome = QComboBox()
        self.outcome.addItems(list(OUTCOMES))
        self.outcome.setToolTip(
            "outcome: success, failed (no asset event), success_no_data (event, but no data)"
        )
        self.outcome.currentTextChanged.connect(self._outcome)
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip(f"Remove task {task_id}")
        remove.setAccessibleName(f"Remove task {task_id}")
        remove.clicked.connect(lambda: form.remove_task(self.task_id))
        self.outlets = QWidget()
        self.outlets_layout = QHBoxLayout(self.outlets)
        self.outlets_layout.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.name, 0, 0)
        grid.addWidget(self.duration, 0, 1)
        grid.addWidget(self.outcome, 0, 2)
        grid.addWidget(remove, 0, 3)
        grid.addWidget(self.outlets, 1, 0, 1, 4)
        self._loading = False

    def show_task(self, task: object) -> None:
        from explorer.scenario import Task

        assert isinstance(task, Task)
        self._loading = True
        try:
            self.name.set_value(task.task_id)
            self.duration.set_value(task.duration.text)
            self.outcome.setCurrentText(task.outcome)
        finally:
            self._loading = False
        while self.outlets_layout.count():
            item = self.outlets_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        label = QLabel("outlets:" if task.outlets else "no outlets (drag its port to an asset)")
        label.setToolTip("Assets this task writes; connect more on the canvas")
        self.outlets_layout.addWidget(label)
        for index, outlet in enumerate(task.outlets):
            button = QToolButton()
            button.setText(f"{schedule_kinds.leaf_label(outlet)} ✕")
            button.setToolTip(f"Remove the outlet {schedule_kinds.leaf_label(outlet)}")
            button.clicked.connect(
                lambda _=False, i=index: self.form.remove_outlet(self.task_id, i)
            )
            self.outlets_layout.addWidget(button)
        self.outlets_layout.addStretch(1)

    def _outcome(self, text: str) -> None:
        if not self._loading:
            self.form.set_task_field(self.task_id, outcome=text)


def _id_problem(text: str) -> str | None:
    try:
        edits.check_airflow_id(text, "task_id")
    except edits.EditError as exc:
        return str(exc)
    return None


def _quiet(widget: QWidget, change: Callable[[], object]) -> None:
    widget.blockSignals(True)
    try:
        change()
    finally:
        widget.blockSignals(False)
