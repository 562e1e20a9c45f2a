"""Scenarios already checked, so that loading then building checks once.

``explorer simulate FILE`` loads the file (schema and rules checked, each
schedule read into its timetable) and builds the engine inputs from the loaded
model, which checked the same model again: the schema on the written document,
every rule, every schedule read a second time. :func:`load_scenario` now
hands the checked result on: it remembers the model it accepted with the
schedule readings it made, and the first :func:`build_engine_inputs` of that
same object takes them instead of checking again.

An entry is keyed by the model object's identity (a frozen model never
changes; an edited one is a new object and is checked afresh), held weakly (it
dies with the model) and used once, so two builds of one model never share the
timetables a reading made.
"""

from __future__ import annotations

import threading
import weakref

from explorer.scenario.model import Scenario
from explorer.scenario.schedules import ScheduleReading

__all__ = ["remember_checked", "take_checked"]

Readings = dict[int, ScheduleReading]

_lock = threading.Lock()
_checked: dict[int, tuple[weakref.ref[Scenario], Readings]] = {}


def remember_checked(scenario: Scenario, readings: Readings) -> None:
    """``scenario`` passed every check (schema and rules); ``readings`` are its schedules."""
    key = id(scenario)

    def forget(_: weakref.ref[Scenario]) -> None:
        with _lock:
            entry = _checked.get(key)
            if entry is not None and entry[0]() is None:
                del _checked[key]

    with _lock:
        _checked[key] = (weakref.ref(scenario, forget), readings)


def take_checked(scenario: Scenario) -> Readings | None:
    """The readings of ``scenario`` if this very object passed every check and no build
    has taken them yet; None otherwise (check it)."""
    with _lock:
        entry = _checked.get(id(scenario))
        if entry is None or entry[0]() is not scenario:
            return None
        del _checked[id(scenario)]
        return entry[1]
