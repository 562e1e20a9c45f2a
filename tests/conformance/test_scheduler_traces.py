"""Every ``scheduler_traces`` vector: whole scenarios replayed through the simulated scheduler.

Cases that use assets or partitions belong to later issues; they are marked
strict xfail by a rule on what the case contains (never by id), so they start
failing the suite the moment the engine supports them and the mark is left.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance.traces import build, last_instant, needs_partitions, trace

FAMILY = "scheduler_traces"


def select_case(case: dict[str, Any]) -> tuple[Any, ...]:
    if needs_partitions(case):
        return (
            pytest.mark.xfail(strict=True, reason="partitioned asset scheduling: issue 4"),
        )
    return ()


def test_scheduler_trace(case: dict[str, Any]) -> None:
    sim = build(case)
    final = last_instant(case)
    sim.advance_to(final)
    got = trace(sim, final)
    expected = case["trace"]
    assert got["runs"] == expected["runs"]
    assert got["at_end"]["dags"] == expected["at_end"]["dags"]
    assert got == expected
