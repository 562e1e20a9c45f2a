"""The form for an ``@asset`` / ``@asset.multi`` entry (the scenario's ``asset_dags``).

Airflow's shorthand is one DAG and one task, both named after the asset (or the
decorated function, for ``multi``), writing that asset (or ``multi.outlets``).
The canvas draws the DAG it stands for; this form edits the entry itself, as
written in the file: its schedule, the task's duration, the uri, zone, start
date and paused flag (catchup is shown, fixed at false as ``@asset`` makes
it). The name is the DAG's, the task's and the asset's id at once, so it is
shown, not edited here. Each change is checked by
the scenario layer (the entry alone, with the declared assets) before it is
pushed as one undo step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from PySide6.QtWidgets import QCheckBox, QLabel, QWidget

from explorer.document import edits, validation
from explorer.scenario import Duration, Instant, Scenario
from explorer.scenario.asset_dags import expand
from explorer.scenario.model import AssetDag
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form
from explorer.ui.inspector.fields import (
    MessageLabel,
    ValidatedLine,
    check_duration,
    check_instant,
)
from explorer.ui.inspector.schedule_form import ScheduleEditor, check_zone, zone_completer

__all__ = ["AssetDagForm", "asset_dag_of"]


def asset_dag_of(scenario: Scenario, dag_id: str) -> AssetDag | None:
    """The ``asset_dags`` entry standing for the DAG ``dag_id``, if it is one."""
    return next((e for e in scenario.asset_dags if e.dag_id == dag_id), None)


class AssetDagForm(Form):
    title_text = "@asset"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("assetDagForm")
        self.name = QLabel()
        self.name.setToolTip("The DAG's, the task's and the asset's name (edit it in the file)")
        self.add_row("name", self.name)
        self.writes = QLabel()
        self.writes.setWordWrap(True)
        self.writes.setToolTip("What the task writes when it succeeds (AS-1)")
        self.add_row("writes", self.writes)
        self.uri = ValidatedLine(
            None, tooltip="uri of the asset (blank: the name, as Airflow defaults it)"
        )
        self.uri.edit.setObjectName("asset_dag_uri")
        self.uri.committed.connect(self._set_uri)
        self.add_row("uri", self.uri)
        self.schedule = ScheduleEditor(self)
        self.schedule.candidate.connect(
            lambda value: self._set("schedule", value, self.schedule.show_error)
        )
        self.add_row("schedule", self.schedule)
        self.duration = ValidatedLine(
            check_duration, tooltip="duration of the task: ISO-8601, e.g. PT10M"
        )
        self.duration.edit.setObjectName("asset_dag_duration")
        self.duration.committed.connect(
            lambda t: self._set("duration", Duration.parse(t.strip()), self.duration.set_error)
        )
        self.add_row("duration", self.duration)
        self.timezone = ValidatedLine(check_zone, tooltip="timezone: the zone crons are read in")
        self.timezone.edit.setCompleter(zone_completer(self.timezone))
        self.timezone.committed.connect(
            lambda t: self._set("timezone", t.strip() or "UTC", self.timezone.set_error)
        )
        self.add_row("timezone", self.timezone)
        self.start_date = ValidatedLine(
            check_instant, tooltip="start_date: ISO-8601 with an offset or Z (blank: none)"
        )
        self.start_date.committed.connect(
            lambda t: self._set(
                "start_date",
                Instant.parse(t.strip()) if t.strip() else None,
                self.start_date.set_error,
            )
        )
        self.add_row("start_date", self.start_date)
        self.catchup = QCheckBox("catchup")
        self.catchup.setToolTip(
            "@asset creates its DAG with catchup=False and takes no catchup argument"
        )
        self.catchup.setEnabled(False)
        self.add_row("", self.catchup)
        self.paused = QCheckBox("is_paused_upon_creation")
        self.paused.setToolTip("The DAG starts paused; a script action unpauses it")
        self.paused.toggled.connect(lambda on: self._set("is_paused_upon_creation", on))
        self.add_row("", self.paused)
        self.error = MessageLabel()
        self.add_row("", self.error)
        self.outer.addStretch(1)
        self._loading = False

    # ----------------------------------------------------------------- model -> widgets
    def entry(self, scenario: Scenario | None = None) -> AssetDag | None:
        s = scenario or self.document.scenario
        return asset_dag_of(s, edits.parse_node(self.target).name) if self.target else None

    def refresh(self, scenario: Scenario) -> None:
        entry = self.entry(scenario)
        if entry is None:
            return
        self._loading = True
        try:
            multi = entry.multi is not None
            self.title.setText(f"{'@asset.multi' if multi else '@asset'} {entry.dag_id}")
            self.subtitle.setText(
                "Airflow's shorthand: one DAG and one task named "
                f"{entry.dag_id!r}, writing {'the outlets below' if multi else 'that asset'} "
                "when the task succeeds. The canvas draws the DAG it stands for."
            )
            self.name.setText(entry.dag_id)
            if entry.multi is not None:
                names = [
                    str(o.get("asset", o)) if isinstance(o, dict) else str(o)
                    for o in entry.multi.outlets
                ]
                self.writes.setText(", ".join(names))
            else:
                self.writes.setText(f"Asset({entry.dag_id!r}, uri={entry.uri or entry.dag_id!r})")
            self.uri.setEnabled(not multi)
            self.uri.set_value(entry.uri or "")
            expanded, _ = expand(scenario)
            dag = next(d for d in expanded.dags if d.dag_id == entry.dag_id)
            self.schedule.set_context(entry.schedule, dag, expanded)
            self.duration.set_value(entry.duration.text)
            self.timezone.set_value(entry.timezone)
            self.start_date.set_value(entry.start_date.text if entry.start_date else "")
            self.catchup.setChecked(entry.catchup)
            self.paused.setChecked(entry.is_paused_upon_creation)
            self.error.clear_message()
        finally:
            self._loading = False

    # ----------------------------------------------------------------- widgets -> commands
    def _set_uri(self, text: str) -> None:
        self._set("uri", text.strip() or None, self.uri.set_error)

    def _set(self, name: str, value: object, show: Callable[[str], None] | None = None) -> None:
        if self._loading:
            return
        before = self.entry()
        if before is None:
            return
        after = dataclasses.replace(before, **{name: value})  # type: ignore[arg-type]
        if after == before:
            return
        problems = validation.new_asset_dag_problems(self.document.scenario, before, after)
        if problems:
            if show is None:  # a check box goes back to the model's value
                self.refresh(self.document.scenario)
            (show or self.error.show_error)(problems[0].message)
            return
        s = self.document.scenario
        self.push(
            lambda: edits.replace_asset_dag(s, before.dag_id, after),
            f"Set {name} of @asset {before.dag_id}",
        )
