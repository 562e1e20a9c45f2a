"""The open scenario: an immutable model, its undo stack, its file and its clean state.

Orange's ``SchemeEditWidget`` owns a mutable scheme; here the model is a
frozen :class:`~explorer.scenario.model.Scenario` and an edit *replaces* it
(``dataclasses.replace``). :class:`ScenarioDocument` is the one place that
holds the current value. Only commands on its undo stack replace it
(:meth:`ScenarioDocument._replace`), so what the canvas shows, what Save
writes and what autosave copies are always exactly what undo sees.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from explorer.scenario import Scenario

if TYPE_CHECKING:
    from explorer.document.nodes import CanvasModel

__all__ = ["ScenarioDocument"]


class ScenarioDocument(QObject):
    """A scenario being edited: ``scenario``, ``undo_stack``, ``path`` and modified state.

    Views observe :attr:`changed` and never write the model themselves; they
    push commands (:mod:`explorer.ui.commands`).
    """

    #: The new scenario, after any command's redo or undo.
    changed = Signal(object)
    #: The file the document is saved to changed (``Path`` or ``None``).
    pathChanged = Signal(object)
    #: True when the document differs from its file.
    modifiedChanged = Signal(bool)

    def __init__(
        self, scenario: Scenario, path: Path | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self._path = path
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        #: (engine inputs, simulation) built off the GUI thread when the file was opened
        #: (``workers.OpenJob``); the simulation panes take them instead of building again.
        self.prepared: tuple[object, object] | None = None
        #: (canvas model, positions) made with them: the scene's first sync takes them.
        self.prepared_canvas: tuple[CanvasModel, dict[str, tuple[float, float]]] | None = None
        #: A new, never-saved document is not "modified" until edited, but has no file.

    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def path(self) -> Path | None:
        return self._path

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def push(self, command: QUndoCommand) -> None:
        """Run ``command`` (its ``redo``) and keep it for undo."""
        self.undo_stack.push(command)

    def mark_saved(self, path: Path) -> None:
        """The scenario as it is now was written to ``path``."""
        if path != self._path:
            self._path = path
            self.pathChanged.emit(path)
        self.undo_stack.setClean()

    def _replace(self, scenario: Scenario) -> None:
        """Make ``scenario`` current. Called by commands only (their redo and undo)."""
        if scenario is self._scenario:
            return
        self._scenario = scenario
        self.changed.emit(scenario)

    def _on_clean_changed(self, clean: bool) -> None:
        self.modifiedChanged.emit(not clean)
