"""The scenario form, shown when nothing is selected: name, description and the clock.

``clock.start`` is the deployment moment (every DAG is first parsed then);
``clock.until`` the end of the simulated horizon. Both are ISO-8601 with an
offset or ``Z``; a naive datetime is refused, as the file format refuses it.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import QCheckBox, QLabel, QWidget

from explorer.document.wording import count
from explorer.scenario import Instant, Scenario
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form
from explorer.ui.inspector.fields import ValidatedLine, instant_problem

__all__ = ["ScenarioForm"]


class ScenarioForm(Form):
    title_text = "Scenario"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("scenarioForm")
        self.name = ValidatedLine(
            lambda t: None if t.strip() else "a scenario needs a name", tooltip="Scenario name"
        )
        self.name.edit.setObjectName("scenario_name")
        self.name.committed.connect(lambda t: self._set(name=t.strip()))
        self.add_row("name", self.name)
        self.description = ValidatedLine(tooltip="What this scenario shows (optional)")
        self.description.committed.connect(lambda t: self._set(description=t.strip() or None))
        self.add_row("description", self.description)
        self.start = ValidatedLine(
            lambda t: instant_problem(t, optional=False),
            tooltip="clock.start: the deployment moment, ISO-8601 with an offset or Z",
        )
        self.start.edit.setObjectName("clock_start")
        self.start.committed.connect(self._set_start)
        self.add_row("clock.start", self.start)
        self.until = ValidatedLine(
            lambda t: instant_problem(t, optional=True),
            tooltip="clock.until: the end of the simulated horizon (blank: none)",
        )
        self.until.committed.connect(self._set_until)
        self.add_row("clock.until", self.until)
        self.intervals = QCheckBox("create_cron_data_intervals")
        self.intervals.setToolTip(
            "airflow_config: read plain cron strings as CronDataIntervalTimetable (Airflow 2)"
        )
        self.intervals.toggled.connect(self._set_intervals)
        self.add_row("", self.intervals)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.outer.addWidget(self.summary)
        self.outer.addStretch(1)
        self._loading = False

    def refresh(self, scenario: Scenario) -> None:
        self._loading = True
        try:
            self.title.setText("Scenario")
            self.subtitle.setText("Nothing selected: the scenario's own settings.")
            self.name.set_value(scenario.name)
            self.description.set_value(scenario.description or "")
            self.start.set_value(scenario.clock.start.text)
            self.until.set_value(scenario.clock.until.text if scenario.clock.until else "")
            self.intervals.setChecked(scenario.airflow_config.create_cron_data_intervals)
            self.summary.setText(
                f"{count(len(scenario.dags), 'DAG')}, "
                f"{count(len(scenario.assets), 'declared asset')}, "
                f"{count(len(scenario.script), 'script action')}."
            )
        finally:
            self._loading = False

    def _set(self, **changes: object) -> None:
        s = self.document.scenario
        field = next(iter(changes))
        self.push(lambda: dataclasses.replace(s, **changes), f"Set scenario {field}")  # type: ignore[arg-type]

    def _set_start(self, text: str) -> None:
        s = self.document.scenario
        clock = dataclasses.replace(s.clock, start=Instant.parse(text.strip()))
        if clock.until is not None and clock.until.value < clock.start.value:
            self.start.set_error(f"{text.strip()} is after clock.until {clock.until.text}")
            return
        self.push(lambda: dataclasses.replace(s, clock=clock), "Set clock.start")

    def _set_until(self, text: str) -> None:
        s = self.document.scenario
        until = Instant.parse(text.strip()) if text.strip() else None
        if until is not None and until.value < s.clock.start.value:
            self.until.set_error(f"{text.strip()} is before clock.start {s.clock.start.text}")
            return
        clock = dataclasses.replace(s.clock, until=until)
        self.push(lambda: dataclasses.replace(s, clock=clock), "Set clock.until")

    def _set_intervals(self, on: bool) -> None:
        if self._loading:
            return
        s = self.document.scenario
        config = dataclasses.replace(s.airflow_config, create_cron_data_intervals=on)
        self.push(
            lambda: dataclasses.replace(s, airflow_config=config),
            "Set create_cron_data_intervals",
        )
