"""The inspector dock's content: the form for what is selected on the canvas.

Nothing selected shows the scenario's own settings; one DAG, asset, alias,
``Asset.ref``, gate or connection shows its form; several items show how
many and offer to delete them. The shown form is refreshed on every document
change, so undo updates the fields as it updates the canvas.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.document import edits
from explorer.document.nodes import EdgeView
from explorer.scenario import Scenario
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.alias_form import AliasForm, RefForm
from explorer.ui.inspector.asset_dag_form import AssetDagForm, asset_dag_of
from explorer.ui.inspector.asset_form import AssetForm
from explorer.ui.inspector.base import Form
from explorer.ui.inspector.condition_form import ConditionForm
from explorer.ui.inspector.dag_form import DagForm
from explorer.ui.inspector.edge_form import EdgeForm
from explorer.ui.inspector.scenario_form import ScenarioForm

__all__ = ["Inspector"]


class _Several(QWidget):
    def __init__(self, scene: ScenarioScene) -> None:
        super().__init__()
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.delete = QPushButton("Delete selected")
        self.delete.setToolTip("Delete every selected node and connection (Delete)")
        self.delete.clicked.connect(scene.delete_selection)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.delete)
        layout.addStretch(1)


class Inspector(QScrollArea):
    def __init__(self, document: ScenarioDocument, scene: ScenarioScene) -> None:
        super().__init__()
        self.setObjectName("inspector")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document = document
        self.scene = scene
        self.stack = QStackedWidget()
        self.forms: dict[str, Form] = {
            "scenario": ScenarioForm(document),
            "dag": DagForm(document),
            "asset_dag": AssetDagForm(document),
            "asset": AssetForm(document),
            "alias": AliasForm(document),
            "ref": RefForm(document),
            "gate": ConditionForm(document),
            "edge": EdgeForm(document),
        }
        for form in self.forms.values():
            self.stack.addWidget(form)
            form.retarget.connect(self._retarget)
        self.several = _Several(scene)
        self.stack.addWidget(self.several)
        self.unresolved = QLabel()
        self.unresolved.setWordWrap(True)
        self.unresolved.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.stack.addWidget(self.unresolved)
        self.setWidget(self.stack)
        self.current: Form | None = None
        scene.selectionChangedIds.connect(self.show_selection)
        document.changed.connect(self._on_changed)
        self.show_selection()

    def form(self, kind: str) -> Form:
        return self.forms[kind]

    def show_selection(self) -> None:
        nodes, edges = self.scene.selected_ids(), self.scene.selected_edges()
        selection = (tuple(nodes), tuple(map(str, edges)))
        self._show_selection(nodes, edges)
        self._fit_page()
        if selection != getattr(self, "_selection", None):
            # another thing selected: its form from the top (a short form scrolled like the
            # previous long one looked blank)
            self._selection = selection
            self.verticalScrollBar().setValue(0)

    def _fit_page(self) -> None:
        """The stack as tall as the page it shows, not as its tallest page."""
        current = self.stack.currentWidget()
        for index in range(self.stack.count()):
            page = self.stack.widget(index)
            if page is None:
                continue
            ignored = QSizePolicy.Policy.Ignored
            page.setSizePolicy(
                QSizePolicy.Policy.Preferred if page is current else ignored,
                QSizePolicy.Policy.Preferred if page is current else ignored,
            )
        self.stack.adjustSize()

    def _show_selection(self, nodes: list[str], edges: list[EdgeView]) -> None:
        count = len(nodes) + len(edges)
        if count == 0:
            self._show(self.forms["scenario"], "")
        elif count > 1:
            self.current = None
            self.several.label.setText(f"{len(nodes)} nodes and {len(edges)} connections selected.")
            self.stack.setCurrentWidget(self.several)
        elif edges:
            form = self.forms["edge"]
            assert isinstance(form, EdgeForm)
            form.bind_edge(edges[0])
            self.current = form
            self.stack.setCurrentWidget(form)
        else:
            parsed = edits.parse_node(nodes[0])
            kind = parsed.kind
            if kind == "dag" and asset_dag_of(self.document.scenario, parsed.name) is not None:
                kind = "asset_dag"  # an @asset entry: edited as written, not as a plain DAG
            item = self.scene.node_item(nodes[0])
            if item is not None and item.view.kind == "unresolved":
                self.current = None
                self.unresolved.setText(
                    f"<b>{html.escape(item.view.title)}</b><br>cannot be read: "
                    f"{html.escape(item.view.tooltip)}"
                )
                self.stack.setCurrentWidget(self.unresolved)
                return
            self._show(self.forms.get(kind, self.forms["scenario"]), nodes[0])

    def _show(self, form: Form, target: str) -> None:
        self.current = form
        form.bind(target)
        self.stack.setCurrentWidget(form)

    def _on_changed(self, scenario: Scenario) -> None:
        if self.current is not None and self.stack.currentWidget() is self.current:
            self.current.refresh(scenario)

    def _retarget(self, node_id: str) -> None:
        self.scene.select_nodes([node_id])
