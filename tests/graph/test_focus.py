"""The filter and focus over a scenario graph: by name, tag, folder, and a DAG's lineage."""

from __future__ import annotations

from typing import Any

import pytest

from explorer.graph.focus import (
    Focus,
    dag_folder,
    folders_of,
    lineage,
    matching_dags,
    tags_of,
    timeline_keys,
    visible_nodes,
)
from explorer.graph.model import scenario_graph
from explorer.scenario.model import Dag, DagSource
from tests.graph.helpers import dag, declared, scenario, task


def platform(*, fold_tasks: bool = False) -> Any:
    """ingest -> raw -> clean (via an AND gate with ref_data) -> report; side is unrelated."""
    graph = scenario_graph(
        scenario(
            dag("ingest", "@daily", task("load", {"asset": "raw"}), task("log")),
            dag("reference", "@daily", task("t", {"asset": "ref_data"})),
            dag(
                "clean",
                [{"asset": "raw"}, {"asset": "ref_data"}],
                task("t", {"asset": "cleaned"}),
            ),
            dag("report", {"asset": "cleaned"}),
            dag("audit", {"asset": "raw"}),
            dag("side", "@hourly", task("t")),
            assets=declared("raw", "ref_data", "cleaned"),
        ),
        fold_tasks=fold_tasks,
    )
    provenance = {
        "ingest": ("dags/ingest/load.py", ("etl", "daily")),
        "reference": ("dags/ingest/ref.py", ("etl",)),
        "clean": ("dags/marts/clean.py", ("etl", "marts")),
        "report": ("dags/marts/reports/report.py", ("marts",)),
        "audit": ("audit.py", ()),
    }
    for dag_id, (file, tags) in provenance.items():
        graph.nodes[f"dag:{dag_id}"].update(file=file, tags=tags)
    return graph


def dag_ids(nodes: set[str] | None) -> set[str]:
    assert nodes is not None
    return {n.removeprefix("dag:") for n in nodes if n.startswith("dag:")}


def test_an_empty_focus_shows_everything() -> None:
    assert not Focus().active
    assert visible_nodes(platform(), Focus()) is None
    assert visible_nodes(platform(), Focus(text="  ")) is None


@pytest.mark.parametrize("fold", [False, True])
def test_a_dag_with_its_upstream_and_downstream(fold: bool) -> None:
    graph = platform(fold_tasks=fold)
    shown = visible_nodes(graph, Focus(around="clean"))
    # upstream: ingest and reference write what clean reads; downstream: report reads cleaned
    assert dag_ids(shown) == {"ingest", "reference", "clean", "report"}
    assert shown is not None
    assert {"asset:raw", "asset:ref_data", "asset:cleaned", "gate:clean:0"} <= shown
    # audit reads raw too, but is neither upstream nor downstream of clean
    assert "dag:audit" not in shown and "dag:side" not in shown


def test_the_lineage_of_a_leaf_is_only_upstream() -> None:
    graph = platform()
    assert dag_ids(lineage(graph, "dag:report")) == {"ingest", "reference", "clean", "report"}
    assert lineage(graph, "dag:nowhere") == set()


def test_by_name_shows_the_dag_with_its_condition_and_outlets_only() -> None:
    graph = platform()
    shown = visible_nodes(graph, Focus(text="CLE"))
    assert shown is not None
    assert dag_ids(shown) == {"clean"}
    # its condition's gate and inputs, its task and what it writes; not the producers
    assert shown == {
        "dag:clean",
        "task:clean.t",
        "gate:clean:0",
        "asset:raw",
        "asset:ref_data",
        "asset:cleaned",
    }


def test_by_tag_and_by_folder() -> None:
    graph = platform()
    assert dag_ids(visible_nodes(graph, Focus(tag="etl"))) == {"ingest", "reference", "clean"}
    assert dag_ids(visible_nodes(graph, Focus(folder="dags/marts"))) == {"clean", "report"}
    assert dag_ids(visible_nodes(graph, Focus(folder="dags/marts/"))) == {"clean", "report"}
    assert dag_ids(visible_nodes(graph, Focus(folder="dags/mart"))) == set()  # not a prefix
    assert dag_ids(visible_nodes(graph, Focus(folder=""))) == {
        "ingest",
        "reference",
        "clean",
        "report",
        "audit",
    }  # everything under the import root; "side" has no file


def test_criteria_combine_with_and() -> None:
    graph = platform()
    assert matching_dags(graph, Focus(tag="etl", folder="dags/ingest")) == {
        "dag:ingest",
        "dag:reference",
    }
    assert matching_dags(graph, Focus(tag="etl", text="ref")) == {"dag:reference"}
    # the lineage of clean, narrowed to the DAGs tagged marts: the assets between stay
    shown = visible_nodes(graph, Focus(around="clean", tag="marts"))
    assert dag_ids(shown) == {"clean", "report"}
    assert shown is not None and "asset:raw" in shown and "task:ingest.load" not in shown


def test_tags_and_folders_offered() -> None:
    graph = platform()
    assert tags_of(graph) == ["daily", "etl", "marts"]
    assert folders_of(graph) == ["", "dags", "dags/ingest", "dags/marts", "dags/marts/reports"]
    assert dag_folder(None) is None
    assert dag_folder("a.py") == ""
    assert dag_folder("dags\\x\\a.py") == "dags/x"


def test_timeline_keys_are_dag_ids_and_asset_names() -> None:
    graph = platform()
    shown = visible_nodes(graph, Focus(text="report"))
    assert shown is not None
    assert timeline_keys(graph, shown) == ({"report"}, {"cleaned"})


def test_describe_says_what_is_shown() -> None:
    assert Focus().describe() == "everything"
    words = Focus(text="x", tag="etl", folder="", around="clean").describe()
    assert words == (
        "clean with its upstream and downstream, name contains 'x', tag 'etl', "
        "in folder (import root)"
    )


def test_the_scenario_graph_carries_tags_and_source_files() -> None:

    graph = scenario_graph(
        scenario(
            Dag("a", "@daily", tags=("etl",), source=DagSource("dags/x/a.py", 3)),
            Dag("b", "@daily"),
        )
    )
    assert graph.nodes["dag:a"]["tags"] == ("etl",)
    assert graph.nodes["dag:a"]["file"] == "dags/x/a.py"
    assert graph.nodes["dag:b"]["tags"] == () and graph.nodes["dag:b"]["file"] is None
    assert dag_ids(visible_nodes(graph, Focus(folder="dags/x"))) == {"a"}
