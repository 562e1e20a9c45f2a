"""Rules for format 2's deployment changes (ADR 0007 section 3; DEP-1, DEP-6, DEP-7)."""

from __future__ import annotations

import json
from typing import Any

from explorer.engine.dagfile import DeployDag
from explorer.scenario import build_engine_inputs, loads_scenario
from tests.scenario.helpers import problems, small


def _with(*actions: dict[str, Any]) -> dict[str, Any]:
    document = small()
    document["script"] = [*document["script"], *actions]
    return document


def _deploy(at: str, **dag: Any) -> dict[str, Any]:
    base = {"dag_id": "c", "schedule": "0 3 * * *", "start_date": "2024-03-01T00:00:00Z"}
    return {"at": at, "do": "deploy", "dag": {**base, **dag}}


def _paths(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in problems(document)]


def test_a_deployed_dag_is_checked_like_a_dag_of_dags() -> None:
    found = _paths(
        _with(
            _deploy("2024-03-09T01:00:00Z", schedule=[{"asset": "nope"}]),
            _deploy("2024-03-09T02:00:00Z", catchup=True, start_date=None),
        )
    )
    assert [p for p, _ in found] == ["$.script[1].dag.schedule[0].asset", "$.script[2].dag.catchup"]
    assert "start_date is required when catchup=True" in found[1][1]


def test_a_removed_dag_must_exist_and_a_deployed_one_can_be_named_after_its_deploy() -> None:
    found = _paths(
        _with(
            {"at": "2024-03-09T01:00:00Z", "do": "trigger", "dag_id": "c"},
            _deploy("2024-03-09T02:00:00Z"),
            {"at": "2024-03-09T03:00:00Z", "do": "trigger", "dag_id": "c"},
            {"at": "2024-03-09T04:00:00Z", "do": "remove_dag", "dag_id": "zz"},
            {"at": "2024-03-09T05:00:00Z", "do": "remove_dag", "dag_id": "c"},
        )
    )
    assert [p for p, _ in found] == ["$.script[1].dag_id", "$.script[4].dag_id"]
    assert "no DAG with dag_id 'zz'" in found[1][1]


def test_a_task_of_the_earlier_file_can_still_be_finished_after_a_deploy() -> None:
    """Runs made before a deploy keep their task instances (DEP-1)."""
    document = _with(
        _deploy("2024-03-09T01:00:00Z", dag_id="a", tasks=[{"task_id": "t2", "duration": "PT5M"}]),
        {
            "at": "2024-03-09T02:00:00Z",
            "do": "task_success",
            "run": {"dag_id": "a", "nth": 0},
            "task_id": "t1",
        },
        {
            "at": "2024-03-09T03:00:00Z",
            "do": "task_success",
            "run": {"dag_id": "a", "nth": 1},
            "task_id": "t2",
        },
    )
    inputs = build_engine_inputs(loads_scenario(json.dumps(document), source="ok.json"))
    deploy = inputs.script[1]
    assert isinstance(deploy, DeployDag)
    assert [t.task_id for t in deploy.file.spec.tasks] == ["t2"]
    assert deploy.file.catchup is None and deploy.file.max_active_runs is None  # unset


def test_set_option_values_are_checked_as_airflow_cfg_would() -> None:
    found = _paths(
        _with(
            {
                "at": "2024-03-09T01:00:00Z",
                "do": "set_option",
                "section": "core",
                "key": "max_active_runs_per_dag",
                "value": 0,
            }
        )
    )
    assert found and all(p.startswith("$.script[1]") for p, _ in found)
