"""Back snapshots keep the run log and the asset events by their lengths (budgets
``back <= 50 ms`` and ``step <= 50 ms``): a step copies none of them, and Back
restores exactly what a fresh simulation to the same instant holds, whatever
mix of steps, Backs and scrubs came before (the Back stack is then out of time
order).

Work is counted, never timed.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.document.timeline.data import RUN_COLUMNS, RunStore
from explorer.engine.assets.store import AssetStore
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.simulation import Simulation
from explorer.graph.generate import synthetic_scenario
from explorer.scenario import Scenario
from explorer.scenario.model import PauseAction
from explorer.scenario.values import Instant
from explorer.ui.session import SimulationSession
from tests.ui.test_instant_edits import Deferred

pytestmark = pytest.mark.gui


def scenario() -> Scenario:
    return synthetic_scenario(120)  # 19 DAGs, asset-scheduled ones among them


def session_at(hours: float) -> tuple[SimulationSession, Deferred]:
    """A GUI session ``hours`` after clock.start (automatic checkpoints on, as the GUI's)."""
    defer = Deferred()
    session = SimulationSession(scenario(), defer=defer, checkpoint_every=50)
    session.run_to(session.start + timedelta(hours=hours))
    defer.drain()
    return session, defer


def fingerprint(sim: Simulation) -> dict[str, object]:
    """Everything a reader of the engine sees, as plain values."""
    state = sim.state
    return {
        "now": state.now,
        "runs": [vars_of(run) for run in sim.runs],
        "events": list(state.assets.events),
        "by_asset": {k: list(v) for k, v in state.assets.by_asset.items()},
        "by_alias": {k: list(v) for k, v in state.assets.by_alias.items()},
        "stamps": {k: list(v.stamps) for k, v in state.assets.by_asset.items()},
        "alias_assets": dict(state.assets.alias_assets),
        "active_assets": dict(state.assets.active),
        "dags": {
            dag_id: (
                [run.run_id for run in dag.runs],
                list(dag.logical_dates.keys),
                [vars_of(run) for run in dag.active],
                dag.next_run,
                dag.is_paused,
                dict(dag.adrq),
                list(dag.asset_run_afters),
            )
            for dag_id, dag in state.dags.items()
        },
        "active": {k: vars_of(r) for k, r in state.active.items()},
        "completions": sorted(state.completions),
        "next": sim.next_event_time(),
    }


def vars_of(run: object) -> dict[str, object]:
    fields = run.__dataclass_fields__  # type: ignore[attr-defined]
    # last_scheduling_decision is not in a packed run's columns: an ended run read back
    # has None, or the value it had while live if its object is still held somewhere (an
    # automatic checkpoint holds it): whether it is says nothing about Back
    # (A DagRun's ``_run_id`` is a cache, None until read: its ``run_id`` is compared.)
    return {
        name.lstrip("_"): copy.copy(getattr(run, name.lstrip("_")))
        for name in fields
        if name != "last_scheduling_decision" or run.state in ("queued", "running")  # type: ignore[attr-defined]
    }


def fresh(instant: datetime) -> Simulation:
    defer = Deferred()
    session = SimulationSession(scenario(), defer=defer, checkpoint_every=0)
    session.run_to(instant)
    defer.drain()
    return session.sim


class TestAStepCopiesNoStore:
    def test_the_back_snapshot_shares_the_run_log_and_the_events(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Before: every step deep-copied the run log's columns, every DAG's run ids and
        every asset event list for its Back snapshot."""
        session, _ = session_at(30)
        copies: list[str] = []
        for owner in (RunLog, AssetStore, DagRuns):
            original = owner.__deepcopy__

            def counted(self: object, memo: dict[int, object], _o: object = original) -> object:
                copies.append(type(self).__name__)
                return _o(self, memo)  # type: ignore[operator]

            monkeypatch.setattr(owner, "__deepcopy__", counted)
        log, events = session.sim.runs, session.sim.state.assets.events
        for _ in range(5):
            session.step_next()
        assert copies == []
        assert session.sim.runs is log and session.sim.state.assets.events is events
        for _ in range(5):
            session.step_back()
        assert copies == []  # and Back restores them by truncating, without a copy
        assert fingerprint(session.sim) == fingerprint(fresh(session.now))

    def test_a_snapshot_cut_shorter_since_is_not_used(self) -> None:
        """A snapshot whose shared structures no longer hold what it recorded is
        refused: Back replays from a checkpoint instead, and is still exact."""
        session, _ = session_at(30)
        session.step_next()
        snapshot = session._back[-1]
        assert snapshot.valid()
        del session.sim.state.assets.events[-1]  # as if something had truncated it
        del session.sim.runs._nth[:]
        assert not snapshot.valid()
        session.sim.state.assets.events.clear()
        session.step_back()  # the live state is thrown away: replayed from a checkpoint
        assert fingerprint(session.sim) == fingerprint(fresh(session.now))


class TestBackIsExact:
    @pytest.mark.parametrize(("steps", "backs"), [(1, 1), (3, 1), (4, 4), (6, 2), (9, 8)])
    def test_steps_then_backs(self, steps: int, backs: int) -> None:
        session, _ = session_at(26)
        for _ in range(steps):
            session.step_next()
        for _ in range(backs):
            session.step_back()
        assert fingerprint(session.sim) == fingerprint(fresh(session.now))
        for _ in range(3):  # and the restored state goes on as a fresh one does
            session.step_next()
        assert fingerprint(session.sim) == fingerprint(fresh(session.now))

    @settings(
        max_examples=12,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        moves=st.lists(
            st.sampled_from(["step", "step", "back", "scrub_back", "forward"]),
            min_size=1,
            max_size=12,
        )
    )
    def test_any_mix_of_moves(self, moves: list[str]) -> None:
        """Steps, Backs, scrubs back (the Back stack then out of time order) and runs
        forward: after each, the engine is what a fresh simulation to its clock is."""
        session, defer = session_at(26)
        for move in moves:
            play(session, defer, move)
        assert fingerprint(session.sim) == fingerprint(fresh(session.now))


def play(session, defer, move: str) -> None:  # type: ignore[no-untyped-def]
    """One move of the mixes above: a step, a Back, a scrub back 95 minutes (the Back
    stack then out of time order) or a run two hours forward (its slices drained)."""
    if move == "step":
        session.step_next()
    elif move == "back":
        session.step_back()
    elif move == "scrub_back":
        session.scrub_to(session.now - timedelta(minutes=95))
    else:
        session.run_to(session.now + timedelta(hours=2))
        defer.drain()


class TestReadersOfTheCutLog:
    """Back cuts the run log in place: a store that keeps rows of it reads again the
    rows a cut may have changed, however many moves came between two of its syncs."""

    @pytest.mark.parametrize(
        "moves",
        [
            ("back",),
            ("back", "back", "back"),
            ("back", "step", "step", "step"),  # cut, then grown past where it was shown
            ("step", "back", "back", "step", "step"),
            ("back", "scrub_back", "step"),
            # cut, then another path forward (DAGs paused): rows after the cut are
            # other runs than those shown, and the log grows past where it was shown
            ("back", "back", "back", "pause", "forward"),
        ],
    )
    def test_the_store_matches_a_fresh_one(self, moves: tuple[str, ...]) -> None:
        session, defer = session_at(30)
        store = RunStore()
        for _ in range(5):  # runs start, end and are packed
            session.step_next()
            store.sync(session.sim.runs)
        for move in moves:
            if move == "step":
                session.step_next()
            elif move == "back":
                session.step_back()
            elif move == "pause":
                at = session.action_instant()
                for dag in session.scenario.dags[::2]:
                    session.apply_script_action(
                        PauseAction(at=Instant(at, at.isoformat()), dag_id=dag.dag_id)
                    )
            elif move == "forward":
                session.run_to(session.now + timedelta(hours=6))
                defer.drain()
            else:
                session.scrub_to(session.now - timedelta(minutes=95))
        store.sync(session.sim.runs)
        fresh = RunStore()
        fresh.sync(session.sim.runs)
        assert len(store) == len(fresh) == len(session.sim.runs)
        np.testing.assert_equal(columns_of(store), columns_of(fresh))
        again = store.sync(session.sim.runs)  # and nothing left over: only live rows re-read
        assert not again.reset and again.removed == 0 and len(again.appended) == 0
        assert store.objects_read == sum(r < 0 for r in session.sim.runs.columns().row)


def columns_of(store: RunStore) -> dict[str, list[float]]:
    out = {name: store.col(name).tolist() for name in RUN_COLUMNS}
    out["state"] = store.states().tolist()
    out["type"] = store.types().tolist()
    out["dag"] = [store.dag_ids[c] for c in store.dag_codes().tolist()]
    out["no_interval"] = store.no_interval().tolist()
    out["no_tis"] = store.no_task_instances().tolist()
    return out
