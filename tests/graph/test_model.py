"""The scenario graph: node ids, kinds and edges, and never an exception on a half-edited file."""

from __future__ import annotations

from typing import Any

import pytest

from explorer.graph.model import (
    asset_node,
    dag_node,
    gate_node,
    ref_node,
    scenario_graph,
    schedule_kind,
    task_node,
)
from explorer.scenario import load_scenario
from explorer.scenario.model import AliasEvent, AssetDecl
from tests.graph.helpers import EXAMPLES, dag, declared, edges, kinds, scenario, task


def orders() -> Any:
    return scenario_graph(load_scenario(EXAMPLES / "orders_mart_two_assets.json"))


class TestOrdersExample:
    """Two hourly/daily producers write orders and customers; orders_mart waits for both."""

    def test_it_has_a_node_for_every_dag_task_asset_and_the_and_gate(self) -> None:
        assert kinds(orders()) == {
            "dag:ingest_orders": "dag",
            "task:ingest_orders.write_orders": "task",
            "asset:orders": "asset",
            "dag:ingest_customers": "dag",
            "task:ingest_customers.write_customers": "task",
            "asset:customers": "asset",
            "dag:orders_mart": "dag",
            "task:orders_mart.build_mart": "task",
            "gate:orders_mart:0": "gate",
        }

    def test_its_edges_run_from_producers_through_the_gate_to_the_consumer(self) -> None:
        graph = orders()
        assert edges(graph, "owns") == {
            ("dag:ingest_orders", "task:ingest_orders.write_orders"),
            ("dag:ingest_customers", "task:ingest_customers.write_customers"),
            ("dag:orders_mart", "task:orders_mart.build_mart"),
        }
        assert edges(graph, "outlet") == {
            ("task:ingest_orders.write_orders", "asset:orders"),
            ("task:ingest_customers.write_customers", "asset:customers"),
        }
        assert edges(graph, "input") == {
            ("asset:orders", "gate:orders_mart:0"),
            ("asset:customers", "gate:orders_mart:0"),
            ("gate:orders_mart:0", "dag:orders_mart"),
        }
        assert edges(graph) == edges(graph, "owns") | edges(graph, "outlet") | edges(graph, "input")

    def test_the_list_schedule_is_an_all_gate_whose_inputs_keep_their_order(self) -> None:
        graph = orders()
        assert graph.nodes["gate:orders_mart:0"]["op"] == "all"
        assert graph.edges["asset:orders", "gate:orders_mart:0"]["position"] == 0
        assert graph.edges["asset:customers", "gate:orders_mart:0"]["position"] == 1

    def test_nodes_carry_what_the_canvas_shows(self) -> None:
        graph = orders()
        assert graph.nodes["dag:ingest_orders"]["schedule_kind"] == "cron"
        assert graph.nodes["dag:orders_mart"]["schedule_kind"] == "assets"
        assert graph.nodes["dag:orders_mart"]["tasks"] == ("build_mart",)
        assert graph.nodes["asset:orders"]["uri"] == "s3://warehouse/orders"
        assert graph.nodes["asset:orders"]["declared"] is True
        assert all(data["problems"] == () for _, data in graph.nodes(data=True))

    def test_folding_tasks_draws_each_dag_straight_to_what_it_writes(self) -> None:
        graph = scenario_graph(
            load_scenario(EXAMPLES / "orders_mart_two_assets.json"), fold_tasks=True
        )
        assert "task" not in kinds(graph).values()
        assert edges(graph, "outlet") == {
            ("dag:ingest_orders", "asset:orders"),
            ("dag:ingest_customers", "asset:customers"),
        }
        assert graph.edges["dag:ingest_orders", "asset:orders"]["tasks"] == ("write_orders",)

    def test_the_id_helpers_spell_the_same_ids(self) -> None:
        graph = orders()
        for node in (
            dag_node("orders_mart"),
            task_node("ingest_orders", "write_orders"),
            asset_node("customers"),
            gate_node("orders_mart", (0,)),
        ):
            assert node in graph


class TestConditionGates:
    def test_nested_all_and_any_give_nested_gates_named_by_their_position(self) -> None:
        schedule = {
            "all": [
                {"asset": "a"},
                {"any": [{"asset": "b"}, {"all": [{"asset": "c"}, {"asset": "d"}]}]},
            ]
        }
        graph = scenario_graph(scenario(dag("mart", schedule), assets=declared("a", "b", "c", "d")))
        ops = {n: d["op"] for n, d in graph.nodes(data=True) if d["kind"] == "gate"}
        assert ops == {"gate:mart:0": "all", "gate:mart:0.1": "any", "gate:mart:0.1.1": "all"}
        assert edges(graph, "input") == {
            ("asset:a", "gate:mart:0"),
            ("gate:mart:0.1", "gate:mart:0"),
            ("asset:b", "gate:mart:0.1"),
            ("gate:mart:0.1.1", "gate:mart:0.1"),
            ("asset:c", "gate:mart:0.1.1"),
            ("asset:d", "gate:mart:0.1.1"),
            ("gate:mart:0", "dag:mart"),
        }

    def test_switching_a_gate_between_all_and_any_keeps_its_id(self) -> None:
        def gates(op: str) -> dict[str, str]:
            schedule = {"all": [{"asset": "a"}, {op: [{"asset": "b"}, {"asset": "c"}]}]}
            graph = scenario_graph(scenario(dag("m", schedule), assets=declared("a", "b", "c")))
            return {n: d["op"] for n, d in graph.nodes(data=True) if d["kind"] == "gate"}

        assert gates("any") == {"gate:m:0": "all", "gate:m:0.1": "any"}
        assert gates("all") == {"gate:m:0": "all", "gate:m:0.1": "all"}

    def test_a_bare_list_and_an_explicit_all_give_the_same_graph(self) -> None:
        leaves = [{"asset": "a"}, {"asset": "b"}]
        as_list = scenario_graph(scenario(dag("m", leaves), assets=declared("a", "b")))
        as_all = scenario_graph(scenario(dag("m", {"all": leaves}), assets=declared("a", "b")))
        assert dict(as_list.nodes(data=True)) == dict(as_all.nodes(data=True))
        assert edges(as_list) == edges(as_all)

    def test_a_single_asset_feeds_its_dag_without_a_gate(self) -> None:
        graph = scenario_graph(scenario(dag("m", {"asset": "a"}), assets=declared("a")))
        assert edges(graph, "input") == {("asset:a", "dag:m")}

    def test_asset_or_time_schedule_reads_its_condition_from_args_assets(self) -> None:
        schedule = {
            "timetable": "AssetOrTimeSchedule",
            "args": {
                "timetable": {"timetable": "CronTriggerTimetable", "args": {"cron": "0 0 * * *"}},
                "assets": {"any": [{"asset": "a"}, {"asset": "b"}]},
            },
        }
        graph = scenario_graph(scenario(dag("m", schedule), assets=declared("a", "b")))
        assert graph.nodes["dag:m"]["schedule_kind"] == "timetable:AssetOrTimeSchedule"
        assert graph.nodes["gate:m:0"]["op"] == "any"
        assert ("gate:m:0", "dag:m") in edges(graph, "input")

    def test_x_keys_in_a_condition_are_comments_not_conditions(self) -> None:
        schedule = {"any": [{"asset": "a", "x-note": "hi"}], "x-why": "because"}
        graph = scenario_graph(scenario(dag("m", schedule), assets=declared("a")))
        assert edges(graph, "input") == {("asset:a", "gate:m:0"), ("gate:m:0", "dag:m")}


class TestAssets:
    def test_an_inline_asset_without_a_name_is_named_by_its_uri(self) -> None:
        writer = task("t", {"asset": {"uri": "s3://lake/raw"}})
        graph = scenario_graph(scenario(dag("p", "@daily", writer)))
        assert graph.nodes["asset:s3://lake/raw"]["name"] == "s3://lake/raw"
        assert graph.nodes["asset:s3://lake/raw"]["declared"] is False

    def test_an_inline_asset_and_its_declaration_are_one_node(self) -> None:
        writer = task("t", {"asset": {"name": "orders", "uri": "s3://warehouse/orders"}})
        consumer = dag("m", {"asset": "orders"})
        graph = scenario_graph(
            scenario(dag("p", "@daily", writer), consumer, assets=declared("orders"))
        )
        assert [n for n, k in kinds(graph).items() if k == "asset"] == ["asset:orders"]
        assert graph.nodes["asset:orders"]["declared"] is True
        assert graph.nodes["asset:orders"]["problems"] == ()

    def test_one_name_written_with_two_uris_is_one_node_with_a_problem(self) -> None:
        writer = task("t", {"asset": {"name": "orders", "uri": "s3://elsewhere/orders"}})
        graph = scenario_graph(scenario(dag("p", "@daily", writer), assets=declared("orders")))
        assert "two URIs" in graph.nodes["asset:orders"]["problems"][0]

    def test_a_declared_asset_nothing_uses_is_still_drawn(self) -> None:
        graph = scenario_graph(scenario(assets=declared("lonely")))
        assert kinds(graph) == {"asset:lonely": "asset"}


class TestAliasesAndRefs:
    """alias_and_ref.json: export_orders writes through an alias; ref_consumer reads a ref."""

    def graph(self) -> Any:
        return scenario_graph(load_scenario(EXAMPLES / "alias_and_ref.json"))

    def test_a_task_writes_through_its_alias_to_the_asset_it_declares(self) -> None:
        graph = self.graph()
        assert graph.nodes["alias:daily_export"]["kind"] == "alias"
        assert ("task:export_orders.write_export", "alias:daily_export") in edges(graph, "outlet")
        assert edges(graph, "emits") == {("alias:daily_export", "asset:export_orders")}

    def test_an_alias_consumer_is_fed_by_the_alias(self) -> None:
        assert ("alias:daily_export", "dag:alias_consumer") in edges(self.graph(), "input")

    def test_a_ref_by_name_is_resolved_from_the_asset_it_matches(self) -> None:
        graph = self.graph()
        assert graph.nodes["ref:name:orders"]["label"] == "Asset.ref(name='orders')"
        assert edges(graph, "resolves") == {("asset:orders", "ref:name:orders")}
        assert ("ref:name:orders", "dag:ref_consumer") in edges(graph, "input")

    def test_a_ref_by_uri_resolves_to_the_asset_with_that_uri(self) -> None:
        consumer = dag("m", {"asset_ref": {"uri": "s3://warehouse/orders"}})
        graph = scenario_graph(scenario(consumer, assets=declared("orders")))
        assert ref_node(uri="s3://warehouse/orders") == "ref:uri:s3://warehouse/orders"
        assert edges(graph, "resolves") == {("asset:orders", "ref:uri:s3://warehouse/orders")}

    def test_a_ref_that_matches_no_asset_says_it_never_fires(self) -> None:
        graph = scenario_graph(scenario(dag("m", {"asset_ref": {"name": "ghost"}})))
        assert "matches no asset" in graph.nodes["ref:name:ghost"]["problems"][0]

    def test_an_alias_event_on_an_undeclared_alias_name_is_still_drawn(self) -> None:
        writer = task("t", alias_events=(AliasEvent("side", {"asset": {"uri": "s3://x/y"}}),))
        graph = scenario_graph(scenario(dag("p", "@daily", writer)))
        assert edges(graph, "emits") == {("alias:side", "asset:s3://x/y")}


class TestUnresolved:
    """The GUI rebuilds the graph on every edit: a broken scenario gives nodes, not exceptions."""

    def test_an_undeclared_asset_name_becomes_an_unresolved_node(self) -> None:
        graph = scenario_graph(
            scenario(dag("m", [{"asset": "orders"}, {"asset": "nope"}]), assets=declared("orders"))
        )
        node = graph.nodes["asset:nope"]
        assert node["kind"] == "unresolved"
        assert node["expected"] == "asset"
        assert "not declared" in node["problems"][0]
        assert ("asset:nope", "gate:m:0") in edges(graph, "input")

    def test_declaring_the_missing_asset_keeps_its_node_id(self) -> None:
        consumer = dag("m", {"asset": "orders"})
        before = scenario_graph(scenario(consumer))
        after = scenario_graph(scenario(consumer, assets=declared("orders")))
        assert before.nodes["asset:orders"]["kind"] == "unresolved"
        assert after.nodes["asset:orders"]["kind"] == "asset"

    def test_an_inline_asset_of_the_same_name_resolves_it_but_keeps_the_problem(self) -> None:
        writer = task("t", {"asset": {"name": "orders", "uri": "s3://a/orders"}})
        graph = scenario_graph(scenario(dag("m", {"asset": "orders"}), dag("p", "@daily", writer)))
        assert graph.nodes["asset:orders"]["kind"] == "asset"
        assert "not declared" in graph.nodes["asset:orders"]["problems"][0]

    @pytest.mark.parametrize(
        ("schedule", "node", "expected"),
        [
            ({"foo": 1}, "unresolved:dag:m:0", "condition"),
            ({}, "unresolved:dag:m:0", "condition"),
            ({"all": "orders"}, "unresolved:dag:m:0", "gate"),
            ({"asset": 42}, "unresolved:dag:m:0", "asset"),
            ({"asset": {}}, "unresolved:dag:m:0", "asset"),
            ({"asset_ref": {"name": ""}}, "unresolved:dag:m:0", "ref"),
            ({"asset_ref": {"name": "a", "uri": "b"}}, "unresolved:dag:m:0", "ref"),
            ({"alias": {}}, "unresolved:dag:m:0", "alias"),
            ([{"asset": "a"}, {"any": [7]}], "unresolved:dag:m:0.1.0", "condition"),
        ],
        ids=[
            "unknown-key",
            "empty-object",
            "gate-without-list",
            "asset-number",
            "asset-without-name-or-uri",
            "ref-empty-name",
            "ref-name-and-uri",
            "alias-without-name",
            "number-deep-inside",
        ],
    )
    def test_an_unreadable_condition_becomes_an_unresolved_node(
        self, schedule: Any, node: str, expected: str
    ) -> None:
        graph = scenario_graph(scenario(dag("m", schedule), assets=declared("a")))
        assert graph.nodes[node]["kind"] == "unresolved"
        assert graph.nodes[node]["expected"] == expected
        assert graph.nodes[node]["problems"]

    def test_a_condition_written_as_an_outlet_becomes_an_unresolved_node(self) -> None:
        writer = task("t", {"all": [{"asset": "a"}]})
        graph = scenario_graph(scenario(dag("p", "@daily", writer), assets=declared("a")))
        assert graph.nodes["unresolved:task:p.t:outlets.0"]["expected"] == "outlet"
        assert ("task:p.t", "unresolved:task:p.t:outlets.0") in edges(graph, "outlet")

    def test_an_asset_with_a_refused_uri_is_drawn_with_its_problem(self) -> None:
        bad = (AssetDecl("internal", "airflow://internal"),)
        graph = scenario_graph(scenario(dag("m", {"asset": "internal"}), assets=bad))
        assert graph.nodes["asset:internal"]["kind"] == "asset"
        assert graph.nodes["asset:internal"]["problems"]

    def test_a_repeated_dag_id_is_drawn_once_with_a_problem(self) -> None:
        graph = scenario_graph(
            scenario(dag("m", "@daily", task("a")), dag("m", "@hourly", task("b")))
        )
        assert graph.nodes["dag:m"]["tasks"] == ("a",)
        assert "repeated" in graph.nodes["dag:m"]["problems"][0]
        assert "task:m.b" not in graph

    @pytest.mark.parametrize(
        "schedule",
        [
            42,
            True,
            1.5,
            {"timetable": 3},
            {"timetable": {"all": []}},
            {"timetable": "AssetOrTimeSchedule"},
            {"timetable": "AssetOrTimeSchedule", "args": []},
        ],
    )
    def test_a_schedule_that_is_no_schedule_gives_a_dag_without_inputs(self, schedule: Any) -> None:
        graph = scenario_graph(scenario(dag("m", schedule)))
        assert list(graph.predecessors("dag:m")) == []


class TestScheduleKind:
    @pytest.mark.parametrize(
        ("schedule", "kind"),
        [
            (None, "none"),
            ("@daily", "cron"),
            ("0 3 * * 1-5", "cron"),
            ("@once", "once"),
            ("@continuous", "continuous"),
            ({"timedelta": "PT6H"}, "delta"),
            ({"relativedelta": {"months": 1}}, "delta"),
            ([{"asset": "a"}], "assets"),
            ({"any": []}, "assets"),
            ({"asset_ref": {"name": "a"}}, "assets"),
            (
                {"timetable": "CronTriggerTimetable", "args": {"cron": "0 0 * * *"}},
                "timetable:CronTriggerTimetable",
            ),
            ({"timetable": "PartitionedAssetTimetable", "args": {"assets": []}}, "partitioned"),
            ({"timetable": "AssetOrTimeSchedule"}, "timetable:AssetOrTimeSchedule"),
            ({"nonsense": 1}, "invalid"),
            (42, "invalid"),
        ],
        ids=[
            "null",
            "preset",
            "cron",
            "once",
            "continuous",
            "timedelta",
            "relativedelta",
            "list",
            "any",
            "ref",
            "cron-trigger-timetable",
            "partitioned",
            "asset-or-time",
            "unknown-object",
            "number",
        ],
    )
    def test_a_schedule_is_classified_as_airflow_reads_it(self, schedule: Any, kind: str) -> None:
        assert schedule_kind(schedule) == kind


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_every_example_builds_a_graph_without_problems(example: str) -> None:
    graph = scenario_graph(load_scenario(EXAMPLES / example))
    assert len(graph) > 0
    assert [
        n for n, d in graph.nodes(data=True) if d["problems"] or d["kind"] == "unresolved"
    ] == []
