"""The clock: stepping advances the engine itself; stepping back goes through checkpoints;
play/pause runs on an injected ticker and long runs in slices on an injected scheduler, so
no test sleeps."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from explorer.scenario import load_scenario
from explorer.ui.clock import ClockControls, ManualTicker, parse_instant_in, parse_step
from explorer.ui.session import SimulationSession

pytestmark = pytest.mark.gui

SCENARIOS = Path(__file__).parents[2] / "resources" / "scenarios"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


class Deferred:
    """The session's ``defer``: keeps callbacks until the test runs them."""

    def __init__(self) -> None:
        self.pending: list[Callable[[], None]] = []

    def __call__(self, callback: Callable[[], None]) -> None:
        self.pending.append(callback)

    def run_one(self) -> None:
        self.pending.pop(0)()


def session_of(
    name: str = "ny_dst_orders_mart.json", *, script: bool = True, **kwargs: object
) -> SimulationSession:
    scenario = load_scenario(SCENARIOS / name)
    if not script:
        scenario = dataclasses.replace(scenario, script=())
    return SimulationSession(scenario, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def controls(qtbot: QtBot) -> ClockControls:
    widget = ClockControls(session_of(), ticker=ManualTicker())
    qtbot.addWidget(widget)
    return widget


class TestStepping:
    def test_clicking_next_event_advances_the_engine(
        self, qtbot: QtBot, controls: ClockControls
    ) -> None:
        session = controls.session
        start = session.now
        with qtbot.waitSignal(session.changed, timeout=1000):
            qtbot.mouseClick(controls.next_button, QtCore.Qt.MouseButton.LeftButton)
        assert session.now == start  # the deploy at clock.start is the first event
        qtbot.mouseClick(controls.next_button, QtCore.Qt.MouseButton.LeftButton)
        assert session.now > start
        assert session.sim.runs, "the engine created runs: a real step, not a cursor"
        assert "2024" in controls.clock_label.text()

    def test_each_step_lands_on_the_next_event(self) -> None:
        session = session_of()
        seen = []
        changes: list[object] = []
        session.stepped.connect(lambda report: changes.append(report.changes))
        for _ in range(6):
            expected = session.next_event_time()
            assert expected is not None
            landed = session.step_next()
            # the next event, or a later one when the engine's next instants change nothing
            # (the scheduler's loop a second after a completion)
            assert landed is not None and landed >= expected and session.now == landed
            assert changes[-1]  # a step always lands where something changed
            seen.append(session.now)
        assert seen == sorted(seen)

    def test_step_by_and_run_to(self, qtbot: QtBot, controls: ClockControls) -> None:
        session = controls.session
        controls.step_box.setCurrentText("6h")
        controls.step_by_text()
        qtbot.waitUntil(lambda: not session.busy)  # slices end by wall time: wait, never race
        assert session.now == session.start + timedelta(hours=6)
        controls.run_to_edit.setText("2024-03-11 00:00")  # wall time in the display zone
        controls.set_display_zone("America/New_York")
        controls.run_to_text()
        qtbot.waitUntil(lambda: not session.busy)
        assert session.now == utc(2024, 3, 11, 4)
        assert [r.logical_date for r in session.sim.dags["ingest_orders"].runs][-1] == utc(
            2024, 3, 10, 5
        )

    def test_a_wall_time_dst_skips_resolves_forward(self) -> None:
        assert parse_instant_in("2024-03-10 02:30", "America/New_York") == utc(2024, 3, 10, 7, 30)
        assert parse_instant_in("2024-03-10T07:30:00Z", "America/New_York") == utc(
            2024, 3, 10, 7, 30
        )

    @pytest.mark.parametrize(
        ("text", "delta"),
        [
            ("15m", timedelta(minutes=15)),
            ("1h", timedelta(hours=1)),
            ("2d", timedelta(days=2)),
            ("-1h", -timedelta(hours=1)),
            ("PT6H", timedelta(hours=6)),
            ("-PT30M", -timedelta(minutes=30)),
        ],
    )
    def test_step_durations(self, text: str, delta: timedelta) -> None:
        assert parse_step(text) == delta


class TestGoingBack:
    def test_step_back_rewinds_through_a_checkpoint(self, monkeypatch: pytest.MonkeyPatch) -> None:
        session = session_of()
        for _ in range(8):
            session.step_next()
        before, runs_before = session.now, len(session.sim.runs)
        session.step_next()
        calls: list[datetime] = []
        original = session.sim.rewind_to

        def spy(instant: datetime, **kwargs: Any) -> None:
            calls.append(instant)
            original(instant, **kwargs)

        monkeypatch.setattr(session.sim, "rewind_to", spy)
        session.step_back()
        assert calls == [before]
        assert session.now == before
        assert len(session.sim.runs) == runs_before

    def test_run_to_an_earlier_instant_rewinds(self) -> None:
        session = session_of()
        session.run_to(utc(2024, 3, 12))
        session.run_to(utc(2024, 3, 9, 6))
        assert session.now == utc(2024, 3, 9, 6)
        assert all(r.created_at <= session.now for r in session.sim.runs)

    def test_reset_goes_back_to_clock_start_and_keeps_the_script(self) -> None:
        session = session_of()
        session.run_to(utc(2024, 3, 12))
        session.reset()
        assert session.now == session.start
        assert len(session.sim.script) >= len(session.scenario.script)

    def test_scrub_is_clamped_to_the_horizon(self) -> None:
        session = session_of()
        session.scrub_to(utc(2030, 1, 1))
        assert session.now == session.until
        session.scrub_to(utc(2000, 1, 1))
        assert session.now == session.start


class TestPlay:
    def test_play_ticks_on_the_injected_ticker(self, controls: ClockControls) -> None:
        ticker = controls.ticker
        assert isinstance(ticker, ManualTicker)
        session = controls.session
        controls.speed_box.setCurrentText("1 h per tick")
        controls.toggle_play()
        assert controls.playing and controls.play_button.text().endswith("Pause")
        ticker.fire(3)
        assert session.now == session.start + timedelta(hours=3)
        controls.toggle_play()
        ticker.fire(3)
        assert session.now == session.start + timedelta(hours=3)

    def test_event_by_event_play_stops_at_the_horizon(self, controls: ClockControls) -> None:
        ticker = controls.ticker
        assert isinstance(ticker, ManualTicker)
        controls.speed_box.setCurrentText("event by event")
        controls.play()
        ticker.fire(500)
        assert controls.session.now == controls.session.until
        assert not controls.playing


class TestLongRuns:
    def test_a_long_run_goes_in_slices_and_can_be_cancelled(self, qtbot: QtBot) -> None:
        defer = Deferred()
        session = session_of(defer=defer, chunk_ms=0.0)  # every slice is one instant
        widget = ClockControls(session, ticker=ManualTicker())
        qtbot.addWidget(widget)
        busy: list[bool] = []
        session.busy_changed.connect(busy.append)
        session.run_to(session.until)
        assert session.busy and busy == [True]
        assert defer.pending, "the rest of the run waits for the event loop"
        assert not widget.next_button.isEnabled()
        defer.run_one()
        defer.run_one()
        reached = session.now
        assert session.start <= reached < session.until
        session.cancel()
        assert not session.busy and busy == [True, False]
        assert session.now == reached
        assert widget.next_button.isEnabled()

    def test_a_long_run_finishes_when_the_loop_lets_it(self, qtbot: QtBot) -> None:
        session = session_of(chunk_ms=0.0)  # the real QTimer-based defer
        progress: list[float] = []
        session.progress.connect(progress.append)
        session.run_to(session.until)
        qtbot.waitUntil(lambda: not session.busy, timeout=10_000)
        assert session.now == session.until
        assert progress[-1] == 1.0 and len(progress) > 2


class TestActionInstant:
    def test_after_a_step_injected_actions_wait_for_the_next_loop(self) -> None:
        session = session_of()
        session.step_next()
        session.step_next()
        assert session.action_instant() == session.now + timedelta(seconds=1)

    def test_between_events_actions_take_effect_at_the_clock(self) -> None:
        session = session_of()
        session.run_to(utc(2024, 3, 9, 12, 0, 0))
        assert session.action_instant() == session.now
