"""The fixed cost of a loop: the shortcuts the loop and step 5's rotation take
hold to the plain reading they replace.

* step 5 matches the examined runs with ``touched`` by identity when few runs wait
  (``loop._examined_touched``): the run a key holds in ``touched`` is the live run the
  rotation holds, on random scenarios and on a state restored from a checkpoint and a
  Back snapshot (copies, whose runs must stay shared between the two);
* the rotation's sort key (``examine.sort_key``) orders runs by run_after, then dag_id,
  then id (RND-6, RND-8);
* the first place of a wanted run (``examine._first_place``) is the plain scan's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine import loop
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.examine import _first_place, sort_key
from explorer.engine.runs import DagRun
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule
from tests.engine.test_random_scenarios import (
    SPAN,
    START,
    Scenario,
    play,
    record,
    scenario_settings,
    scenarios,
)


@contextmanager
def matching_checked() -> Iterator[list[int]]:
    """Every call of ``loop._examined_touched`` is also matched by key and compared; the
    list yields how many runs each call matched."""
    plain = loop._examined_touched
    calls: list[int] = []

    def both(examined: list[Any], touched: dict[tuple[str, int], Any]) -> list[Any]:
        by_key = [r for r in examined if (r.dag_id, r.nth) in touched]
        got = plain(examined, touched)
        assert [id(r) for r in got] == [id(r) for r in by_key]
        calls.append(len(got))
        return got

    loop._examined_touched = both  # type: ignore[assignment]
    try:
        yield calls
    finally:
        loop._examined_touched = plain  # type: ignore[assignment]


@scenario_settings(60)
@given(scenarios())
def test_step5_matches_touched_runs_as_by_key(scenario: Scenario) -> None:
    with matching_checked():
        sim = play(scenario)
        sim.rewind_to(START + SPAN / 2)  # a checkpoint's copy, replayed
        sim.advance_to(START + SPAN)
    assert record(sim) == record(play(scenario))


def _busy() -> Simulation:
    """Runs a minute apart, more running than a loop examines (the backlog branch)."""
    dags = [
        DagSpec(
            dag_id=f"d{i:02d}",
            timetable=timetable_from_schedule("* * * * *"),
            start_date=START - timedelta(hours=1),
            max_active_runs=3,
            tasks=(TaskSpec("t", duration=timedelta(seconds=40 + 13 * (i % 7))),),
        )
        for i in range(40)
    ]
    config = SchedulerConfig(loop_interval=timedelta(seconds=5))
    return Simulation(dags, start=START, config=config, checkpoint_every=50)


@pytest.mark.plain_only
def test_step5_matches_touched_runs_as_by_key_after_restores() -> None:
    with matching_checked() as calls:
        sim = _busy()
        sim.advance_to(START + timedelta(minutes=20))
        back = sim.back_snapshot()
        sim.advance_to(START + timedelta(minutes=25))
        sim.rewind_to(START + timedelta(minutes=20), snapshot=back)
        sim.advance_to(START + timedelta(minutes=40))
        sim.rewind_to(START + timedelta(minutes=30))
        sim.advance_to(START + timedelta(minutes=45))
    assert sum(calls) > 100  # runs did end in step 5, both ways matched
    plain = _busy()
    plain.advance_to(START + timedelta(minutes=45))
    assert record(sim) == record(plain)


INSTANTS = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(INSTANTS, st.sampled_from("abc")), min_size=2, max_size=30))
def test_sort_key_orders_runs_by_run_after_then_dag_id_then_id(
    drawn: list[tuple[datetime, str]],
) -> None:
    runs = []
    for index, (run_after, dag_id) in enumerate(drawn):
        run = DagRun(
            dag_id, index, None, "scheduled", "timetable", None, None, run_after, run_after
        )
        run.id = index
        runs.append(run)
    keyed = sorted(runs, key=sort_key)
    plain = sorted(runs, key=lambda r: (r.run_after, r.dag_id, r.id))  # RND-6, RND-8
    assert keyed == plain


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 40), max_size=60),
    st.sets(st.integers(0, 45), max_size=6),
)
def test_first_place_is_the_plain_scans(ids: list[int], wanted: set[int]) -> None:
    plain = next((place for place, i in enumerate(ids) if i in wanted), None)
    assert _first_place(ids, wanted) == plain
