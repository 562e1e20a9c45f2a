"""Every ``timetable_sequences`` vector: the chain of scheduled runs Airflow 3.3.2 creates.

The procedure is the conformance README's section 2.3: ask the timetable for
the next run with the previous answer as reference, the clock frozen at
``now`` (or ``now_per_call[i]``).
"""

from __future__ import annotations

from typing import Any

import pytest

from explorer.engine.dag import DagSpec
from explorer.engine.errors import EngineError
from explorer.engine.types import ReferenceRun
from tests.conformance.vectors import fmt, instant, timetable

FAMILY = "timetable_sequences"

CONSTRUCTION_STAGES = {"dag", "validate", "serialization"}


def _build(case: dict[str, Any]) -> DagSpec:
    table = timetable(case["input"])
    max_active_runs = 1 if table.active_runs_limit == 1 else 16
    return DagSpec(
        dag_id=case["id"],
        timetable=table,
        start_date=instant(case["start_date"]),
        end_date=instant(case["end_date"]),
        catchup=case["catchup"],
        max_active_runs=max_active_runs,
    )


def _run_dict(info: Any, partitioned: bool) -> dict[str, Any]:
    interval = info.data_interval
    out = {
        "logical_date": fmt(info.logical_date),
        "data_interval_start": fmt(interval.start if interval else None),
        "data_interval_end": fmt(interval.end if interval else None),
        "run_after": fmt(info.run_after),
    }
    if partitioned:
        out["partition_key"] = info.partition_key
        out["partition_date"] = fmt(info.partition_date)
    return out


def test_timetable_sequence(case: dict[str, Any]) -> None:
    error = case.get("error")
    if error and error["stage"] in CONSTRUCTION_STAGES:
        with pytest.raises(EngineError):
            _build(case)
        return
    dag = _build(case)
    if "resolved_timetable" in case:
        assert dag.timetable.name == case["resolved_timetable"]["timetable"]
    clocks = case.get("now_per_call") or [case["now"]] * case["max_runs"]
    partitioned = dag.timetable.partitioned
    runs: list[dict[str, Any]] = []
    last = None
    stopped_by = "max_runs"
    for index, clock in enumerate(clocks):
        try:
            info = dag.timetable.next_dagrun_info(
                last=last, restriction=dag.restriction, now=instant(clock)
            )
        except EngineError:
            assert error is not None and error["stage"] == "next_dagrun_info"
            assert error["call_index"] == index
            stopped_by = "error"
            break
        if info is None:
            stopped_by = "none_returned"
            break
        runs.append(_run_dict(info, partitioned))
        last = ReferenceRun.of(info)
    assert runs == case["runs"]
    assert stopped_by == case["stopped_by"]
