"""Presentation mode, for screen sharing: big type and marks, high contrast, few panes.

Entering hides everything but the canvas and the timeline (the widgets given
as ``hide``), switches the timeline to its presentation style, enlarges the
host's type and shows a caption line. The arrow keys then walk the scenario:

* → next event (the caption says what happened), ← back;
* PgDn / Shift+→ jump to the next script action (its ``x-caption`` if it has one);
* Esc or F5 leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.panels.captions import StepReport, back_caption, caption
from explorer.document.timeline.timebase import zone_of

if TYPE_CHECKING:
    from explorer.ui.session import SimulationSession
    from explorer.ui.timeline.pane import TimelinePane

__all__ = ["PresentationMode"]

_HOST_STYLE = "QWidget { font-size: 15pt; }"


class PresentationMode(QtCore.QObject):
    toggled = QtCore.Signal(bool)

    def __init__(
        self,
        session: SimulationSession,
        timeline: TimelinePane,
        *,
        host: QtWidgets.QWidget,
        caption_label: QtWidgets.QLabel,
        hide: list[QtWidgets.QWidget],
        parent: QtCore.QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.timeline = timeline
        self.host = host
        self.caption_label = caption_label
        self.hide = hide
        self.active = False
        self._hidden: list[QtWidgets.QWidget] = []
        self._style = ""
        #: Forward moves not undone yet, so a step back can say what it took away.
        self._forward: list[StepReport] = []
        caption_label.setWordWrap(True)
        caption_label.hide()
        session.stepped.connect(self._stepped)

    def toggle(self) -> None:
        self.exit() if self.active else self.enter()

    def enter(self) -> None:
        if self.active:
            return
        self.active = True
        self._hidden = [w for w in self.hide if w.isVisible() or not w.isHidden()]
        for widget in self._hidden:
            widget.hide()
        self._style = self.host.styleSheet()
        self.host.setStyleSheet(_HOST_STYLE)
        self.timeline.set_presentation(True)
        self.caption_label.setStyleSheet(
            "QLabel { font-size: 19pt; font-weight: 600; color: #000; background: #fff8d6;"
            " padding: 8px 14px; border-top: 3px solid #d99a00; }"
        )
        self.caption_label.setText("→ next event · ← back · PgDn next script action · Esc leave")
        self.caption_label.show()
        QtWidgets.QApplication.instance().installEventFilter(self)  # type: ignore[union-attr]
        self.timeline.plot.setFocus()
        self.toggled.emit(True)

    def exit(self) -> None:
        if not self.active:
            return
        self.active = False
        app = QtWidgets.QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        for widget in self._hidden:
            widget.show()
        self.host.setStyleSheet(self._style)
        self.timeline.set_presentation(False)
        self.caption_label.hide()
        self._forward = []
        self.toggled.emit(False)

    # ------------------------------------------------------------------ walking the script
    def next_event(self) -> None:
        self.session.step_next()
        self._follow()

    def previous(self) -> None:
        self.session.step_back()
        self._follow()

    def next_script_action(self) -> None:
        later = [t for t in self.session.script_instants() if t > self.session.now]
        if later:
            self.session.run_to(later[0])
        else:
            self.session.step_next()
        self._follow()

    def handle_key(self, key: int, modifiers: QtCore.Qt.KeyboardModifier) -> bool:
        k = QtCore.Qt.Key
        shift = bool(modifiers & QtCore.Qt.KeyboardModifier.ShiftModifier)
        if key == k.Key_Right and not shift:
            self.next_event()
        elif key == k.Key_PageDown or (key == k.Key_Right and shift):
            self.next_script_action()
        elif key in (k.Key_Left, k.Key_PageUp):
            self.previous()
        elif key in (k.Key_Escape, k.Key_F5):
            self.exit()
        else:
            return False
        return True

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if self.active and event.type() == QtCore.QEvent.Type.KeyPress:
            assert isinstance(event, QtGui.QKeyEvent)
            if isinstance(watched, QtWidgets.QWidget) and (
                watched is self.host or self.host.isAncestorOf(watched)
            ):
                return self.handle_key(event.key(), event.modifiers())
        return False

    def _stepped(self, report: StepReport) -> None:
        if not self.active:
            return
        if report.after < report.before:
            undone = [r for r in self._forward if r.after > report.after]
            self._forward = [r for r in self._forward if r.after <= report.after]
            text = back_caption(report, undone, zone_of(self.timeline.display_zone))
        else:
            self._forward.append(report)
            del self._forward[:-200]  # enough to walk back through a presentation
            text = caption(report, zone_of(self.timeline.display_zone))
        self.caption_label.setText(text)

    def _follow(self) -> None:
        """Keep the clock in view: recentre when it leaves the middle 80 %."""
        x0, x1 = self.timeline.x_range()
        now = self.session.now
        margin = (x1 - x0) * 0.1
        if not (x0 + margin <= now <= x1 - margin):
            self.timeline.center_on(now)
