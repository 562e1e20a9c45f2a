"""The scheduler settings that shape the record, apart from the simulation that reads them.

Its own module so that the parts of the engine (backfills, the asset rules, the
loop) can name the settings without importing :mod:`explorer.engine.simulation`
(adr/0011-engine-parts.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

__all__ = ["SchedulerConfig"]


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """The scheduler settings that shape the record (Airflow's defaults)."""

    loop_interval: timedelta = timedelta(seconds=1)
    parse_interval: timedelta | None = timedelta(seconds=30)
    #: ``[scheduler] max_dagruns_to_create_per_loop`` (SCH-2).
    max_dagruns_to_create_per_loop: int = 10
    #: ``[scheduler] max_dagruns_per_loop_to_schedule``: queued runs promoted per loop.
    max_dagruns_per_loop_to_schedule: int = 20
