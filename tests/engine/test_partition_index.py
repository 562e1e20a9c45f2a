"""Step 1 of a loop reads an index of the partition requests to evaluate (PT-4).

``fire_partition_requests`` used to scan every request ever opened at every loop,
a cost that grew with the horizon. These tests hold the index to the rules the scan
gave: the oldest requests first under the per-loop limit, a request evaluated again
when a new log arrives, and nothing left in the index once every request has run.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine import actions as act
from explorer.engine.assets import partitioned
from explorer.engine.assets.condition import AllOf, AssetKey, AssetNode
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.partitions import IdentityMapper
from explorer.engine.simulation import Simulation
from explorer.engine.ticks import ExplicitCadence, NoCadence
from explorer.engine.timetables.partitioned import PartitionedAssetTimetable

T0 = datetime(2025, 1, 2, tzinfo=UTC)
A = AssetKey("a", "s3://bucket/a")
B = AssetKey("b", "s3://bucket/b")


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def consumer(condition: AssetNode | AllOf) -> DagSpec:
    return DagSpec(
        "c",
        PartitionedAssetTimetable(assets=condition, default_partition_mapper=IdentityMapper()),
        max_active_runs=16,
        tasks=(TaskSpec("work", hold=True),),
    )


def simulate(dag: DagSpec, script: list[act.Action], ticks: list[datetime]) -> Simulation:
    return Simulation(
        [dag], start=T0, script=script, ticks=ExplicitCadence(ticks), parses=NoCadence()
    )


def test_the_oldest_requests_fire_first_under_the_per_loop_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PT-4: the loop evaluates at most MAX_PER_LOOP requests, oldest first; the rest
    are evaluated by the next loop (here 2 a loop, requests opened for keys c, a, b).
    Before the fix the loop's own "something changed" flag overwrote the one the limit
    set, so "b" waited for some other reason to loop (here: forever)."""
    monkeypatch.setattr(partitioned, "MAX_PER_LOOP", 2)
    script: list[act.Action] = [
        act.ExternalEvent(at=at(0.1), asset=A, partition_key="c"),
        act.ExternalEvent(at=at(0.2), asset=A, partition_key="a"),
        act.ExternalEvent(at=at(0.3), asset=A, partition_key="b"),
    ]
    sim = simulate(consumer(AssetNode(A)), script, [at(1), at(2)])
    sim.advance_to(at(2))
    created = {r.partition_key: r.created_at for r in sim.dags["c"].runs}
    assert created == {"c": at(1), "a": at(1), "b": at(2)}
    assert sim.state.partition_unevaluated == []  # every request ran: nothing to look at


def test_a_request_not_ready_is_evaluated_again_when_a_new_log_arrives() -> None:
    """PT-4: a request waiting for B stays out of later loops until B's event logs to it,
    then fires at the next loop."""
    script: list[act.Action] = [
        act.ExternalEvent(at=at(0.5), asset=A, partition_key="x"),
        act.ExternalEvent(at=at(2.5), asset=B, partition_key="x"),
    ]
    sim = simulate(consumer(AllOf((AssetNode(A), AssetNode(B)))), script, [at(1), at(2), at(3)])
    sim.advance_to(at(2))
    assert list(sim.dags["c"].runs) == []
    (request,) = sim.state.partition_requests
    assert request.evaluated and request not in sim.state.partition_unevaluated
    sim.advance_to(at(3))
    (run,) = sim.dags["c"].runs
    assert (run.partition_key, run.created_at) == ("x", at(3))
    assert sim.state.partition_unevaluated == []


@pytest.mark.parametrize(
    "name",
    [
        "hourly_to_daily_rollup.json",
        "ny_rollup_dst.json",
        "segment_rollup_regions.json",
        "weekly_fanout.json",
        "runtime_partitioned_export.json",
    ],
)
@pytest.mark.plain_only
def test_the_loops_verdict_is_the_reports(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``request_ready`` reads each member's verdict without building the report
    (``_member_satisfied``): at every evaluation it is the report's
    ``member_status(...)["satisfied"]`` (rollups waiting, satisfied, unreachable)."""
    from pathlib import Path

    from explorer.scenario import build_engine_inputs, load_scenario
    from explorer.scenario.simulate import make_simulation

    path = Path(__file__).parents[2] / "resources" / "scenarios" / name
    inputs = build_engine_inputs(load_scenario(path), source=path.name)
    sim = make_simulation(inputs)
    fast = partitioned._member_satisfied
    seen: list[bool] = []

    def checked(mapper: object, request: partitioned.PartitionRequest, key: AssetKey) -> bool:
        verdict = fast(mapper, request, key)  # type: ignore[arg-type]
        assert verdict == bool(partitioned.member_status(sim, request, key)["satisfied"])
        seen.append(verdict)
        return verdict

    monkeypatch.setattr(partitioned, "_member_satisfied", checked)
    sim.advance_to(inputs.until or inputs.start + timedelta(days=3))
    assert seen  # the example evaluates requests
