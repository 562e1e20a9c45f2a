"""``explorer explain`` names a run without task instances (RND-1), through the real entry
point: a manual run whose logical date lies before the DAG's start_date."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import _write, explorer

SCENARIO = {
    "format": "schedule-explorer/1",
    "name": "A manual run dated before start_date",
    "clock": {"start": "2025-01-02T00:00:00Z", "until": "2025-01-02T06:00:00Z"},
    "dags": [
        {
            "dag_id": "reports",
            "schedule": None,
            "start_date": "2025-01-01T00:00:00Z",
            "tasks": [{"task_id": "build", "duration": "PT20M"}],
        }
    ],
    "script": [
        {
            "at": "2025-01-02T01:00:00Z",
            "do": "trigger",
            "dag_id": "reports",
            "logical_date": "2024-12-01T00:00:00Z",
        }
    ],
}


def test_explain_says_the_run_had_no_task_instances(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(SCENARIO))
    result = explorer("explain", str(path), "reports", "--at", "2025-01-02T02:00:00Z")
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "task instances" in x)
    assert "manual__2025-01-02T01:00:00+00:00" in line
    assert "no task instances: logical date before start_date (RND-1)" in line
