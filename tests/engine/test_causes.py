"""The silence after a failure, traced: a waiting consumer's explanation names the producer
run that failed, its task and why; a run that consumed an event of a run that wrote no data
says so; the question asked fits what the DAG's last run did."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from explorer.engine.explain import explain
from explorer.scenario import build_engine_inputs, load_scenario, loads_scenario
from explorer.scenario.simulate import make_simulation

ROOT = Path(__file__).resolve().parents[2]
SILENCE = ROOT / "resources" / "scenarios" / "producer_fails_silence.json"
NOON = datetime(2024, 5, 2, 12, tzinfo=UTC)


def _sim_at(at: datetime, text: str | None = None) -> Any:
    scenario = load_scenario(SILENCE) if text is None else loads_scenario(text)
    sim = make_simulation(build_engine_inputs(scenario))
    sim.advance_to(at)
    return sim


def test_a_waiting_consumer_names_the_failed_producer_run_and_its_task() -> None:
    answer = explain(_sim_at(NOON), "orders_report")
    assert answer.question == "Why is orders_report waiting?"
    (cause,) = [c for c in answer.causes if c.kind == "failed_run"]
    assert cause.dag_id == "ingest_orders"
    assert cause.task_id == "write_orders"
    assert cause.logical_date == datetime(2024, 5, 2, tzinfo=UTC)
    assert cause.run_id is not None and cause.at is not None
    assert "override" in cause.sentence and cause.rule == "AS-1"
    blocking = next(c for c in answer.conditions if c.name == "asset" and c.ok is False)
    assert "ingest_orders' run" in blocking.detail and "write_orders" in blocking.detail
    data = answer.to_dict()
    causes = [c["cause"] for c in data["conditions"] if c["cause"] is not None]
    assert {"kind": "failed_run", "dag_id": "ingest_orders", "task_id": "write_orders"}.items() <= (
        causes[0].items()
    )


def test_a_run_on_an_event_that_wrote_no_data_is_traced_to_that_run() -> None:
    answer = explain(_sim_at(NOON), "refunds_report")
    (cause,) = [c for c in answer.causes if c.kind == "no_data"]
    assert cause.dag_id == "ingest_refunds"
    assert cause.logical_date == datetime(2024, 5, 2, tzinfo=UTC)
    assert "wrote no data" in cause.sentence and "Airflow cannot tell" in cause.sentence


def test_the_failed_producer_is_asked_why_it_failed() -> None:
    answer = explain(_sim_at(NOON), "ingest_orders")
    assert answer.question == "Why did ingest_orders fail?"
    last = answer.conditions[0]
    assert last.name == "last run" and last.cause is not None
    assert last.cause.task_id == "write_orders" and "override" in last.detail


def test_an_asset_without_producer_says_only_an_event_from_outside_can_update_it() -> None:
    document = json.loads(SILENCE.read_text(encoding="utf-8"))
    for dag in document["dags"]:
        for task in dag.get("tasks", []):
            task.pop("outlets", None)
    answer = explain(_sim_at(NOON, json.dumps(document)), "orders_report")
    kinds = {c.kind for c in answer.causes}
    assert kinds == {"no_producer"}


def test_a_paused_producer_is_the_cause_when_nothing_ran() -> None:
    document = json.loads(SILENCE.read_text(encoding="utf-8"))
    document["script"] = [
        {"at": "2024-05-01T00:00:00Z", "do": "pause", "dag_id": "ingest_orders"},
    ]
    answer = explain(_sim_at(NOON, json.dumps(document)), "orders_report")
    (paused,) = [c for c in answer.causes if c.dag_id == "ingest_orders"]
    assert paused.kind == "paused" and paused.rule == "SCH-6"


def test_the_silence_alert_names_the_failed_producer_run() -> None:
    from explorer.engine.alerts import compute_alerts

    until = datetime(2024, 5, 4, 12, tzinfo=UTC)
    silent = [a for a in compute_alerts(_sim_at(until), until) if a.kind == "consumer_silent"]
    orders = next(a for a in silent if a.subject == "orders_report")
    assert "ingest_orders' run of 2024-05-02" in orders.message
    assert "write_orders" in orders.message
