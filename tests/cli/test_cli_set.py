"""``explorer simulate --set section.key=value``: Airflow options for the whole run (DEP-7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import _write, explorer

DAILY = """{"format": "schedule-explorer/1", "name": "daily cron",
 "clock": {"start": "2024-06-01T00:00:00Z", "until": "2024-06-03T01:00:00Z"},
 "dags": [{"dag_id": "daily", "schedule": "0 0 * * *", "start_date": "2024-05-01T00:00:00Z",
           "tasks": [{"task_id": "t", "duration": "PT5M"}]}], "script": []}"""


def _runs(path: Path, *extra: str) -> list[dict[str, object]]:
    result = explorer("simulate", str(path), *extra)
    assert result.returncode == 0, result.stderr
    runs: list[dict[str, object]] = json.loads(result.stdout)["runs"]
    return runs


def test_create_cron_data_intervals_turns_a_plain_cron_into_data_intervals(tmp_path: Path) -> None:
    """TT-1 / DEP-7: Airflow 3's plain cron is a CronTriggerTimetable (logical date = run
    time, empty interval); Airflow 2's behaviour (the option true) gives a day-long interval
    whose start is the logical date, one day before the run."""
    path = _write(tmp_path, DAILY)
    trigger = _runs(path)
    intervals = _runs(path, "--set", "scheduler.create_cron_data_intervals=true")
    assert [r["run_after"] for r in trigger] == [r["run_after"] for r in intervals]
    for run in trigger:
        assert run["logical_date"] == run["run_after"] == run["data_interval_end"]
    for run in intervals:
        assert run["data_interval_end"] == run["run_after"]
        assert run["logical_date"] == run["data_interval_start"] != run["run_after"]
    assert intervals[0]["logical_date"] == "2024-05-31T00:00:00Z"


def test_settings_repeat_and_the_last_one_wins(tmp_path: Path) -> None:
    path = _write(tmp_path, DAILY)
    runs = _runs(
        path,
        "--set",
        "scheduler.create_cron_data_intervals=true",
        "--set",
        "scheduler.create_cron_data_intervals=false",
    )
    assert runs[0]["logical_date"] == "2024-06-01T00:00:00Z"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("scheduler.nope=1", "unknown Airflow option [scheduler] nope"),
        ("core.max_active_runs_per_dag=many", "takes a whole number, not 'many'"),
        ("scheduler.catchup_by_default=perhaps", "takes true or false"),
        ("catchup_by_default=true", "expected section.key=value"),
    ],
)
def test_bad_settings_are_one_clear_line(tmp_path: Path, setting: str, message: str) -> None:
    result = explorer("simulate", str(_write(tmp_path, DAILY)), "--set", setting)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
