"""Every ``partition_mappers`` vector: mappers, windows and wait policies (README section 4).

Mapper cases run the spec through the engine as the scheduler would: map each
upstream key (PT-3), apply the fan-out cap, stamp partition dates (PT-13),
and for rollups list the expected upstream keys and ask the wait policy
(PT-8, PT-10). A ``construct_error`` at either stage means the spec must be
refused when it is built. Error texts are Airflow's and are not compared.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from explorer.engine.partitions import (
    PartitionError,
    PartitionMapper,
    RollupMapper,
    build_mapper,
    build_wait_policy,
    build_window,
    mapper_to_spec,
    plan_queue,
)
from tests.conformance.vectors import fmt

FAMILY = "partition_mappers"


def test_partition_mappers(case: dict[str, Any]) -> None:
    {"mapper": _mapper_case, "window": _window_case, "wait_policy": _policy_case}[case["kind"]](
        case
    )


def _mapper_case(case: dict[str, Any]) -> None:
    if "construct_error" in case:
        with pytest.raises(PartitionError):
            build_mapper(case["mapper"])
        return
    mapper = build_mapper(case["mapper"])
    assert mapper_to_spec(mapper) == case["resolved_mapper"]
    assert mapper.is_rollup is case["is_rollup"]
    assert mapper.effective_max_downstream_keys() == case["effective_max_downstream_keys"]
    assert mapper.carries_partition_date is case["carries_producer_partition_date"]
    for entry in case["inputs"]:
        _check_input(mapper, entry)
    for probe in case["partition_date_probes"]:
        _check_partition_date(mapper, probe)
    for probe in case.get("upstream_probes", []):
        _check_upstream(mapper, probe)
    for check in case.get("rollup_checks", []):
        _check_rollup(mapper, check)


def _check_input(mapper: PartitionMapper, entry: dict[str, Any]) -> None:
    key = entry["key"]
    if "error" in entry:
        with pytest.raises(PartitionError):
            mapper.to_downstream(key)
        with pytest.raises(PartitionError):
            plan_queue(mapper, key)
        return
    mapped = mapper.to_downstream(key)
    plan = plan_queue(mapper, key)
    produced = list(plan.produced)
    queued = list(plan.queued)
    if "downstream_unordered" in entry:
        # Airflow iterates a set here; the vector shows it sorted (README 4.2).
        assert sorted(mapped) == entry["downstream_unordered"]
        produced, queued = sorted(produced), sorted(queued)
    else:
        assert mapped == entry["downstream"]
    assert plan.cap_exceeded is entry["cap_exceeded"]
    assert queued == entry["queued_keys"]
    expected_dates = entry["partition_dates"]
    assert [probe["downstream_key"] for probe in expected_dates] == produced[:3]
    for probe in expected_dates:
        _check_partition_date(mapper, probe)


def _check_partition_date(mapper: PartitionMapper, probe: dict[str, Any]) -> None:
    key = probe["downstream_key"]
    if "error" in probe:
        with pytest.raises(PartitionError):
            mapper.to_partition_date(key)
        return
    # No producer date rides along in these vectors, so a carrying mapper keeps None.
    date = mapper.to_partition_date(key) or mapper.carry_partition_date(None)
    assert fmt(date) == probe["partition_date"]


def _check_upstream(mapper: PartitionMapper, probe: dict[str, Any]) -> None:
    assert isinstance(mapper, RollupMapper)
    key = probe["downstream_key"]
    if "error" in probe:
        with pytest.raises(PartitionError):
            mapper.to_upstream(key)
        return
    assert sorted(mapper.to_upstream(key)) == probe["upstream_keys"]


def _check_rollup(mapper: PartitionMapper, check: dict[str, Any]) -> None:
    assert isinstance(mapper, RollupMapper)
    key = check["downstream_key"]
    if "error" in check:
        with pytest.raises(PartitionError):
            mapper.status(key, frozenset(check["arrived"]))
        return
    assert len(mapper.to_upstream(key)) == check["expected_count"]
    verdict = mapper.status(key, frozenset(check["arrived"]))
    assert verdict.satisfied is check["satisfied"]
    assert verdict.unreachable is check["unreachable"]
    assert verdict.unreachable_reason == check["unreachable_reason"]


def _window_case(case: dict[str, Any]) -> None:
    if "construct_error" in case:
        with pytest.raises(PartitionError):
            build_window(case["window"])
        return
    window = build_window(case["window"])
    anchor: datetime | str = case["anchor"]
    if window.decodes_to is datetime:
        anchor = datetime.fromisoformat(case["anchor"])
    if "error" in case:
        with pytest.raises(PartitionError):
            window.to_upstream(anchor)
        return
    members = [m.isoformat() if isinstance(m, datetime) else m for m in window.to_upstream(anchor)]
    if "members_unordered" in case:
        assert sorted(members) == case["members_unordered"]
    else:
        assert members == case["members"]


def _policy_case(case: dict[str, Any]) -> None:
    if "construct_error" in case:
        with pytest.raises(PartitionError):
            build_wait_policy(case["policy"])
        return
    policy = build_wait_policy(case["policy"])
    verdict = policy.is_satisfied_by_keys(
        matched=frozenset(case["arrived"]), expected=frozenset(case["expected"])
    )
    assert verdict.satisfied is case["satisfied"]
    assert verdict.unreachable is case["unreachable"]
    assert verdict.unreachable_reason == case["unreachable_reason"]
