"""Shared scenario documents for the scenario tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer.scenario import ScenarioError, loads_scenario

DATA = Path(__file__).parent / "data"
FULL = DATA / "full.json"
EXAMPLES = Path(__file__).parents[2] / "resources" / "scenarios"


def small() -> dict[str, Any]:
    """A valid two-DAG scenario that the bad-input tests break in one place each."""
    return {
        "format": "schedule-explorer/2",
        "name": "small",
        "clock": {"start": "2024-03-08T00:00:00Z", "until": "2024-03-10T00:00:00Z"},
        "assets": [{"name": "orders", "uri": "s3://warehouse/orders"}],
        "dags": [
            {
                "dag_id": "a",
                "schedule": "0 0 * * *",
                "start_date": "2024-03-01T00:00:00Z",
                "tasks": [{"task_id": "t1", "duration": "PT5M", "outlets": [{"asset": "orders"}]}],
            },
            {
                "dag_id": "b",
                "schedule": {"timetable": "CronTriggerTimetable", "args": {"cron": "0 2 * * *"}},
                "tasks": [],
            },
        ],
        "script": [
            {
                "at": "2024-03-09T00:00:00Z",
                "do": "task_success",
                "run": {"dag_id": "a", "nth": 0},
                "task_id": "t1",
            }
        ],
    }


def problems(document: dict[str, Any] | str) -> list[ScenarioError]:
    """Every problem loading ``document`` reports (it must report at least one)."""
    text = document if isinstance(document, str) else json.dumps(document, indent=2)
    with pytest.raises(ScenarioError) as caught:
        loads_scenario(text, source="bad.json")
    return list(caught.value.problems)
