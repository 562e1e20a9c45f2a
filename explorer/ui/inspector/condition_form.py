"""The condition form: a consumer's AND/OR tree, edited where the canvas is awkward.

Selecting a gate shows its DAG's whole condition as a tree, Airflow's asset
expression (``orders AND (clicks OR sessions)``), with the selected gate
current. From here a user turns a gate into an AND or an OR, groups a part
into a new nested gate, removes a part, or adds an asset as an input of a
gate. Each is one command; the canvas follows through the document.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QRadioButton,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from explorer.document import conditions, edits, schedule_kinds
from explorer.graph import gate_node
from explorer.scenario import Dag, Scenario
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form

__all__ = ["ConditionForm"]

_ROLE = Qt.ItemDataRole.UserRole


class ConditionForm(Form):
    title_text = "Condition"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("conditionForm")
        ops = QWidget()
        row = QHBoxLayout(ops)
        row.setContentsMargins(0, 0, 0, 0)
        self.and_button = QRadioButton("AND (all)")
        self.and_button.setObjectName("gateAnd")
        self.and_button.setToolTip("all: the consumer runs once every input has updated")
        self.or_button = QRadioButton("OR (any)")
        self.or_button.setObjectName("gateOr")
        self.or_button.setToolTip("any: the consumer runs when any input updates")
        self.group = QButtonGroup(self)
        self.group.addButton(self.and_button)
        self.group.addButton(self.or_button)
        row.addWidget(self.and_button)
        row.addWidget(self.or_button)
        self.add_row("gate", ops)
        self.and_button.toggled.connect(lambda on: self._set_op("all") if on else None)
        self.or_button.toggled.connect(lambda on: self._set_op("any") if on else None)
        self.tree = QTreeWidget()
        self.tree.setObjectName("conditionTree")
        self.tree.setHeaderHidden(True)
        self.tree.setToolTip("The DAG's condition; select a part to group or remove it")
        self.tree.setMinimumHeight(140)
        self.outer.addWidget(self.tree)
        buttons = QWidget()
        brow = QHBoxLayout(buttons)
        brow.setContentsMargins(0, 0, 0, 0)
        self.wrap_and = QPushButton("Group in AND")
        self.wrap_and.setToolTip("Put the selected part in a new nested AND gate")
        self.wrap_or = QPushButton("Group in OR")
        self.wrap_or.setToolTip("Put the selected part in a new nested OR gate")
        self.remove = QPushButton("Remove")
        self.remove.setToolTip("Remove the selected part from the condition")
        for b in (self.wrap_and, self.wrap_or, self.remove):
            brow.addWidget(b)
        self.outer.addWidget(buttons)
        self.wrap_and.clicked.connect(lambda: self._wrap("all"))
        self.wrap_or.clicked.connect(lambda: self._wrap("any"))
        self.remove.clicked.connect(self._remove)
        adder = QWidget()
        arow = QHBoxLayout(adder)
        arow.setContentsMargins(0, 0, 0, 0)
        self.asset_choice = QComboBox()
        self.asset_choice.setObjectName("inputChoice")
        self.asset_choice.setToolTip("An asset or alias to add as an input of the selected gate")
        self.add_input = QPushButton("Add input")
        self.add_input.setObjectName("addInput")
        self.add_input.setToolTip("Add the chosen asset to the selected gate")
        self.add_input.clicked.connect(self._add_input)
        arow.addWidget(self.asset_choice, 1)
        arow.addWidget(self.add_input)
        self.outer.addWidget(adder)
        self.outer.addStretch(1)
        self._loading = False

    def _ref(self) -> edits.NodeRef:
        return edits.parse_node(self.target)

    def _dag(self, scenario: Scenario) -> Dag | None:
        return next((d for d in scenario.dags if d.dag_id == self._ref().name), None)

    def refresh(self, scenario: Scenario) -> None:
        dag = self._dag(scenario)
        if dag is None:
            return
        part = conditions.part_at(dag.schedule, self._ref().operands)
        self._loading = True
        try:
            self.title.setText(f"Condition of {dag.dag_id}")
            self.subtitle.setText(schedule_kinds.condition_text(dag.schedule))
            if isinstance(part, conditions.Gate):
                (self.and_button if part.kind == "all" else self.or_button).setChecked(True)
            self._fill_tree(dag)
            self.asset_choice.clear()
            for name in sorted(edits.asset_names(scenario)):
                self.asset_choice.addItem(name, f"asset:{name}")
            for name in sorted(edits.alias_names(scenario)):
                self.asset_choice.addItem(f"alias {name}", f"alias:{name}")
        finally:
            self._loading = False

    def _fill_tree(self, dag: Dag) -> None:
        self.tree.clear()
        root = conditions.tree(dag.schedule)
        if root is None:
            return
        current = self._ref().operands

        def add(node: conditions.Gate | conditions.Leaf, parent: QTreeWidgetItem | None) -> None:
            if isinstance(node, conditions.Gate):
                label = "AND (all)" if node.kind == "all" else "OR (any)"
            else:
                label = schedule_kinds.leaf_label(node.node)
            item = QTreeWidgetItem([label])
            item.setData(0, _ROLE, list(node.operands))
            item.setToolTip(0, label)
            if parent is None:
                self.tree.addTopLevelItem(item)
            else:
                parent.addChild(item)
            if node.operands == current:
                self.tree.setCurrentItem(item)
            if isinstance(node, conditions.Gate):
                for child in node.children:
                    add(child, item)

        add(root, None)
        self.tree.expandAll()

    def _selected(self) -> tuple[int, ...]:
        item = self.tree.currentItem()
        if item is None:
            return self._ref().operands
        return tuple(item.data(0, _ROLE))

    # ----------------------------------------------------------------- commands
    def _set_op(self, op: str) -> None:
        if self._loading:
            return
        s, gate = self.document.scenario, self.target
        word = "AND" if op == "all" else "OR"
        self.push(lambda: edits.set_gate_op(s, gate, op), f"Make gate {word}")

    def _wrap(self, op: str) -> None:
        s, dag_id, operands = self.document.scenario, self._ref().name, self._selected()
        word = "AND" if op == "all" else "OR"
        if self.push(
            lambda: edits.wrap_in_gate(s, dag_id, operands, op), f"Group in {word} ({dag_id})"
        ):
            self.set_target(gate_node(dag_id, operands))
            self.refresh(self.document.scenario)

    def _remove(self) -> None:
        s, dag_id, operands = self.document.scenario, self._ref().name, self._selected()
        edge = edits.EdgeRef("", f"dag:{dag_id}", None, operands)
        self.push(lambda: edits.remove(s, edges=[edge]), f"Remove part of {dag_id}'s condition")

    def _add_input(self) -> None:
        node = self.asset_choice.currentData()
        if not node:
            return
        dag = self._dag(self.document.scenario)
        if dag is None:
            return
        operands = self._selected()
        part = conditions.part_at(dag.schedule, operands)
        target = (
            gate_node(dag.dag_id, operands) if isinstance(part, conditions.Gate) else self.target
        )
        s = self.document.scenario
        self.push(
            lambda: edits.connect(s, str(node), target),
            f"Add {edits.parse_node(str(node)).name} to {dag.dag_id}'s condition",
        )
