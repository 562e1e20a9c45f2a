"""Assets in scenarios: conditions, outlets, alias events, external events; refusals; warnings."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from explorer.engine.actions import ExternalEvent, TaskFinish
from explorer.engine.assets.condition import (
    AliasNode,
    AllOf,
    AnyOf,
    AssetKey,
    AssetNode,
    RefNode,
)
from explorer.engine.dag import AliasEmission
from explorer.scenario import (
    AliasEvent,
    EngineInputs,
    TaskOutcomeAction,
    build_engine_inputs,
    dumps_scenario,
    loads_scenario,
)
from tests.scenario.helpers import problems, small

Doc = dict[str, Any]

ORDERS = AssetKey("orders", "s3://warehouse/orders")
LATE = {"alias": {"name": "late"}}


def build(change: Callable[[Doc], object]) -> EngineInputs:
    document = small()
    change(document)
    return build_engine_inputs(loads_scenario(json.dumps(document), source="s.json"))


def schedule(value: Any) -> Callable[[Doc], object]:
    return lambda doc: doc["dags"][1].update(schedule=value)


def task(**fields: Any) -> Callable[[Doc], object]:
    return lambda doc: doc["dags"][0]["tasks"][0].update(fields)


def action(**fields: Any) -> Callable[[Doc], object]:
    return lambda doc: doc["script"][0].update(fields)


def event(asset: Any, **fields: Any) -> Callable[[Doc], object]:
    body = {"at": "2024-03-09T01:00:00Z", "do": "asset_event", "asset": asset, **fields}
    return lambda doc: doc["script"].append(body)


def both(*changes: Callable[[Doc], object]) -> Callable[[Doc], object]:
    def change(doc: Doc) -> None:
        for c in changes:
            c(doc)

    return change


def condition_of(inputs: EngineInputs, index: int = 1) -> Any:
    return inputs.dags[index].timetable.asset_condition


class TestConditions:
    def test_declared_and_inline_assets_nest_as_written(self) -> None:
        value = {"all": [{"asset": "orders"}, {"any": [{"asset": {"uri": "s3://b/k"}}, LATE]}]}
        inputs = build(schedule(value))
        assert inputs.dags[1].timetable.name == "AssetTriggeredTimetable"
        assert condition_of(inputs) == AllOf(
            (
                AssetNode(ORDERS),
                AnyOf((AssetNode(AssetKey("s3://b/k", "s3://b/k")), AliasNode("late"))),
            )
        )

    def test_a_bare_list_means_all(self) -> None:
        inputs = build(schedule([{"asset": "orders"}, {"asset_ref": {"uri": "s3://x/y"}}]))
        assert condition_of(inputs) == AllOf((AssetNode(ORDERS), RefNode(uri="s3://x/y")))

    def test_inline_assets_are_normalized_as_airflow_does(self) -> None:
        inputs = build(schedule({"asset": {"uri": "S3://Bucket/Path//?b=2&a=1#frag"}}))
        key = AssetKey("S3://Bucket/Path//?b=2&a=1#frag", "s3://Bucket/Path?a=1&b=2")
        assert condition_of(inputs) == AssetNode(key)  # URI-1, URI-3

    def test_x_keys_anywhere_in_a_condition_are_kept_out_of_the_engine(self) -> None:
        value = {
            "any": [
                {"asset": "orders", "x-why": "main feed"},
                {"asset_ref": {"name": "orders", "x-a": 1}, "x-b": 2},
                {"asset": {"name": "raw", "x-owner": "ops"}},
            ],
            "x-note": "either",
        }
        inputs = build(schedule(value))
        assert condition_of(inputs) == AnyOf(
            (AssetNode(ORDERS), RefNode(name="orders"), AssetNode(AssetKey("raw", "raw")))
        )

    def test_asset_or_time_schedule_holds_its_timetable_and_its_condition(self) -> None:
        value = {
            "timetable": "AssetOrTimeSchedule",
            "args": {
                "timetable": {"timetable": "CronTriggerTimetable", "args": {"cron": "0 3 * * *"}},
                "assets": [{"asset": "orders"}, LATE],
            },
        }
        inputs = build(both(schedule(value), task(outlets=[LATE])))
        table: Any = inputs.dags[1].timetable
        assert (
            table.name == "AssetOrTimeSchedule" and table.timetable.name == "CronTriggerTimetable"
        )
        assert table.asset_condition == AllOf((AssetNode(ORDERS), AliasNode("late")))
        assert table.periodic and table.can_be_scheduled
        assert not any("not simulated" in w for w in inputs.warnings)


class TestOutletsAndAliasEvents:
    def test_each_kind_of_outlet_becomes_its_engine_value(self) -> None:
        outlets = [
            {"asset": "orders"},
            {"asset": {"uri": "s3://b/p/"}},
            {"asset_ref": {"name": "orders"}},
            {"alias": {"name": "late", "group": "exports"}},
        ]
        spec = build(task(outlets=outlets)).dags[0].tasks[0]
        assert spec.outlets == (
            ORDERS,
            AssetKey("s3://b/p/", "s3://b/p"),
            RefNode(name="orders"),
            AliasNode("late"),
        )

    def test_partition_keys_and_alias_events_reach_the_task_spec(self) -> None:
        events = [
            {"alias": "late", "asset": {"asset": "orders"}, "extra": {"rows": 3}},
            {"alias": "late", "asset": {"asset": {"uri": "s3://b/k"}}},
        ]
        spec = build(task(outlets=[LATE], partition_keys=["us", "eu"], alias_events=events))
        t = spec.dags[0].tasks[0]
        assert t.partition_keys == ("us", "eu")
        assert t.alias_events == (
            AliasEmission("late", ORDERS, (("rows", 3),)),
            AliasEmission("late", AssetKey("s3://b/k", "s3://b/k")),
        )

    def test_nested_extras_are_hashable_and_still_json(self) -> None:
        extra = {"files": ["a", "b"], "meta": {"rows": 1}}
        events = [{"alias": "late", "asset": {"asset": "orders"}, "extra": extra}]
        [emission] = build(task(outlets=[LATE], alias_events=events)).dags[0].tasks[0].alias_events
        hash(emission)  # the engine groups emissions by (asset, extra) (AS-9)
        assert json.loads(json.dumps(dict(emission.extra))) == extra

    def test_extras_airflow_finds_equal_are_equal_whatever_their_key_order(self) -> None:
        early = {"alias": {"name": "early"}}
        events = [
            {
                "alias": "late",
                "asset": {"asset": "orders"},
                "extra": {"a": 1, "b": {"x": 1, "y": 2}},
            },
            {
                "alias": "early",
                "asset": {"asset": "orders"},
                "extra": {"b": {"y": 2, "x": 1}, "a": 1},
            },
        ]
        spec = build(task(outlets=[LATE, early], alias_events=events)).dags[0].tasks[0]
        first, second = spec.alias_events
        assert first.extra == second.extra and hash(first.extra) == hash(second.extra)  # AS-9

    def test_an_alias_event_through_an_alias_that_is_not_an_outlet_is_left_out(self) -> None:
        events = [{"alias": "other", "asset": {"asset": "orders"}}]
        inputs = build(task(outlets=[LATE], alias_events=events))
        assert inputs.dags[0].tasks[0].alias_events == ()
        [warning] = [w for w in inputs.warnings if w.startswith("$.dags[0].tasks[0].alias_events")]
        assert warning.startswith(
            "$.dags[0].tasks[0].alias_events[0].alias: alias 'other' is not an outlet of task 't1'"
        )
        assert "Airflow ignores" in warning


class TestActions:
    def test_a_success_may_carry_partition_keys_and_alias_events(self) -> None:
        events = [{"alias": "late", "asset": {"asset": "orders"}, "extra": {"k": "v"}}]
        inputs = build(
            both(task(outlets=[LATE]), action(partition_keys=["2024-03-09"], alias_events=events))
        )
        [finish] = inputs.script
        assert isinstance(finish, TaskFinish)
        assert finish.partition_keys == ("2024-03-09",)
        assert finish.alias_events == (AliasEmission("late", ORDERS, (("k", "v"),)),)

    def test_a_plain_success_keeps_what_the_task_declares(self) -> None:
        [finish] = build(lambda doc: None).script
        assert isinstance(finish, TaskFinish)
        assert (finish.partition_keys, finish.alias_events) == (None, None)

    def test_an_empty_list_of_alias_events_means_none_this_time(self) -> None:
        [finish] = build(both(task(outlets=[LATE]), action(alias_events=[]))).script
        assert isinstance(finish, TaskFinish) and finish.alias_events == ()

    def test_a_success_no_data_may_carry_them_too(self) -> None:
        change = both(task(outlets=[LATE]), action(do="task_success_no_data", partition_keys=["a"]))
        [finish] = build(change).script
        assert isinstance(finish, TaskFinish)
        assert (finish.outcome, finish.partition_keys) == ("success_no_data", ("a",))

    def test_an_asset_event_becomes_an_external_event(self) -> None:
        inputs = build(event({"asset": "orders"}, partition_key="us", extra={"rows": 1}))
        assert inputs.script[1] == ExternalEvent(
            datetime(2024, 3, 9, 1, tzinfo=UTC), ORDERS, "us", (("rows", 1),)
        )
        assert inputs.unsupported == ()

    def test_an_asset_event_may_spell_a_known_asset_inline(self) -> None:
        inline = {"asset": {"name": "orders", "uri": "s3://warehouse/orders/"}}  # URI-6
        inputs = build(event(inline))
        assert isinstance(inputs.script[1], ExternalEvent) and inputs.script[1].asset == ORDERS
        assert inputs.script[1].extra == ()

    def test_an_asset_created_through_an_alias_may_get_external_events(self) -> None:
        emitted = {"asset": {"uri": "s3://exports/x"}}
        events = [{"alias": "late", "asset": emitted}]
        inputs = build(both(task(outlets=[LATE], alias_events=events), event(emitted)))
        assert inputs.script[1].asset == AssetKey("s3://exports/x", "s3://exports/x")  # type: ignore[union-attr]


class TestRoundTrip:
    def test_alias_events_and_keys_save_and_reload_unchanged(self) -> None:
        document = small()
        document["dags"][0]["tasks"][0].update(
            outlets=[LATE],
            alias_events=[
                {"alias": "late", "asset": {"asset": "orders", "x-n": 1}, "x-why": "test"},
                {"alias": "late", "asset": {"asset": {"uri": "s3://q"}}, "extra": {"a": [1]}},
            ],
        )
        document["script"][0].update(
            partition_keys=["k"], alias_events=[{"alias": "late", "asset": {"asset": "orders"}}]
        )
        scenario = loads_scenario(json.dumps(document))
        event = scenario.dags[0].tasks[0].alias_events[0]
        assert event == AliasEvent("late", {"asset": "orders", "x-n": 1}, None, {"x-why": "test"})
        scripted = scenario.script[0]
        assert isinstance(scripted, TaskOutcomeAction) and scripted.partition_keys == ("k",)
        text = dumps_scenario(scenario)
        assert loads_scenario(text) == scenario
        assert dumps_scenario(loads_scenario(text)) == text


def set_in(*steps: str | int, value: Any) -> Callable[[Doc], object]:
    def change(doc: Doc) -> None:
        node: Any = doc
        for step in steps[:-1]:
            node = node[step]
        node[steps[-1]] = value

    return change


AIRFLOW_URI = {"asset": {"uri": "airflow://dags/x"}}
AOTS_INNER = {"timetable": "CronTriggerTimetable", "args": {"cron": "0 2 * * *"}}

BAD_ASSETS = [
    pytest.param(
        lambda doc: doc["assets"].append({"name": "bad", "uri": "AIRFLOW://x"}),
        "$.assets[1].uri",
        "the scheme 'airflow' is reserved",
        id="reserved-scheme-in-a-declaration",
    ),
    pytest.param(
        lambda doc: doc["assets"].append({"name": "self"}),
        "$.assets[1].name",
        "prohibited name for asset: 'self'",
        id="reserved-name-in-a-declaration",
    ),
    pytest.param(
        lambda doc: doc["assets"].append({"name": "orders", "uri": "s3://elsewhere"}),
        "$.assets[1].name",
        "asset 'orders' is declared twice",
        id="a-name-declared-twice",
    ),
    pytest.param(
        schedule({"any": [{"asset": "orders"}, AIRFLOW_URI]}),
        "$.dags[1].schedule.any[1].asset.uri",
        "asset URI 'airflow://dags/x': the scheme 'airflow' is reserved",
        id="reserved-scheme-in-a-condition",
    ),
    pytest.param(
        task(outlets=[AIRFLOW_URI]),
        "$.dags[0].tasks[0].outlets[0].asset.uri",
        "the scheme 'airflow' is reserved",
        id="reserved-scheme-in-an-outlet",
    ),
    pytest.param(
        task(outlets=[{"asset": {"name": "context", "uri": "s3://b/k"}}]),
        "$.dags[0].tasks[0].outlets[0].asset.name",
        "prohibited name for asset: 'context'",
        id="reserved-name-in-an-outlet",
    ),
    pytest.param(
        schedule({"asset": {"uri": "   "}}),
        "$.dags[1].schedule.asset.uri",
        "cannot be just whitespace",
        id="blank-uri",
    ),
    pytest.param(
        schedule(
            {
                "timetable": "AssetOrTimeSchedule",
                "args": {"timetable": AOTS_INNER, "assets": [AIRFLOW_URI]},
            }
        ),
        "$.dags[1].schedule.args.assets[0].asset.uri",
        "the scheme 'airflow' is reserved",
        id="reserved-scheme-in-asset-or-time",
    ),
    pytest.param(
        schedule(
            {
                "timetable": "AssetOrTimeSchedule",
                "args": {"timetable": AOTS_INNER, "assets": {"asset": "ordrs"}},
            }
        ),
        "$.dags[1].schedule.args.assets.asset",
        "asset 'ordrs' is not declared (did you mean 'orders'?)",
        id="undeclared-name-in-asset-or-time",
    ),
    pytest.param(
        schedule(
            {
                "timetable": "AssetOrTimeSchedule",
                "args": {
                    "timetable": {
                        "timetable": "AssetOrTimeSchedule",
                        "args": {"timetable": AOTS_INNER, "assets": {"asset": "orders"}},
                    },
                    "assets": {"asset": "orders"},
                },
            }
        ),
        "$.dags[1].schedule.args.timetable",
        "AssetOrTimeSchedule needs a time-based timetable, not an asset one",
        id="asset-or-time-inside-asset-or-time",
    ),
    pytest.param(
        task(outlets=[LATE], alias_events=[{"alias": "late", "asset": {"asset": "custs"}}]),
        "$.dags[0].tasks[0].alias_events[0].asset.asset",
        "asset 'custs' is not declared",
        id="undeclared-name-in-an-alias-event",
    ),
    pytest.param(
        task(outlets=[LATE], alias_events=[{"alias": "late", "asset": AIRFLOW_URI}]),
        "$.dags[0].tasks[0].alias_events[0].asset.asset.uri",
        "the scheme 'airflow' is reserved",
        id="reserved-scheme-in-an-alias-event",
    ),
    pytest.param(
        action(alias_events=[{"alias": "late", "asset": {"asset": "custs"}}]),
        "$.script[0].alias_events[0].asset.asset",
        "asset 'custs' is not declared",
        id="undeclared-name-in-a-scripted-alias-event",
    ),
    pytest.param(
        action(do="task_failed", partition_keys=["k"]),
        "$.script[0].partition_keys",
        "unknown key 'partition_keys'",
        id="a-failure-emits-no-partition-keys",
    ),
    pytest.param(
        event({"asset": {"name": "refunds", "uri": "s3://warehouse/refunds"}}),
        "$.script[1].asset",
        "no asset refunds (s3://warehouse/refunds) in this deployment: "
        "Airflow answers 404 (AssetModel not found)",
        id="event-on-an-asset-nobody-declares-or-uses",
    ),
    pytest.param(
        event({"asset": {"uri": "s3://warehouse/orders"}}),
        "$.script[1].asset",
        "(asset 'orders' has this uri; names differ",
        id="event-on-the-default-name-of-a-known-uri",
    ),
    pytest.param(
        event({"asset": {"name": "orders", "uri": "s3://warehouse/orders/v2"}}),
        "$.script[1].asset",
        "(asset 'orders' has the uri 's3://warehouse/orders')",
        id="event-on-a-known-name-with-another-uri",
    ),
    pytest.param(
        event({"asset": "ordres"}),
        "$.script[1].asset.asset",
        "asset 'ordres' is not declared (did you mean 'orders'?)",
        id="event-on-an-undeclared-name",
    ),
    pytest.param(
        event({"asset_ref": {"name": "orders"}}),
        "$.script[1].asset.asset_ref",
        'an external asset event names an asset: write {"asset": ...}',
        id="event-on-a-reference",
    ),
    pytest.param(
        event(AIRFLOW_URI),
        "$.script[1].asset.asset.uri",
        "the scheme 'airflow' is reserved",
        id="event-on-a-reserved-uri",
    ),
]


@pytest.mark.parametrize(("change", "path", "message"), BAD_ASSETS)
def test_a_bad_asset_is_reported_at_its_json_path(
    change: Callable[[Doc], object], path: str, message: str
) -> None:
    document = small()
    change(document)
    found = problems(document)
    assert [(p.file, p.path, message in p.message) for p in found] == [("bad.json", path, True)], (
        found
    )


def test_a_refused_declaration_is_reported_once_not_at_every_use() -> None:
    document = small()
    document["assets"][0]["uri"] = "airflow://orders"
    document["dags"][1]["schedule"] = [{"asset": "orders"}]
    document["script"].append(
        {"at": "2024-03-09T01:00:00Z", "do": "asset_event", "asset": {"asset": "orders"}}
    )
    assert [p.path for p in problems(document)] == ["$.assets[0].uri"]


def test_an_alias_event_names_a_concrete_asset() -> None:
    events = [{"alias": "late", "asset": {"asset_ref": {"name": "orders"}}}]
    document = small()
    task(outlets=[LATE], alias_events=events)(document)
    paths = [p.path for p in problems(document)]
    assert "$.dags[0].tasks[0].alias_events[0].asset.asset_ref" in paths


def test_a_model_with_a_bad_asset_fails_to_build_as_the_file_would() -> None:
    import dataclasses

    scenario = loads_scenario(json.dumps(small()))
    bad = dataclasses.replace(scenario.dags[1], schedule={"asset": {"uri": "airflow://x"}})
    with pytest.raises(Exception) as caught:
        build_engine_inputs(dataclasses.replace(scenario, dags=(scenario.dags[0], bad)), source="m")
    assert str(caught.value) == (
        "m: $.dags[1].schedule.asset.uri: asset URI 'airflow://x': the scheme 'airflow' is reserved"
    )


class TestWarnings:
    def warnings(self, *changes: Callable[[Doc], object]) -> list[str]:
        return build(both(*changes)).warnings

    def test_an_alias_nothing_can_emit_through_is_a_located_warning(self) -> None:
        [warning] = self.warnings(schedule({"any": [{"asset": "orders"}, LATE]}))
        assert warning.startswith(
            "$.dags[1].schedule.any[1].alias: alias 'late' is never emitted through"
        )
        assert "Airflow accepts this DAG" in warning

    def test_an_alias_in_an_asset_or_time_schedule_is_checked_too(self) -> None:
        value = {
            "timetable": "AssetOrTimeSchedule",
            "args": {"timetable": AOTS_INNER, "assets": LATE},
        }
        [warning] = self.warnings(schedule(value))
        assert warning.startswith("$.dags[1].schedule.args.assets.alias: alias 'late' is never")

    def test_an_alias_a_task_emits_through_is_fine(self) -> None:
        events = [{"alias": "late", "asset": {"asset": "orders"}}]
        assert self.warnings(schedule(LATE), task(outlets=[LATE], alias_events=events)) == []

    def test_an_alias_emitted_only_by_the_script_is_fine(self) -> None:
        events = [{"alias": "late", "asset": {"asset": "orders"}}]
        assert (
            self.warnings(schedule(LATE), task(outlets=[LATE]), action(alias_events=events)) == []
        )

    def test_an_alias_outlet_nothing_is_added_to_is_a_warning(self) -> None:
        [warning] = self.warnings(schedule(LATE), task(outlets=[LATE]))
        assert warning.startswith(
            "$.dags[0].tasks[0].outlets[0].alias: the simulation emits nothing through alias 'late'"
        )

    def test_a_reference_to_no_asset_is_a_located_warning(self) -> None:
        [warning] = self.warnings(schedule([{"asset": "orders"}, {"asset_ref": {"name": "ordrs"}}]))
        assert warning == (
            "$.dags[1].schedule[1].asset_ref: Asset.ref(name='ordrs') matches no asset declared or "
            "used in this scenario (did you mean 'orders'?): it never resolves, so this part of "
            "the condition stays false"
        )

    def test_a_reference_by_an_unnormalized_uri_never_resolves(self) -> None:
        [warning] = self.warnings(schedule({"asset_ref": {"uri": "s3://warehouse/orders/"}}))
        assert "(did you mean 's3://warehouse/orders'? Asset.ref(uri=...) is compared" in warning

    def test_a_reference_outlet_to_no_asset_emits_nothing(self) -> None:
        [warning] = self.warnings(task(outlets=[{"asset_ref": {"uri": "s3://nowhere"}}]))
        assert warning.startswith("$.dags[0].tasks[0].outlets[0].asset_ref: Asset.ref(uri=")
        assert warning.endswith("so this outlet emits nothing")

    def test_references_to_declared_or_used_assets_are_fine(self) -> None:
        refs = [{"asset_ref": {"name": "orders"}}, {"asset_ref": {"uri": "s3://raw/x"}}]
        assert self.warnings(schedule(refs), task(outlets=[{"asset": {"uri": "s3://raw/x"}}])) == []

    def test_a_password_dropped_from_a_uri_is_a_warning(self) -> None:
        [warning] = self.warnings(lambda doc: doc["assets"][0].update(uri="s3://u:pw@warehouse/o"))
        assert warning.startswith("$.assets[0].uri: An Asset URI should not contain a password")

    def test_two_declarations_that_clash_are_accepted(self) -> None:
        def declare(doc: Doc) -> None:
            doc["assets"] += [{"name": "s3://b/p/"}, {"name": "s3://b/p"}]
            doc["dags"][0]["tasks"][0]["outlets"] = [{"asset": "s3://b/p/"}]
            doc["dags"][1]["schedule"] = [{"asset": "s3://b/p"}]

        inputs = build(declare)
        assert inputs.warnings == []  # the engine warns when it deploys them (URI-2)
        assert inputs.dags[0].tasks[0].outlets == (AssetKey("s3://b/p/", "s3://b/p"),)
        assert condition_of(inputs) == AllOf((AssetNode(AssetKey("s3://b/p", "s3://b/p")),))

    def test_warnings_come_in_file_order(self) -> None:
        found = self.warnings(
            schedule(LATE),
            task(outlets=[{"asset_ref": {"name": "nope"}}]),
            action(at="2024-03-11T00:00:00Z"),
        )
        assert [w.split(": ")[0] for w in found] == [
            "$.dags[0].tasks[0].outlets[0].asset_ref",
            "$.dags[1].schedule.alias",
            "$.script[0]",
        ]
