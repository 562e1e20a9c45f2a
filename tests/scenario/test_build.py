"""From the model to engine values: timetables, tasks, actions, warnings."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from explorer.engine.actions import (
    Backfill,
    Deploy,
    ExternalEvent,
    Override,
    Pause,
    RunOutcome,
    TaskFinish,
    Trigger,
    Unpause,
)
from explorer.engine.assets.condition import (
    AliasNode,
    AllOf,
    AnyOf,
    AssetKey,
    AssetNode,
    RefNode,
)
from explorer.engine.dagfile import DeployDag, RemoveDag, SetOption
from explorer.scenario import (
    Dag,
    ScenarioError,
    build_engine_inputs,
    load_scenario,
    loads_scenario,
)
from tests.scenario.helpers import FULL, small


def scenario_with(schedule: Any, *, data_intervals: bool = False, **dag: Any) -> Any:
    document = small()
    document["dags"] = [{"dag_id": "d", "schedule": schedule, "tasks": [], **dag}]
    document["script"] = []
    document["airflow_config"] = {"scheduler": {"create_cron_data_intervals": data_intervals}}
    return loads_scenario(json.dumps(document))


ORDERS = AssetKey("orders", "s3://warehouse/orders")
TIMETABLE = {"timetable": "CronTriggerTimetable", "args": {"cron": "0 2 * * *", "interval": "PT6H"}}


@pytest.mark.parametrize(
    ("schedule", "data_intervals", "expected"),
    [
        pytest.param("0 0 * * *", False, "CronTriggerTimetable", id="cron-string"),
        pytest.param("0 0 * * *", True, "CronDataIntervalTimetable", id="cron-with-data-intervals"),
        pytest.param("@daily", False, "CronTriggerTimetable", id="preset"),
        pytest.param("@once", False, "OnceTimetable", id="once"),
        pytest.param(None, False, "NullTimetable", id="none"),
        pytest.param({"timedelta": "PT6H"}, False, "DeltaTriggerTimetable", id="timedelta"),
        pytest.param(
            {"timedelta": "PT6H"}, True, "DeltaDataIntervalTimetable", id="timedelta-data-intervals"
        ),
        pytest.param({"relativedelta": {"months": 1}}, False, "DeltaTriggerTimetable", id="months"),
        pytest.param(TIMETABLE, False, "CronTriggerTimetable", id="timetable-object"),
        pytest.param(
            {"timetable": "EventsTimetable", "args": {"event_dates": ["2024-03-09T00:00:00Z"]}},
            False,
            "EventsTimetable",
            id="events",
        ),
        pytest.param({"asset": "orders"}, False, "AssetTriggeredTimetable", id="asset-condition"),
        pytest.param([{"asset": "orders"}], False, "AssetTriggeredTimetable", id="asset-list"),
        pytest.param(
            {
                "timetable": "AssetOrTimeSchedule",
                "args": {"timetable": TIMETABLE, "assets": {"asset": "orders"}},
            },
            False,
            "AssetOrTimeSchedule",
            id="asset-or-time",
        ),
        pytest.param(
            {"timetable": "PartitionedAssetTimetable", "args": {"assets": {"asset": "orders"}}},
            False,
            "PartitionedAssetTimetable",
            id="partitioned-assets",
        ),
        pytest.param(
            {"timetable": "PartitionedAtRuntime"}, False, "PartitionedAtRuntime", id="at-runtime"
        ),
    ],
)
def test_each_schedule_kind_builds_the_timetable_airflow_would_use(
    schedule: Any, data_intervals: bool, expected: str
) -> None:
    inputs = build_engine_inputs(scenario_with(schedule, data_intervals=data_intervals))
    assert inputs.dags[0].timetable.name == expected


def test_continuous_builds_with_one_active_run() -> None:
    inputs = build_engine_inputs(scenario_with("@continuous", max_active_runs=1))
    assert inputs.dags[0].timetable.name == "ContinuousTimetable"


def test_cron_strings_are_read_in_the_dag_timezone() -> None:
    inputs = build_engine_inputs(scenario_with("0 0 * * *", timezone="America/New_York"))
    timetable: Any = inputs.dags[0].timetable
    assert timetable.timezone_name == "America/New_York"


def test_durations_in_timetable_arguments_become_timedeltas() -> None:
    timetable: Any = build_engine_inputs(scenario_with(TIMETABLE)).dags[0].timetable
    assert timetable.interval == timedelta(hours=6)


def test_asset_driven_schedules_are_simulated_without_a_warning() -> None:
    inputs = build_engine_inputs(scenario_with({"asset": "orders"}))
    assert inputs.warnings == []
    assert inputs.dags[0].timetable.asset_condition == AssetNode(ORDERS)


def test_partitioned_asset_timetables_are_simulated_without_a_warning() -> None:
    schedule = {"timetable": "PartitionedAssetTimetable", "args": {"assets": [{"asset": "orders"}]}}
    inputs = build_engine_inputs(scenario_with(schedule))
    timetable = inputs.dags[0].timetable
    assert timetable.asset_condition == AllOf((AssetNode(ORDERS),))
    assert timetable.partitioned
    assert inputs.warnings == []


class TestFullScenario:
    def test_dags_and_tasks_become_engine_specs(self) -> None:
        inputs = build_engine_inputs(load_scenario(FULL))
        dag = inputs.dags[0]
        assert dag.dag_id == "cron_string"
        assert dag.start_date == datetime(2024, 3, 1, 7, 30, 0, 250000, tzinfo=UTC)
        assert (dag.timezone, dag.catchup, dag.max_active_runs) == ("America/New_York", True, 4)
        assert dag.is_paused_upon_creation
        assert [(t.task_id, t.duration, t.outcome) for t in dag.tasks] == [
            ("extract", timedelta(hours=1, minutes=30), "success_no_data"),
            ("report", timedelta(0), "failed"),
        ]

    def test_declared_assets_are_resolved_in_task_outlets(self) -> None:
        task = build_engine_inputs(load_scenario(FULL)).dags[0].tasks[0]
        assert task.outlets == (ORDERS, AssetKey("raw", "s3://raw/x"))
        assert task.partition_keys == ("us", "eu")

    def test_each_script_action_becomes_its_engine_action(self) -> None:
        inputs = build_engine_inputs(load_scenario(FULL))
        kinds = [type(a) for a in inputs.script]
        assert kinds == [
            Deploy, Deploy, Unpause, Trigger, Trigger, TaskFinish, TaskFinish, TaskFinish,
            RunOutcome, RunOutcome, Override, Pause, Backfill, ExternalEvent,
            DeployDag, SetOption, SetOption, RemoveDag,
        ]  # fmt: skip
        finishes = [a for a in inputs.script if isinstance(a, TaskFinish)]
        assert [f.outcome for f in finishes] == ["success", "failed", "success_no_data"]
        assert [r.outcome for r in inputs.script if isinstance(r, RunOutcome)] == [
            "success",
            "failed",
        ]
        override = next(a for a in inputs.script if isinstance(a, Override))
        assert (override.delay, override.hold, override.outcome) == (
            timedelta(minutes=15),
            True,
            "failed",
        )
        assert inputs.script[0] == Deploy(
            datetime(2024, 3, 8, 5, tzinfo=UTC), ("cron_string", "preset")
        )
        selector = inputs.script[9].run  # type: ignore[union-attr]
        assert selector.logical_date == datetime(2024, 3, 9, 7, 30, tzinfo=UTC)

    def test_asset_events_become_external_events(self) -> None:
        inputs = build_engine_inputs(load_scenario(FULL))
        assert inputs.unsupported == ()
        assert inputs.script[13] == ExternalEvent(
            datetime(2024, 3, 9, 1, tzinfo=UTC), ORDERS, "us", (("rows", 42), ("ratio", 0.5))
        )

    def test_asset_driven_dags_get_their_conditions(self) -> None:
        dags = {d.dag_id: d for d in build_engine_inputs(load_scenario(FULL)).dags}
        customers = AssetKey("customers", "s3://warehouse/customers")
        assert dags["mart"].timetable.asset_condition == AllOf(
            (AssetNode(ORDERS), AnyOf((AssetNode(customers), AliasNode("late"))))
        )
        assert dags["listed"].timetable.asset_condition == AllOf(
            (RefNode(name="orders"), AssetNode(customers))
        )
        either: Any = dags["asset_or_time"].timetable
        assert either.name == "AssetOrTimeSchedule"
        assert either.timetable.name == "CronTriggerTimetable"
        assert either.asset_condition == AssetNode(ORDERS)

    def test_the_only_warning_is_the_silent_alias(self) -> None:
        warnings = build_engine_inputs(load_scenario(FULL)).warnings
        assert [w.split(": ")[0] for w in warnings] == ["$.dags[12].schedule.all[1].any[1].alias"]

    def test_deployment_changes_become_engine_actions(self) -> None:
        """DEP-1, DEP-6, DEP-7: the new file (its unset fields left to the options), the
        removal and each option as ``airflow.cfg`` spells it."""
        inputs = build_engine_inputs(load_scenario(FULL))
        deploy, first, second, remove = inputs.script[14:]
        assert isinstance(deploy, DeployDag)
        assert deploy.at == datetime(2024, 3, 9, 2, tzinfo=UTC)
        assert (deploy.dag_id, deploy.file.schedule, deploy.file.catchup) == (
            "preset",
            "0 */2 * * *",
            False,
        )
        assert deploy.file.max_active_runs is None  # unset: [core] max_active_runs_per_dag
        assert first == SetOption(
            datetime(2024, 3, 9, 3, tzinfo=UTC), "scheduler", "catchup_by_default", False
        )
        assert second == SetOption(
            datetime(2024, 3, 9, 3, tzinfo=UTC), "core", "max_active_runs_per_dag", 4
        )
        assert remove == RemoveDag(datetime(2024, 3, 9, 4, tzinfo=UTC), "once")

    def test_the_clock_and_scheduler_settings_are_carried_over(self) -> None:
        inputs = build_engine_inputs(load_scenario(FULL))
        assert inputs.start == datetime(2024, 3, 8, 5, tzinfo=UTC)
        assert inputs.until == datetime(2024, 3, 20, tzinfo=UTC)
        assert inputs.loop_interval == timedelta(seconds=5)
        assert inputs.parse_interval is None


class TestModelsEditedInCode:
    def test_a_model_edited_into_an_invalid_state_fails_as_the_file_would(self) -> None:
        scenario = scenario_with("0 0 * * *")
        broken = dataclasses.replace(
            scenario, dags=(dataclasses.replace(scenario.dags[0], schedule="@continuous"),)
        )
        with pytest.raises(ScenarioError) as caught:
            build_engine_inputs(broken, source="edited")
        assert str(caught.value).startswith("edited: $.dags[0].max_active_runs: Invalid")

    def test_a_bad_zone_set_in_code_is_located(self) -> None:
        scenario = scenario_with("0 0 * * *")
        broken = dataclasses.replace(
            scenario, dags=(Dag("d", schedule="@daily", timezone="Atlantis/City"),)
        )
        with pytest.raises(ScenarioError) as caught:
            build_engine_inputs(broken)
        assert caught.value.path == "$.dags[0].timezone"


def test_a_start_date_written_in_another_offset_than_the_zone_gets_a_warning() -> None:
    inputs = build_engine_inputs(scenario_with("0 0 * * *", start_date="2024-03-01T00:00:00-05:00"))
    assert inputs.warnings == [
        "$.dags[0].start_date: written with offset -05:00 but timezone is 'UTC': "
        "cron schedules are read in UTC"
    ]


def test_an_action_after_the_horizon_gets_a_warning() -> None:
    document = small()
    document["script"][0]["at"] = "2024-03-11T00:00:00Z"
    inputs = build_engine_inputs(loads_scenario(json.dumps(document)))
    assert "$.script[0]: at 2024-03-11T00:00:00Z is after clock.until: it never happens" in (
        inputs.warnings
    )
