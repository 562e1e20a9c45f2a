"""Every ``scheduler_traces`` vector: whole scenarios replayed through the simulated scheduler.

The trace is compared field by field in the orders README section 7.6 fixes.
Where Airflow's own order is arbitrary (audit-log entries of one instant and
one kind), both sides are put in one canonical order first.
"""

from __future__ import annotations

import json
from typing import Any

from tests.conformance.traces import build, last_instant, trace

FAMILY = "scheduler_traces"


def _canonical_audit(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(entries, key=lambda e: (e["at"], e["event"], json.dumps(e, sort_keys=True)))


def test_scheduler_trace(case: dict[str, Any]) -> None:
    sim = build(case)
    final = last_instant(case)
    sim.advance_to(final)
    got = trace(sim, final)
    expected = case["trace"]
    assert got["runs"] == expected["runs"]
    assert got["asset_events"] == expected["asset_events"]
    assert _canonical_audit(got["audit_log"]) == _canonical_audit(expected["audit_log"])
    assert got["at_end"] == expected["at_end"]
    assert got["final_time"] == expected["final_time"]
