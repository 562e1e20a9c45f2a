"""Partitions in scenarios: PartitionedAssetTimetable, mapper specs, keys, manual runs (PT-*)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from explorer.engine.assets.condition import AliasNode, AssetKey, AssetNode, RefNode
from explorer.engine.partitions import (
    FanOutMapper,
    IdentityMapper,
    MinimumCount,
    RollupMapper,
    SegmentWindow,
    StartOfDayMapper,
)
from explorer.engine.partitions.spec import MAPPER_NAMES, POLICY_NAMES, WINDOW_NAMES
from explorer.engine.timetables.partitioned import PartitionedAssetTimetable
from explorer.scenario import EngineInputs, build_engine_inputs, dumps_scenario, loads_scenario
from explorer.scenario.partitions import MAPPER_ARGS, POLICY_ARGS, WINDOW_ARGS
from tests.scenario.helpers import problems, small

Doc = dict[str, Any]

ORDERS = AssetKey("orders", "s3://warehouse/orders")
DAY = {"mapper": "StartOfDayMapper"}
DAY_WINDOW = {"window": "DayWindow"}
ROLLUP = {"mapper": "RollupMapper", "args": {"upstream_mapper": DAY, "window": DAY_WINDOW}}
WHERE = "$.dags[1].schedule.args"


def partitioned(**args: Any) -> dict[str, Any]:
    return {
        "timetable": "PartitionedAssetTimetable",
        "args": {"assets": {"asset": "orders"}, **args},
    }


def document(schedule: Any = None, *changes: Callable[[Doc], object]) -> Doc:
    doc = small()
    doc["assets"].append({"name": "customers", "uri": "s3://warehouse/customers"})
    if schedule is not None:
        doc["dags"][1]["schedule"] = schedule
    for change in changes:
        change(doc)
    return doc


def build(schedule: Any = None, *changes: Callable[[Doc], object]) -> EngineInputs:
    text = json.dumps(document(schedule, *changes))
    return build_engine_inputs(loads_scenario(text, source="p.json"))


def table(inputs: EngineInputs, index: int = 1) -> PartitionedAssetTimetable:
    timetable = inputs.dags[index].timetable
    assert isinstance(timetable, PartitionedAssetTimetable)
    return timetable


def where(*steps: str) -> str:
    return WHERE + "".join(steps)


def the_problem(schedule: Any) -> tuple[str, str]:
    [problem] = problems(document(schedule))
    return problem.path, problem.message


# ----------------------------------------------------------------------------- timetable


class TestThePartitionedTimetable:
    def test_it_is_the_engines_timetable_with_its_default_mapper(self) -> None:
        inputs = build(partitioned(default_partition_mapper=ROLLUP))
        timetable = table(inputs)
        assert timetable.partitioned and timetable.asset_condition == AssetNode(ORDERS)
        mapper = timetable.default_partition_mapper
        assert isinstance(mapper, RollupMapper)
        assert isinstance(mapper.upstream_mapper, StartOfDayMapper)
        assert inputs.warnings == []

    def test_without_a_default_mapper_keys_pass_unchanged(self) -> None:
        assert isinstance(table(build(partitioned())).default_partition_mapper, IdentityMapper)

    def test_config_entries_map_asset_nodes_to_mappers(self) -> None:
        config = [
            {"asset": {"asset": "orders"}, "mapper": DAY},
            {"asset": {"asset_ref": {"name": "customers"}}, "mapper": {"mapper": "IdentityMapper"}},
        ]
        assets = {"all": [{"asset": "orders"}, {"asset": "customers"}]}
        timetable = table(build(partitioned(assets=assets, partition_mapper_config=config)))
        nodes = [node for node, _ in timetable.partition_mapper_config]
        assert nodes == [AssetNode(ORDERS), RefNode(name="customers")]
        assert isinstance(timetable.get_partition_mapper(name="orders"), StartOfDayMapper)
        assert isinstance(timetable.get_partition_mapper(name="customers"), IdentityMapper)

    def test_nested_windows_and_policies_are_built(self) -> None:
        rollup = {
            "mapper": "RollupMapper",
            "args": {
                "upstream_mapper": {"mapper": "FixedKeyMapper", "args": {"downstream_key": "all"}},
                "window": {"window": "SegmentWindow", "args": {"segments": ["us", "eu", "apac"]}},
                "wait_policy": {"policy": "MinimumCount", "args": {"n": 2}},
                "x-note": "regions",
            },
            "x-why": "early",
        }
        mapper = table(build(partitioned(default_partition_mapper=rollup))).default_partition_mapper
        assert isinstance(mapper, RollupMapper)
        assert isinstance(mapper.window, SegmentWindow)
        assert isinstance(mapper.wait_policy, MinimumCount)

    def test_fan_out_with_a_cap(self) -> None:
        fan_out = {
            "mapper": "FanOutMapper",
            "args": {
                "upstream_mapper": {"mapper": "StartOfWeekMapper"},
                "window": {"window": "WeekWindow"},
                "max_downstream_keys": 3,
            },
        }
        mapper = table(
            build(partitioned(default_partition_mapper=fan_out))
        ).default_partition_mapper
        assert isinstance(mapper, FanOutMapper) and mapper.max_downstream_keys == 3

    def test_partitioned_at_runtime_schedules_nothing(self) -> None:
        timetable = build({"timetable": "PartitionedAtRuntime"}).dags[1].timetable
        assert timetable.partitioned_at_runtime and not timetable.can_be_scheduled

    def test_the_new_keys_survive_a_save(self) -> None:
        config = [{"asset": {"asset": "orders"}, "mapper": DAY, "x-k": 1}]
        schedule = partitioned(default_partition_mapper=ROLLUP, partition_mapper_config=config)
        scenario = loads_scenario(json.dumps(document(schedule)))
        text = dumps_scenario(scenario)
        assert loads_scenario(text) == scenario
        assert json.loads(text)["dags"][1]["schedule"] == schedule


class TestLocatedMapperErrors:
    @pytest.mark.parametrize(
        ("spec", "path", "words"),
        [
            pytest.param(
                {"mapper": "DailyMapper"},
                where(".default_partition_mapper.mapper"),
                "unknown mapper 'DailyMapper'",
                id="unknown-mapper",
            ),
            pytest.param(
                {"mapper": "DayWindow"},
                where(".default_partition_mapper.mapper"),
                "'DayWindow' is a window, not a mapper",
                id="a-window-as-mapper",
            ),
            pytest.param(
                {
                    "mapper": "RollupMapper",
                    "args": {"upstream_mapper": DAY, "window": {"mapper": "DayWindow"}},
                },
                where(".default_partition_mapper.args.window"),
                "expected a window spec",
                id="window-spelled-as-mapper",
            ),
            pytest.param(
                {"mapper": "RollupMapper", "args": {"window": DAY_WINDOW}},
                where(".default_partition_mapper.args"),
                "RollupMapper needs argument(s): upstream_mapper",
                id="missing-argument",
            ),
            pytest.param(
                {"mapper": "StartOfDayMapper", "args": {"time_zone": "UTC"}},
                where(".default_partition_mapper.args.time_zone"),
                "StartOfDayMapper has no argument 'time_zone'",
                id="unknown-argument",
            ),
            pytest.param(
                {"mapper": "StartOfDayMapper", "args": {"timezone": "Mars/Base"}},
                where(".default_partition_mapper.args.timezone"),
                "unknown time zone 'Mars/Base'",
                id="bad-zone",
            ),
            pytest.param(
                {"mapper": "IdentityMapper", "args": {"max_downstream_keys": 0}},
                where(".default_partition_mapper.args.max_downstream_keys"),
                "max_downstream_keys must be a positive integer",
                id="zero-cap",
            ),
            pytest.param(
                {
                    "mapper": "RollupMapper",
                    "args": {"upstream_mapper": {"mapper": "IdentityMapper"}, "window": DAY_WINDOW},
                },
                where(".default_partition_mapper.args.window"),
                "RollupMapper cannot pair IdentityMapper with DayWindow",
                id="pairing-temporal-window-with-a-string-mapper",
            ),
            pytest.param(
                {
                    "mapper": "RollupMapper",
                    "args": {
                        "upstream_mapper": DAY,
                        "window": {"window": "SegmentWindow", "args": {"segments": ["us", ""]}},
                    },
                },
                where(".default_partition_mapper.args.window.args.segments"),
                "SegmentWindow segment keys must be non-empty",
                id="empty-segment",
            ),
            pytest.param(
                {
                    "mapper": "RollupMapper",
                    "args": {
                        "upstream_mapper": DAY,
                        "window": DAY_WINDOW,
                        "wait_policy": {"policy": "MinimumCount", "args": {"n": 0}},
                    },
                },
                where(".default_partition_mapper.args.wait_policy.args.n"),
                "MinimumCount(0) is degenerate",
                id="minimum-count-zero",
            ),
            pytest.param(
                {
                    "mapper": "RollupMapper",
                    "args": {
                        "upstream_mapper": DAY,
                        "window": {"window": "DayWindow", "args": {"direction": "sideways"}},
                    },
                },
                where(".default_partition_mapper.args.window.args.direction"),
                "DayWindow direction must be 'forward' or 'backward'",
                id="bad-direction",
            ),
            pytest.param(
                {
                    "mapper": "FanOutMapper",
                    "args": {"upstream_mapper": DAY, "window": {"window": "HourWindow"}},
                },
                where(".default_partition_mapper.args.window"),
                "FanOutMapper has no default downstream_mapper for HourWindow",
                id="fan-out-without-downstream-mapper",
            ),
            pytest.param(
                {"mapper": "ChainMapper", "args": {"mappers": [DAY, {"mapper": "Nope"}]}},
                where(".default_partition_mapper.args.mappers[1].mapper"),
                "unknown mapper 'Nope'",
                id="chain-item",
            ),
            pytest.param(
                {"mapper": "ProductMapper", "args": {"mappers": [DAY]}},
                where(".default_partition_mapper.args.mappers"),
                "two or more mapper specs",
                id="product-of-one",
            ),
        ],
    )
    def test_a_bad_spec_is_reported_where_it_is_wrong(
        self, spec: Any, path: str, words: str
    ) -> None:
        found_path, message = the_problem(partitioned(default_partition_mapper=spec))
        assert found_path == path
        assert words in message

    def test_a_bad_mapper_in_a_config_entry_is_located_in_that_entry(self) -> None:
        bad = {
            "mapper": "RollupMapper",
            "args": {
                "upstream_mapper": DAY,
                "window": {"window": "SegmentWindow", "args": {"segments": ["us"]}},
            },
        }
        config = [
            {"asset": {"asset": "orders"}, "mapper": DAY},
            {"asset": {"asset": "orders"}, "mapper": bad},
        ]
        path, message = the_problem(partitioned(partition_mapper_config=config))
        assert path == where(".partition_mapper_config[1].mapper.args.window")
        assert message.startswith("RollupMapper cannot pair StartOfDayMapper with SegmentWindow")

    def test_a_config_entry_needs_an_asset_and_a_mapper(self) -> None:
        config = [{"asset": {"asset": "orders"}}]
        path, message = the_problem(partitioned(partition_mapper_config=config))
        assert (path, message) == (
            where(".partition_mapper_config[0].mapper"),
            "missing (required)",
        )

    def test_an_undeclared_config_key_is_located(self) -> None:
        config = [{"asset": {"asset": "ordrs"}, "mapper": DAY}]
        path, message = the_problem(partitioned(partition_mapper_config=config))
        assert path == where(".partition_mapper_config[0].asset.asset")
        assert "did you mean 'orders'" in message

    def test_the_scenario_tables_name_every_engine_class(self) -> None:
        assert set(MAPPER_ARGS) == set(MAPPER_NAMES)
        assert set(WINDOW_ARGS) == set(WINDOW_NAMES)
        assert set(POLICY_ARGS) == set(POLICY_NAMES)


class TestConfigWarnings:
    def warnings(self, config: list[Any], **args: Any) -> list[str]:
        return build(partitioned(partition_mapper_config=config, **args)).warnings

    def test_an_alias_key_is_accepted_with_a_warning_as_airflow_only_warns(self) -> None:
        config = [{"asset": {"alias": {"name": "late"}}, "mapper": DAY}]
        [warning] = self.warnings(config)
        assert warning.startswith(where(".partition_mapper_config[0].asset: alias 'late'"))
        assert "Partitioned Asset Alias is not supported." in warning and "PT-16" in warning
        node, _ = table(build(partitioned(partition_mapper_config=config))).partition_mapper_config[
            0
        ]
        assert node == AliasNode("late")

    def test_a_ref_by_uri_is_never_used(self) -> None:
        config = [{"asset": {"asset_ref": {"uri": "s3://warehouse/orders"}}, "mapper": DAY}]
        [warning] = self.warnings(config)
        assert "never used as a partition_mapper_config key" in warning
        assert "get_partition_mapper" in warning

    def test_an_asset_outside_the_condition_is_never_used(self) -> None:
        [warning] = self.warnings([{"asset": {"asset": "customers"}, "mapper": DAY}])
        assert "no asset named 'customers' is in this DAG's assets" in warning

    def test_a_second_entry_for_a_name_replaces_the_first(self) -> None:
        config = [
            {"asset": {"asset": "orders"}, "mapper": DAY},
            {"asset": {"asset_ref": {"name": "orders"}}, "mapper": {"mapper": "IdentityMapper"}},
        ]
        [warning] = self.warnings(config)
        assert warning.startswith(where(".partition_mapper_config[1].asset"))
        assert "replaces it" in warning
        timetable = table(build(partitioned(partition_mapper_config=config)))
        assert isinstance(timetable.get_partition_mapper(name="orders"), IdentityMapper)


# ----------------------------------------------------------------------------- keys


def trigger(dag_id: str, **fields: Any) -> Callable[[Doc], object]:
    body = {"at": "2024-03-09T01:00:00Z", "do": "trigger", "dag_id": dag_id, **fields}
    return lambda doc: doc["script"].append(body)


def paths_and_messages(doc: Doc) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in problems(doc)]


class TestManualRunsWithKeys:
    def test_a_key_for_a_dag_that_is_not_partitioned_is_dag_not_partitioned_error(self) -> None:
        [(path, message)] = paths_and_messages(document(None, trigger("a", partition_key="us")))
        assert path == "$.script[1].partition_key"
        assert message.startswith("DagNotPartitionedError: DAG 'a' is not partitioned")
        assert "CronTriggerTimetable" in message and "PT-17" in message

    @pytest.mark.parametrize(
        "schedule",
        [
            pytest.param({"timetable": "PartitionedAtRuntime"}, id="at-runtime"),
            pytest.param(partitioned(), id="partitioned-assets"),
            pytest.param(
                {"timetable": "CronPartitionTimetable", "args": {"cron": "@daily"}},
                id="cron-partition",
            ),
        ],
    )
    def test_partitioned_dags_take_keys(self, schedule: Any) -> None:
        key = "2024-03-08T00:00:00"
        inputs = build(schedule, trigger("b", partition_key=key))
        assert inputs.script[-1].partition_key == key  # type: ignore[union-attr]

    def test_a_key_its_timetable_cannot_read_is_refused(self) -> None:
        schedule = {"timetable": "CronPartitionTimetable", "args": {"cron": "@daily"}}
        [(path, message)] = paths_and_messages(document(schedule, trigger("b", partition_key="us")))
        assert path == "$.script[1].partition_key"
        assert message.startswith("Airflow refuses this manual run: Partition key 'us' does not")

    @pytest.mark.parametrize(
        ("key", "words"),
        [
            pytest.param("   ", "must not be empty or only whitespace", id="blank"),
            pytest.param("k" * 251, "at most 250 characters", id="too-long"),
            pytest.param("", "must not be empty", id="empty"),
        ],
    )
    def test_keys_airflow_refuses(self, key: str, words: str) -> None:
        schedule = {"timetable": "PartitionedAtRuntime"}
        [(path, message)] = paths_and_messages(document(schedule, trigger("b", partition_key=key)))
        assert path == "$.script[1].partition_key"
        assert words in message

    def test_a_key_of_250_characters_is_fine(self) -> None:
        build({"timetable": "PartitionedAtRuntime"}, trigger("b", partition_key="k" * 250))


class TestEmittedKeys:
    def test_task_keys_follow_airflows_rules(self) -> None:
        def keys(doc: Doc) -> None:
            doc["dags"][0]["tasks"][0]["partition_keys"] = ["us", " ", "x" * 300]

        found = paths_and_messages(document(None, keys))
        assert [path for path, _ in found] == [
            "$.dags[0].tasks[0].partition_keys[1]",
            "$.dags[0].tasks[0].partition_keys[2]",
        ]

    def test_keys_of_a_task_success_follow_them_too(self) -> None:
        def keys(doc: Doc) -> None:
            doc["script"][0]["partition_keys"] = ["\t"]

        [(path, _)] = paths_and_messages(document(None, keys))
        assert path == "$.script[0].partition_keys[0]"

    def test_an_external_event_key_follows_them_too(self) -> None:
        def event(doc: Doc) -> None:
            doc["script"].append(
                {"at": "2024-03-09T01:00:00Z", "do": "asset_event", "asset": {"asset": "orders"},
                 "partition_key": "  "}
            )  # fmt: skip

        [(path, _)] = paths_and_messages(document(None, event))
        assert path == "$.script[1].partition_key"

    def test_keys_on_a_task_without_outlets_are_a_warning(self) -> None:
        def keys(doc: Doc) -> None:
            doc["dags"][1]["tasks"] = [
                {"task_id": "t", "duration": "PT1M", "partition_keys": ["us"]}
            ]

        [warning] = build(None, keys).warnings
        assert warning.startswith(
            "$.dags[1].tasks[0].partition_keys: task 't' has no asset outlets"
        )
