"""A step and Back redo only the work of what changed (budgets ``step <= 50 ms``,
``back <= 50 ms``): the timeline sorts only the new runs into its lane order.

Work is counted, never timed; each test also checks that the cheaper path gives
exactly what the full one gives.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

import explorer.ui.timeline.items as items_module
from explorer.document.panels.badges import _leaves_updated, _RefIndex, compute_badges
from explorer.engine.assets.condition import RefNode, evaluate, walk
from explorer.engine.assets.store import AssetStore
from explorer.graph.generate import synthetic_scenario
from explorer.scenario import build_engine_inputs
from explorer.scenario.simulate import make_simulation
from explorer.ui.timeline.items import RunsItem
from explorer.ui.timeline.pane import TimelinePane
from tests.ui.test_back_snapshots import session_at

pytestmark = pytest.mark.gui


def same_lane_order(item: RunsItem) -> None:
    """The item's lane order is the one a whole sort of its view gives."""
    whole = RunsItem()
    whole.set_view(item.view)
    np.testing.assert_array_equal(item._by_lane, whole._by_lane)
    np.testing.assert_array_equal(item._lane_start, whole._lane_start)
    assert item._max_lane == whole._max_lane


class TestTimelineSortsOnlyNewRuns:
    def test_steps_and_backs(self, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
        session, _ = session_at(30)
        pane = TimelinePane()
        qtbot.addWidget(pane)
        pane.show_simulation(session.sim)
        total = len(pane.runs)
        sorted_sizes: list[int] = []
        argsort = np.argsort

        def counted(a: Any, *args: Any, **kwargs: Any) -> Any:
            sorted_sizes.append(int(np.size(a)))
            return argsort(a, *args, **kwargs)

        def show() -> None:  # the rows the pane sorts (not those same_lane_order sorts)
            monkeypatch.setattr(items_module.np, "argsort", counted)
            pane.show_simulation(session.sim)
            monkeypatch.setattr(items_module.np, "argsort", argsort)

        for _ in range(6):
            before = len(pane.runs)
            session.step_next()
            show()
            assert pane.runs_item.sorted_rows == len(pane.runs) - before
            same_lane_order(pane.runs_item)
        for _ in range(4):
            session.step_back()
            show()
            assert pane.runs_item.sorted_rows == 0  # rows cut, nothing sorted
            same_lane_order(pane.runs_item)
        # before: every step and Back sorted every run again (~total rows each)
        assert sum(sorted_sizes) < total


class TestBadgesResolveEachRefOnce:
    def test_one_walk_of_the_assets_per_ref(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Badges are computed after every step and Back; each ``Asset.ref`` walked every
        known asset twice per consumer (the count, then the condition). Now the assets
        are indexed once a call, and no ref walks them."""
        sim = make_simulation(build_engine_inputs(synthetic_scenario(300)))  # Asset.ref in it
        sim.advance_to(sim.start + timedelta(days=2))
        store = sim.state.assets
        refs = {
            node
            for dag in sim.dags.values()
            if dag.spec.timetable.asset_condition is not None
            for node in walk(dag.spec.timetable.asset_condition)
            if isinstance(node, RefNode)
        }
        consumers = [
            dag
            for dag in sim.dags.values()
            if dag.spec.timetable.asset_condition is not None and dag.deployed
        ]
        walks: list[RefNode] = []
        original = AssetStore.resolve_ref

        def counted(self: AssetStore, ref: RefNode) -> object:
            walks.append(ref)
            return original(self, ref)

        monkeypatch.setattr(AssetStore, "resolve_ref", counted)
        badges = compute_badges(sim)
        assert refs and consumers  # the scenario has Asset.ref consumers
        assert walks == []
        monkeypatch.setattr(AssetStore, "resolve_ref", original)
        for dag in consumers:  # what the uncached reading says
            cond = dag.spec.timetable.asset_condition
            assert cond is not None
            if dag.spec.timetable.partitioned:
                continue
            ready = evaluate(cond, dag.adrq.__contains__, store.resolve_ref, store.resolve_alias)
            assert badges[dag.dag_id].assets_ready is ready
            done, total = _leaves_updated(sim, dag, cond, store.resolve_ref)
            noun = "asset" if total == 1 else "assets"
            assert badges[dag.dag_id].assets == f"{done} of {total} {noun} updated"
        for ref in refs:  # every ref, one by one, as the store resolves it
            assert _RefIndex(store).resolve(ref) == store.resolve_ref(ref)
