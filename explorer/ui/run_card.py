"""The run card: one run's facts where the eye is, in the display zone and in UTC.

A small framed panel floated over a view (the timeline shows it on hover and
pins it on click). It floats in the view's window, not inside the view, so a
short pane (a dock on a 720-pixel screen) does not cut it off. What it says
comes from :func:`explorer.engine.run_card.run_card`, so the card, a report
and a template agree on the fields. While it only follows
the mouse it lets clicks through to the view beneath; pinned, it keeps still,
offers its close button, and Esc closes it.

The template context (adr/0008) is a dozen rows more than the run's facts: shown
always, the card covered a third of a 1600x1000 timeline, the run it described
included, on a screen share. It sits behind a toggle on the pinned card, closed at
first; the choice holds for the next cards of the same view.
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.timeline.timebase import zone_of
from explorer.engine.run_card import RunCard, utc_text, wall_text

__all__ = ["RunCardView", "card_html"]

#: At most this many consumed events are listed (the count is always given).
MAX_EVENTS = 6


def card_html(card: RunCard, zone_name: str, *, context: bool = True) -> str:
    """The card's body: a table of field / ``zone_name`` / UTC, then the consumed events,
    then (``context``) what the run's task reads."""
    zone = zone_of(zone_name)
    head = (
        f"<tr><th align='left'></th><th align='left'>{html.escape(zone_name)}</th>"
        "<th align='left'>UTC</th></tr>"
    )
    body = []
    for name, local, utc in card.rows(zone):
        local_cell = html.escape(local)
        if name == "state":
            local_cell = f"<b>{local_cell}</b>"
        span = "" if utc else " colspan='2'"
        utc_cell = f"<td>{html.escape(utc)}</td>" if utc else ""
        body.append(
            f"<tr><td><b>{html.escape(name)}</b></td><td{span}>{local_cell}</td>{utc_cell}</tr>"
        )
    # the consumed events in the same columns, each with who emitted it on a line below
    for event in card.consumed[:MAX_EVENTS]:
        key = f" [{html.escape(event.partition_key)}]" if event.partition_key else ""
        body.append(
            f"<tr><td>&nbsp;#{event.id} <b>{html.escape(event.asset)}</b>{key}</td>"
            f"<td>{html.escape(wall_text(event.timestamp, zone))}</td>"
            f"<td>{utc_text(event.timestamp)}</td></tr>"
            f"<tr><td></td><td colspan='2' style='color:#555'>from "
            f"{html.escape(event.source)}</td></tr>"
        )
    more = len(card.consumed) - MAX_EVENTS
    if more > 0:
        body.append(f"<tr><td colspan='3'>&nbsp;… and {more} more</td></tr>")
    if context:
        body.extend(_context_rows(card))
    return (
        "<table cellspacing='0' cellpadding='1' style='white-space:nowrap'>"
        f"{head}{''.join(body)}</table>"
    )


def _context_rows(card: RunCard) -> list[str]:
    """What the run's task reads (adr/0008): the context values as ``{{ key }}`` renders
    them, the keys left out for a run without logical date, and the user's template."""
    if not card.context and not card.context_absent and card.template is None:
        return []
    rows = [
        "<tr><td colspan='3' style='padding-top:4px'><b>template context</b> "
        "<span style='color:#555'>(what the task reads)</span></td></tr>"
    ]
    for key, value in card.context:
        rows.append(
            f"<tr><td>&nbsp;{html.escape(key)}</td>"
            f"<td colspan='2'><code>{html.escape(value)}</code></td></tr>"
        )
    if card.context_absent:
        rows.append(
            "<tr><td>&nbsp;absent</td><td colspan='2' style='color:#b71c1c'>"
            f"{html.escape(', '.join(card.context_absent))}<br>"
            "no logical date: a template reading them fails the task</td></tr>"
        )
    if card.template is not None:
        rows.append(
            f"<tr><td>&nbsp;<b>template</b></td><td colspan='2'><code>"
            f"{html.escape(card.template)}</code></td></tr>"
        )
        if card.rendered is not None:
            rows.append(
                f"<tr><td>&nbsp;<b>rendered</b></td><td colspan='2'><code><b>"
                f"{html.escape(card.rendered)}</b></code></td></tr>"
            )
        else:
            rows.append(
                f"<tr><td>&nbsp;<b>rendered</b></td><td colspan='2' style='color:#b71c1c'>"
                f"error: {html.escape(card.render_error or '')}</td></tr>"
            )
    return rows


class RunCardView(QtWidgets.QFrame):
    """A floating card beside a point of ``host``; :meth:`show_card` fills and places it."""

    closed = QtCore.Signal()
    pinned_changed = QtCore.Signal(bool)

    def __init__(self, host: QtWidgets.QWidget) -> None:
        super().__init__(host)
        self.host = host
        host.installEventFilter(self)
        self.setObjectName("runCard")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setStyleSheet(
            "#runCard { background: #fffffb; border: 1px solid #8a8a8a; border-radius: 4px; }"
            "#runCard QLabel { color: #1a1a1a; background: transparent; }"
        )
        shadow = QtWidgets.QGraphicsDropShadowEffect(self)
        shadow.setBlurRadius(12)
        shadow.setOffset(2, 2)
        shadow.setColor(QtGui.QColor(0, 0, 0, 90))
        self.setGraphicsEffect(shadow)
        self.card: RunCard | None = None
        self.zone_name = "UTC"
        self._pinned = False
        self.title = QtWidgets.QLabel()
        self.title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.hint = QtWidgets.QLabel("click to pin")
        self.hint.setStyleSheet("color: #666")
        self.close_button = QtWidgets.QToolButton()
        self.close_button.setText("✕")
        self.close_button.setObjectName("runCardClose")
        self.close_button.setToolTip("Close the run card (Esc)")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.dismiss)
        self.show_context = False
        self.context_button = QtWidgets.QToolButton()
        self.context_button.setObjectName("runCardContext")
        self.context_button.setCheckable(True)
        self.context_button.setAutoRaise(True)
        self.context_button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.context_button.setToolTip(
            "Show or hide the template context: the values the run's tasks read "
            "(ds, ts, data_interval_start, …) and the runs table's template rendered"
        )
        self.context_button.toggled.connect(self._toggle_context)
        self.body = QtWidgets.QLabel()
        self.body.setObjectName("runCardBody")
        self.body.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.body.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        top.addWidget(self.hint)
        top.addWidget(self.close_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 6, 6)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.body)
        layout.addWidget(self.context_button, 0, QtCore.Qt.AlignmentFlag.AlignLeft)
        self._set_pinned(False)
        self.hide()

    # ----------------------------------------------------------------- API
    @property
    def pinned(self) -> bool:
        return self._pinned

    def show_card(
        self, card: RunCard, zone_name: str, anchor: QtCore.QPoint, *, pin: bool = False
    ) -> None:
        """Fill the card and place it beside ``anchor`` (``parent`` coordinates), inside it."""
        self.card = card
        self.zone_name = zone_name
        self._fill()
        self._set_pinned(pin)
        window = self.host.window()
        if self.parentWidget() is not window:
            self.setParent(window)  # (a dock may have floated the host into another window)
        self._fit_size()
        self._place(self.host.mapTo(window, anchor))
        self.show()  # a later child than the view it floats over: drawn above it

    def update_card(self, card: RunCard, zone_name: str | None = None) -> None:
        """New facts for the same place (the run changed state, the zone changed)."""
        self.card = card
        if zone_name is not None:
            self.zone_name = zone_name
        self._fill()
        self._fit_size()
        self._clamp()

    def set_zone(self, zone_name: str) -> None:
        if self.card is not None and zone_name != self.zone_name:
            self.update_card(self.card, zone_name)

    def dismiss(self) -> None:
        """Unpin and hide."""
        was = self._pinned
        self._set_pinned(False)
        self.hide()
        self.card = None
        if was:
            self.closed.emit()

    def lines(self) -> list[str]:
        """The card as plain text lines (title first), as a user reads it."""
        if self.card is None:
            return []
        doc = QtGui.QTextDocument()
        doc.setHtml(self.body.text())
        toggle = [] if self.context_button.isHidden() else [self.context_button.text()]
        return [self.title_text(), *doc.toPlainText().splitlines(), *toggle]

    def set_context_shown(self, on: bool) -> None:
        """Open or close the template context rows (what the toggle does)."""
        self.context_button.setChecked(on)

    def title_text(self) -> str:
        return "" if self.card is None else f"{self.card.dag_id} · {self.card.run_id}"

    # ----------------------------------------------------------------- internals
    def _fit_size(self) -> None:
        """As big as its text: ``adjustSize`` alone left a card (first filled with a shorter
        state) 7 px short, its last row cut in the main window."""
        self.adjustSize()
        self.resize(self.size().expandedTo(self.sizeHint()))

    def _fill(self) -> None:
        assert self.card is not None
        self.title.setText(
            f"<b>{html.escape(self.card.dag_id)}</b> · {html.escape(self.card.run_id)}"
        )
        card = self.card
        has_context = bool(card.context or card.context_absent or card.template is not None)
        shown = has_context and self.show_context and self._pinned
        self.body.setText(card_html(card, self.zone_name, context=shown))
        self.context_button.setVisible(has_context)
        self.context_button.blockSignals(True)
        self.context_button.setChecked(self.show_context)
        self.context_button.blockSignals(False)
        if not self._pinned:
            self.context_button.setText("template context: click the run to pin, then open")
        else:
            self.context_button.setText(
                "▾ hide template context" if self.show_context else "▸ template context"
            )

    def _toggle_context(self, on: bool) -> None:
        self.show_context = on
        if self.card is None:
            return
        self._fill()
        self._fit_size()
        self._clamp()

    def _set_pinned(self, on: bool) -> None:
        changed = on != self._pinned
        self._pinned = on
        # a card that only follows the mouse must not catch the clicks meant for the view
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents, not on)
        self.close_button.setVisible(on)
        self.hint.setText("pinned" if on else "click to pin")
        if changed and self.card is not None:
            self._fill()  # the context toggle works on a pinned card only
            self._fit_size()
        if changed:
            self.pinned_changed.emit(on)

    def _place(self, anchor: QtCore.QPoint) -> None:
        """Beside the pointer (right, else left), so the run under it stays in sight, and over
        the host where it fits (not over the pane next to it)."""
        parent = self.parentWidget()
        assert parent is not None
        size = self.size()
        host = QtCore.QRect(self.host.mapTo(parent, QtCore.QPoint(0, 0)), self.host.size())
        right, left = anchor.x() + 16, anchor.x() - size.width() - 16
        if right + size.width() <= host.right() or left < host.left():
            x = right if right + size.width() <= parent.width() or left < 0 else left
        else:
            x = left
        y = anchor.y() + 16
        if y + size.height() > parent.height():
            y = parent.height() - size.height()  # beside the pointer, so it may slide up
        self.move(x, y)
        self._clamp()

    def _clamp(self) -> None:
        parent = self.parentWidget()
        assert parent is not None
        x = min(max(self.x(), 0), max(parent.width() - self.width(), 0))
        y = min(max(self.y(), 0), max(parent.height() - self.height(), 0))
        self.move(x, y)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        """The card goes with its host: hidden with it, deleted with it."""
        if watched is self.host:
            kind = event.type()
            if kind in (QtCore.QEvent.Type.Hide, QtCore.QEvent.Type.ParentChange):
                self.dismiss()
        return False

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() == QtCore.Qt.Key.Key_Escape:
            self.dismiss()
            return
        super().keyPressEvent(event)
