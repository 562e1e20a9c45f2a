"""Layouts: layered left to right, force-directed in the same boxes, deterministic, cancellable."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cache
from typing import Any

import networkx as nx
import pytest

from explorer.graph.generate import synthetic_scenario
from explorer.graph.layout import (
    SPACING,
    Layout,
    LayoutCancelled,
    kamada_kawai_layout,
    layered_layout,
    spring_layout,
)
from explorer.graph.model import scenario_graph
from explorer.scenario import load_scenario
from tests.graph.helpers import EXAMPLES, dag, declared, scenario, task

LAYOUTS: dict[str, Callable[..., Layout]] = {
    "layered": layered_layout,
    "spring": spring_layout,
    "kamada-kawai": kamada_kawai_layout,
}


@cache
def synthetic(n_nodes: int, seed: int = 3) -> Any:
    return scenario_graph(synthetic_scenario(n_nodes, seed))


def example(name: str) -> Any:
    return scenario_graph(load_scenario(EXAMPLES / name))


def crossings(graph: Any, layout: Layout) -> int:
    """Pairs of straight edges that cross (sharing an end is not crossing)."""

    def side(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    count = 0
    for (a, b), (c, d) in itertools.combinations(graph.edges, 2):
        if {a, b} & {c, d}:
            continue
        p, q, r, s = layout[a], layout[b], layout[c], layout[d]
        if side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0:
            count += 1
    return count


def bounds(layout: Layout) -> tuple[float, float, float, float]:
    xs = [x for x, _ in layout.values()]
    ys = [y for _, y in layout.values()]
    return min(xs), min(ys), max(xs), max(ys)


class TestLayered:
    def test_producers_sit_left_of_their_assets_left_of_the_consumer(self) -> None:
        layout = layered_layout(example("orders_mart_two_assets.json"))
        x = {node: position[0] for node, position in layout.items()}
        for producer in ("ingest_orders", "ingest_customers"):
            assert x[f"dag:{producer}"] < x["asset:orders"]
            assert x[f"dag:{producer}"] < x["asset:customers"]
        assert x["asset:orders"] == x["asset:customers"] < x["gate:orders_mart:0"]
        assert x["gate:orders_mart:0"] < x["dag:orders_mart"] < x["task:orders_mart.build_mart"]

    def test_every_edge_of_an_acyclic_graph_points_right(self) -> None:
        graph = synthetic(200)
        layout = layered_layout(graph)
        assert all(layout[u][0] < layout[v][0] for u, v in graph.edges)

    def test_columns_are_one_layer_gap_apart_and_nodes_one_node_gap(self) -> None:
        graph = synthetic(200)
        layout = layered_layout(graph)
        for x, _ in layout.values():
            assert (x / SPACING.layer_gap).is_integer()
        by_column: dict[float, list[float]] = {}
        for x, y in layout.values():
            by_column.setdefault(x, []).append(y)
        for ys in by_column.values():
            ys.sort()
            assert all(b - a >= SPACING.node_gap - 1e-6 for a, b in itertools.pairwise(ys))

    @pytest.mark.parametrize(
        "name", ["orders_mart_two_assets.json", "or_and_coalescing.json", "alias_and_ref.json"]
    )
    def test_the_small_examples_are_drawn_without_crossings(self, name: str) -> None:
        graph = example(name)
        assert crossings(graph, layered_layout(graph)) == 0

    def test_the_barycenter_sweeps_remove_a_third_of_the_crossings_or_more(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        graph = synthetic(200)
        swept = crossings(graph, layered_layout(graph))
        monkeypatch.setattr("explorer.graph.layout.SWEEPS", 0)
        discovered = crossings(graph, layered_layout(graph))
        assert swept <= discovered * 2 / 3

    def test_a_cycle_is_drawn_left_to_right_with_one_edge_pointing_back(self) -> None:
        """a waits for y and writes x; b waits for x and writes y (Airflow allows it)."""
        graph = scenario_graph(
            scenario(
                dag("a", {"asset": "y"}, task("t", {"asset": "x"})),
                dag("b", {"asset": "x"}, task("t", {"asset": "y"})),
                assets=declared("x", "y"),
            )
        )
        layout = layered_layout(graph)
        backwards = [(u, v) for u, v in graph.edges if layout[u][0] >= layout[v][0]]
        assert len(backwards) == 1
        assert len({x for x, _ in layout.values()}) == 6
        assert len(set(layout.values())) == len(graph)

    def test_components_are_packed_biggest_first_without_overlapping(self) -> None:
        graph = scenario_graph(
            scenario(
                dag("first", "@daily", task("t", {"asset": "a"})),
                dag("second", "@daily", task("t", {"asset": "b"}), task("u", {"asset": "c"})),
                assets=declared("a", "b", "c"),
            )
        )
        layout = layered_layout(graph)
        first = [layout[n] for n in ("dag:first", "task:first.t", "asset:a")]
        second = [layout[n] for n in graph if n.endswith(("second", "second.t", "second.u"))]
        # the bigger pipeline (second) comes first, at the top left; the other one after it,
        # to its right or on the next shelf, a component gap away
        assert (min(x for x, _ in second), min(y for _, y in second)) == (0.0, 0.0)
        gap = SPACING.component_gap
        assert max(x for x, _ in second) + gap <= min(x for x, _ in first) or max(
            y for _, y in second
        ) + gap <= min(y for _, y in first)
        assert bounds(layout)[:2] == (0.0, 0.0)

    def test_a_project_of_many_pipelines_fills_a_screen_shaped_area(self) -> None:
        pipelines = [
            dag(f"p{i}", "@daily", task("t", {"asset": {"name": f"a{i}", "uri": f"s3://x/{i}"}}))
            for i in range(60)
        ]
        consumers = [dag(f"c{i}", [{"asset": f"a{i}"}]) for i in range(60)]
        graph = scenario_graph(
            scenario(*pipelines, *consumers, assets=declared(*(f"a{i}" for i in range(60))))
        )
        left, top, right, bottom = bounds(layered_layout(graph))
        # 60 components stacked would be 60 boxes tall; packed they are about a screen's shape
        ratio = (right - left) / (bottom - top)
        assert 0.5 <= ratio <= 4
        # a wide canvas asks for a wider packing
        left, top, right, bottom = bounds(layered_layout(graph, aspect=6.0))
        assert (right - left) / (bottom - top) > 2 * ratio

    def test_isolated_dags_are_grouped_by_the_folder_of_their_file(self) -> None:
        names = [f"{folder}{i}" for folder in ("fin", "ops") for i in range(4)] + ["x", "y"]
        graph = scenario_graph(scenario(*(dag(n, "@daily", task("t")) for n in names)))
        for name in names[:8]:
            graph.nodes[f"dag:{name}"]["file"] = f"dags/{name[:3]}/{name}.py"
        sizes = {n: (250.0, 100.0) for n in graph if n.startswith("dag:")}
        layout = layered_layout(graph, spacing=SPACING, sizes=sizes)

        def box(members: list[str]) -> tuple[float, float, float, float]:
            xs = [layout[f"dag:{m}"][0] for m in members]
            ys = [layout[f"dag:{m}"][1] for m in members]
            return min(xs) - 125, min(ys) - 50, max(xs) + 125, max(ys) + 50

        groups = [box(names[:4]), box(names[4:8]), box(["x", "y"])]
        for a, b in itertools.combinations(groups, 2):  # three groups, apart
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]
        # each folder is a 2x2 grid
        assert len({layout[f"dag:{m}"] for m in names[:4]}) == 4
        assert len({layout[f"dag:{m}"][0] for m in names[:4]}) == 2

    def test_tall_nodes_of_a_layer_keep_their_margin(self) -> None:
        graph = scenario_graph(
            scenario(
                dag("p", "@daily", task("t", {"asset": "a"}), task("u", {"asset": "b"})),
                dag("c", [{"asset": "a"}, {"asset": "b"}]),
                assets=declared("a", "b"),
            )
        )
        sizes = {n: (200.0, 300.0) for n in graph}
        layout = layered_layout(graph, sizes=sizes)
        by_column: dict[float, list[float]] = {}
        for x, y in layout.values():
            by_column.setdefault(x, []).append(y)
        for ys in by_column.values():
            ys.sort()
            assert all(b - a >= 300 + SPACING.node_margin - 1e-6 for a, b in itertools.pairwise(ys))
        assert min(y for _, y in layout.values()) == 150.0  # the box's top is y 0

    def test_isolated_nodes_share_a_grid_below_the_components(self) -> None:
        graph = scenario_graph(
            scenario(
                dag("p", "@daily", task("t", {"asset": "used"})),
                assets=declared("used", *(f"spare{i}" for i in range(9))),
            )
        )
        layout = layered_layout(graph)
        grid = [layout[f"asset:spare{i}"] for i in range(9)]
        assert len({x for x, _ in grid}) == 3
        assert len({y for _, y in grid}) == 3
        assert min(y for _, y in grid) > layout["asset:used"][1]


class TestForceDirected:
    @pytest.mark.parametrize("name", ["spring", "kamada-kawai"])
    def test_it_stays_within_the_layered_layouts_range(self, name: str) -> None:
        graph = synthetic(120)
        left, top, right, bottom = bounds(layered_layout(graph))
        margin = SPACING.node_gap / 2 + 1e-6
        for x, y in LAYOUTS[name](graph).values():
            assert left - margin <= x <= right + margin
            assert top - margin <= y <= bottom + margin

    @pytest.mark.parametrize("name", ["spring", "kamada-kawai"])
    def test_progress_climbs_to_one_and_ends_there(self, name: str) -> None:
        seen: list[float] = []
        LAYOUTS[name](synthetic(120), progress=seen.append)
        assert seen[-1] == 1.0
        assert seen == sorted(seen)
        assert all(0.0 <= share <= 1.0 for share in seen)
        assert len(seen) > 2

    @pytest.mark.parametrize("name", ["layered", "spring", "kamada-kawai"])
    def test_a_cancelled_layout_raises(self, name: str) -> None:
        polls = itertools.count()
        with pytest.raises(LayoutCancelled):
            LAYOUTS[name](synthetic(120), cancel=lambda: next(polls) >= 1)

    def test_the_spring_layout_depends_on_its_seed_only(self) -> None:
        graph = synthetic(120)
        assert spring_layout(graph, seed=1) == spring_layout(graph, seed=1)
        assert spring_layout(graph, seed=1) != spring_layout(graph, seed=2)

    def test_edges_point_right_on_average(self) -> None:
        graph = synthetic(120)
        for name in ("spring", "kamada-kawai"):
            layout = LAYOUTS[name](graph)
            assert sum(layout[v][0] - layout[u][0] for u, v in graph.edges) > 0


class TestEveryLayout:
    @pytest.mark.parametrize("name", list(LAYOUTS))
    def test_it_places_every_node_once_and_is_deterministic(self, name: str) -> None:
        graph = synthetic(120)
        first, second = LAYOUTS[name](graph), LAYOUTS[name](graph)
        assert first == second
        assert set(first) == set(graph)

    @pytest.mark.parametrize("name", list(LAYOUTS))
    def test_an_empty_graph_has_an_empty_layout(self, name: str) -> None:
        assert LAYOUTS[name](nx.DiGraph()) == {}

    @pytest.mark.parametrize("name", list(LAYOUTS))
    def test_a_half_edited_scenario_is_laid_out(self, name: str) -> None:
        graph = scenario_graph(
            scenario(
                dag("m", [{"asset": "nope"}, {"any": "x"}, 42], task("t", {"all": []})),
                dag("m", "@daily"),
            )
        )
        assert set(LAYOUTS[name](graph)) == set(graph)

    @pytest.mark.parametrize("name", ["layered", "spring"])
    def test_a_500_node_synthetic_graph_is_laid_out(self, name: str) -> None:
        graph = synthetic(500)
        layout = LAYOUTS[name](graph)
        assert set(layout) == set(graph)
        assert len(set(layout.values())) == 500
        assert all(isinstance(c, float) for xy in layout.values() for c in xy)
