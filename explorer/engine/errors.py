"""The engine's refusals: each is a ``ValueError`` carrying a sentence for the user."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class ScheduleError(EngineError):
    """A schedule Airflow would refuse, or one that stops answering (cron, zone, timetable)."""


class SimulationLimitError(EngineError):
    """The scenario would create more runs than the stated limit."""
