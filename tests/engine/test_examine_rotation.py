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
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.dag import DagSpec
from explorer.engine.dagstate import DagState
from explorer.engine.examine import Rotation, sort_key
from explorer.engine.runs import DagRun, RunState
from explorer.engine.timetables import timetable_from_schedule

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def running_run(
    name: int,
    dag_id: str,
    run_after: datetime,
    state: RunState,
    start_date: datetime | None,
) -> DagRun:
    """A running run as the rotation reads it; ``nth`` is its name in these tests. A real
    ``DagRun``: the compiled rotation (adr/0013) takes nothing else."""
    run = DagRun(
        dag_id, name, None, "scheduled", "timetable", None, None, run_after, T0,
        state=state, start_date=start_date,
    )  # fmt: skip
    run.id = name  # created in the order of their names
    return run


def Dag(is_paused: bool) -> DagState:
    """A DAG as the rotation reads it (paused or not); a real ``DagState``: the compiled
    rotation (adr/0013) takes nothing else."""
    return DagState(DagSpec("d", timetable_from_schedule(None)), 0, is_paused=is_paused)


@st.composite
def rotations(draw: st.DrawFn) -> tuple[Rotation, dict[str, Any], int, int]:
    size = draw(st.integers(0, 70))
    paused_dags = draw(st.booleans())
    dags = {f"d{i}": Dag(paused_dags and draw(st.booleans())) for i in range(6)}
    rotation = Rotation()
    for name in range(size):
        started = T0 + timedelta(minutes=draw(st.integers(0, 3)))
        run = running_run(
            name=name,
            dag_id=draw(st.sampled_from(sorted(dags))),
            run_after=T0 + timedelta(hours=draw(st.integers(0, 5))),  # ties are common
            state="running",
            start_date=started,
        )
        entry = (sort_key(run), run, started)
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
            run.nth
            for _, run, started in entries
            if run.state == "running" and run.start_date == started
        ]

    rotation._sort_fresh()  # the order the next examination reads them in
    return live(rotation.fresh), live(rotation.queue[rotation.head :])


@settings(max_examples=300, deadline=None)
@given(rotations())
@pytest.mark.plain_only
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
        (run.nth, run.last_scheduling_decision)
        for _, run, started in fast.entries()
        if run.state == "running" and run.start_date == started
    )
    stamps_slow = sorted(
        (run.nth, run.last_scheduling_decision)
        for _, run, started in slow.entries()
        if run.state == "running" and run.start_date == started
    )
    assert stamps_fast == stamps_slow
    # Then one real loop examines the same runs in the same order.
    assert [r.nth for r in fast.examine(dags_fast, last, cap)] == [
        r.nth for r in slow.examine(dags_slow, last, cap)
    ]


@pytest.mark.plain_only
def test_a_long_gap_jumps_whole_periods_and_lands_where_the_replay_does() -> None:
    dags = {"d": Dag(False)}
    rotation = Rotation()
    for name in range(47):
        run = running_run(name, "d", T0 + timedelta(minutes=name % 7), "running", T0)
        rotation.started(run)  # type: ignore[arg-type]
    fast, slow = copy.deepcopy(rotation), copy.deepcopy(rotation)
    last = T0 + timedelta(days=1)
    fast.skip(dags, 86_400, last, 20)  # a day of one-second loops
    _replay(slow, dags, 86_400, last, 20)
    assert _state(fast) == _state(slow)


def _order(run: DagRun) -> tuple[datetime, str, int]:
    """RND-6 and RND-8's order among runs stamped alike."""
    return (run.run_after, run.dag_id, run.id)


class PlainModel:
    """Step 5 as the plainest reading of RND-6 and RND-8: the runs never examined (by
    run_after, dag_id, id) before the examined ones; every loop takes the first ``cap``
    of unpaused DAGs, sorts them by run_after, dag_id and id and puts them at the back;
    an ended run leaves at once."""

    def __init__(self) -> None:
        self.fresh: list[DagRun] = []
        self.queue: list[DagRun] = []
        self.stamps: dict[int, datetime] = {}  # by name: when last examined

    def loop(self, paused: set[str], cap: int, now: datetime = T0) -> list[int]:
        order = sorted(self.fresh, key=_order) + self.queue
        taken = [r for r in order if r.dag_id not in paused][:cap]
        self.fresh = [r for r in self.fresh if r not in taken]
        self.queue = [r for r in self.queue if r not in taken]
        taken.sort(key=_order)
        self.queue += taken
        self.stamps.update((r.nth, now) for r in taken)
        return [r.nth for r in taken]

    def drop(self, run: DagRun) -> None:
        self.fresh = [r for r in self.fresh if r is not run]
        self.queue = [r for r in self.queue if r is not run]


#: One step between skips: ("start", how many, run_after spread), ("loop_end", pick, 0): a
#: loop that ends some of the runs it examined (``Rotation.ended``), ("end", pick, 0): a
#: run ended outside a loop (``Rotation.changed``), ("pause"/"unpause", dag, 0),
#: ("skip", loops, 0), ("until", pick, 0).
plain_steps = st.lists(
    st.one_of(
        st.tuples(st.just("start"), st.integers(1, 60), st.sampled_from((1, 3, 24))),
        st.tuples(st.just("loop_end"), st.integers(0, 10_000), st.just(0)),
        st.tuples(st.just("end"), st.integers(0, 10_000), st.just(0)),
        st.tuples(st.just("pause"), st.integers(0, 5), st.just(0)),
        st.tuples(st.just("unpause"), st.integers(0, 5), st.just(0)),
        st.tuples(st.just("skip"), st.integers(1, 300), st.just(0)),
        st.tuples(st.just("until"), st.integers(0, 10_000), st.just(0)),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(plain_steps, st.sampled_from((1, 3, 7, 20)), st.randoms(use_true_random=False))
def test_skips_and_the_loop_they_lead_to_are_the_plain_models(
    history: list[tuple[str, int, int]], cap: int, rnd: Any
) -> None:
    """The rotation (skips of up to 300 loops, ``examinations_until``, runs ended by the
    loop that examined them or outside a loop, pauses) against :class:`PlainModel`
    replaying every loop: ties in run_after are the rule (many DAGs due at the same
    midnight), the runs up to a few hundred, the cap rarely dividing their number."""
    dags = {f"d{i}": Dag(False) for i in range(6)}
    rotation, model = Rotation(), PlainModel()
    running: list[DagRun] = []
    now, made = T0, 0
    for kind, value, spread in history:
        now += timedelta(minutes=1)
        paused = {d for d, dag in dags.items() if dag.is_paused}
        if kind == "start":
            for _ in range(value):
                run_after = T0 + timedelta(hours=rnd.randrange(spread))
                run = running_run(made, f"d{rnd.randrange(6)}", run_after, "running", now)
                made += 1
                running.append(run)
                rotation.started(run)  # type: ignore[arg-type]
                model.fresh.append(run)
        elif kind == "loop_end":
            examined = rotation.examine(dags, now, cap, paused)  # type: ignore[arg-type]
            assert [r.nth for r in examined] == model.loop(paused, cap, now)
            ending = [r for i, r in enumerate(examined) if (value >> i) & 1]
            for run in ending:
                run.state = "success"  # type: ignore[assignment]
                running.remove(run)  # type: ignore[arg-type]
                model.drop(run)  # type: ignore[arg-type]
            if ending:
                rotation.ended(len(examined))
        elif kind == "end" and running:
            run = running.pop(value % len(running))
            run.state = "success"
            model.drop(run)
            rotation.changed()
        elif kind in ("pause", "unpause"):
            dags[f"d{value}"].is_paused = kind == "pause"
            rotation.changed()
        elif kind == "skip":
            rotation.skip(dags, value, now, cap, paused)  # type: ignore[arg-type]
            for _ in range(value):
                model.loop(paused, cap, now)  # a skip stamps its runs with its latest loop
        elif kind == "until" and running:
            picked = [running[(value * (i + 1)) % len(running)] for i in range(1 + value % 3)]
            wanted = {id(r): r for r in picked}.values()  # runs are unhashable: by identity
            count = rotation.examinations_until(
                {id(r) for r in wanted},
                dags,  # type: ignore[arg-type]
                cap,
                paused,
            )
            probe = PlainModel()
            probe.fresh, probe.queue = model.fresh[:], model.queue[:]
            names = {r.nth for r in wanted}
            loops = range(1, len(running) // cap + 3)
            seen = next((n for n in loops if names & set(probe.loop(paused, cap))), None)
            assert count == seen
        stamps = {r.nth: r.last_scheduling_decision for r in running}
        assert stamps == {r.nth: model.stamps.get(r.nth) for r in running}
    # The order left is the model's: the next loops examine what it examines.
    paused = {d for d, dag in dags.items() if dag.is_paused}
    for _ in range(len(running) // cap + 2):
        now += timedelta(minutes=1)
        got = rotation.examine(dags, now, cap, paused)  # type: ignore[arg-type]
        assert [r.nth for r in got] == model.loop(paused, cap)
        assert all(r.last_scheduling_decision == now for r in got)
