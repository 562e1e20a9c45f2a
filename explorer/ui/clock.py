"""The clock bar: step, step back, play, run to an instant, scrub, reset.

Every control moves the *engine* through :class:`~explorer.ui.session.SimulationSession`
(never a cursor over a precomputed record). Play/pause runs on a
:class:`Ticker`; the default wraps a ``QTimer``, tests and benchmarks inject
:class:`ManualTicker` and call :meth:`ManualTicker.fire` — no test sleeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.timeline.timebase import fmt_local, fmt_span, fmt_utc, zone_of
from explorer.engine.tz import make_aware
from explorer.scenario.values import parse_duration

if TYPE_CHECKING:
    from collections.abc import Callable

    from explorer.ui.session import SimulationSession

__all__ = [
    "SPEEDS",
    "ClockControls",
    "ManualTicker",
    "QtTicker",
    "Speed",
    "Ticker",
    "parse_instant_in",
    "parse_step",
]


class Ticker(Protocol):
    """Something that calls ``callback`` every ``interval_ms`` while started."""

    def start(self, interval_ms: int, callback: Callable[[], None]) -> None: ...

    def stop(self) -> None: ...

    @property
    def active(self) -> bool: ...


class QtTicker:
    """The real ticker: a ``QTimer``."""

    def __init__(self) -> None:
        self._timer = QtCore.QTimer()
        self._callback: Callable[[], None] | None = None
        self._timer.timeout.connect(self._fire)

    def _fire(self) -> None:
        if self._callback is not None:
            self._callback()

    def start(self, interval_ms: int, callback: Callable[[], None]) -> None:
        self._callback = callback
        self._timer.start(interval_ms)

    def stop(self) -> None:
        self._timer.stop()

    @property
    def active(self) -> bool:
        return self._timer.isActive()


class ManualTicker:
    """A ticker that ticks only when told (:meth:`fire`): for tests and benchmarks."""

    def __init__(self) -> None:
        self.interval_ms = 0
        self._callback: Callable[[], None] | None = None
        self._active = False

    def start(self, interval_ms: int, callback: Callable[[], None]) -> None:
        self.interval_ms = interval_ms
        self._callback = callback
        self._active = True

    def stop(self) -> None:
        self._active = False

    @property
    def active(self) -> bool:
        return self._active

    def fire(self, times: int = 1) -> None:
        for _ in range(times):
            if self._active and self._callback is not None:
                self._callback()


@dataclass(frozen=True, slots=True)
class Speed:
    """How far one play tick moves the clock: the next event (``step`` None) or a duration."""

    label: str
    step: timedelta | None
    interval_ms: int


SPEEDS = (
    Speed("event by event", None, 600),
    Speed("1 min per tick", timedelta(minutes=1), 100),
    Speed("15 min per tick", timedelta(minutes=15), 100),
    Speed("1 h per tick", timedelta(hours=1), 100),
    Speed("6 h per tick", timedelta(hours=6), 150),
    Speed("1 day per tick", timedelta(days=1), 250),
)

_SHORT = re.compile(r"^\s*(-)?\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d|day|days|w)\s*$", re.I)
_UNITS = {
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "hr": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "w": 604800,
}


def parse_step(text: str) -> timedelta:
    """``15m``, ``1h``, ``2d``, ``-1h`` or ISO ``PT6H`` (``-PT6H`` steps back)."""
    match = _SHORT.match(text)
    if match:
        sign = -1 if match.group(1) else 1
        return timedelta(seconds=sign * float(match.group(2)) * _UNITS[match.group(3).lower()])
    text = text.strip()
    if text.startswith("-"):
        return -parse_duration(text[1:])
    return parse_duration(text)


def parse_instant_in(text: str, zone_name: str) -> datetime:
    """An ISO instant; without an offset it is a wall time in ``zone_name`` (the display zone).

    A wall time that DST skips or repeats resolves as Airflow resolves it
    (``make_aware``: forward through a gap, the later of two readings).
    """
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        return make_aware(value, zone_of(zone_name))
    return value


class ClockControls(QtWidgets.QWidget):
    """The clock bar. Bind it to a session; it refreshes itself on the session's signals."""

    def __init__(
        self,
        session: SimulationSession,
        *,
        ticker: Ticker | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.ticker: Ticker = ticker or QtTicker()
        self.zone_name = "UTC"
        self._build()
        session.changed.connect(self.refresh)
        session.busy_changed.connect(self._busy)
        session.progress.connect(lambda f: self.progress.setValue(int(f * 1000)))
        self.refresh()

    # ------------------------------------------------------------------ widgets
    def _button(self, text: str, tip: str, slot: Callable[[], object]) -> QtWidgets.QToolButton:
        button = QtWidgets.QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.clicked.connect(lambda: slot())
        return button

    def _build(self) -> None:
        self.reset_button = self._button("|◀ Reset", "Back to clock.start (R)", self.session.reset)
        self.back_button = self._button(
            "◀ Back", "Undo the last clock move, through a checkpoint (B)", self.session.step_back
        )
        self.next_button = self._button(
            "Next event ▶|",
            "Step to the next instant at which anything happens (N)",
            self.step_next,
        )
        self.play_button = self._button("▶ Play", "Play / pause (Space)", self.toggle_play)
        self.play_button.setCheckable(True)
        self.speed_box = QtWidgets.QComboBox()
        self.speed_box.addItems([s.label for s in SPEEDS])
        self.speed_box.setToolTip("How far each play tick moves the clock")
        self.speed_box.currentIndexChanged.connect(self._speed_changed)
        self.step_box = QtWidgets.QComboBox()
        self.step_box.setEditable(True)
        self.step_box.addItems(["1h", "15m", "6h", "1d", "-1h", "PT30M"])
        self.step_box.setToolTip("Step by a duration: 15m, 1h, 2d, -1h or ISO PT6H")
        self.step_box.setMinimumContentsLength(6)
        self.step_button = self._button(
            "Step by", "Move the clock by this duration", self.step_by_text
        )
        self.run_to_edit = QtWidgets.QLineEdit()
        self.run_to_edit.setPlaceholderText("run to: 2024-03-11 06:00 (display zone) or …Z")
        self.run_to_edit.setMinimumWidth(130)  # the bar shares its row with the explain dock
        self.run_to_edit.returnPressed.connect(self.run_to_text)
        self.run_to_button = self._button(
            "Run to", "Run the engine up to this instant", self.run_to_text
        )
        self.scrub = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.scrub.setRange(0, 1000)
        self.scrub.setToolTip("Scrub the clock across the horizon (release to move)")
        self.scrub.sliderMoved.connect(self._scrub_preview)
        self.scrub.sliderReleased.connect(self._scrub_release)
        self.clock_label = QtWidgets.QLabel()
        self.clock_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.next_label = QtWidgets.QLabel()
        self.next_label.setStyleSheet("color: #555")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("simulating… %p%")
        # never narrower than its text: squeezed by the buttons at 1280 px it read
        # "simulating… 4"; it sits on the second row, beside the scrub bar
        # that gives way
        need = self.progress.fontMetrics().horizontalAdvance("simulating… 100%") + 36
        self.progress.setMinimumWidth(need)
        self.progress.setMaximumWidth(max(180, need))
        self.cancel_button = self._button(
            "Cancel", "Stop the long run where it got to", self.session.cancel
        )
        self.progress.hide()
        self.cancel_button.hide()

        row1 = QtWidgets.QHBoxLayout()
        for w in (
            self.reset_button,
            self.back_button,
            self.next_button,
            self.play_button,
            self.speed_box,
            self.step_box,
            self.step_button,
            self.run_to_edit,
            self.run_to_button,
        ):
            row1.addWidget(w)
        row1.addStretch(1)
        row2 = QtWidgets.QHBoxLayout()
        row2.addWidget(self.clock_label)
        row2.addWidget(self.scrub, 1)
        row2.addWidget(self.next_label)
        row2.addWidget(self.progress)
        row2.addWidget(self.cancel_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(row1)
        layout.addLayout(row2)

    def install_shortcuts(self, window: QtWidgets.QWidget) -> None:
        """N next event, B back, Space play/pause, R reset (window-wide)."""
        for key, slot in (
            ("N", self.step_next),
            ("B", self.session.step_back),
            ("Space", self.toggle_play),
            ("R", self.session.reset),
        ):
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(key), window)
            shortcut.activated.connect(slot)

    # ------------------------------------------------------------------ actions
    def set_display_zone(self, name: str) -> None:
        self.zone_name = name
        self.refresh()

    def step_next(self) -> None:
        self.session.step_next()

    def step_by_text(self) -> None:
        try:
            delta = parse_step(self.step_box.currentText())
        except ValueError as exc:
            self.session.message.emit(str(exc))
            return
        self.session.step_by(delta)

    def run_to_text(self) -> None:
        text = self.run_to_edit.text()
        try:
            instant = parse_instant_in(text, self.zone_name)
        except ValueError:
            self.session.message.emit(f"not an instant: {text!r} (e.g. {self._example()})")
            return
        self.session.run_to(instant)

    def _example(self) -> str:
        """An instant of this scenario, as the run-to box reads it (its clock.until)."""
        return f"{self.session.until.astimezone(zone_of(self.zone_name)):%Y-%m-%d %H:%M}"

    @property
    def speed(self) -> Speed:
        return SPEEDS[self.speed_box.currentIndex()]

    @property
    def playing(self) -> bool:
        return self.ticker.active

    def play(self) -> None:
        self.ticker.start(self.speed.interval_ms, self.tick)
        self._show_playing(True)

    def pause(self) -> None:
        self.ticker.stop()
        self._show_playing(False)

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def tick(self) -> None:
        """One play tick: the next event, or the speed's duration; stops at the horizon."""
        session = self.session
        if session.busy:
            return
        if session.now >= session.until:
            self.pause()
            return
        step = self.speed.step
        if step is None:
            t = session.next_event_time()
            if t is None or t > session.until:
                session.run_to(session.until)
                self.pause()
                return
            session.step_next()
        else:
            session.run_to(min(session.now + step, session.until))

    # ------------------------------------------------------------------ display
    def refresh(self) -> None:
        session = self.session
        zone = zone_of(self.zone_name)
        now = session.now
        self.clock_label.setText(
            f"<b>{fmt_local(now, zone, seconds=True)}</b> · {fmt_utc(now, seconds=True)}"
        )
        nxt = session.next_event_time()
        self.next_label.setText(
            "nothing else happens"
            if nxt is None
            else f"next event in {fmt_span(nxt - now)}"
            if nxt > now
            else "next event now"
        )
        span = (session.until - session.start).total_seconds() or 1.0
        position = int(1000 * (now - session.start).total_seconds() / span)
        if not self.scrub.isSliderDown():
            self.scrub.blockSignals(True)
            self.scrub.setValue(max(0, min(1000, position)))
            self.scrub.blockSignals(False)
        self.back_button.setEnabled(now > session.start)
        self.run_to_edit.setPlaceholderText(f"run to: {self._example()} (display zone) or …Z")

    def _instant_of(self, value: int) -> datetime:
        session = self.session
        return session.start + (session.until - session.start) * (value / 1000)

    def _scrub_preview(self, value: int) -> None:
        instant = self._instant_of(value)
        self.scrub.setToolTip(f"{fmt_local(instant, zone_of(self.zone_name))} · {fmt_utc(instant)}")

    def _scrub_release(self) -> None:
        self.session.scrub_to(self._instant_of(self.scrub.value()))

    def _speed_changed(self) -> None:
        if self.playing:
            self.play()  # restart at the new interval

    def _show_playing(self, on: bool) -> None:
        self.play_button.blockSignals(True)
        self.play_button.setChecked(on)
        self.play_button.setText("‖ Pause" if on else "▶ Play")
        self.play_button.blockSignals(False)

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setValue(0)
        for w in (self.next_button, self.back_button, self.reset_button):
            w.setEnabled(not busy)
