"""A Back snapshot copies only the DAG states that changed since the previous one
(budget ``step <= 50 ms``): the others are borrowed from that snapshot, and a
borrowed copy never reaches the engine (which changes DAG states in place).

Work is counted, never timed; every test also compares with a fresh simulation.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.engine.dagstate import DagState
from explorer.engine.simulation import Simulation
from explorer.ui.session import SimulationSession
from tests.ui.test_back_snapshots import fingerprint, fresh, play, session_at, vars_of

pytestmark = pytest.mark.gui


def dag_states(sim: Simulation) -> dict[str, dict[str, object]]:
    """Every field of every DAG state, as plain values."""
    out: dict[str, dict[str, object]] = {}
    for dag_id, dag in sim.state.dags.items():
        values: dict[str, object] = {}
        for field in dataclasses.fields(DagState):
            value = getattr(dag, field.name)
            if field.name == "spec":
                value = value.dag_id  # (another simulation's spec: its timetable is another)
            elif field.name in ("runs", "active"):
                value = [vars_of(run) for run in value]
            elif field.name == "latest_automated":
                value = None if value is None else vars_of(value)
            elif field.name == "logical_dates":
                value = (list(value.keys), list(value.nths))
            elif field.name == "asset_run_afters":
                value = list(value)
            elif field.name == "due_version":
                continue  # a heap entry's version: how many times it was pushed, not state
            values[field.name] = value
        out[dag_id] = values
    return out


def no_live_dag_state_in_a_snapshot(session: SimulationSession) -> None:
    """The engine's DAG states are its own: no snapshot still kept holds one of them."""
    live = {id(dag) for dag in session.sim.state.dags.values()}
    for snapshot in session._back:
        assert not live & {id(dag) for dag in snapshot.state.dags.values()}


class TestASnapshotCopiesOnlyTheChangedDags:
    def test_steps_copy_the_dags_that_changed(self, monkeypatch: pytest.MonkeyPatch) -> None:
        session, _ = session_at(30)
        copies: list[str] = []
        original = DagState.__deepcopy__

        def counted(self: DagState, memo: dict[int, object]) -> DagState:
            copies.append(self.dag_id)
            return original(self, memo)

        monkeypatch.setattr(DagState, "__deepcopy__", counted)
        dags = len(session.sim.dags)
        session.step_next()  # the first snapshot copies every DAG state
        assert len(copies) == dags
        per_step = []
        for _ in range(8):
            copies.clear()
            session.step_next()
            per_step.append(len(copies))
            no_live_dag_state_in_a_snapshot(session)
        # before: every DAG state was copied on every step
        assert sum(per_step) < 8 * dags / 2
        assert [snapshot.copied for snapshot in session._back[-8:]] == per_step
        backs = []
        for _ in range(8):
            copies.clear()
            session.step_back()
            backs.append(len(copies))  # a borrowed state changed since is copied back
            no_live_dag_state_in_a_snapshot(session)
        assert sum(backs) < 8 * dags / 2
        assert fingerprint(session.sim) == fingerprint(fresh(session.now))
        assert dag_states(session.sim) == dag_states(fresh(session.now))


class TestSharingIsExact:
    @settings(
        max_examples=12,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        moves=st.lists(
            st.sampled_from(["step", "step", "step", "back", "back", "scrub_back", "forward"]),
            min_size=2,
            max_size=14,
        )
    )
    def test_any_mix_of_moves(self, moves: list[str]) -> None:
        """After each move every field of every DAG state is what a fresh simulation to
        the clock holds, and no snapshot kept shares a DAG state with the engine."""
        session, defer = session_at(26)
        for move in moves:
            play(session, defer, move)
            no_live_dag_state_in_a_snapshot(session)
        other = fresh(session.now)
        assert dag_states(session.sim) == dag_states(other)
        assert fingerprint(session.sim) == fingerprint(other)
        for _ in range(3):  # and the restored states go on as fresh ones do
            session.step_next()
        other = fresh(session.now)
        assert dag_states(session.sim) == dag_states(other)
