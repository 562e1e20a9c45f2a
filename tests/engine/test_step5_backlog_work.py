"""Runs waiting for step 5 are not walked at every loop (RND-6).

At most ``max_dagruns_per_loop_to_schedule`` (20) running runs are examined per
loop; under a backlog thousands of runs whose tasks are all done wait in
``SimState.touched`` for their turn. The loop used to walk all of them several
times an instant (the reasons for a next loop, the paused sweep of RND-4, the
clean-up after step 5): O(backlog) per loop. These tests count the entries of
``touched`` a simulation reads, never time anything, and check the paused sweep
still ends a paused DAG's finished runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule

START = datetime(2024, 3, 1, tzinfo=UTC)


class CountingDict(dict[Any, Any]):
    """A dict that counts the entries its walks yield (a walk may stop early)."""

    walked = 0

    def values(self) -> Iterator[Any]:  # type: ignore[override]
        for value in super().values():
            CountingDict.walked += 1
            yield value

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        for item in super().items():
            CountingDict.walked += 1
            yield item

    def __iter__(self) -> Iterator[Any]:
        for key in super().__iter__():
            CountingDict.walked += 1
            yield key


def _dags(n: int) -> list[DagSpec]:
    """Every-minute DAGs with a 5 min task: runs end faster than 20 a loop are
    examined among hundreds running, so finished runs pile up waiting for step 5."""
    return [
        DagSpec(
            dag_id=f"d{i:03d}",
            timetable=timetable_from_schedule("* * * * *"),
            start_date=START - timedelta(days=1),
            max_active_runs=100,
            tasks=(TaskSpec("t", duration=timedelta(minutes=5)),),
        )
        for i in range(n)
    ]


def _simulate(script: tuple[act.Action, ...] = ()) -> tuple[Simulation, int, int]:
    config = SchedulerConfig(loop_interval=timedelta(seconds=1))
    sim = Simulation(_dags(400), start=START, config=config, script=script)
    sim.state.touched = CountingDict()
    CountingDict.walked = 0
    peak = 0
    at = START
    for _ in range(20 * 60):  # 20 minutes, watching the backlog
        at += timedelta(seconds=1)
        sim.advance_to(at)
        peak = max(peak, len(sim.state.touched))
    return sim, CountingDict.walked, peak


def test_a_loop_does_not_walk_the_runs_waiting_for_step5() -> None:
    sim, walked, peak = _simulate()
    loops = 20 * 60
    assert peak > 300  # the backlog the loops run under
    # Before: each instant walked every waiting run several times (2,115,650 entries
    # read here; now 188).
    assert walked < loops
    # Runs still end, 20 examined a loop at most (RND-6).
    ended = [r for r in sim.runs if r.state == "success"]
    assert len(ended) > 0
    per_loop: dict[datetime, int] = {}
    for r in ended:
        assert r.end_date is not None
        per_loop[r.end_date] = per_loop.get(r.end_date, 0) + 1
    assert max(per_loop.values()) <= 20


def test_the_paused_sweep_still_ends_finished_runs_of_paused_dags() -> None:
    """RND-4: a paused DAG's running runs are not examined; the sweep after step 5
    ends those whose tasks are all done, read from the paused DAGs' runs."""
    pause = act.Pause(START + timedelta(minutes=5, seconds=30), "d007")
    sim, _, _ = _simulate((pause,))
    runs = sim.dags["d007"].runs
    assert runs and all(r.state == "success" for r in runs)
    at_pause = [r for r in runs if r.created_at < pause.at and r.end_date is not None]
    # Runs running at the pause end at the first loop after their task ends (the sweep),
    # not at their turn in the examination.
    swept = [r for r in at_pause if r.end_date is not None and r.end_date > pause.at]
    assert swept
    for r in swept:
        (task,) = r.tasks
        assert task.end_date is not None and r.end_date is not None
        assert r.end_date - task.end_date <= timedelta(seconds=1)
