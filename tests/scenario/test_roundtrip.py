"""Load, save, load: the same model, and the second save byte-identical (contract section 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.scenario import (
    Dag,
    ScenarioError,
    build_engine_inputs,
    dumps_scenario,
    load_scenario,
    loads_scenario,
    save_scenario,
)
from tests.scenario.helpers import EXAMPLES, FULL, problems, small


class TestFullScenario:
    def test_a_full_scenario_reloads_to_an_equal_model(self, tmp_path: Path) -> None:
        original = load_scenario(FULL)
        save_scenario(original, tmp_path / "copy.json")
        assert load_scenario(tmp_path / "copy.json") == original

    def test_the_second_save_is_byte_identical_to_the_first(self, tmp_path: Path) -> None:
        save_scenario(load_scenario(FULL), tmp_path / "first.json")
        save_scenario(load_scenario(tmp_path / "first.json"), tmp_path / "second.json")
        first = (tmp_path / "first.json").read_bytes()
        assert first == (tmp_path / "second.json").read_bytes()
        assert first.endswith(b"}\n")

    def test_saving_keeps_datetimes_and_durations_as_they_were_written(self) -> None:
        text = dumps_scenario(load_scenario(FULL))
        assert '"start_date": "2024-03-01T02:30:00.250-05:00"' in text
        assert '"start": "2024-03-08T00:00:00-05:00"' in text
        assert '"duration": "PT1H30M"' in text
        assert '"2024-03-12T18:00:00+01:00"' in text

    def test_x_keys_are_kept_at_top_level_in_a_dag_and_in_a_task(self) -> None:
        scenario = load_scenario(FULL)
        assert scenario.extras == {
            "x-review": {"ticket": "DATA-123", "approved": False},
            "x-tags": ["dst", "demo"],
        }
        dag = scenario.dags[0]
        assert dag.extras == {"x-file": "dags/cron_string.py"}
        assert dag.tasks[0].extras == {"x-owner": "team-a"}
        saved = json.loads(dumps_scenario(scenario))
        assert saved["x-review"] == {"ticket": "DATA-123", "approved": False}
        assert saved["dags"][0]["x-file"] == "dags/cron_string.py"
        assert saved["dags"][0]["tasks"][0]["x-owner"] == "team-a"

    def test_x_keys_are_kept_in_sections_actions_selectors_and_schedules(self) -> None:
        saved = json.loads(dumps_scenario(load_scenario(FULL)))
        assert saved["clock"]["x-note"] == "clock"
        assert saved["airflow_config"]["x-origin"] == "prod airflow.cfg"
        assert saved["assets"][1]["x-colour"] == "#00aa00"
        assert saved["script"][2]["x-reason"] == "go live"
        assert saved["script"][5]["run"]["x-picked"] == "by hand"
        assert saved["dags"][5]["schedule"]["x-why"] == "batch"

    def test_an_unknown_key_without_x_prefix_is_a_located_error(self) -> None:
        document = small()
        document["dags"][0]["catchUp"] = True
        [problem] = problems(document)
        assert problem.path == "$.dags[0].catchUp"
        assert "did you mean 'catchup'" in problem.message
        assert str(problem).startswith("bad.json: $.dags[0].catchUp: unknown key 'catchUp'")

    def test_format_1s_deploy_alias_is_saved_as_the_parse_it_was(self) -> None:
        saved = json.loads(dumps_scenario(load_scenario(FULL.parent / "v1" / FULL.name)))
        assert saved["format"] == "schedule-explorer/2"
        assert [a["do"] for a in saved["script"][:2]] == ["parse", "parse"]


class TestCanonicalForm:
    def test_keys_follow_the_schema_order_whatever_order_they_were_read_in(self) -> None:
        document = small()
        document["dags"][0] = dict(reversed(list(document["dags"][0].items())))
        document = dict(reversed(list(document.items())))
        saved = json.loads(dumps_scenario(loads_scenario(json.dumps(document))))
        assert list(saved) == ["format", "name", "clock", "scheduler", "assets", "dags", "script"]
        assert list(saved["dags"][0]) == ["dag_id", "schedule", "start_date", "tasks"]

    def test_settings_equal_to_their_default_are_left_out(self) -> None:
        document = small()
        document["dags"][1].update(timezone="UTC", end_date=None, is_paused_upon_creation=False)
        saved = json.loads(dumps_scenario(loads_scenario(json.dumps(document))))
        assert saved["dags"][1] == {
            "dag_id": "b",
            "schedule": {"timetable": "CronTriggerTimetable", "args": {"cron": "0 2 * * *"}},
            "tasks": [],
        }

    def test_catchup_and_max_active_runs_set_to_the_default_stay_set(self) -> None:
        # ADR 0007: setting catchup=False is not leaving it to catchup_by_default.
        document = small()
        document["dags"][1].update(catchup=False, max_active_runs=16)
        scenario = loads_scenario(json.dumps(document))
        assert (scenario.dags[1].catchup, scenario.dags[1].max_active_runs) == (False, 16)
        saved = json.loads(dumps_scenario(scenario))
        assert (saved["dags"][1]["catchup"], saved["dags"][1]["max_active_runs"]) == (False, 16)
        del document["dags"][1]["catchup"], document["dags"][1]["max_active_runs"]
        unset = loads_scenario(json.dumps(document)).dags[1]
        assert (unset.catchup, unset.max_active_runs) == (None, None)

    def test_the_scheduler_settings_are_always_written(self) -> None:
        saved = json.loads(dumps_scenario(loads_scenario(json.dumps(small()))))
        assert saved["scheduler"] == {"loop_interval": "PT1S", "parse_interval": "PT30S"}

    def test_a_model_edited_in_code_saves_and_reloads(self) -> None:
        import dataclasses

        scenario = loads_scenario(json.dumps(small()))
        edited = dataclasses.replace(
            scenario, dags=(*scenario.dags, Dag("c", schedule="@hourly")), layout={"dag:c": (1, 2)}
        )
        assert loads_scenario(dumps_scenario(edited)) == edited


class TestExampleScenarios:
    @pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
    def test_every_example_loads_builds_and_is_saved_in_canonical_form(self, path: Path) -> None:
        scenario = load_scenario(path)
        assert dumps_scenario(scenario) == path.read_text(encoding="utf-8")
        inputs = build_engine_inputs(scenario, source=str(path))
        assert inputs.dags and not inputs.unsupported

    def test_the_examples_named_in_the_brief_exist(self) -> None:
        names = {p.name for p in EXAMPLES.glob("*.json")}
        assert {"ny_dst_spring_forward.json", "catchup_flood.json"} <= names

    def test_the_new_york_example_fails_the_run_of_the_short_day(self) -> None:
        inputs = build_engine_inputs(load_scenario(EXAMPLES / "ny_dst_spring_forward.json"))
        timetables = {dag.dag_id: dag.timetable.name for dag in inputs.dags}
        assert timetables["ingest_orders"] == "CronDataIntervalTimetable"
        assert timetables["midnight_report"] == "CronTriggerTimetable"
        [override] = inputs.script
        assert override.run.logical_date.isoformat() == "2024-03-10T05:00:00+00:00"  # type: ignore[union-attr]
        assert override.outcome == "failed"  # type: ignore[union-attr]

    def test_the_catchup_example_starts_sixty_days_before_deployment(self) -> None:
        inputs = build_engine_inputs(load_scenario(EXAMPLES / "catchup_flood.json"))
        [dag] = inputs.dags
        assert dag.catchup and dag.max_active_runs == 16
        assert dag.start_date is not None and (inputs.start - dag.start_date).days == 60
        assert {t.duration.total_seconds() for t in dag.tasks} == {600}


def test_loading_never_lets_anything_but_a_scenario_error_out() -> None:
    for text in ["", "{", "[]", "null", '{"format": 1}', '{"format": "schedule-explorer/1"}']:
        with pytest.raises(ScenarioError):
            loads_scenario(text)
