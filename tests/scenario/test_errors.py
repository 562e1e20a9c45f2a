"""Every bad input is a ScenarioError naming the file, a JSON path and what was expected."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from croniter import croniter

from explorer.scenario import ScenarioError, ScenarioErrors, load_scenario, loads_scenario
from tests.scenario.helpers import problems, small

Doc = dict[str, Any]


def croniter_message(expression: str) -> str:
    """What croniter itself says about ``expression``."""
    with pytest.raises(Exception) as caught:
        croniter(expression)
    return str(caught.value)


def set_in(*steps: str | int, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        node: Any = doc
        for step in steps[:-1]:
            node = node[step]
        node[steps[-1]] = value

    return change


def delete(*steps: str | int) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        node: Any = doc
        for step in steps[:-1]:
            node = node[step]
        del node[steps[-1]]

    return change


def append(*steps: str | int, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        node: Any = doc
        for step in steps:
            node = node[step]
        node.append(value)

    return change


def both(*changes: Callable[[Doc], None]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for c in changes:
            c(doc)

    return change


TRIGGER_ARGS = ("dags", 1, "schedule", "args")

BAD_INPUTS = [
    pytest.param(
        set_in("dags", 0, "start_date", value="2024-03-01T00:00:00"),
        "$.dags[0].start_date",
        "naive datetime '2024-03-01T00:00:00'",
        id="naive-start-date",
    ),
    pytest.param(
        set_in("script", 0, "at", value="2024-03-09 00:00"),
        "$.script[0].at",
        "not an ISO-8601 datetime",
        id="datetime-in-another-shape",
    ),
    pytest.param(
        set_in(
            "dags",
            1,
            "schedule",
            value={
                "timetable": "EventsTimetable",
                "args": {"event_dates": ["2024-03-09T00:00:00"]},
            },
        ),
        "$.dags[1].schedule.args.event_dates[0]",
        "naive datetime",
        id="naive-event-date",
    ),
    pytest.param(
        set_in("dags", 0, "timezone", value="Europe/Lodnon"),
        "$.dags[0].timezone",
        "unknown time zone 'Europe/Lodnon'",
        id="unknown-dag-zone",
    ),
    pytest.param(
        set_in(*TRIGGER_ARGS, "timezone", value="Mars/Olympus"),
        "$.dags[1].schedule.args.timezone",
        "unknown time zone 'Mars/Olympus'",
        id="unknown-timetable-zone",
    ),
    pytest.param(
        set_in("dags", 0, "schedule", value="0 25 * * *"),
        "$.dags[0].schedule",
        croniter_message("0 25 * * *"),
        id="invalid-cron-schedule",
    ),
    pytest.param(
        set_in(*TRIGGER_ARGS, "cron", value="* * *"),
        "$.dags[1].schedule.args.cron",
        croniter_message("* * *"),
        id="invalid-cron-argument",
    ),
    pytest.param(
        set_in(
            "dags",
            1,
            "schedule",
            value={
                "timetable": "MultipleCronTriggerTimetable",
                "args": {"crons": ["0 3 * * *", "99 * * * *"]},
            },
        ),
        "$.dags[1].schedule.args.crons[1]",
        croniter_message("99 * * * *"),
        id="invalid-cron-in-a-list",
    ),
    pytest.param(
        set_in("dags", 1, "schedule", "timetable", value="CronTrigerTimetable"),
        "$.dags[1].schedule.timetable",
        "unknown timetable 'CronTrigerTimetable' (did you mean 'CronTriggerTimetable'?)",
        id="unknown-timetable",
    ),
    pytest.param(
        set_in(*TRIGGER_ARGS, "start_date", value="2024-01-01T00:00:00Z"),
        "$.dags[1].schedule.args.start_date",
        "CronTriggerTimetable has no argument 'start_date'",
        id="unknown-timetable-argument",
    ),
    pytest.param(
        delete(*TRIGGER_ARGS, "cron"),
        "$.dags[1].schedule.args",
        "CronTriggerTimetable needs argument(s): cron",
        id="missing-timetable-argument",
    ),
    pytest.param(
        set_in(
            "dags",
            1,
            "schedule",
            value={
                "timetable": "AssetOrTimeSchedule",
                "args": {
                    "timetable": {"timetable": "PartitionedAssetTimetable", "args": {"assets": []}},
                    "assets": {"asset": "orders"},
                },
            },
        ),
        "$.dags[1].schedule.args.timetable.args.assets",
        "must not be empty",
        id="empty-asset-list",
    ),
    pytest.param(
        set_in(
            "dags",
            1,
            "schedule",
            value={
                "timetable": "AssetOrTimeSchedule",
                "args": {
                    "timetable": {
                        "timetable": "PartitionedAssetTimetable",
                        "args": {"assets": {"asset": "orders"}},
                    },
                    "assets": {"asset": "orders"},
                },
            },
        ),
        "$.dags[1].schedule.args.timetable",
        "needs a time-based timetable",
        id="asset-timetable-inside-asset-or-time",
    ),
    pytest.param(
        set_in("dags", 0, "schedule", value={"timedelta": "PT0S"}),
        "$.dags[0].schedule.timedelta",
        "schedule interval must be positive",
        id="zero-delta-refused-by-the-engine",
    ),
    pytest.param(
        set_in("dags", 0, "end_date", value="2024-02-01T00:00:00Z"),
        "$.dags[0].end_date",
        "is before start_date 2024-03-01T00:00:00Z",
        id="end-before-start",
    ),
    pytest.param(
        set_in("dags", 0, "tasks", 0, "duration", value="-PT5M"),
        "$.dags[0].tasks[0].duration",
        "negative duration '-PT5M'",
        id="negative-task-duration",
    ),
    pytest.param(
        set_in("scheduler", value={"loop_interval": "-PT1S"}),
        "$.scheduler.loop_interval",
        "negative duration",
        id="negative-loop-interval",
    ),
    pytest.param(
        set_in("dags", 0, "tasks", 0, "duration", value="P1M"),
        "$.dags[0].tasks[0].duration",
        "months or years, which have no fixed length",
        id="duration-in-months",
    ),
    pytest.param(
        set_in("dags", 1, "dag_id", value="a"),
        "$.dags[1].dag_id",
        "duplicate dag_id 'a' (first at $.dags[0])",
        id="duplicate-dag-id",
    ),
    pytest.param(
        append("dags", 0, "tasks", value={"task_id": "t1", "duration": "PT1M"}),
        "$.dags[0].tasks[1].task_id",
        "duplicate task_id 't1'",
        id="duplicate-task-id",
    ),
    pytest.param(
        set_in("script", 0, "run", "dag_id", value="nope"),
        "$.script[0].run.dag_id",
        "no DAG with dag_id 'nope'; the DAGs are: a, b",
        id="selector-on-unknown-dag",
    ),
    pytest.param(
        append("script", value={"at": "2024-03-09T01:00:00Z", "do": "pause", "dag_id": "c"}),
        "$.script[1].dag_id",
        "no DAG with dag_id 'c'",
        id="pause-on-unknown-dag",
    ),
    pytest.param(
        set_in("script", 0, "task_id", value="t9"),
        "$.script[0].task_id",
        "DAG 'a' has no task 't9' (its tasks: t1)",
        id="unknown-task-of-the-selected-dag",
    ),
    pytest.param(
        set_in("dags", 1, "catchup", value=True),
        "$.dags[1].catchup",
        "start_date is required when catchup=True",
        id="catchup-without-start-date",
    ),
    pytest.param(
        set_in("dags", 1, "schedule", value="@continuous"),
        "$.dags[1].max_active_runs",
        "ContinuousTimetable requires max_active_runs <= 1 (the default is 16)",
        id="continuous-with-default-max-active-runs",
    ),
    pytest.param(
        set_in("clock", "until", value="2024-03-07T00:00:00Z"),
        "$.clock.until",
        "is before clock.start",
        id="until-before-start",
    ),
    pytest.param(
        append("script", value={"at": "2024-03-08T12:00:00Z", "do": "unpause", "dag_id": "b"}),
        "$.script[1].at",
        "script actions must be in time order",
        id="script-out-of-order",
    ),
    pytest.param(
        set_in("script", 0, "at", value="2024-03-07T00:00:00Z"),
        "$.script[0].at",
        "is before clock.start",
        id="action-before-deployment",
    ),
    pytest.param(
        set_in("dags", 1, "schedule", value={"any": [{"asset": "orders"}, {"asset": "ordres"}]}),
        "$.dags[1].schedule.any[1].asset",
        "asset 'ordres' is not declared",
        id="undeclared-asset-in-schedule",
    ),
    pytest.param(
        set_in("dags", 0, "tasks", 0, "outlets", value=[{"asset": "customers"}]),
        "$.dags[0].tasks[0].outlets[0].asset",
        "asset 'customers' is not declared",
        id="undeclared-asset-in-outlet",
    ),
    pytest.param(
        delete("clock", "start"),
        "$.clock.start",
        "missing (required)",
        id="missing-clock-start",
    ),
    pytest.param(
        set_in("dags", 0, "catchup", value="yes"),
        "$.dags[0].catchup",
        "expected true or false, got 'yes'",
        id="wrong-type",
    ),
    pytest.param(
        set_in("script", 0, "run", "next", value=True),
        "$.script[0].run",
        "give only one of: nth, next",
        id="selector-with-two-criteria",
    ),
    pytest.param(
        set_in("script", 0, "do", value="task_sucess"),
        "$.script[0].do",
        "did you mean 'task_success'?",
        id="misspelt-action",
    ),
    pytest.param(
        append(
            "script",
            value={
                "at": "2024-03-09T00:00:00Z",
                "do": "backfill",
                "dag_id": "a",
                "from_date": "2024-02-10T00:00:00Z",
                "to_date": "2024-02-01T00:00:00Z",
            },
        ),
        "$.script[1].to_date",
        "is before from_date",
        id="backfill-backwards-range",
    ),
    pytest.param(
        append(
            "script",
            value={
                "at": "2024-03-09T00:00:00Z",
                "do": "override",
                "run": {"dag_id": "a", "nth": 1},
                "hold": False,
            },
        ),
        "$.script[1]",
        "an override must change something",
        id="override-that-changes-nothing",
    ),
    pytest.param(
        delete("format"),
        "$.format",
        'missing; a scenario file starts with "format": "schedule-explorer/2"',
        id="missing-format",
    ),
    pytest.param(
        set_in("format", value="schedule-explorer/3"),
        "$.format",
        "written by a newer version of Schedule Explorer",
        id="newer-format",
    ),
    pytest.param(
        set_in("format", value="airflow-dag/1"),
        "$.format",
        "unknown format 'airflow-dag/1'",
        id="unknown-format",
    ),
]


@pytest.mark.parametrize(("change", "path", "message"), BAD_INPUTS)
def test_a_bad_input_is_reported_at_its_json_path(
    change: Callable[[Doc], None], path: str, message: str
) -> None:
    document = small()
    change(document)
    found = problems(document)
    assert [(p.path, message in p.message) for p in found] == [(path, True)], found


def test_the_valid_document_the_bad_inputs_start_from_loads() -> None:
    loads_scenario(json.dumps(small()))


class TestSeveralProblems:
    def test_a_file_with_three_problems_reports_all_three(self) -> None:
        document = small()
        document["dags"][0]["start_date"] = "2024-03-01T00:00:00"
        document["dags"][1]["timezone"] = "Mars/Olympus"
        document["dags"][1]["schedule"]["args"]["cron"] = "0 0 31 2 * * * *"
        with pytest.raises(ScenarioErrors) as caught:
            loads_scenario(json.dumps(document), source="three.json")
        paths = [p.path for p in caught.value.problems]
        assert paths == [
            "$.dags[0].start_date",
            "$.dags[1].schedule.args.cron",
            "$.dags[1].timezone",
        ]

    def test_three_rule_violations_are_reported_together(self) -> None:
        document = small()
        document["dags"][1]["dag_id"] = "a"
        document["dags"][0]["end_date"] = "2024-01-01T00:00:00Z"
        document["script"][0]["run"]["dag_id"] = "z"
        paths = [p.path for p in problems(document)]
        assert paths == ["$.dags[0].end_date", "$.dags[1].dag_id", "$.script[0].run.dag_id"]

    def test_each_problem_is_one_line_and_all_of_them_make_the_message(self) -> None:
        document = small()
        document["dags"][0]["timezone"] = "Nowhere/Land"
        document["dags"][1]["timezone"] = "Mars/Olympus"
        with pytest.raises(ScenarioErrors) as caught:
            loads_scenario(json.dumps(document), source="two.json")
        lines = str(caught.value).splitlines()
        assert lines == [str(p) for p in caught.value.problems]
        assert lines[0] == "two.json: $.dags[0].timezone: unknown time zone 'Nowhere/Land'"
        assert caught.value.path == "$.dags[0].timezone"  # the first problem's


class TestMalformedFiles:
    def test_malformed_json_is_located_by_line_and_column(self) -> None:
        text = '{\n  "format": "schedule-explorer/1",\n  "name": "x",,\n}'
        [problem] = problems(text)
        assert problem.path == "$"
        assert problem.message.startswith("malformed JSON at line 3, column 15:")

    def test_a_key_written_twice_is_an_error_not_a_silent_overwrite(self) -> None:
        text = json.dumps(small()).replace('"dag_id": "b"', '"dag_id": "b", "dag_id": "c"')
        [problem] = problems(text)
        assert problem.path == "$.dags[1].dag_id"
        assert "appears more than once" in problem.message

    def test_a_json_array_is_not_a_scenario(self) -> None:
        [problem] = problems("[]")
        assert problem.message == "a scenario file holds one JSON object ({...})"

    def test_nan_is_not_accepted_as_a_number(self) -> None:
        [problem] = problems('{"format": "schedule-explorer/1", "x-n": NaN}')
        assert "NaN is not a JSON number" in problem.message

    def test_a_missing_file_is_a_scenario_error_naming_it(self, tmp_path: Path) -> None:
        with pytest.raises(ScenarioError) as caught:
            load_scenario(tmp_path / "absent.json")
        assert str(caught.value).startswith(f"{tmp_path / 'absent.json'}: $: cannot read the file")

    def test_a_file_that_is_not_utf8_is_a_scenario_error(self, tmp_path: Path) -> None:
        path = tmp_path / "latin1.json"
        path.write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
        with pytest.raises(ScenarioError, match="not UTF-8"):
            load_scenario(path)


class TestStages:
    def test_rule_checks_wait_until_the_file_has_the_right_shape(self) -> None:
        """A typo is reported alone first, rather than cascading into rule violations."""
        document = small()
        document["dags"][0]["timezone"] = "Mars/Olympus"  # schema (a leaf format)
        document["dags"][1]["dag_id"] = "a"  # a rule: duplicate dag_id
        assert [p.path for p in problems(document)] == ["$.dags[0].timezone"]

    def test_an_absurdly_deep_condition_is_refused_without_a_traceback(self) -> None:
        depth = 400
        condition = '{"all": [' * depth + '{"asset": "orders"}' + "]}" * depth
        text = json.dumps(small()).replace('"schedule": "0 0 * * *"', f'"schedule": {condition}')
        [problem] = problems(text)
        assert problem.message == "nested too deeply to be read"
