"""The marks a deployment change leaves on the runs (DEP-1..DEP-7).

Each mark comes from the one behavioural diff (ADR 0009) of the scenario against
itself without its change actions; these tests check what the marks say on the
bundled change_* examples and on small scenarios of the SEMANTICS examples.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from explorer.analysis.deploy_marks import deploy_report_for
from explorer.engine.change_marks import (
    ChangeMark,
    DeployReport,
    baseline_script,
    change_instants,
    marks_between,
)
from explorer.engine.dagfile import DeployDag, SetOption
from explorer.scenario import build_engine_inputs, load_scenario, loads_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "scenarios"


def _z(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _report_of_file(name: str) -> DeployReport:
    inputs = build_engine_inputs(load_scenario(EXAMPLES / name))
    assert inputs.until is not None
    report = deploy_report_for(inputs, inputs.until)
    assert report is not None
    return report


def _report(doc: dict[str, Any]) -> DeployReport:
    inputs = build_engine_inputs(loads_scenario(json.dumps(doc)))
    assert inputs.until is not None
    report = deploy_report_for(inputs, inputs.until)
    assert report is not None
    return report


def _kinds(marks: list[ChangeMark] | tuple[ChangeMark, ...], dag_id: str) -> list[str]:
    return [m.kind for m in marks if m.dag_id == dag_id]


def _cdi_scenario(schedule: str, new_schedule: str, at: str, until: str) -> dict[str, Any]:
    dag = {
        "dag_id": "etl",
        "schedule": schedule,
        "start_date": "2024-06-01T00:00:00Z",
        "catchup": False,
        "tasks": [{"task_id": "t", "duration": "PT5M"}],
    }
    return {
        "format": "schedule-explorer/2",
        "name": "cdi edit",
        "clock": {"start": "2024-06-01T00:00:00Z", "until": until},
        "airflow_config": {"scheduler": {"create_cron_data_intervals": True}},
        "dags": [dag],
        "script": [{"at": at, "do": "deploy", "dag": {**dag, "schedule": new_schedule}}],
    }


def test_no_change_action_no_report() -> None:
    inputs = build_engine_inputs(load_scenario(EXAMPLES / "catchup_flood.json"))
    assert inputs.until is not None
    assert deploy_report_for(inputs, inputs.until) is None


def test_the_baseline_drops_the_change_actions_and_what_only_they_add() -> None:
    inputs = build_engine_inputs(
        load_scenario(EXAMPLES / "change_condition_edited_with_queued_events.json")
    )
    script = list(inputs.script)
    assert any(isinstance(a, DeployDag) for a in script)
    base = baseline_script(script, ["sales_mart", "finance_mart"])
    assert not any(isinstance(a, DeployDag | SetOption) for a in base)
    assert len(base) == len(script) - 2
    changes = change_instants(script)
    assert [(c.at, c.deployed) for c in changes] == [
        (_z("2024-06-01T11:00:00Z"), ("sales_mart", "finance_mart"))
    ]


def test_airflow_2_to_3_marks_the_skipped_date_and_every_shifted_ds() -> None:
    report = _report_of_file("change_airflow2_to_3_daily_cron.json")
    (change,) = report.changes
    assert change.label == "[scheduler] create_cron_data_intervals = False"
    skipped = [m for m in report.marks if m.kind == "skipped"]
    assert [(m.start, m.end, m.rule) for m in skipped] == [
        (_z("2024-06-04T00:00:00Z"), _z("2024-06-05T00:00:00Z"), "DEP-7")
    ]
    assert "logical_date 2024-06-04 00:00Z never exists" in skipped[0].text()
    shifted = [m for m in report.marks if m.kind == "shifted"]
    # every run after the parse: the run at midnight now has its own day as ds
    assert [m.end for m in shifted] == [_z(f"2024-06-0{d}T00:00:00Z") for d in (5, 6, 7, 8)]
    assert all(m.label == "ds +24 h" and m.run_id and m.before_run_id for m in shifted)
    assert "(ds 2024-06-05)" in shifted[0].text() and "(ds 2024-06-04)" in shifted[0].text()


def test_catchup_flipped_marks_the_back_filled_runs_with_dep_3() -> None:
    report = _report_of_file("change_catchup_flipped_after_pause.json")
    catchup = [m for m in report.marks if m.kind == "catchup"]
    # 06-04 .. 06-09 exist only with the change; 06-10 runs either way (not marked)
    assert [m.start for m in catchup] == [_z(f"2024-06-{d:02d}T00:00:00Z") for d in range(4, 10)]
    assert {m.rule for m in catchup} == {"DEP-3"}
    assert all(m.dag_id == "daily_sync" for m in catchup)
    assert "without the change this run never exists" in catchup[0].text()
    assert not _kinds(report.marks, "daily_sync_unchanged")


def test_queued_rows_dropped_and_kept_at_a_condition_edit() -> None:
    report = _report_of_file("change_condition_edited_with_queued_events.json")
    kept = [m for m in report.marks if m.kind == "events_kept"]
    dropped = [m for m in report.marks if m.kind == "events_dropped"]
    assert [(m.dag_id, m.label, m.start, m.rule) for m in kept] == [
        ("sales_mart", "row kept: orders", _z("2024-06-01T10:10:00Z"), "DEP-5")
    ]
    assert [(m.dag_id, m.label, m.start, m.rule) for m in dropped] == [
        ("finance_mart", "row dropped: refunds", _z("2024-06-01T10:20:00Z"), "DEP-5")
    ]
    # the kept row fires at once under orders | customers, run_after = the row's time
    fired = [m for m in report.marks if m.kind == "catchup" and m.dag_id == "sales_mart"]
    assert [(m.start, m.rule) for m in fired] == [(_z("2024-06-01T10:10:00Z"), "DEP-5")]


def test_cron_hour_edit_marks_runs_moved_not_skipped() -> None:
    report = _report_of_file("change_cron_edit_ny_dst.json")
    kinds = set(_kinds(report.marks, "ny_morning_report"))
    assert kinds == {"shifted"}
    first = report.marks[0]
    assert first.label == "4 h 30 min earlier"
    assert first.rule == "DEP-1"
    assert "nothing is re-run or back-filled" in first.text()


def test_removed_then_readded_dag_is_marked_stale_and_its_missed_run_late() -> None:
    report = _report_of_file("change_dag_removed_and_readded.json")
    assert [c.label for c in report.changes] == ["remove hourly_etl", "deploy hourly_etl"]
    (stale,) = [m for m in report.marks if m.kind == "stale"]
    assert (stale.start, stale.end, stale.rule) == (
        _z("2024-06-01T02:10:00Z"),
        _z("2024-06-01T03:30:00Z"),
        "DEP-6",
    )
    (late,) = [m for m in report.marks if m.kind == "catchup"]
    assert (late.start, late.rule) == (_z("2024-06-01T03:00:00Z"), "DEP-6")
    assert late.end.replace(second=0) == _z("2024-06-01T03:50:00Z")  # created once a slot frees


def test_data_interval_hour_moved_covers_twelve_hours_twice() -> None:
    # DEP-2: 0 0 -> 0 12 at 06-03 06:00, last [06-02, 06-03) -> next [06-02 12:00, 06-03 12:00)
    report = _report(
        _cdi_scenario("0 0 * * *", "0 12 * * *", "2024-06-03T06:00:00Z", "2024-06-04T13:00:00Z")
    )
    (twice,) = [m for m in report.marks if m.kind == "run_twice"]
    assert (twice.start, twice.end, twice.rule) == (
        _z("2024-06-02T12:00:00Z"),
        _z("2024-06-03T00:00:00Z"),
        "DEP-2",
    )
    assert twice.label == "run twice 12 h"


def test_data_interval_coarser_leaves_the_rest_of_the_day_uncovered() -> None:
    # DEP-2: hourly -> daily at 12:20 (last [11:00, 12:00)): 12:00-24:00 is never covered
    report = _report(
        _cdi_scenario("0 * * * *", "0 0 * * *", "2024-06-01T12:20:00Z", "2024-06-03T01:00:00Z")
    )
    skipped = [m for m in report.marks if m.kind == "skipped"]
    assert [(m.start, m.end, m.rule) for m in skipped] == [
        (_z("2024-06-01T12:00:00Z"), _z("2024-06-02T00:00:00Z"), "DEP-2")
    ]
    assert skipped[0].label == "skipped 12 h"


def test_marks_appear_when_the_clock_reaches_them() -> None:
    report = _report_of_file("change_catchup_flipped_after_pause.json")
    assert marks_between(report.marks, _z("2024-06-10T09:30:00Z")) == []
    assert len(marks_between(report.marks, _z("2024-06-10T11:00:00Z"))) == 6
