"""Forms for an ``AssetAlias`` and an ``Asset.ref``: their name (or uri) and what uses them.

An alias is named wherever it is used (task outlets, conditions, alias
events), so renaming it rewrites every use. An ``Asset.ref`` is resolved by
name or by uri at parse time (AS-10); the form says which assets it matches
now, since a ref that matches nothing never fires.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from explorer.document import edits
from explorer.graph import alias_node, ref_node
from explorer.scenario import Scenario
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form
from explorer.ui.inspector.fields import ValidatedLine

__all__ = ["AliasForm", "RefForm"]


def _neighbours(scenario: Scenario, node: str) -> tuple[list[str], list[str]]:
    from explorer.document.nodes import layout_graph

    graph = layout_graph(scenario)
    if node not in graph:
        return [], []
    before = [edits.parse_node(p).name for p in graph.predecessors(node)]
    after = [edits.parse_node(s).name for s in graph.successors(node)]
    return before, after


class AliasForm(Form):
    title_text = "AssetAlias"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("aliasForm")
        self.name = ValidatedLine(
            lambda t: None if t.strip() else "an alias needs a name",
            tooltip="AssetAlias name",
        )
        self.name.edit.setObjectName("alias_name")
        self.name.committed.connect(self._rename)
        self.add_row("name", self.name)
        self.usage = QLabel()
        self.usage.setWordWrap(True)
        self.usage.setToolTip("Tasks writing through the alias, and what waits on it")
        self.add_row("used by", self.usage)
        self.outer.addStretch(1)

    def refresh(self, scenario: Scenario) -> None:
        name = edits.parse_node(self.target).name
        self.title.setText(f"AssetAlias {name}")
        self.subtitle.setText(
            "Tasks write through an alias and add the real assets at run time (alias_events); "
            "DAGs scheduled on it run on the events added through it (AS-9)."
        )
        self.name.set_value(name)
        before, after = _neighbours(scenario, self.target)
        if not before and not after:
            self.usage.setText(
                "not used yet: connect a task's outlet port to it, or its port into a DAG"
            )
        else:
            self.usage.setText(
                f"written by {', '.join(before) or 'no task'}; "
                f"feeds {', '.join(after) or 'nothing'}"
            )

    def _rename(self, text: str) -> None:
        old = edits.parse_node(self.target).name
        s = self.document.scenario
        if self.push(
            lambda: edits.rename_alias(s, old, text.strip()),
            f"Rename alias {old} to {text.strip()}",
            on_error=self.name.set_error,
        ):
            self.set_target(alias_node(text.strip()))


class RefForm(Form):
    title_text = "Asset.ref"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("refForm")
        self.by = QComboBox()
        self.by.addItems(["name", "uri"])
        self.by.setToolTip("Asset.ref(name=...) or Asset.ref(uri=...)")
        self.value: ValidatedLine = ValidatedLine(
            lambda t: None if t.strip() else "Asset.ref needs a non-empty value",
            tooltip="The name or uri the reference resolves",
        )
        self.value.committed.connect(self._commit)
        self.by.currentTextChanged.connect(lambda _t: self._commit(self.value.value()))
        self.add_row("by", self.by)
        self.add_row("value", self.value)
        self.matches = QLabel()
        self.matches.setWordWrap(True)
        self.matches.setToolTip("The assets this reference resolves to now")
        self.add_row("resolves to", self.matches)
        self.outer.addStretch(1)
        self._loading = False

    def refresh(self, scenario: Scenario) -> None:
        ref = edits.parse_node(self.target)
        self._loading = True
        try:
            self.title.setText(f"Asset.ref({ref.by}={ref.name!r})")
            self.by.setCurrentText(ref.by)
            self.value.set_value(ref.name)
        finally:
            self._loading = False
        before, _after = _neighbours(scenario, self.target)
        self.matches.setText(
            ", ".join(before)
            if before
            else "no asset of the scenario: this reference never fires (AS-10)"
        )

    def _commit(self, text: str) -> None:
        if self._loading or not text.strip():
            return
        by, value = self.by.currentText(), text.strip()
        s, node = self.document.scenario, self.target
        if self.push(
            lambda: edits.rename_ref(s, node, by, value),
            f"Point Asset.ref at {by}={value}",
            on_error=self.value.set_error,
        ):
            self.set_target(ref_node(**{by: value}))
