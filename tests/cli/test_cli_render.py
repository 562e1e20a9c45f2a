"""``explorer simulate --render TEMPLATE``: what each run's task would render (adr/0008)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta
from pathlib import Path

from tests.cli.test_cli import DST, explorer

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "resources" / "scenarios" / "or_and_coalescing.json"


def test_json_gets_rendered_text_and_errors_per_run() -> None:
    result = explorer(
        "simulate", str(ASSETS), "--until", "2024-05-01T00:30Z", "--render", "{{ ds }}"
    )
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    scheduled = [r for r in runs if r["run_type"] == "scheduled"]
    triggered = [r for r in runs if r["run_type"] == "asset_triggered"]
    assert scheduled and triggered
    for run in scheduled:
        assert run["rendered"] == run["logical_date"][:10]
        assert run["render_error"] is None
    for run in triggered:  # no logical date: `ds` is absent, the task would fail
        assert run["rendered"] is None
        assert run["render_error"].startswith("'ds' is undefined")


def test_csv_and_table_get_a_rendered_column() -> None:
    template = "{{ macros.ds_add(ds, -1) }}|{{ logical_date.in_timezone('America/New_York') }}"
    result = explorer(
        "simulate",
        str(DST),
        "--until",
        "2024-03-12T00:00Z",
        "--format",
        "csv",
        "--render",
        template,
    )
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows
    first = rows[0]
    logical = datetime.fromisoformat(first["logical_date"])
    previous_day, in_new_york = first["rendered"].split("|")
    assert previous_day == (logical - timedelta(days=1)).strftime("%Y-%m-%d")
    assert datetime.fromisoformat(in_new_york) == logical
    assert in_new_york.endswith(("-05:00", "-04:00"))
    table = explorer(
        "simulate",
        str(DST),
        "--until",
        "2024-03-12T00:00Z",
        "--format",
        "table",
        "--render",
        "{{ nope }}",
    )
    assert table.returncode == 0, table.stderr
    header = table.stdout.splitlines()[0].split()
    assert header[-1] == "rendered"
    assert "error: 'nope' is undefined" in table.stdout.splitlines()[1]
