"""Synthetic scenarios: the requested size, valid, realistic, reproducible."""

from __future__ import annotations

from collections import Counter

import pytest

from explorer.graph.generate import synthetic_scenario
from explorer.graph.model import scenario_graph
from explorer.scenario import build_engine_inputs
from explorer.scenario.checks import validate_scenario


@pytest.mark.parametrize("n_nodes", [0, 1, 2, 3, 15, 16, 17, 100, 500])
@pytest.mark.parametrize("seed", [0, 7])
def test_the_graph_has_exactly_the_requested_number_of_nodes(n_nodes: int, seed: int) -> None:
    assert len(scenario_graph(synthetic_scenario(n_nodes, seed))) == n_nodes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_scenario_is_valid_and_warns_of_nothing(seed: int) -> None:
    scenario = synthetic_scenario(300, seed)
    assert validate_scenario(scenario) == []
    assert build_engine_inputs(scenario).warnings == []


def test_its_graph_has_no_unresolved_node_and_no_problem() -> None:
    graph = scenario_graph(synthetic_scenario(500, 0))
    assert [n for n, d in graph.nodes(data=True) if d["problems"]] == []
    assert "unresolved" not in dict(graph.nodes(data="kind")).values()


def test_it_has_and_and_or_gates_aliases_refs_and_chains_of_consumers() -> None:
    graph = scenario_graph(synthetic_scenario(500, 0))
    kinds = Counter(kind for _, kind in graph.nodes(data="kind"))
    ops = Counter(op for _, op in graph.nodes(data="op") if op is not None)
    assert kinds["dag"] > 50 and kinds["asset"] > 50
    assert ops["all"] > 0 and ops["any"] > 0
    assert kinds["alias"] > 0 and kinds["ref"] > 0
    schedule_kinds = {kind for _, kind in graph.nodes(data="schedule_kind") if kind}
    assert {"cron", "assets", "timetable:AssetOrTimeSchedule"} <= schedule_kinds
    consumers_that_produce = [
        n
        for n, d in graph.nodes(data=True)
        if d.get("schedule_kind") == "assets"
        and any(graph.out_degree(t) for t in graph.successors(n))
    ]
    assert consumers_that_produce


def test_the_same_seed_gives_the_same_scenario() -> None:
    assert synthetic_scenario(200, 5) == synthetic_scenario(200, 5)
    assert synthetic_scenario(200, 5) != synthetic_scenario(200, 6)


def test_a_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        synthetic_scenario(-1, 0)
