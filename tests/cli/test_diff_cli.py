"""``explorer diff``: a cron edited across the New York spring-forward, every exit code."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import DST, ROOT, explorer

WEEKDAYS = ROOT / "tests" / "data" / "diff" / "ny_dst_spring_forward_weekdays.json"


def test_weekday_edit_lists_the_shifted_friday_and_the_missing_weekend_exactly() -> None:
    result = explorer("diff", str(DST), str(WEEKDAYS), "--format", "json")
    assert result.returncode == 5, result.stderr
    diff = json.loads(result.stdout)
    assert diff["until"] == "2024-03-13T04:00:00Z"
    rows = [
        (c["dag_id"], c["change"], (c["before"] or c["after"])["logical_date"], c["fields"])
        for c in diff["runs"]
    ]
    assert rows == [
        ("ingest_orders", "shifted", "2024-03-08T05:00:00Z", ["run_after", "data_interval"]),
        ("ingest_orders", "removed", "2024-03-09T05:00:00Z", []),
        ("ingest_orders", "removed", "2024-03-10T05:00:00Z", []),
    ]
    shifted = diff["runs"][0]
    assert shifted["before"]["run_after"] == "2024-03-09T05:00:00Z"
    # Friday's interval now ends Monday 00:00 EDT: 71 hours, the spring-forward night lost.
    assert shifted["after"]["run_after"] == "2024-03-11T04:00:00Z"
    assert shifted["after"]["data_interval_end"] == "2024-03-11T04:00:00Z"
    assert [c["before"]["run_after"] for c in diff["runs"][1:]] == [
        "2024-03-10T05:00:00Z",
        "2024-03-11T04:00:00Z",  # the 23-hour Sunday interval's run
    ]
    assert diff["counts"] == {"added": 0, "removed": 2, "shifted": 1}
    assert diff["same"] is False


def test_text_format_names_both_zones_and_the_71_hour_interval() -> None:
    result = explorer("diff", str(DST), str(WEEKDAYS))
    assert result.returncode == 5
    out = result.stdout
    assert "shifted  logical_date 2024-03-08T05:00:00Z (2024-03-08 00:00 EST)" in out
    assert "-> 2024-03-11T04:00:00Z (2024-03-11 00:00 EDT)" in out
    assert ") 71 h" in out and ") 24 h" in out
    assert "removed  logical_date 2024-03-10T05:00:00Z (2024-03-10 00:00 EST)" in out
    assert "0 added, 2 removed, 1 shifted" in out


def test_the_reverse_edit_adds_what_the_edit_removed() -> None:
    result = explorer("diff", str(WEEKDAYS), str(DST), "--format", "json")
    assert result.returncode == 5
    diff = json.loads(result.stdout)
    assert diff["counts"] == {"added": 2, "removed": 0, "shifted": 1}


def test_same_behaviour_exits_0() -> None:
    result = explorer("diff", str(DST), str(DST))
    assert result.returncode == 0, result.stderr
    assert "no change in behaviour" in result.stdout


def test_until_limits_the_clock_for_both() -> None:
    # Before the first changed run_after (Saturday 00:00 EST) nothing differs.
    result = explorer("diff", str(DST), str(WEEKDAYS), "--until", "2024-03-09T04:00:00Z")
    assert result.returncode == 0, result.stdout


def test_invalid_input_exits_1_or_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "schedule-explorer/1", "name": "x"}', encoding="utf-8")
    assert explorer("diff", str(DST), str(broken)).returncode == 1
    assert explorer("diff", str(DST), str(tmp_path / "missing.json")).returncode == 1
    bad_until = explorer("diff", str(DST), str(WEEKDAYS), "--until", "2024-03-09T00:00")
    assert bad_until.returncode == 2
    assert "no time zone" in bad_until.stderr
    # a date alone is midnight UTC (the --until help says so)
    assert explorer("diff", str(DST), str(WEEKDAYS), "--until", "2024-03-09").returncode == 0
    assert explorer("diff", str(DST)).returncode == 2


def test_expectations_that_flip_are_listed(tmp_path: Path) -> None:
    checked = ROOT / "tests" / "data" / "check" / "spring_forward_expectations.json"
    doc = json.loads(checked.read_text(encoding="utf-8"))
    report = next(d for d in doc["dags"] if d["dag_id"] == "midnight_report")
    report["schedule"]["args"]["cron"] = "0 0 * * 1-5"  # no Sunday report any more
    after = tmp_path / "weekday_report.json"
    after.write_text(json.dumps(doc), encoding="utf-8")
    result = explorer("diff", str(checked), str(after), "--format", "json")
    assert result.returncode == 5, result.stderr
    diff = json.loads(result.stdout)
    assert diff["expectations"] == [{"name": "no report on Sunday", "before": False, "after": True}]
    removed = [c["before"]["logical_date"] for c in diff["runs"] if c["change"] == "removed"]
    assert removed == ["2024-03-09T05:00:00Z", "2024-03-10T05:00:00Z"]
    text = explorer("diff", str(checked), str(after)).stdout
    assert "no report on Sunday: fails -> holds" in text


def test_the_run_limit_exits_3() -> None:
    result = explorer("diff", str(DST), str(WEEKDAYS), "--max-runs", "3")
    assert result.returncode == 3
    assert "more than 3 runs" in result.stderr


def test_a_changed_cron_hour_shows_runs_moved_and_the_override_lost(tmp_path: Path) -> None:
    doc = json.loads(DST.read_text(encoding="utf-8"))
    doc["dags"][0]["schedule"]["args"]["cron"] = "0 2 * * *"  # ingest_orders at 02:00
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(doc), encoding="utf-8")
    result = explorer("diff", str(DST), str(moved))
    assert result.returncode == 5
    text = result.stdout
    assert "moved +2 h" in text
    assert " 0 added" in text or "\n0 added" in text
    assert "warning: the override of ingest_orders" in text and "matches no run" in text
    data = json.loads(explorer("diff", str(DST), str(moved), "--format", "json").stdout)
    shifted = [r for r in data["runs"] if r["change"] == "shifted"]
    assert shifted and all("logical_date" in r["fields"] for r in shifted)
    assert data["warnings"]
