"""A parse looks again only at the waiting DAGs it may change (SCH-4b).

10,000 DAGs leave thousands due at once and ten taken per loop (SCH-2): re-parsing
every DAG still waiting at each parse instant (30 s) made a loop cost O(backlog).
A waiting DAG is looked at again by a parse only when its next-run answer may have
moved (its memo expired: a cron tick passed), its runs changed (a manual run: the
max_active_runs flag, TT-3's reference) or the options changed (DEP-7). These tests
count the DAGs looked at and check that the record is the one every-DAG re-parsing
gives (the same simulation with each waiting DAG looked at by every parse).
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from explorer.engine import actions as act
from explorer.engine import dagschedule
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.record import run_row
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule

START = datetime(2024, 3, 1, tzinfo=UTC)
DAGS = 600


def _dags() -> list[DagSpec]:
    """All due at the clock start (catchup=False, SCH-7): a third every minute (their
    answer moves at each minute tick while they wait), the others daily; every fifth
    with max_active_runs=1."""
    return [
        DagSpec(
            dag_id=f"d{i:03d}",
            timetable=timetable_from_schedule(
                "* * * * *" if i % 3 == 0 else f"{(i * 37) % 60} {(i * 7) % 24} * * *"
            ),
            start_date=START - timedelta(days=3),
            max_active_runs=1 if i % 5 == 0 else 16,
            tasks=(TaskSpec("t", duration=timedelta(minutes=5)),),
        )
        for i in range(DAGS)
    ]


#: Manual runs of DAGs still waiting (every-minute DAGs with max_active_runs=1: their
#: run_after is the clock start, so they come last in SCH-2's order and wait until
#: 40-60 s; the next parse sets their flag and they leave the waiting DAGs), and a
#: pause and an unpause of a waiting DAG.
SCRIPT: tuple[act.Action, ...] = (
    act.Trigger(START + timedelta(seconds=25), "d585"),
    act.Trigger(START + timedelta(seconds=25), "d570"),
    act.Trigger(START + timedelta(seconds=41), "d555"),
    act.Pause(START + timedelta(seconds=12), "d597"),
    act.Unpause(START + timedelta(seconds=47), "d597"),
)


def _simulate(*, every_parse: bool) -> tuple[Simulation, Counter[datetime]]:
    with pytest.MonkeyPatch.context() as mp:
        looked: Counter[datetime] = Counter()
        real = dagschedule.sync_parse

        def counting(sim: Any, dag: Any, t: datetime) -> None:
            looked[t] += 1
            real(sim, dag, t)

        mp.setattr(dagschedule, "sync_parse", counting)
        if every_parse:  # the reference: every parse looks at every waiting DAG
            mp.setattr(dagschedule, "_parse_holds_until", lambda sim, dag, p: dagschedule._ALWAYS)
        config = SchedulerConfig(
            loop_interval=timedelta(seconds=1), parse_interval=timedelta(seconds=10)
        )
        sim = Simulation(_dags(), start=START, config=config, script=SCRIPT)
        sim.advance_to(START + timedelta(seconds=100))
        return sim, looked


def _looked_by_parses(looked: Counter[datetime]) -> dict[int, int]:
    """DAGs looked at by the loops at the parse instants after the first one."""
    return {s: looked[START + timedelta(seconds=s)] for s in range(10, 100, 10)}


@pytest.mark.plain_only
def test_parses_look_only_at_waiting_dags_they_may_change() -> None:
    _, looked = _simulate(every_parse=False)
    _, reference = _simulate(every_parse=True)
    ours, theirs = _looked_by_parses(looked), _looked_by_parses(reference)
    # Before the first minute tick only the DAGs whose runs changed are looked at (the
    # pause and unpause reschedule d597 themselves); the reference looks at every DAG
    # still waiting (500 at 10 s, then about 100 fewer at each parse).
    assert [ours[s] for s in (10, 20, 30, 40, 50)] == [0, 0, 2, 0, 1]
    assert [theirs[s] for s in (10, 20, 30, 40)] == [500, 399, 299, 197]
    # At 01:00 the every-minute DAGs' answer moves: each one still waiting is looked at,
    # as by the reference; the daily DAGs never are while they wait.
    assert ours[60] == theirs[60] > 0
    assert sum(theirs.values()) > 5 * sum(ours.values())


def test_the_record_is_the_one_of_every_parse_looking_at_every_dag() -> None:
    sim, _ = _simulate(every_parse=False)
    ref, _ = _simulate(every_parse=True)
    assert len(sim.runs) > 0
    assert [run_row(r) for r in sim.runs] == [run_row(r) for r in ref.runs]
    for dag_id, dag in sim.dags.items():
        other = ref.dags[dag_id]
        assert (dag.parsed_at, dag.next_run, dag.exceeds_max_active_runs) == (
            other.parsed_at,
            other.next_run,
            other.exceeds_max_active_runs,
        ), dag_id
    # The manual runs made their DAGs exceed max_active_runs at the next parse (SCH-5).
    for dag_id in ("d585", "d570", "d555"):
        assert sim.dags[dag_id].exceeds_max_active_runs
        assert [r.run_type for r in sim.dags[dag_id].runs] == ["manual"]
