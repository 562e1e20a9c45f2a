"""Scheduler-managed backfills (``airflow/models/backfill.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.engine import actions as act

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation


def create_backfill(sim: Simulation, action: act.Backfill) -> None:
    sim._warn(f"backfill at {action.at.isoformat()} ignored: not simulated yet")
