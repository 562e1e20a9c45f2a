"""Edit > Deploy This Change At…: the open document's edits, shipped at an instant.

The saved file is the deployment that runs until the instant; the edits
become ``deploy`` / ``remove_dag`` / ``set_option`` actions at that instant
(:func:`explorer.scenario.changes.deploy_change`). The result replaces the
document through the undo stack (ADR 0005), so the timeline shows the old
version's runs before the instant and the new version's after, and Undo
gives the edits back.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from explorer.scenario import ScenarioError, load_scenario
from explorer.scenario.changes import change_actions, deploy_change
from explorer.scenario.model import DeployAction, RemoveDagAction, Scenario, SetOptionAction
from explorer.scenario.values import Instant
from explorer.ui.commands import edit
from explorer.ui.document import ScenarioDocument

__all__ = ["DeployChangeDialog", "apply_deploy_change", "describe_change"]


def describe_change(old: Scenario, new: Scenario, at: Instant) -> list[str]:
    """One line per change action, as the dialog lists them."""
    lines = []
    for action in change_actions(old, new, at):
        if isinstance(action, DeployAction):
            verb = "deploy" if any(d.dag_id == action.dag.dag_id for d in old.dags) else "add"
            lines.append(f"{verb} {action.dag.dag_id} (its new file, parsed at once: DEP-1)")
        elif isinstance(action, RemoveDagAction):
            lines.append(f"remove {action.dag_id} (stale at the next bundle refresh: DEP-6)")
        elif isinstance(action, SetOptionAction):
            lines.append(f"set [{action.section}] {action.key} = {action.value} (DEP-7)")
    return lines


def apply_deploy_change(document: ScenarioDocument, saved: Scenario, at: Instant) -> bool:
    """Replace the document by ``saved`` + its edits deployed at ``at`` (one undo step)."""
    combined = deploy_change(saved, document.scenario, at)
    return edit(document, combined, f"Deploy change at {at.text}")


class DeployChangeDialog(QDialog):
    """Asks for the instant and lists what will be deployed then."""

    def __init__(
        self, document: ScenarioDocument, default_at: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Deploy This Change At…")
        self.document = document
        self.saved: Scenario | None = None
        self.problem = ""
        path: Path | None = document.path
        if path is None:
            self.problem = "Save the scenario first: its saved version is what runs before."
        else:
            try:
                self.saved = load_scenario(path)
            except ScenarioError as exc:
                self.problem = f"The saved file cannot be read: {exc.message}"
        self.at_edit = QLineEdit(default_at)
        self.at_edit.setToolTip("ISO-8601 instant with an offset, e.g. 2024-06-04T12:00:00Z")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The saved version runs until this instant, then the edits ship:"))
        layout.addWidget(self.at_edit)
        layout.addWidget(self.summary)
        layout.addWidget(self.buttons)
        self.at_edit.textChanged.connect(self._update)
        self._update()

    def instant(self) -> Instant | None:
        try:
            return Instant.parse(self.at_edit.text().strip())
        except (ScenarioError, ValueError):
            return None

    def _update(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if self.saved is None:
            self.summary.setText(self.problem)
            ok.setEnabled(False)
            return
        at = self.instant()
        if at is None:
            self.summary.setText("Not an instant: write e.g. 2024-06-04T12:00:00Z")
            ok.setEnabled(False)
            return
        lines = describe_change(self.saved, self.document.scenario, at)
        self.summary.setText(
            "\n".join(f"• {line}" for line in lines) if lines else "No edits since the save."
        )
        ok.setEnabled(bool(lines))

    def _accept(self) -> None:
        at = self.instant()
        if self.saved is not None and at is not None:
            apply_deploy_change(self.document, self.saved, at)
        self.accept()
