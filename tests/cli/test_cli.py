"""The ``explorer`` command, run as a user runs it: a real process, real files."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DST = ROOT / "resources" / "scenarios" / "ny_dst_spring_forward.json"


def explorer(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def _write(tmp_path: Path, text: str, name: str = "scenario.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_simulate_prints_a_json_record_with_every_run_field() -> None:
    result = explorer("simulate", str(DST), "--until", "2024-03-12T00:00Z", "--format", "json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["runs"], "the DST example creates runs"
    run = record["runs"][0]
    for key in (
        "dag_id",
        "run_id",
        "run_type",
        "logical_date",
        "data_interval_start",
        "data_interval_end",
        "run_after",
        "partition_key",
        "partition_date",
        "created_at",
        "state",
        "states",
        "start_date",
        "end_date",
        "consumed_asset_events",
    ):
        assert key in run
    for key in ("asset_events", "pending", "alerts", "warnings"):
        assert key in record
    assert all(r["created_at"].endswith("Z") for r in record["runs"])


def test_the_spring_forward_day_is_23_hours_for_a_local_midnight_data_interval() -> None:
    result = explorer("simulate", str(DST), "--until", "2024-03-12T00:00Z", "--format", "json")
    runs = json.loads(result.stdout)["runs"]
    spring = [
        r
        for r in runs
        if r["data_interval_start"] == "2024-03-10T05:00:00Z"
        and r["data_interval_end"] != r["data_interval_start"]
    ]
    assert spring, "a CronDataIntervalTimetable run covers 2024-03-10 in New York"
    assert spring[0]["data_interval_end"] == "2024-03-11T04:00:00Z"  # DST-4: 23 h


def test_table_and_csv_formats_list_the_same_runs() -> None:
    table = explorer("simulate", str(DST), "--until", "2024-03-12T00:00Z", "--format", "table")
    as_csv = explorer("simulate", str(DST), "--until", "2024-03-12T00:00Z", "--format", "csv")
    assert table.returncode == 0 and as_csv.returncode == 0
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert rows
    assert f"{len(rows)} runs until 2024-03-12T00:00:00Z" in table.stdout
    assert "data_interval_start" in table.stdout.splitlines()[0]


def test_csv_is_the_json_records_runs_column_for_column() -> None:
    """CSV is streamed from the run log without building the record: the same runs, in
    the same order, with the same flat values as the JSON record (a partitioned example,
    so partition_key and partition_date are filled)."""
    example = ROOT / "resources" / "scenarios" / "hourly_to_daily_rollup.json"
    as_json = explorer("simulate", str(example), "--format", "json")
    as_csv = explorer("simulate", str(example), "--format", "csv")
    assert as_json.returncode == 0 and as_csv.returncode == 0, as_csv.stderr
    runs = json.loads(as_json.stdout)["runs"]
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert len(rows) == len(runs) > 24
    assert any(row["partition_key"] for row in rows)
    for row, run in zip(rows, runs, strict=True):
        assert row == {key: "" if run[key] is None else str(run[key]) for key in row}


def test_validate_accepts_every_bundled_example() -> None:
    examples = sorted((ROOT / "resources" / "scenarios").glob("*.json"))
    assert examples
    result = explorer("validate", *map(str, examples))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(": valid") == len(examples)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "line 1"),
        ('{"format": "schedule-explorer/99"}', "newer"),
    ],
    ids=["malformed-json", "newer-format-version"],
)
def test_bad_files_exit_non_zero_with_one_clear_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = _write(tmp_path, text)
    result = explorer("simulate", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert str(path) in result.stderr
    assert expected in result.stderr.lower() or expected in result.stderr


def test_an_invalid_cron_is_located_by_json_path_and_nothing_is_written(tmp_path: Path) -> None:
    scenario = json.loads(DST.read_text())
    scenario["dags"][0]["schedule"] = "61 * * * *"
    path = _write(tmp_path, json.dumps(scenario))
    before = sorted(p.name for p in tmp_path.iterdir())
    result = explorer("simulate", str(path), "--format", "table")
    assert result.returncode == 1
    assert "$.dags[0].schedule" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_naive_until_is_refused() -> None:
    result = explorer("simulate", str(DST), "--until", "2024-03-12T00:00")
    assert result.returncode == 2
    assert "time zone" in result.stderr


def test_the_run_limit_stops_a_flood_with_a_message() -> None:
    flood = ROOT / "resources" / "scenarios" / "catchup_flood.json"
    result = explorer("simulate", str(flood), "--max-runs", "5")
    assert result.returncode == 3
    assert "more than 5 runs" in result.stderr


def test_next_runs_describes_the_schedule_in_words_and_lists_local_and_utc_times() -> None:
    scenario = json.loads(DST.read_text())
    dag_id = scenario["dags"][0]["dag_id"]
    result = explorer("next-runs", str(DST), dag_id, "-n", "4")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "At 00:00" in result.stdout or "At " in lines[1]
    assert result.stdout.count("Z)") >= 4


def test_explain_names_what_allows_or_blocks_the_next_run() -> None:
    scenario = json.loads(DST.read_text())
    dag_id = scenario["dags"][0]["dag_id"]
    result = explorer("explain", str(DST), dag_id, "--at", "2024-03-10T12:00:00Z")
    assert result.returncode == 0, result.stderr
    assert "run_after reached" in result.stdout
    assert "max_active_runs" in result.stdout
    as_json = explorer(
        "explain", str(DST), dag_id, "--at", "2024-03-10T12:00:00Z", "--format", "json"
    )
    answer = json.loads(as_json.stdout)
    assert answer["dag_id"] == dag_id and answer["conditions"]


def test_explain_of_an_unknown_dag_lists_the_known_ones() -> None:
    result = explorer("explain", str(DST), "no_such_dag", "--at", "2024-03-10T12:00:00Z")
    assert result.returncode == 1
    assert "known:" in result.stderr


def test_the_cli_never_imports_qt() -> None:
    code = (
        "import sys, explorer.cli; "
        "print(any(m.split('.')[0] in ('PySide6', 'pyqtgraph') for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_lone_scenario_file_opens_the_desktop_app_and_subcommands_stay_headless(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import explorer.__main__ as entry
    import explorer.ui.app as app

    opened: list[list[str]] = []
    monkeypatch.setattr(app, "main", lambda argv=None: opened.append(list(argv or [])) or 0)
    assert entry.main([str(DST)]) == 0
    assert opened == [[str(DST)]]
    assert entry.main(["validate", str(DST)]) == 0
    assert opened == [[str(DST)]]


@pytest.mark.parametrize("zone", ["America", "Europe"])
def test_a_zone_naming_a_tzdata_folder_is_an_unknown_time_zone_not_a_traceback(
    tmp_path: Path, zone: str
) -> None:
    document = json.loads(DST.read_text(encoding="utf-8"))
    document["dags"][0]["timezone"] = zone
    path = _write(tmp_path, json.dumps(document))
    commands = (
        ["validate", str(path)],
        ["simulate", str(path)],
        ["next-runs", str(path), "ingest_orders"],
        ["explain", str(path), "ingest_orders", "--at", "2024-03-10T12:00Z"],
    )
    for command in commands:
        result = explorer(*command)
        assert result.returncode != 0, command
        assert "Traceback" not in result.stderr, command
        assert f"$.dags[0].timezone: unknown time zone '{zone}'" in result.stderr, command


def test_version_names_the_engine_build() -> None:
    done = explorer("--version")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(
        r"explorer \d+\.\d+\.\d+ \(engine: (plain Python|compiled \(\d+ modules, mypyc\))\)\n",
        done.stdout,
    ), done.stdout
