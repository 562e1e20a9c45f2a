"""The status bar's sign that a big file is being opened, and the canvas drawn in slices.

:class:`~explorer.ui.file_ops.FileOps` reads, checks and simulates a big file off
the GUI thread (:class:`~explorer.ui.workers.OpenJob`); the indicator shows its
:attr:`~explorer.ui.file_ops.FileOps.loading` text with a busy bar, and hides
when the text is empty. Scene items can only be made on the GUI thread, so
:class:`CanvasBuild` then makes them a slice at a time (:mod:`explorer.ui.sliced`)
with the share done in the same bar, while the old document stays on screen
and usable.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.document import ScenarioDocument
from explorer.ui.sliced import SlicedRun

__all__ = ["CanvasBuild", "OpeningIndicator"]


class OpeningIndicator(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openingIndicator")
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy: reading and checking report no fraction
        self.bar.setMaximumWidth(120)
        self.bar.setTextVisible(False)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.setToolTip("Stop opening the file; the open document stays")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.hide()

    def show_text(self, text: str) -> None:
        self.bar.setRange(0, 0)
        self.label.setText(text)
        self.setVisible(bool(text))

    def show_share(self, text: str, share: float) -> None:
        """A step whose progress is known: ``share`` (0..1) fills the bar."""
        self.bar.setRange(0, 100)
        self.bar.setValue(round(share * 100))
        self.label.setText(text)
        self.setVisible(True)


class CanvasBuild(QObject):
    """The canvas of a document opened in the background, made a slice at a time.

    ``replacing`` is the document on screen meanwhile and its undo position: the
    window asks again about unsaved changes if it was edited during the build.
    """

    #: What the status bar says, and the share done.
    progress = Signal(str, float)
    #: The scene is complete: (document, scene).
    ready = Signal(object, object)

    def __init__(
        self,
        document: ScenarioDocument,
        palette: QPalette,
        replacing: ScenarioDocument | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.replacing = (replacing, replacing.undo_stack.index() if replacing else 0)
        self.scene = ScenarioScene(document, palette, build=False)
        self.run = SlicedRun(self._steps(), self)
        name = document.path.name if document.path is not None else document.scenario.name
        self._text = f"Opening {name}: drawing the canvas…"
        self.run.progress.connect(lambda share: self.progress.emit(self._text, share))
        self.run.finished.connect(lambda: self.ready.emit(self.document, self.scene))

    #: The share of the work the items take; the rest is the badges (:meth:`_badge_steps`).
    ITEMS_SHARE = 0.9

    def _steps(self) -> Iterator[float]:
        for share in self.scene.build_steps():
            yield share * self.ITEMS_SHARE
        yield from self._badge_steps()

    def _badge_steps(self) -> Iterator[float]:
        """Each DAG node's live badge at the prepared simulation's clock, a node a step.

        The simulation panes show the same badges when the document is swapped in; made
        then, 2,000 badges (each re-measuring its node and the scene's bounds) were a
        tenth of a second of the freeze at the swap. Made here, the panes find every
        badge already shown and change nothing.
        """
        prepared = self.document.prepared
        if prepared is None:
            return
        from explorer.document.panels.badges import compute_badges
        from explorer.ui.simulation_panes import badge_look

        simulation = prepared[1]
        badges = compute_badges(simulation)  # type: ignore[arg-type]  # (inputs, Simulation)
        yield self.ITEMS_SHARE
        total = max(1, len(badges))
        for done, (dag_id, badge) in enumerate(badges.items(), start=1):
            item = self.scene.nodes.get(f"dag:{dag_id}")
            if item is not None:
                item.set_live(badge_look(badge))
            yield self.ITEMS_SHARE + (1 - self.ITEMS_SHARE) * done / total
        self.scene.itemsBoundingRect()  # measured once with the badges, before the swap

    def start(self) -> None:
        self.progress.emit(self._text, 0.0)
        self.run.start()

    def cancel(self) -> None:
        self.run.cancel()
        self.scene.deleteLater()

    def replaced_was_edited(self, current: ScenarioDocument | None) -> bool:
        document, index = self.replacing
        return current is not None and (
            current is not document or current.undo_stack.index() != index
        )
