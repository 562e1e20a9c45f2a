"""Every user edit is one :class:`EditScenario` on the document's undo stack.

As in orange-canvas-core's ``document/commands.py``, a command's ``redo`` and
``undo`` are one line each: the model is immutable, so a command keeps the
scenario before and after and puts one or the other back. The *after*
value is computed once, when the command is made, by a pure function of
:mod:`explorer.document.edits`; the named subclasses below only give the edit its
words in the undo history.

A drag is one command (pushed on release), a layout is one command, and
repeated small steps of the same kind (arrow-key nudges, spin-box clicks on
one field) merge into one through ``merge_key``.
"""

from __future__ import annotations

import zlib
from collections.abc import Hashable

from PySide6.QtGui import QUndoCommand

from explorer.scenario import Scenario
from explorer.ui.document import ScenarioDocument

__all__ = ["EditScenario", "edit"]

_MERGE_ID = zlib.crc32(b"explorer.ui.commands.EditScenario") & 0x7FFFFFFF


class EditScenario(QUndoCommand):
    """Replace the document's scenario by ``after``; undo puts ``before`` back."""

    def __init__(
        self,
        document: ScenarioDocument,
        after: Scenario,
        text: str,
        *,
        merge_key: Hashable | None = None,
        before: Scenario | None = None,
    ) -> None:
        super().__init__(text)
        self.document = document
        self.before = document.scenario if before is None else before
        self.after = after
        self.merge_key = merge_key

    def redo(self) -> None:
        self.document._replace(self.after)

    def undo(self) -> None:
        self.document._replace(self.before)

    def id(self) -> int:
        return _MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, EditScenario) or other.merge_key != self.merge_key:
            return False
        self.after = other.after
        return True


def edit(
    document: ScenarioDocument,
    after: Scenario,
    text: str,
    *,
    merge_key: Hashable | None = None,
) -> bool:
    """Push an edit if it changes anything; returns whether it did.

    An edit that gives back an equal scenario (a field set to its own value,
    a drag that ends where it started) leaves no empty step in the history.
    """
    if after == document.scenario:
        return False
    document.push(EditScenario(document, after, text, merge_key=merge_key))
    return True
