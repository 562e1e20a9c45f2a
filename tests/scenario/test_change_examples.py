"""The bundled examples of changing deployments: each loaded, simulated, and doing what its
caption says to look at (DEP-1..DEP-7)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "scenarios"


def _simulate(name: str) -> Simulation:
    scenario = load_scenario(EXAMPLES / name)
    assert scenario.description and "Look at" in scenario.description
    inputs = build_engine_inputs(scenario)
    assert not inputs.unsupported and not inputs.warnings
    sim = make_simulation(inputs)
    assert inputs.until is not None
    sim.advance_to(inputs.until)
    return sim


def _z(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _runs(sim: Simulation, dag_id: str) -> list[DagRun]:
    return list(sim.dags[dag_id].runs)


def test_cron_edited_mid_week_across_new_york_fall_back() -> None:
    sim = _simulate("change_cron_edit_ny_dst.json")
    after = [r.run_after for r in _runs(sim, "ny_morning_report")]
    assert _z("2024-10-30T10:00:00Z") in after  # 06:00 EDT, before the deploy
    assert [t for t in after if t > _z("2024-10-30T15:00:00Z")] == [
        _z("2024-10-31T05:30:00Z"),
        _z("2024-11-01T05:30:00Z"),
        _z("2024-11-02T05:30:00Z"),
        _z("2024-11-03T06:30:00Z"),  # the second 01:30, EST: 25 h after Saturday's
        _z("2024-11-04T06:30:00Z"),
        _z("2024-11-05T06:30:00Z"),
        _z("2024-11-06T06:30:00Z"),
    ]


def test_airflow_2_to_3_upgrade_skips_a_logical_date() -> None:
    sim = _simulate("change_airflow2_to_3_daily_cron.json")
    runs = _runs(sim, "daily_sales")
    logical = [r.logical_date for r in runs]
    assert _z("2024-06-03T00:00:00Z") in logical
    assert _z("2024-06-04T00:00:00Z") not in logical  # never exists (DEP-2)
    assert _z("2024-06-05T00:00:00Z") in logical
    # before the switch each run covers the day before; after it, its own instant
    before = [r for r in runs if r.run_after <= _z("2024-06-04T00:00:00Z")]
    after = [r for r in runs if r.run_after > _z("2024-06-04T12:00:00Z")]
    assert before and after
    assert all(r.logical_date is not None and r.logical_date < r.run_after for r in before)
    assert all(r.logical_date == r.run_after for r in after)
    assert [r.run_after.hour for r in runs] == [0] * len(runs)  # run times never move


def test_catchup_flipped_while_paused_backfills_from_the_latest_run() -> None:
    sim = _simulate("change_catchup_flipped_after_pause.json")
    unpaused = _z("2024-06-10T10:00:00Z")
    flipped = [r.logical_date for r in _runs(sim, "daily_sync") if r.created_at >= unpaused]
    unchanged = [
        r.logical_date for r in _runs(sim, "daily_sync_unchanged") if r.created_at >= unpaused
    ]
    days = [_z(f"2024-06-{d:02d}T00:00:00Z") for d in range(4, 12)]
    assert flipped == days
    assert unchanged == [days[-2], days[-1]]  # 06-10 at the unpause, then 06-11


def test_removed_dag_freezes_until_its_file_returns() -> None:
    sim = _simulate("change_dag_removed_and_readded.json")
    runs = {r.run_id: r for r in _runs(sim, "hourly_etl")}
    stuck = runs["scheduled__2024-06-01T02:00:00+00:00"]
    assert stuck.tasks[0].end_date == _z("2024-06-01T02:20:00Z")
    assert stuck.end_date == _z("2024-06-01T03:30:00Z")  # ended only once the file is back
    manual = runs["manual__2024-06-01T02:05:00+00:00"]
    assert manual.start_date == _z("2024-06-01T03:30:01Z")
    missed = runs["scheduled__2024-06-01T03:00:00+00:00"]
    assert missed.created_at == _z("2024-06-01T03:50:02Z")
    assert not sim.dags["hourly_etl"].is_stale


def test_condition_edited_keeps_named_rows_and_drops_the_others() -> None:
    sim = _simulate("change_condition_edited_with_queued_events.json")
    events = sim.state.assets.events
    sales = _runs(sim, "sales_mart")
    assert sales[0].created_at == _z("2024-06-01T11:00:00Z")
    assert sales[0].run_after == _z("2024-06-01T10:10:00Z")  # the kept row's time
    finance = _runs(sim, "finance_mart")
    assert [r.run_after for r in finance] == [_z("2024-06-01T12:00:00Z")]
    consumed = [
        (events[i].asset.name, events[i].timestamp) for i in finance[0].consumed_asset_events
    ]
    assert ("orders", _z("2024-06-01T10:10:00Z")) in consumed
    assert all(name != "refunds" for name, _ in consumed)
