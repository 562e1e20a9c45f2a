"""Task inlets and Airflow's @asset / @asset.multi shorthand (``asset_dags``)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from explorer.engine.assets.condition import AssetKey
from explorer.engine.record import build_record
from explorer.scenario import (
    ScenarioError,
    build_engine_inputs,
    dumps_scenario,
    load_scenario,
    loads_scenario,
)
from explorer.scenario.simulate import make_simulation
from tests.scenario.helpers import EXAMPLES

EXAMPLE = EXAMPLES / "asset_decorator_and_inlets.json"


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return doc


def _problems(doc: dict[str, Any]) -> list[str]:
    try:
        loads_scenario(json.dumps(doc), source="f.json")
    except ScenarioError as exc:
        return [f"{p.path}: {p.message}" for p in exc.problems]
    return []


def test_example_round_trips_byte_identical() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    once = dumps_scenario(loads_scenario(text))
    assert dumps_scenario(loads_scenario(once)) == once
    assert once == text  # the shipped file is in canonical form, asset_dags kept as written
    assert '"asset_dags"' in once and '"inlets"' in once


def test_example_expands_into_plain_dags() -> None:
    inputs = build_engine_inputs(load_scenario(EXAMPLE), source=EXAMPLE.name)
    specs = {d.dag_id: d for d in inputs.dags}
    assert set(specs) == {"sales_report", "orders", "load_dimensions"}
    orders = specs["orders"]
    assert [t.task_id for t in orders.tasks] == ["orders"]
    assert orders.tasks[0].outlets == (AssetKey("orders", "s3://warehouse/orders"),)
    assert orders.catchup is False
    multi = specs["load_dimensions"]
    assert [t.task_id for t in multi.tasks] == ["load_dimensions"]
    assert [o.name for o in multi.tasks[0].outlets] == ["customers", "products"]  # type: ignore[union-attr]
    report = specs["sales_report"].tasks[0]
    assert [i.name for i in report.inlets] == ["orders", "customers", "products"]  # type: ignore[union-attr]
    assert inputs.warnings == []


def test_example_consumer_runs_with_inlet_events() -> None:
    inputs = build_engine_inputs(load_scenario(EXAMPLE), source=EXAMPLE.name)
    simulation = make_simulation(inputs)
    assert inputs.until is not None
    simulation.advance_to(inputs.until)
    simulation.finish()
    record = build_record(simulation, until=inputs.until)
    runs = [r for r in record["runs"] if r["dag_id"] == "sales_report"]
    assert runs and all(r["state"] == "success" for r in runs)
    for run in runs:
        (task,) = run["tasks"]
        assert len(task["inlet_events"]) == 3
        assert all(isinstance(e, int) for e in task["inlet_events"])


def test_undeclared_inlet_is_located() -> None:
    doc = _doc()
    doc["dags"][0]["tasks"][0]["inlets"].append({"asset": "ordrs"})
    (problem,) = _problems(doc)
    assert problem.startswith("$.dags[0].tasks[0].inlets[3].asset: asset 'ordrs' is not declared")


def test_asset_dag_colliding_with_a_dag_is_located() -> None:
    doc = _doc()
    doc["asset_dags"][1]["multi"]["dag_id"] = "sales_report"
    (problem,) = _problems(doc)
    assert problem.startswith("$.asset_dags[1].multi.dag_id: @asset.multi makes a DAG")
    assert "$.dags[0]" in problem


def test_two_asset_dags_with_one_name_are_located() -> None:
    doc = _doc()
    doc["asset_dags"].append(copy.deepcopy(doc["asset_dags"][0]))
    (problem,) = _problems(doc)
    assert problem.startswith("$.asset_dags[2].name:") and "$.asset_dags[0]" in problem


def test_asset_dag_catchup_true_is_refused() -> None:
    doc = _doc()
    doc["asset_dags"][0]["catchup"] = True
    problems = _problems(doc)
    assert all(p.startswith("$.asset_dags[0].catchup: ") for p in problems)
    assert any(
        p.startswith("$.asset_dags[0].catchup: @asset creates its DAG with catchup=False")
        for p in problems
    )


def test_asset_dag_schedule_and_outlet_errors_are_located() -> None:
    doc = _doc()
    doc["asset_dags"][0]["schedule"] = "@continuous"
    doc["asset_dags"][1]["multi"]["outlets"][1] = {"asset": "prodcts"}
    problems = _problems(doc)
    assert problems[0].startswith("$.asset_dags[0].schedule: Invalid max_active_runs")
    assert problems[1].startswith("$.asset_dags[1].multi.outlets[1].asset: asset 'prodcts'")


def test_asset_dag_refused_uri_is_located() -> None:
    doc = _doc()
    doc["asset_dags"][0]["uri"] = "airflow://orders"
    (problem,) = _problems(doc)
    assert problem.startswith("$.asset_dags[0].uri:")


def test_asset_dag_uri_defaults_to_the_name_and_may_repeat_a_declaration() -> None:
    doc = _doc()
    del doc["asset_dags"][0]["uri"]
    inputs = build_engine_inputs(loads_scenario(json.dumps(doc)))
    orders = next(d for d in inputs.dags if d.dag_id == "orders")
    assert orders.tasks[0].outlets[0] == AssetKey("orders", "orders")
    doc = _doc()
    doc["assets"].append({"name": "orders", "uri": "s3://warehouse/orders"})
    assert _problems(doc) == []
    doc["assets"][-1]["uri"] = "s3://elsewhere/orders"
    (problem,) = _problems(doc)
    assert problem.startswith("$.asset_dags[0].uri: asset 'orders' is declared in assets")


@pytest.mark.parametrize(
    "entry, where",
    [
        ({"name": "a", "schedule": None}, "duration"),
        (
            {
                "name": "a",
                "multi": {"dag_id": "b", "outlets": [{"asset": "customers"}]},
                "schedule": None,
                "duration": "PT1M",
            },
            "$.asset_dags[2]",
        ),
        (
            {"multi": {"dag_id": "b", "outlets": []}, "schedule": None, "duration": "PT1M"},
            "$.asset_dags[2].multi.outlets",
        ),
    ],
)
def test_asset_dag_schema(entry: dict[str, Any], where: str) -> None:
    doc = _doc()
    doc["asset_dags"].append(entry)
    problems = _problems(doc)
    assert problems and where in problems[0]
