"""Step 5's examination against RND-6 sorted at every loop, and the work it saves.

RND-6: each loop examines at most ``max_dagruns_per_loop_to_schedule`` running runs of
unpaused DAGs (RND-4), ordered by last scheduling decision (never examined first), then
run_after. :class:`~explorer.engine.examine.Rotation` keeps that order as a queue
instead of sorting; with no DAG paused (the loop passes ``SimState.paused_ids``) it pops
its entries in bulk and never looks a DAG up. These tests hold the
rotation, both ways, to a naive model that sorts every running run at every loop, on
random histories (runs starting, ending, started again, DAGs paused and unpaused, loops
run and skipped), and count the DAG lookups and the scans for the next loop that the
loop no longer does, on a simulation whose record stays the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine import actions as act
from explorer.engine import loop
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.examine import Rotation
from explorer.engine.record import run_row
from explorer.engine.simulation import SchedulerConfig, Simulation
from explorer.engine.timetables import timetable_from_schedule

T0 = datetime(2024, 3, 1, tzinfo=UTC)
DAG_IDS = ("a", "b", "c", "d")


@dataclass(eq=False)
class Run:
    """What the rotation reads and writes of a DagRun."""

    name: int
    dag_id: str
    run_after: datetime
    state: str = "running"
    start_date: datetime | None = None
    last_scheduling_decision: datetime | None = None

    @property
    def id(self) -> int:
        """Created in the order of their names (``dag_run.id``)."""
        return self.name


@dataclass
class Dag:
    is_paused: bool = False


class Model:
    """RND-6 and RND-8 as written: every loop sorts the running runs by (never examined
    first, last decision, run_after, dag_id, id) and takes the first ``cap`` of unpaused
    DAGs; a loop's stamp is later than every earlier one."""

    def __init__(self) -> None:
        self.order: list[Run] = []
        self.stamp: dict[int, int | None] = {}
        self.loops = 0

    def started(self, run: Run) -> None:
        self.order = [r for r in self.order if r is not run] + [run]
        self.stamp[id(run)] = None

    def examine(self, paused: set[str], cap: int) -> list[int]:
        def key(r: Run) -> tuple[bool, int, datetime, str, int]:
            stamp = self.stamp[id(r)]
            return (stamp is not None, stamp or 0, r.run_after, r.dag_id, r.id)

        self.order = sorted((r for r in self.order if r.state == "running"), key=key)
        taken = [r for r in self.order if r.dag_id not in paused][:cap]
        self.loops += 1
        for r in taken:
            self.stamp[id(r)] = self.loops
        return [r.name for r in sorted(taken, key=lambda r: (r.run_after, r.dag_id, r.id))]


#: One step of a history: ("start", run_after offset), ("end", pick), ("restart", pick),
#: ("pause", dag), ("unpause", dag), ("loop", cap), ("skip", count).
steps = st.lists(
    st.one_of(
        st.tuples(st.just("start"), st.integers(0, 4), st.sampled_from(DAG_IDS)),
        st.tuples(st.just("end"), st.integers(0, 10_000), st.just("")),
        st.tuples(st.just("restart"), st.integers(0, 10_000), st.just("")),
        st.tuples(st.just("pause"), st.just(0), st.sampled_from(DAG_IDS)),
        st.tuples(st.just("unpause"), st.just(0), st.sampled_from(DAG_IDS)),
        st.tuples(st.just("loop"), st.just(0), st.just("")),
        st.tuples(st.just("skip"), st.integers(1, 60), st.just("")),
    ),
    max_size=120,
)


@dataclass
class History:
    """A rotation and the naive model after the same history, and what it left."""

    rotation: Rotation
    model: Model
    dags: dict[str, Dag]
    paused: set[str]
    running: list[Run]
    now: datetime


def play(history: list[tuple[str, int, str]], cap: int, with_paused_ids: bool) -> History:
    """Play ``history`` on a rotation and on the model, checking every loop on the way."""
    rotation, model = Rotation(), Model()
    dags = {dag_id: Dag() for dag_id in DAG_IDS}
    paused: set[str] = set()
    running: list[Run] = []
    made = 0  # names runs: an ended run's id() may be a later run's
    now = T0
    for kind, value, dag_id in history:
        now += timedelta(seconds=1)
        if kind == "start":
            run = Run(made, dag_id, T0 + timedelta(hours=value), start_date=now)
            made += 1
            running.append(run)
            rotation.started(run)  # type: ignore[arg-type]
            model.started(run)
        elif kind in ("end", "restart") and running:
            run = running[value % len(running)]
            if kind == "end":
                run.state = "success"
                running.remove(run)
            else:  # a backfill clears it and it runs again: a new entry stands for it
                run.start_date = now
                rotation.started(run)  # type: ignore[arg-type]
                model.started(run)
            rotation.changed()  # as the loop says it at a script step (loop.process_instant)
        elif kind in ("pause", "unpause"):
            dags[dag_id].is_paused = kind == "pause"
            (paused.add if kind == "pause" else paused.discard)(dag_id)
        elif kind == "loop":
            ids = set(paused) if with_paused_ids else None
            examined = rotation.examine(dags, now, cap, ids)  # type: ignore[arg-type]
            assert [r.name for r in examined] == model.examine(paused, cap)  # type: ignore[attr-defined]
            assert all(r.last_scheduling_decision == now for r in examined)
        elif kind == "skip":
            ids = set(paused) if with_paused_ids else None
            rotation.skip(dags, value, now, cap, ids)  # type: ignore[arg-type]
            for _ in range(value):
                model.examine(paused, cap)
    return History(rotation, model, dags, paused, running, now)


@settings(max_examples=300, deadline=None)
@given(steps, st.sampled_from((1, 3, 5, 20)), st.booleans())
@pytest.mark.plain_only
def test_the_rotation_is_rnd6_sorted_at_every_loop(
    history: list[tuple[str, int, str]], cap: int, with_paused_ids: bool
) -> None:
    """Both ways of telling the rotation which DAGs are paused (their ids, as the loop
    does; or a lookup in the DAG states) examine the runs the naive model does."""
    h = play(history, cap, with_paused_ids)
    # The next loop, and a long run of them, agree too.
    now = h.now
    for _ in range(3):
        now += timedelta(seconds=1)
        ids = set(h.paused) if with_paused_ids else None
        examined = h.rotation.examine(h.dags, now, cap, ids)  # type: ignore[arg-type]
        assert [r.name for r in examined] == h.model.examine(h.paused, cap)  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None)
@given(
    steps,
    st.sampled_from((1, 3, 5, 20)),
    st.booleans(),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=4),
)
@pytest.mark.plain_only
def test_the_loop_that_reaches_a_run_is_the_models(
    history: list[tuple[str, int, str]], cap: int, with_paused_ids: bool, picks: list[int]
) -> None:
    """``examinations_until`` (which loop ends a finished run) says the loop
    at which the model, sorting at every loop, first examines one of the wanted runs;
    None when none of them can be (their DAGs paused, RND-4) or none runs."""
    h = play(history, cap, with_paused_ids)
    wanted = {h.running[i % len(h.running)].name for i in picks} if h.running else set()
    ids = set(h.paused) if with_paused_ids else None
    by_name = {r.name: r for r in h.running}
    count = h.rotation.examinations_until(
        {id(by_name[n]) for n in wanted},
        h.dags,  # type: ignore[arg-type]
        cap,
        ids,
    )
    seen = None
    for loop_number in range(1, len(h.running) // cap + 3):
        if wanted & set(h.model.examine(h.paused, cap)):
            seen = loop_number
            break
    assert count == seen
    if wanted and any(by_name[n].dag_id not in h.paused for n in wanted):
        assert count is not None


class CountingDags(dict[str, Any]):
    """DAG states that count their lookups."""

    lookups = 0

    def __getitem__(self, key: str) -> Any:
        CountingDags.lookups += 1
        return super().__getitem__(key)


@pytest.mark.plain_only
def test_with_no_dag_paused_an_examination_looks_no_dag_up() -> None:
    """Before: every entry taken looked its DAG up for RND-4 (20 a loop, and the entries
    of ended runs); with the paused ids given and none paused, none is looked up, and
    the loops examine what the lookups gave."""
    dags = CountingDags({dag_id: Dag() for dag_id in DAG_IDS})
    fast, slow = Rotation(), Rotation()
    runs = [
        Run(i, DAG_IDS[i % 4], T0 + timedelta(minutes=(i * 7) % 11), start_date=T0)
        for i in range(90)
    ]
    for run in runs:
        fast.started(run)  # type: ignore[arg-type]
    slow_runs = [Run(r.name, r.dag_id, r.run_after, start_date=T0) for r in runs]
    for run in slow_runs:
        slow.started(run)  # type: ignore[arg-type]
    for i in range(40):
        now = T0 + timedelta(seconds=i)
        if i % 7 == 3:  # runs end between loops; their entries are dropped when met
            runs[i].state = slow_runs[i].state = "success"
            fast.changed()
            slow.changed()
        CountingDags.lookups = 0
        got = [r.name for r in fast.examine(dags, now, 20, set())]  # type: ignore[arg-type]
        assert CountingDags.lookups == 0
        want = [r.name for r in slow.examine(dags, now, 20)]  # type: ignore[arg-type]
        assert CountingDags.lookups >= 20  # the old way: one lookup per entry taken
        assert got == want


def _dags(n: int) -> list[DagSpec]:
    return [
        DagSpec(
            dag_id=f"d{i:03d}",
            timetable=timetable_from_schedule("* * * * *" if i % 2 else "*/5 * * * *"),
            start_date=T0 - timedelta(days=1),
            max_active_runs=4,
            tasks=(
                TaskSpec("t", duration=timedelta(seconds=20 + 7 * (i % 9))),
                TaskSpec("u", duration=timedelta(seconds=45)),
            ),
        )
        for i in range(n)
    ]


def _old_next_needed_tick(sim: Any) -> datetime | None:
    """The next loop as it was found before: the reasons scanned at every call."""
    state = sim.state
    earliest = loop.earliest_reason(sim)
    if earliest is None:
        return None
    earliest = max(earliest, state.now)
    if state.last_tick is not None and earliest <= state.last_tick:
        return sim.ticks.after(state.last_tick)  # type: ignore[no-any-return]
    return sim.ticks.at_or_after(earliest)  # type: ignore[no-any-return]


#: A manual DAG triggered every seven seconds: each trigger's instant is dirty (a script
#: step, trace README 7.3) and on the loop grid.
TRIGGERS = tuple(act.Trigger(T0 + timedelta(seconds=7 * (i + 1)), "manual") for i in range(240))


def _simulate(monkeypatch: Any, old: bool) -> tuple[list[dict[str, Any]], int, int]:
    calls = {"reasons": 0, "instants": 0}
    reason, process = loop.earliest_reason, loop.process_instant

    def counted_reason(sim: Any, **options: Any) -> datetime | None:
        calls["reasons"] += 1
        return reason(sim, **options)

    def counted_instant(sim: Any, t: datetime) -> None:
        calls["instants"] += 1
        process(sim, t)

    manual = DagSpec(
        dag_id="manual",
        timetable=timetable_from_schedule(None),
        start_date=T0 - timedelta(days=1),
        max_active_runs=1000,
        tasks=(TaskSpec("t", duration=timedelta(seconds=30)),),
    )
    with monkeypatch.context() as patch:
        patch.setattr(loop, "earliest_reason", counted_reason)
        patch.setattr(loop, "process_instant", counted_instant)
        if old:
            patch.setattr(loop, "next_needed_tick", _old_next_needed_tick)
        config = SchedulerConfig(loop_interval=timedelta(seconds=1))
        sim = Simulation([*_dags(60), manual], start=T0, config=config, script=TRIGGERS)
        sim.advance_to(T0 + timedelta(minutes=30))
    rows = [run_row(r) for r in sim.runs]
    return rows, calls["reasons"], calls["instants"]


@pytest.mark.plain_only
def test_a_dirty_instant_does_not_scan_for_the_next_loop(monkeypatch: Any) -> None:
    """The reasons for a next loop were scanned twice an instant: at step 4 and again for
    the next event. A dirty instant (here: each of 240 triggers) needs its loop without
    the first scan; the record is the one the scans gave."""
    new_rows, new_reasons, instants = _simulate(monkeypatch, old=False)
    old_rows, old_reasons, old_instants = _simulate(monkeypatch, old=True)
    assert new_rows == old_rows and len(new_rows) > 500
    assert instants == old_instants
    assert old_reasons > 1.9 * instants  # the old way: about two scans an instant
    assert old_reasons - new_reasons >= len(TRIGGERS)  # one saved at each trigger at least


@pytest.mark.plain_only
def test_pending_keeps_only_runs_a_loop_may_still_start(monkeypatch: Any) -> None:
    """``pending`` (what step 4 scans) was pruned only by the scan for the next loop,
    which a dirty instant now skips: 300 runs triggered at once keep every loop dirty
    while SCH-5 promotes 20 a loop, and before, the runs whose tasks all started stayed
    in ``pending`` meanwhile. Step 4 prunes it too: after every loop it holds only
    queued runs and running runs with a task not started (SCH-10)."""
    dags = [
        DagSpec(
            dag_id=f"m{i:03d}",
            timetable=timetable_from_schedule(None),
            start_date=T0 - timedelta(days=1),
            tasks=(TaskSpec("t", duration=timedelta(minutes=10)),),
        )
        for i in range(300)
    ]
    script = [act.Trigger(T0 + timedelta(seconds=10), d.dag_id) for d in dags]
    config = SchedulerConfig(loop_interval=timedelta(seconds=1))
    sim = Simulation(dags, start=T0, config=config, script=script)
    tick = loop.tick
    stale: list[int] = []

    def checked(sim_: Any, now: datetime) -> None:
        tick(sim_, now)
        pending = sim_.state.pending.values()
        stale.append(
            sum(
                1
                for r in pending
                if r.state != "queued" and all(t.state != "none" for t in r.tasks)
            )
        )

    monkeypatch.setattr(loop, "tick", checked)
    sim.advance_to(T0 + timedelta(minutes=2))
    assert sum(1 for r in sim.runs if r.state == "running") == 300
    assert len(stale) >= 15  # the loops promoting the 300 runs, 20 each (SCH-5)
    assert max(stale) == 0  # without step 4 pruning: all 300 stay once started
