"""SCH-2's pick does work in proportion to what a loop takes, not to every DAG due.

With thousands of DAGs due at the clock start and at most
``max_dagruns_to_create_per_loop`` (10) taken per loop, a loop that re-parsed,
re-sorted and re-queued every DAG still due made the start O(DAGs) per loop
(10,000 DAGs did not finish simulated day 1). These tests count the
DAGs a loop looks at (``sync_parse`` calls), never time anything, and check that
the DAGs are still picked in SCH-2's order (by next_dagrun_create_after, i.e.
run_after, then DAG order), ten per loop.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from explorer.engine import dagschedule
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule

START = datetime(2024, 3, 1, tzinfo=UTC)
DAGS = 300


def _dags() -> list[DagSpec]:
    """DAGs all due at the clock start: daily crons whose latest tick is before it
    (catchup=False, SCH-7), minutes spread so run_after orders them differently from
    their list order."""
    return [
        DagSpec(
            dag_id=f"d{i:03d}",
            timetable=timetable_from_schedule(f"{(i * 37) % 60} {(i * 7) % 24} * * *"),
            start_date=START - timedelta(days=3),
            tasks=(TaskSpec("t", duration=timedelta(minutes=1)),),
        )
        for i in range(DAGS)
    ]


def _simulate(
    monkeypatch: pytest.MonkeyPatch, parse_interval: timedelta
) -> tuple[Simulation, Counter[datetime]]:
    looked: Counter[datetime] = Counter()
    real = dagschedule.sync_parse

    def counting(sim: Any, dag: Any, t: datetime) -> None:
        looked[t] += 1
        real(sim, dag, t)

    monkeypatch.setattr(dagschedule, "sync_parse", counting)
    config = SchedulerConfig(loop_interval=timedelta(seconds=1), parse_interval=parse_interval)
    sim = Simulation(_dags(), start=START, config=config)
    sim.advance_to(START + timedelta(seconds=40))  # before the first run ends (1 min)
    return sim, looked


@pytest.mark.plain_only
def test_a_loop_looks_only_at_new_due_dags_and_those_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim, looked = _simulate(monkeypatch, timedelta(hours=1))
    loops = sorted(looked)
    # 300 due DAGs, 10 a loop: 30 loops create them all (SCH-2).
    assert len(sim.runs) == DAGS
    created = Counter(run.created_at for run in sim.runs)
    assert set(created.values()) == {10}
    assert len(created) == DAGS // 10
    # Each DAG is parsed once when it falls due; no newer parse comes within the
    # 30 loops, so the DAGs still waiting are not looked at again. Before: every loop
    # re-parsed all the DAGs still due (300 + 290 + ... = 4,650 calls).
    assert sum(looked.values()) == DAGS
    assert looked[loops[0]] == DAGS
    assert all(looked[t] == 0 for t in created if t != loops[0])


@pytest.mark.plain_only
def test_a_newer_parse_looks_only_at_waiting_dags_it_may_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SCH-4b: a DAG left waiting is parsed at the latest parse before the loop that
    takes it. With a parse every 10 s, the parses at 10 s and 20 s would change none
    of these DAGs (same file, same next-run answer until the next daily tick, no run
    changed), so they look at none of them; before, each looked at every DAG still
    waiting (200 at 10 s, 100 at 20 s). Each DAG still counts as parsed then."""
    sim, looked = _simulate(monkeypatch, timedelta(seconds=10))
    assert len(sim.runs) == DAGS
    assert looked[START] == DAGS
    assert sum(looked.values()) == DAGS
    for second in (10, 20):
        assert looked[START + timedelta(seconds=second)] == 0
    for dag in sim.dags.values():  # every DAG was parsed at the parse before its run
        (run,) = dag.runs
        second = int((run.created_at - START).total_seconds())
        assert dag.parsed_at == START + timedelta(seconds=10 * (second // 10))


def test_the_pick_follows_sch2_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loop k creates the runs of the DAGs ranked 10k..10k+9 by (run_after, DAG order)."""
    sim, _ = _simulate(monkeypatch, timedelta(hours=1))
    ranked = sorted(sim.dags.values(), key=lambda d: (d.runs[0].run_after, d.order))
    loops = sorted({run.created_at for run in sim.runs})
    for k, loop in enumerate(loops):
        assert {d.dag_id for d in ranked[10 * k : 10 * k + 10]} == {
            run.dag_id for run in sim.runs if run.created_at == loop
        }
