"""What every inspector form shares: its document, its target, and one way to push an edit.

A form shows one item (a DAG, an asset, a gate...) of the document's current
scenario and is refreshed whenever the document changes (undo included), so
it never holds a stale copy. It edits only by pushing commands, through
:meth:`Form.push`, which turns an :class:`~explorer.document.edits.EditError` into
a message next to the field instead of an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from explorer.document import edits
from explorer.scenario import Scenario
from explorer.ui.commands import edit
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.fields import MessageLabel, section_title

__all__ = ["Form"]


class Form(QWidget):
    """Base of the per-kind forms; subclasses fill :attr:`form` and implement :meth:`refresh`."""

    title_text = ""
    #: The item this form shows has a new id (a rename): select it on the canvas.
    retarget = Signal(str)

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.target = ""
        self.title = section_title(self.title_text)
        self.subtitle = QLabel()
        self.subtitle.setTextFormat(Qt.TextFormat.PlainText)  # names from the file
        self.subtitle.setWordWrap(True)
        self.message = MessageLabel()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        outer.addWidget(self.title)
        outer.addWidget(self.subtitle)
        outer.addWidget(self.message)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        outer.addLayout(self.form)
        self.outer = outer

    def bind(self, target: str) -> None:
        self.target = target
        self.message.clear_message()
        self.refresh(self.document.scenario)

    def refresh(self, scenario: Scenario) -> None:
        raise NotImplementedError

    def set_target(self, target: str) -> None:
        """After a rename: follow the item to its new id."""
        if target != self.target:
            self.target = target
            self.retarget.emit(target)

    def push(
        self,
        make: Callable[[], Scenario],
        text: str,
        *,
        merge_key: Hashable | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> bool:
        """Run a pure edit and push it; a refusal is shown (``on_error`` or the form's line)."""
        try:
            after = make()
        except edits.EditError as exc:
            (on_error or self.message.show_error)(str(exc))
            return False
        return edit(self.document, after, text, merge_key=merge_key)

    def add_row(self, label: str, widget: QWidget, tip: str = "") -> QWidget:
        if tip and not widget.toolTip():
            widget.setToolTip(tip)
        self.form.addRow(label, widget)
        return widget
