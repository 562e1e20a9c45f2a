"""Inspector field widgets: a line edit that validates as the user types, and a message line.

A :class:`ValidatedLine` asks its validator on every keystroke and shows
the answer below the field (the engine's message, word for word) with the
field marked invalid; it commits only a valid value, on Enter or when focus
leaves, through :attr:`ValidatedLine.committed`. An invalid value is refused
in place: it stays in the field, marked, and nothing is pushed. Escape puts
the model's value back. :meth:`ValidatedLine.set_value` writes the model's
value without echoing it back as an edit (napari's habit).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QVBoxLayout, QWidget

from explorer.scenario.values import parse_duration, parse_instant

__all__ = [
    "MessageLabel",
    "ValidatedLine",
    "check_duration",
    "check_instant",
    "instant_problem",
    "section_title",
]


def instant_problem(text: str, *, optional: bool) -> str | None:
    """Why ``text`` is not an ISO-8601 instant with an offset or Z (the parser's message);
    blank is fine when ``optional``."""
    if optional and not text.strip():
        return None
    try:
        parse_instant(text.strip())
    except ValueError as exc:
        return str(exc)
    return None


def check_instant(text: str) -> str | None:
    """An optional instant (``start_date``, ``end_date``): blank, or a valid instant."""
    return instant_problem(text, optional=True)


def check_duration(text: str) -> str | None:
    try:
        parse_duration(text.strip())
    except ValueError as exc:
        return str(exc)
    return None


#: text -> None when valid, else the message to show.
Validator = Callable[[str], str | None]


class MessageLabel(QLabel):
    """A wrapped line under a field: an error (red), a note (muted), or nothing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def show_error(self, text: str) -> None:
        self._show(text, error=True)

    def show_note(self, text: str) -> None:
        self._show(text, error=False)

    def clear_message(self) -> None:
        self.setText("")
        self.hide()

    def _show(self, text: str, *, error: bool) -> None:
        if not text:
            self.clear_message()
            return
        # the application's palette, not the label's: the label's own carries the colour of
        # the last message (a style sheet's ``color`` becomes its placeholder colour too),
        # so a hint after an error came out error-red
        palette = QApplication.palette()
        dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
        if error:
            color = "#ff8a80" if dark else "#b3261e"
        else:
            color = palette.color(QPalette.ColorRole.PlaceholderText).name()
        self.setStyleSheet(f"color: {color};")
        self.setProperty("error", error)
        self.setText(text)
        self.setToolTip(text)
        self.show()


class ValidatedLine(QWidget):
    """A line edit with live validation and a message under it."""

    committed = Signal(str)

    def __init__(
        self,
        validator: Validator | None = None,
        *,
        tooltip: str = "",
        placeholder: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.validator = validator
        self.edit = _Line(self)
        self.edit.setToolTip(tooltip)
        self.edit.setPlaceholderText(placeholder)
        self.edit.setAccessibleName(tooltip or placeholder)
        self.message = MessageLabel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.edit)
        layout.addWidget(self.message)
        self._value = ""
        #: A note shown when the text is valid (the normalized uri, a description...).
        self.note: Callable[[str], str] | None = None
        self.edit.textEdited.connect(self._on_edited)
        self.edit.editingFinished.connect(self.commit)
        self.edit.escaped.connect(self.revert)

    # ----------------------------------------------------------------- API
    def value(self) -> str:
        return self.edit.text()

    def set_value(self, text: str) -> None:
        """The model's value; the field is not marked edited and nothing is committed."""
        self._value = text
        if self.edit.text() != text:
            self.edit.blockSignals(True)
            self.edit.setText(text)
            self.edit.setCursorPosition(0)  # show the start of a long value
            self.edit.blockSignals(False)
        self._show(self.check(text), text)

    def set_error(self, message: str) -> None:
        """An error decided outside the validator (the edit was refused by the rules)."""
        self._mark(True)
        self.message.show_error(message)

    def check(self, text: str) -> str | None:
        if self.validator is None:
            return None
        return self.validator(text)

    def is_valid(self) -> bool:
        return self.check(self.edit.text()) is None

    def commit(self) -> None:
        text = self.edit.text()
        if text == self._value:
            return
        error = self.check(text)
        if error is not None:
            self._show(error, text)
            return
        self.committed.emit(text)

    def revert(self) -> None:
        self.set_value(self._value)

    # ----------------------------------------------------------------- internals
    def _on_edited(self, text: str) -> None:
        self._show(self.check(text), text)

    def _show(self, error: str | None, text: str) -> None:
        self._mark(error is not None)
        if error is not None:
            self.message.show_error(error)
        elif self.note is not None:
            self.message.show_note(self.note(text))
        else:
            self.message.clear_message()

    def _mark(self, invalid: bool) -> None:
        self.edit.setProperty("invalid", invalid)
        self.edit.setStyleSheet(
            "QLineEdit { border: 2px solid #d93025; border-radius: 3px; }" if invalid else ""
        )


class _Line(QLineEdit):
    escaped = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)


def section_title(text: str) -> QLabel:
    """A bold title; plain text, since it shows names from the file (an asset named
    ``<img src=...>`` is shown as written, never rendered)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() + 1)
    label.setFont(font)
    return label
