"""View > Compare Airflow 2 vs 3 Behaviour…: the document under both defaults, on one timeline.

"What changes when we upgrade?" is mostly DEP-7: Airflow 2 turned a plain cron
string (and a timedelta) into a data-interval timetable, Airflow 3.3 into a
trigger timetable (``[scheduler] create_cron_data_intervals`` true vs false), and
Airflow 2 caught up by default (``catchup_by_default`` true vs false). This
simulates the open document both ways to the same instant and shows them in the
compare window (:mod:`explorer.ui.behaviour_diff`), paired by the one behavioural
diff (ADR 0009): a run of a plain daily cron keeps its logical date but runs a day
earlier, its data interval empty (TT-1, DEP-2).

``set_option`` actions for the compared options are left out of both, so each side
runs under one setting the whole time.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6 import QtWidgets

from explorer.scenario.model import Scenario, SetOptionAction

if TYPE_CHECKING:
    from explorer.ui.behaviour_diff import DiffWindow

__all__ = ["AIRFLOW2", "AIRFLOW3", "UpgradeDialog", "compare_airflow_versions", "upgrade_variants"]

AIRFLOW2 = "Airflow 2 style (create_cron_data_intervals=true)"
AIRFLOW2_CATCHUP = "Airflow 2 style (create_cron_data_intervals=true, catchup_by_default=true)"
AIRFLOW3 = "Airflow 3.3 default"


def upgrade_variants(scenario: Scenario, *, catchup: bool) -> tuple[Scenario, Scenario]:
    """(Airflow 2 style, Airflow 3.3 default) versions of ``scenario`` (DEP-7)."""
    keys = {"create_cron_data_intervals"} | ({"catchup_by_default"} if catchup else set())
    script = tuple(
        a for a in scenario.script if not (isinstance(a, SetOptionAction) and a.key in keys)
    )
    config = scenario.airflow_config

    def variant(two: bool) -> Scenario:
        airflow = dataclasses.replace(config, create_cron_data_intervals=two)
        if catchup:
            airflow = dataclasses.replace(airflow, catchup_by_default=two)
        return dataclasses.replace(scenario, airflow_config=airflow, script=script)

    return variant(True), variant(False)


class UpgradeDialog(QtWidgets.QDialog):
    """Asks whether ``catchup_by_default`` is compared too."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare Airflow 2 vs 3 Behaviour")
        text = QtWidgets.QLabel(
            "Simulate this scenario twice and draw both on one timeline: with "
            "<b>[scheduler] create_cron_data_intervals = true</b> (how Airflow 2 read a plain "
            "cron or timedelta schedule) and with Airflow 3.3's default, <b>false</b>."
        )
        text.setWordWrap(True)
        self.catchup = QtWidgets.QCheckBox(
            "Also compare [scheduler] catchup_by_default (true in Airflow 2, false in 3.3)"
        )
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.catchup)
        layout.addWidget(buttons)
        self.resize(560, 160)


def ask_catchup(parent: QtWidgets.QWidget) -> bool | None:
    """The dialog: None when cancelled, else whether to compare catchup_by_default."""
    dialog = UpgradeDialog(parent)
    if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
        return None
    return dialog.catchup.isChecked()


def compare_airflow_versions(
    window: QtWidgets.QWidget, scenario: Scenario, source: str, zone: str, *, catchup: bool
) -> DiffWindow:
    """Simulate both variants to the same instant and open the compare window on them."""
    from explorer.analysis.commands import behaviour_diff, simulate_scenario
    from explorer.ui.behaviour_diff import BehaviourDiffView, DiffWindow

    two, three = upgrade_variants(scenario, catchup=catchup)
    old = simulate_scenario(two, source, None)
    new = simulate_scenario(three, source, old.until)
    labels = (AIRFLOW2_CATCHUP if catchup else AIRFLOW2, AIRFLOW3)
    view = BehaviourDiffView(
        behaviour_diff(old, new),
        [r.facts() for r in old.outcome.facts.runs],
        [r.facts() for r in new.outcome.facts.runs],
        labels=labels,
        zone=zone,
    )
    result = DiffWindow(view, f"Airflow 2 vs 3 — {scenario.name}", window)
    result.show()
    return result
