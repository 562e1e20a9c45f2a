"""Every ``deploy_traces`` vector: deployments that change while runs exist (DEP-1..DEP-8).

Replayed with ``deploy_replay`` (the scheduler-trace replay plus the deploy,
remove, refresh and config steps, README section 7.9) and compared field by
field as ``test_scheduler_traces`` compares, plus ``dag_states`` and
``dropped_partition_requests`` in the order given.
"""

from __future__ import annotations

from typing import Any

from tests.conformance.deploy_replay import build, trace
from tests.conformance.test_scheduler_traces import _canonical_audit
from tests.conformance.traces import last_instant

FAMILY = "deploy_traces"


def test_deploy_trace(case: dict[str, Any]) -> None:
    sim, states = build(case)
    final = last_instant(case)
    sim.advance_to(final)
    got = trace(sim, final, states)
    expected = case["trace"]
    assert got["dag_states"] == expected["dag_states"]
    assert got["runs"] == expected["runs"]
    assert got["asset_events"] == expected["asset_events"]
    assert _canonical_audit(got["audit_log"]) == _canonical_audit(expected["audit_log"])
    assert got["dropped_partition_requests"] == expected["dropped_partition_requests"]
    assert got["at_end"] == expected["at_end"]
    assert got["final_time"] == expected["final_time"]
