"""Whatever JSON a user has typed so far, the graph and its layered layout are made."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.graph.layout import layered_layout
from explorer.graph.model import scenario_graph
from explorer.scenario.model import AliasEvent, AssetDecl
from tests.graph.helpers import dag, scenario, task

#: Keys of the schedule and asset vocabulary, so that the JSON is often almost right.
VOCABULARY = ("asset", "asset_ref", "alias", "all", "any", "name", "uri", "timetable", "args")
KEYS = st.sampled_from((*VOCABULARY, "assets", "timedelta", "x-note", "other"))
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(["a", "b", "", "s3://lake/x", "airflow://x", "AssetOrTimeSchedule"]),
)
JSON: st.SearchStrategy[Any] = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=2),
    max_leaves=12,
)
NAMES = st.sampled_from(["a", "b", "c"])


@st.composite
def scenarios(draw: st.DrawFn) -> Any:
    dags = []
    for _ in range(draw(st.integers(1, 4))):
        tasks = [
            task(
                draw(st.sampled_from(["t", "u"])),
                *draw(st.lists(JSON, max_size=2)),
                alias_events=tuple(
                    AliasEvent(draw(st.sampled_from(["a", ""])), draw(JSON))
                    for _ in range(draw(st.integers(0, 1)))
                ),
            )
            for _ in range(draw(st.integers(0, 2)))
        ]
        dags.append(dag(draw(st.sampled_from(["d", "e", "f"])), draw(JSON), *tasks))
    uris = st.sampled_from([None, "s3://lake/x", "airflow://x", ""])
    assets = tuple(AssetDecl(draw(NAMES), draw(uris)) for _ in range(draw(st.integers(0, 3))))
    return scenario(*dags, assets=assets)


@settings(max_examples=300, deadline=None)
@given(scenarios(), st.booleans())
def test_any_scenario_gives_a_graph_whose_every_node_is_laid_out(
    made: Any, fold_tasks: bool
) -> None:
    graph = scenario_graph(made, fold_tasks=fold_tasks)
    layout = layered_layout(graph)
    assert set(layout) == set(graph)
    assert len(set(layout.values())) == len(graph)
    for _, data in graph.nodes(data=True):
        assert isinstance(data["label"], str)
        assert isinstance(data["problems"], tuple)
