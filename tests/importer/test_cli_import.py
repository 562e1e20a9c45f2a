"""``explorer import`` and ``explorer next-runs --format json``, run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import explorer

DAG_FILE = """
import pendulum
from airflow.sdk import DAG, Asset, Variable
from airflow.providers.standard.operators.empty import EmptyOperator

with DAG("producer", schedule="0 6 * * *",
         start_date=pendulum.datetime(2025, 1, 1, tz="Europe/Paris")):
    EmptyOperator(task_id="write", outlets=[Asset("orders")])
with DAG("consumer", schedule=[Asset("orders")], start_date=pendulum.datetime(2025, 1, 1)):
    EmptyOperator(task_id="read")
with DAG("unknown", schedule=Variable.get("cron"), start_date=pendulum.datetime(2025, 1, 1)):
    pass
"""


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "dags"
    root.mkdir()
    (root / "pipeline.py").write_text(DAG_FILE, encoding="utf-8")
    return root


def test_import_writes_a_scenario_that_validates_and_simulates(tmp_path: Path) -> None:
    root = _project(tmp_path)
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    result = explorer(
        "import",
        str(root),
        "-o",
        str(out),
        "--report",
        str(report),
        "--at",
        "2025-03-01T00:00:00Z",
        "--task-duration",
        "PT5M",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "3 DAGs: 2 imported, 1 partial, 0 skipped" in result.stderr
    assert "pipeline.py:11: unknown.schedule: read from an Airflow Variable" in result.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data) >= {"dags", "files"}
    assert {d["dag_id"]: d["status"] for d in data["dags"]} == {
        "producer": "imported",
        "consumer": "imported",
        "unknown": "partial",
    }
    unresolved = next(d for d in data["dags"] if d["dag_id"] == "unknown")["unresolved"]
    assert unresolved[0]["field"] == "schedule" and unresolved[0]["line"] == 11
    assert data["files"] == [
        {
            "file": "pipeline.py",
            "status": "parsed",
            "reason": None,
            "dag_ids": ["producer", "consumer", "unknown"],
            "needs": [],
        }
    ]
    assert explorer("validate", str(out)).returncode == 0
    simulated = explorer("simulate", str(out), "--format", "json")
    assert simulated.returncode == 0, simulated.stderr
    runs = json.loads(simulated.stdout)["runs"]
    assert {r["dag_id"] for r in runs} == {"producer", "consumer"}
    nxt = explorer("next-runs", str(out), "producer", "-n", "2", "--format", "json")
    assert nxt.returncode == 0, nxt.stderr
    # catchup unset (False by default): the latest tick before the deployment comes first (TT-5).
    assert json.loads(nxt.stdout) == [
        {
            "logical_date": "2025-02-28T05:00:00Z",
            "data_interval_start": "2025-02-28T05:00:00Z",
            "data_interval_end": "2025-02-28T05:00:00Z",
            "run_after": "2025-02-28T05:00:00Z",
        },
        {
            "logical_date": "2025-03-01T05:00:00Z",
            "data_interval_start": "2025-03-01T05:00:00Z",
            "data_interval_end": "2025-03-01T05:00:00Z",
            "run_after": "2025-03-01T05:00:00Z",
        },
    ]


def test_import_exit_codes(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "util.py").write_text("X = 1\n", encoding="utf-8")
    out = tmp_path / "out.json"
    nothing = explorer("import", str(empty), "-o", str(out), cwd=tmp_path)
    assert nothing.returncode == 1 and not out.exists()
    assert "no DAG could be imported" in nothing.stderr
    missing = explorer("import", str(tmp_path / "nope"), "-o", str(out), cwd=tmp_path)
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    bad = explorer("import", str(empty), "-o", str(out), "--task-duration", "10m", cwd=tmp_path)
    assert bad.returncode == 2 and "--task-duration" in bad.stderr
    usage = explorer("import", str(empty), cwd=tmp_path)
    assert usage.returncode == 2
