"""Every ``manual_runs`` vector: a manual run's interval, a partition key's date (TT-19, PT-17)."""

from __future__ import annotations

from typing import Any

import pytest

from explorer.engine.errors import EngineError
from tests.conformance.vectors import fmt, instant, timetable

FAMILY = "manual_runs"


def test_manual_run_intervals(case: dict[str, Any]) -> None:
    table = timetable(case["input"])
    assert table.name == case["resolved_timetable"]["timetable"]
    for probe in case["probes"]:
        run_after = instant(probe["run_after"])
        if "error" in probe:
            with pytest.raises(EngineError):
                table.infer_manual_data_interval(run_after=run_after)
            continue
        interval = table.infer_manual_data_interval(run_after=run_after)
        got = {
            "run_after": probe["run_after"],
            "data_interval_start": fmt(interval.start),
            "data_interval_end": fmt(interval.end),
        }
        assert got == probe
    for probe in case.get("partition_key_probes", []):
        if "error" in probe:
            with pytest.raises(EngineError):
                table.resolve_partition_date(probe["partition_key"])
            continue
        assert fmt(table.resolve_partition_date(probe["partition_key"])) == probe["partition_date"]
