"""A run's standard run_id is built when read, not when the run is created.

TT-21's ``{run_type}__{run_after}`` (plus the random tail of an asset-triggered run)
cost a formatted instant per run in the loop, which never reads it: runs are keyed by
DAG and ``nth``. These tests count the ids built while simulating (none) and check
that the record is the one runs named at creation give, CronPartition DAGs' own ids
(kept as written, TT-16) included.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from explorer.engine import lifecycle, runs
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.record import run_row
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    CronPartitionTimetable,
    CronTriggerTimetable,
)

START = datetime(2024, 3, 1, tzinfo=UTC)
ORDERS = AssetKey("orders", "s3://b/orders")


def _dags() -> list[DagSpec]:
    """A cron producer, its asset-triggered consumer, and a CronPartition DAG."""
    return [
        DagSpec(
            "producer",
            CronTriggerTimetable("*/30 * * * *", timezone="Europe/Paris"),
            start_date=START,
            tasks=(TaskSpec("t", duration=timedelta(minutes=4), outlets=(ORDERS,)),),
        ),
        DagSpec(
            "consumer",
            AssetTriggeredTimetable(AssetNode(ORDERS)),
            tasks=(TaskSpec("t", duration=timedelta(minutes=2)),),
        ),
        DagSpec(
            "partitioned",
            CronPartitionTimetable("0 * * * *", timezone="UTC"),
            start_date=START,
            tasks=(TaskSpec("t", duration=timedelta(minutes=1)),),
        ),
    ]


def _named_at_creation() -> type[DagRun]:
    """The old way: the id is built the moment the run is made. Made on demand: a
    compiled ``DagRun`` (adr/0013) takes no interpreted subclass, and this module must
    still load there."""

    class NamedAtCreation(DagRun):
        __slots__ = ()

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            _ = self.run_id

    return NamedAtCreation


def _simulate(*, eager: bool) -> tuple[list[dict[str, Any]], int, int]:
    with pytest.MonkeyPatch.context() as mp:
        built = [0]
        real = runs.standard_run_id

        def counting(*args: Any) -> str:
            built[0] += 1
            return real(*args)

        mp.setattr(runs, "standard_run_id", counting)
        mp.setattr(lifecycle, "standard_run_id", counting)
        if eager:
            mp.setattr(lifecycle, "DagRun", _named_at_creation())
        sim = Simulation(_dags(), start=START)
        sim.advance_to(START + timedelta(days=1))
        while_simulating = built[0]
        rows = [run_row(r) for r in sim.runs]
        return rows, while_simulating, built[0]


@pytest.mark.plain_only
def test_the_loop_builds_no_run_id_and_the_record_is_the_same() -> None:
    rows, while_simulating, in_all = _simulate(eager=False)
    eager_rows, eager_while_simulating, _ = _simulate(eager=True)
    assert rows == eager_rows
    kinds = {row["run_type"] for row in rows}
    assert kinds == {"scheduled", "asset_triggered"}
    assert any(row["dag_id"] == "partitioned" for row in rows)
    assert any("__" in row["run_id"].split("__", 1)[1] for row in rows)  # TT-16's own ids
    standard = sum(1 for row in rows if row["dag_id"] != "partitioned")
    assert eager_while_simulating >= standard > 50
    assert while_simulating == 0
    assert in_all <= len(rows)  # the record reads each id once at most


def test_a_run_compares_by_its_id_as_read() -> None:
    """A run named at creation equals the same run whose id is derived."""
    at = START + timedelta(hours=1)
    lazy = DagRun("d", 3, None, "asset_triggered", "asset", None, None, at, at)
    named = DagRun("d", 3, lazy.run_id, "asset_triggered", "asset", None, None, at, at)
    other = DagRun("d", 3, "manual__x", "asset_triggered", "asset", None, None, at, at)
    assert lazy == named and lazy != other
    assert lazy.run_id.startswith("asset_triggered__2024-03-01T01:00:00+00:00_")
    assert "run_id='asset_triggered__" in repr(
        DagRun("d", 3, None, "asset_triggered", "asset", None, None, at, at)
    )
