"""The examination rotation's skip (RND-6, RND-4) against replaying every skipped loop.

The simulator skips loops in which nothing can change, yet each of them examines up
to 20 running runs and moves them to the back of the queue. :meth:`Rotation.skip`
computes those loops as one rotation of a list (or jumps whole periods); these tests
hold it to the plain replay, loop by loop, :meth:`Rotation.examine` ``count`` times, on
random queues: ties in run_after, runs of paused DAGs, runs that ended or started
again, entries never examined and entries examined before.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.examine import Rotation

T0 = datetime(2024, 3, 1, tzinfo=UTC)


@dataclass(eq=False)
class Run:
    """What the rotation reads of a DagRun."""

    name: int
    dag_id: str
    run_after: datetime
    state: str
    start_date: datetime | None
    last_scheduling_decision: datetime | None = None


@dataclass
class Dag:
    is_paused: bool


@st.composite
def rotations(draw: st.DrawFn) -> tuple[Rotation, dict[str, Any], int, int]:
    size = draw(st.integers(0, 70))
    paused_dags = draw(st.booleans())
    dags = {f"d{i}": Dag(paused_dags and draw(st.booleans())) for i in range(6)}
    rotation = Rotation()
    for name in range(size):
        started = T0 + timedelta(minutes=draw(st.integers(0, 3)))
        run = Run(
            name=name,
            dag_id=draw(st.sampled_from(sorted(dags))),
            run_after=T0 + timedelta(hours=draw(st.integers(0, 5))),  # ties are common
            state="running",
            start_date=started,
        )
        entry = (run.run_after, run, started)
        if draw(st.booleans()):
            rotation.started(run)  # type: ignore[arg-type]
            rotation.fresh[-1] = entry  # type: ignore[assignment]
        else:
            run.last_scheduling_decision = T0
            rotation.queue.append(entry)  # type: ignore[arg-type]
        ending = draw(st.integers(0, 9))
        if ending == 0:
            run.state = "success"  # ended: its entry is dead
        elif ending == 1:
            run.start_date = started + timedelta(hours=1)  # started again elsewhere
    rotation.changed()  # runs ended or started again outside a loop: as a script step says
    cap = draw(st.sampled_from((1, 3, 20)))
    count = draw(st.integers(1, 400))
    return rotation, dags, cap, count


def _replay(rotation: Rotation, dags: dict[str, Any], count: int, last: datetime, cap: int) -> None:
    for _ in range(count):
        if len(rotation.examine(dags, last, cap)) < cap:
            return


def _state(rotation: Rotation) -> tuple[list[int], list[int]]:
    def live(entries: Any) -> list[int]:
        return [
            run.name
            for _, run, started in entries
            if run.state == "running" and run.start_date == started
        ]

    rotation._sort_fresh()  # the order the next examination reads them in
    return live(rotation.fresh), live(rotation.queue[rotation.head :])


@settings(max_examples=300, deadline=None)
@given(rotations())
def test_skip_is_the_replay_of_every_skipped_loop(
    case: tuple[Rotation, dict[str, Any], int, int],
) -> None:
    rotation, dags, cap, count = case
    last = T0 + timedelta(days=1)
    fast, dags_fast = copy.deepcopy((rotation, dags))
    slow, dags_slow = copy.deepcopy((rotation, dags))
    fast.skip(dags_fast, count, last, cap)
    _replay(slow, dags_slow, count, last, cap)
    assert _state(fast) == _state(slow)
    stamps_fast = sorted(  # entries of ended runs are dead either way
        (run.name, run.last_scheduling_decision)
        for _, run, started in fast.entries()
        if run.state == "running" and run.start_date == started
    )
    stamps_slow = sorted(
        (run.name, run.last_scheduling_decision)
        for _, run, started in slow.entries()
        if run.state == "running" and run.start_date == started
    )
    assert stamps_fast == stamps_slow
    # Then one real loop examines the same runs in the same order.
    assert [r.name for r in fast.examine(dags_fast, last, cap)] == [
        r.name for r in slow.examine(dags_slow, last, cap)
    ]


def test_a_long_gap_jumps_whole_periods_and_lands_where_the_replay_does() -> None:
    dags = {"d": Dag(False)}
    rotation = Rotation()
    for name in range(47):
        run = Run(name, "d", T0 + timedelta(minutes=name % 7), "running", T0)
        rotation.started(run)  # type: ignore[arg-type]
    fast, slow = copy.deepcopy(rotation), copy.deepcopy(rotation)
    last = T0 + timedelta(days=1)
    fast.skip(dags, 86_400, last, 20)  # a day of one-second loops
    _replay(slow, dags, 86_400, last, 20)
    assert _state(fast) == _state(slow)
