"""Hostile and careless input on the command line: every refusal is one line with an exit
status, every run ends at its run limit, every output that cannot be written says so."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import DST, ROOT, explorer

CHECKED = ROOT / "tests" / "data" / "check" / "spring_forward_expectations.json"
SILENCE = ROOT / "resources" / "scenarios" / "producer_fails_silence.json"


def _variant(tmp_path: Path, change: Any, base: Path = DST, name: str = "v.json") -> Path:
    document = json.loads(base.read_text(encoding="utf-8"))
    change(document)
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _one_clean_line(stderr: str) -> None:
    assert "Traceback" not in stderr
    assert "\x1b" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr


# ------------------------------------------------------------------ the run limit
def test_a_far_until_stops_at_the_run_limit_with_exit_3() -> None:
    result = explorer("simulate", str(DST), "--until", "8999-01-01T00:00Z", "--max-runs", "10")
    assert result.returncode == 3, result.stderr
    assert "more than 10 runs" in result.stderr
    _one_clean_line(result.stderr)


def test_a_minutely_cron_over_a_century_stops_at_the_run_limit(tmp_path: Path) -> None:
    def minutely(document: dict[str, Any]) -> None:
        document["dags"][2]["schedule"] = "*/1 * * * *"
        document["clock"]["until"] = "2124-01-01T00:00:00Z"

    scenario = _variant(tmp_path, minutely)
    result = explorer("simulate", str(scenario), "--max-runs", "1000", "--format", "csv")
    assert result.returncode == 3, result.stderr
    _one_clean_line(result.stderr)


@pytest.mark.parametrize("command", ["explain", "diff", "check", "report"])
def test_every_simulating_command_honours_the_run_limit(command: str, tmp_path: Path) -> None:
    far = "8999-01-01T00:00Z"
    args = {
        "explain": ["explain", str(SILENCE), "orders_report", "--at", far],
        "diff": ["diff", str(DST), str(DST), "--until", far],
        "check": ["check", str(CHECKED), "--until", far],
        "report": ["report", str(DST), "-o", str(tmp_path / "r.html"), "--until", far],
    }[command]
    result = explorer(*args, "--max-runs", "50")
    assert result.returncode == 3, (result.returncode, result.stderr)
    _one_clean_line(result.stderr)


# ------------------------------------------------------------------ file size
def test_an_endless_file_is_refused_before_it_is_parsed() -> None:
    result = explorer("simulate", "/dev/zero")
    assert result.returncode == 1
    assert "larger than" in result.stderr and "--max-file-size" in result.stderr
    _one_clean_line(result.stderr)


def test_the_size_limit_is_set_by_option_and_by_environment(tmp_path: Path) -> None:
    small = explorer("--max-file-size", "1K", "validate", str(DST))
    assert small.returncode == 1 and "1,024 bytes" in small.stderr
    env = {**os.environ, "SCHEDULE_EXPLORER_MAX_FILE_SIZE": "1000"}
    import subprocess
    import sys

    by_env = subprocess.run(
        [sys.executable, "-m", "explorer", "validate", str(DST)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert by_env.returncode == 1 and "1,000 bytes" in by_env.stderr
    assert explorer("--max-file-size", "1M", "validate", str(DST)).returncode == 0
    bad = explorer("--max-file-size", "lots", "validate", str(DST))
    assert bad.returncode == 2
    _one_clean_line(bad.stderr)


# ------------------------------------------------------------------ what validates, simulates
OUT_OF_RANGE = {
    "task duration": (
        lambda d: d["dags"][0]["tasks"][0].update(duration="P999999999D"),
        "$.dags[0].tasks[0].duration",
    ),
    "relativedelta": (
        lambda d: d["dags"][2].update(
            schedule={
                "timetable": "DeltaDataIntervalTimetable",
                "args": {"delta": {"relativedelta": {"years": 10**9}}},
            }
        ),
        "$.dags[2].schedule.args.delta.relativedelta",
    ),
    "zero loop": (lambda d: d["scheduler"].update(loop_interval="PT0S"), "loop_interval"),
    "microsecond loop": (
        lambda d: d["scheduler"].update(loop_interval="PT0.000001S"),
        "loop_interval",
    ),
    "zero parse": (lambda d: d["scheduler"].update(parse_interval="PT0S"), "parse_interval"),
    "year 1": (lambda d: d["clock"].update(start="0001-01-01T00:00:00Z"), "$.clock.start"),
    "year 9999": (lambda d: d["clock"].update(until="9999-12-31T23:59:59Z"), "$.clock.until"),
    "surrogate": (lambda d: d.update(name="a\ud800b"), "$.name"),
    "trailing newline": (
        lambda d: d["dags"][2].update(dag_id="ingest_customers\n"),
        "$.dags[2].dag_id",
    ),
}


@pytest.mark.parametrize("case", list(OUT_OF_RANGE))
def test_a_value_that_cannot_be_simulated_is_refused_by_validation(
    case: str, tmp_path: Path
) -> None:
    change, where = OUT_OF_RANGE[case]
    scenario = _variant(tmp_path, change)
    for command in (["validate"], ["simulate"], ["check"], ["report", "-o", str(tmp_path / "r")]):
        result = explorer(*command, str(scenario))
        assert result.returncode == 1, (command, result.stderr)
        assert where in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("option", "value"),
    [("--spill-rows", "-5"), ("--max-runs", "0"), ("--until", "9999-12-31T23:59:59Z")],
)
def test_bad_options_are_usage_errors(option: str, value: str) -> None:
    result = explorer("simulate", str(DST), option, value)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_a_date_alone_is_midnight_utc() -> None:
    result = explorer("simulate", str(DST), "--until", "2024-03-10", "--format", "table")
    assert result.returncode == 0, result.stderr
    assert "until 2024-03-10T00:00:00Z" in result.stdout


# ------------------------------------------------------------------ outputs
def test_outputs_that_cannot_be_written_are_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing" / "x"
    dags = tmp_path / "dags"
    dags.mkdir()
    (dags / "d.py").write_text(
        "from airflow.sdk import DAG\nwith DAG('d', schedule=None):\n    pass\n"
    )
    results = [
        explorer("check", str(CHECKED), "--junit", f"{missing}.xml"),
        explorer("report", str(DST), "-o", f"{missing}.html"),
        explorer("import", str(dags), "-o", f"{missing}.json"),
    ]
    for result in results:
        assert result.returncode == 2, result.stderr
        assert "missing" in result.stderr
        _one_clean_line(result.stderr)


def test_a_full_disk_is_one_line_and_exit_2() -> None:
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "explorer", "simulate", str(DST), "--format", "csv"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert "No space left" in result.stderr
    _one_clean_line(result.stderr)


def test_junit_stays_parseable_with_control_characters_in_names(tmp_path: Path) -> None:
    def hostile(document: dict[str, Any]) -> None:
        document["expectations"][0]["name"] = "bell\x07 escape\x1b[31m nul\x00 end"
        document["expectations"][1]["name"] = "five customer runs \x0c"

    scenario = _variant(tmp_path, hostile, CHECKED)
    junit = tmp_path / "out.xml"
    explorer("check", str(scenario), "--junit", str(junit))
    root = ET.parse(junit).getroot()
    names = [case.get("name") for case in root.iter("testcase")]
    assert "bell\\x07 escape\\x1b[31m nul\\x00 end" in names


def test_csv_for_spreadsheets_defuses_formulas_and_keeps_numbers(tmp_path: Path) -> None:
    def formula(document: dict[str, Any]) -> None:
        document["dags"][2]["tasks"][0]["task_id"] = "write"

    scenario = _variant(tmp_path, formula)
    exact = explorer("simulate", str(scenario), "--format", "csv", "--until", "2024-03-10")
    safe = explorer(
        "simulate",
        str(scenario),
        "--format",
        "csv",
        "--until",
        "2024-03-10",
        "--csv-for-spreadsheets",
    )
    assert exact.returncode == safe.returncode == 0
    assert exact.stdout == safe.stdout  # nothing formula-like in a plain record
    from explorer.analysis.spreadsheet import for_spreadsheets, spreadsheet_cell

    assert spreadsheet_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert spreadsheet_cell("@SUM(A1)") == "'@SUM(A1)"
    assert spreadsheet_cell("+x") == "'+x" and spreadsheet_cell("-cmd") == "'-cmd"
    assert spreadsheet_cell("\tx") == "'\tx" and spreadsheet_cell("\rx") == "'\rx"
    for kept in ("-5", "+1.5", "-P1D", "PT10M", "2024-03-10T00:00:00Z", "plain", ""):
        assert spreadsheet_cell(kept) == kept
    rows = list(csv.reader(io.StringIO(for_spreadsheets('a,=1+1\n"-x",-2\n'))))
    assert rows == [["a", "'=1+1"], ["'-x", "-2"]]


def test_terminal_escapes_in_names_are_not_echoed_raw(tmp_path: Path) -> None:
    result = explorer("explain", str(DST), "\x1b]0;owned\x07\x1b[31mred", "--at", "2024-03-10")
    assert result.returncode != 0
    assert "\x1b" not in result.stderr and "\\x1b" in result.stderr


def _unchanged(document: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(document)


def test_the_table_shows_each_interval_and_the_23_hour_day_in_a_zone() -> None:
    result = explorer(
        "simulate", str(DST), "--until", "2024-03-12", "--format", "table",
        "--tz", "America/New_York",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    assert "interval" in header.split()
    orders = [r for r in rows if r.startswith("ingest_orders")]
    assert any("2024-03-10T00:00:00-05:00" in r and " 23h " in r for r in orders), orders
    assert any("2024-03-11T00:00:00-04:00" in r for r in orders)
    unknown = explorer("simulate", str(DST), "--format", "table", "--tz", "Mars/Base")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
