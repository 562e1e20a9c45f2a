"""The path of a run from its DAG being due to its tasks' timers: the calls
it skips change nothing.

* a DAG ``collect_due`` makes wait has its recheck instant filed only if SCH-2's pick
  leaves it waiting (``dagschedule._file_rechecks``), not when it starts to wait;
* a run's tasks start together (``lifecycle.start_timers``), and the script's delays
  and overrides are asked only for the DAGs an override names (``Overrides.names``);
* a parse calls ``compute_next_run`` only when its memo may not hold, and a file
  resolved again under the same options object answers from ``DagFile._last``.

Each is checked against the path it replaces on random scenarios with overrides and a
cap of one or two runs created per loop (so that due DAGs wait): the same record, the
same DAG states, the same recheck entries.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.engine import actions as act
from explorer.engine import dagschedule, deployment
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.dagfile import DagFile
from explorer.engine.max_active_flag import parse_flag
from explorer.engine.options import AirflowOptions
from explorer.engine.overrides import Overrides
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule
from explorer.engine.types import DataInterval, ReferenceRun
from tests.engine.test_random_scenarios import (
    SPAN,
    START,
    Scenario,
    record,
    scenario_settings,
    scenarios,
)


@st.composite
def override(draw: st.DrawFn, dag_ids: tuple[str, ...]) -> act.Override:
    at = START + timedelta(minutes=draw(st.integers(0, int(SPAN.total_seconds()) // 60)))
    dag_id = draw(st.sampled_from(dag_ids))
    selector = (
        act.RunSelector(dag_id, next=True)
        if draw(st.booleans())
        else act.RunSelector(dag_id, nth=draw(st.integers(0, 6)))
    )
    return act.Override(
        at=at,
        run=selector,
        task_id=draw(st.sampled_from([None, "t0", "t1"])),
        outcome=draw(st.sampled_from([None, "failed", "success"])),
        delay=timedelta(minutes=draw(st.sampled_from([0, 0, 7, 95]))),
    )


@st.composite
def capped_scenarios(draw: st.DrawFn) -> tuple[Scenario, int]:
    """A random scenario with overrides in its script, and SCH-2's cap."""
    scenario = draw(scenarios())
    dag_ids = tuple(d.dag_id for d in scenario.dags)
    extra = draw(st.lists(override(dag_ids), max_size=4))
    script = tuple(sorted((*scenario.script, *extra), key=lambda a: a.at))
    return replace(scenario, script=script), draw(st.integers(1, 2))


def _play(scenario: Scenario, cap: int) -> Simulation:
    config = SchedulerConfig(
        loop_interval=timedelta(minutes=1),
        parse_interval=timedelta(minutes=5),
        max_dagruns_to_create_per_loop=cap,
    )
    sim = Simulation(list(scenario.dags), start=START, config=config, script=scenario.script)
    sim.advance_to(START + SPAN)
    return sim


def _full_parse(sim: Any, dag: Any, at: datetime) -> None:
    """``dagschedule.parse`` as it was: compute_next_run asked at every parse."""
    dag.parsed_at = at
    deployment.reparse(sim, dag)
    dagschedule.compute_next_run(sim, dag, dagschedule._reference(dag), at)
    dag.exceeds_max_active_runs = parse_flag(dag, dagschedule.exceeds(sim, dag))
    dagschedule.reschedule(sim, dag)


@contextmanager
def plain_paths() -> Iterator[None]:
    """Every shortcut of this path replaced by the plain reading it stands for."""
    real_wait = dagschedule._wait

    def wait_and_file(sim: Any, dag: Any) -> None:  # the recheck filed as the DAG waits
        real_wait(sim, dag)
        dagschedule._file_recheck(sim, dag)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dagschedule, "_wait", wait_and_file)
        mp.setattr(dagschedule, "_file_rechecks", lambda sim, made_wait: None)
        mp.setattr(dagschedule, "parse", _full_parse)
        mp.setattr(Overrides, "names", lambda self, dag_id: True)
        mp.setattr(DagFile, "resolve", DagFile._resolve)
        yield


def _dag_states(sim: Simulation) -> list[tuple[Any, ...]]:
    return [
        (
            dag.dag_id,
            dag.next_run,
            dag.next_run_memo[1:] if dag.next_run_memo else None,
            dag.exceeds_max_active_runs,
            dag.parsed_at,
            dag.stalled_on,
            dag.wake_at,
            dag.due_entry,
        )
        for dag in sim.state.dags.values()
    ]


def _current_rechecks(sim: Simulation) -> list[tuple[datetime, str]]:
    """The recheck entries of the DAGs waiting now (the others are stale)."""
    st_ = sim.state
    return sorted(
        (at, dag_id)
        for at, _, version, dag_id in st_.waiting_recheck
        if dag_id in st_.waiting_ids and st_.dags[dag_id].due_version == version
    )


def _timers(sim: Simulation) -> list[tuple[Any, ...]]:
    return sorted(c[:4] for c in sim.state.completions)


@scenario_settings(80)
@given(capped_scenarios())
def test_the_run_start_path_agrees_with_the_plain_one(drawn: tuple[Scenario, int]) -> None:
    scenario, cap = drawn
    ours = _play(scenario, cap)
    with plain_paths():
        plain = _play(scenario, cap)
    assert record(ours) == record(plain)
    assert [r.tasks for r in ours.runs] == [r.tasks for r in plain.runs]
    assert _dag_states(ours) == _dag_states(plain)
    assert _current_rechecks(ours) == _current_rechecks(plain)
    assert _timers(ours) == _timers(plain)
    assert ours.state.seq == plain.state.seq


def test_due_dags_left_waiting_are_filed_for_a_recheck() -> None:
    """Under a cap of one run a loop, DAGs due together wait: each waiting DAG has a
    current recheck entry, filed once, as when it was filed on starting to wait."""
    dags = [
        DagSpec(
            dag_id=f"d{i}",
            timetable=timetable_from_schedule("0 * * * *"),
            start_date=START - timedelta(days=1),
            tasks=(TaskSpec("t", duration=timedelta(minutes=3)),),
        )
        for i in range(6)
    ]
    config = SchedulerConfig(
        loop_interval=timedelta(seconds=10),
        parse_interval=timedelta(seconds=30),
        max_dagruns_to_create_per_loop=1,
    )
    sim = Simulation(dags, start=START, config=config)
    sim.advance_to(START + timedelta(seconds=25))
    waiting = set(sim.state.waiting_ids)
    assert len(waiting) == 3  # 6 due at once, one taken at 0, 10 and 20 s
    assert {dag_id for _, dag_id in _current_rechecks(sim)} == waiting
    with plain_paths():
        plain = Simulation(dags, start=START, config=config)
        plain.advance_to(START + timedelta(seconds=25))
    assert _current_rechecks(sim) == _current_rechecks(plain)


def test_a_file_resolved_again_under_the_same_options_gives_the_same_spec() -> None:
    spec = DagSpec(
        dag_id="d",
        timetable=timetable_from_schedule("@daily"),
        start_date=START,
        tasks=(TaskSpec("t"),),
    )
    file = DagFile(spec, "@daily", None, None)
    options = AirflowOptions()
    first = file.resolve(options)
    assert file.resolve(options) is first is file._resolve(options)
    other = options.set("scheduler", "catchup_by_default", not first.catchup)
    changed = file.resolve(other)
    assert changed.catchup is not first.catchup
    assert file.resolve(options) is first  # back to the first options: the first answer


_INSTANTS = st.sampled_from([START + timedelta(hours=h) for h in (0, 1, 2)])
_REFERENCES = st.none() | st.builds(
    ReferenceRun,
    st.none() | st.builds(DataInterval, _INSTANTS, _INSTANTS),
    _INSTANTS,
)


@given(_REFERENCES, _REFERENCES)
def test_the_memo_compares_references_as_the_dataclass_does(
    kept: ReferenceRun | None, reference: ReferenceRun | None
) -> None:
    assert dagschedule._same_reference(kept, reference) == (kept == reference)
    assert dagschedule._same_reference(kept, kept)
