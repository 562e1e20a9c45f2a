"""The form of a selected connection: what it means in Airflow's terms, and its actions."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from explorer.document import edits
from explorer.document.nodes import EdgeView
from explorer.scenario import Scenario
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form

__all__ = ["EdgeForm"]


class EdgeForm(Form):
    title_text = "Connection"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("edgeForm")
        self.edge: EdgeView | None = None
        self.meaning = QLabel()
        self.meaning.setWordWrap(True)
        self.outer.addWidget(self.meaning)
        self.delete = QPushButton("Delete connection")
        self.delete.setToolTip("Remove this outlet or condition input (Delete)")
        self.delete.clicked.connect(self._delete)
        self.outer.addWidget(self.delete)
        self.outer.addStretch(1)

    def bind_edge(self, edge: EdgeView) -> None:
        self.edge = edge
        self.bind(f"{edge.source}->{edge.target}")

    def refresh(self, scenario: Scenario) -> None:
        e = self.edge
        if e is None:
            return
        src, dst = edits.parse_node(e.source), edits.parse_node(e.target)
        texts = {
            "outlet": f"Task {e.task_id} of DAG {src.name} has {dst.name} in its outlets: each "
            "success emits an asset event.",
            "input": f"{src.name} is an input of "
            f"{dst.name if dst.kind == 'dag' else 'a gate of ' + dst.name}'s schedule.",
            "emits": f"Through alias {src.name}, the writing task adds {dst.name} (alias_events).",
            "resolves": f"Asset.ref resolves to {src.name} (AS-10).",
        }
        self.title.setText("Outlet" if e.kind == "outlet" else "Condition input")
        self.meaning.setText(texts.get(e.kind, ""))
        self.delete.setEnabled(e.kind in ("outlet", "input"))

    def _delete(self) -> None:
        if self.edge is None:
            return
        s, ref = self.document.scenario, self.edge.ref()
        self.push(lambda: edits.remove(s, edges=[ref]), "Delete connection")
