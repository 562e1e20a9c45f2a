"""Every ``scheduler_traces`` vector, its runs written as ``explorer simulate --format csv``
writes them (the columnar writer, ``explorer.engine.run_table``): byte for byte the
text of ``csv.DictWriter`` over ``record.run_row`` of every run read as an object."""

from __future__ import annotations

from typing import Any

from tests.conformance.traces import build, last_instant
from tests.engine.test_run_table import columnar_csv, reference_csv

FAMILY = "scheduler_traces"


def test_trace_runs_as_csv(case: dict[str, Any]) -> None:
    sim = build(case)
    sim.advance_to(last_instant(case))
    expected = reference_csv(sim.runs)
    assert expected.count("\n") == len(sim.runs) + 1
    assert columnar_csv(sim.runs) == expected
    assert columnar_csv(sim.runs, chunk=3) == expected
