"""Airflow options by section and key (ADR 0007): one table for files, actions and --set."""

from __future__ import annotations

import json

import pytest

from explorer.scenario import AirflowConfig, dumps_scenario, loads_scenario
from explorer.scenario.options import (
    OPTIONS,
    effective_catchup,
    effective_max_active_runs,
    find_option,
    parse_option_text,
    with_option,
)
from tests.scenario.helpers import small


def test_the_defaults_are_airflow_3_3_2s() -> None:
    config = AirflowConfig()
    assert {o.name: getattr(config, o.key) for o in OPTIONS} == {
        "scheduler.create_cron_data_intervals": False,
        "scheduler.catchup_by_default": False,
        "scheduler.create_delta_data_intervals": False,
        "core.max_active_runs_per_dag": 16,
        "dag_processor.refresh_interval": 300,
    }
    assert all(o.default == getattr(config, o.key) for o in OPTIONS)


@pytest.mark.parametrize(
    ("text", "value"),
    [("True", True), ("true", True), ("t", True), ("1", True), ("False", False), ("0", False)],
)
def test_booleans_read_as_airflow_cfg_reads_them(text: str, value: bool) -> None:
    assert parse_option_text(find_option("scheduler", "catchup_by_default"), text) is value


def test_bad_values_and_unknown_options_are_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="takes true or false"):
        parse_option_text(find_option("scheduler", "catchup_by_default"), "yes please")
    with pytest.raises(ValueError, match="at least 1"):
        parse_option_text(find_option("core", "max_active_runs_per_dag"), "0")
    with pytest.raises(ValueError, match="whole number"):
        parse_option_text(find_option("dag_processor", "refresh_interval"), "5m")
    with pytest.raises(KeyError, match=r"did you mean 'scheduler\.catchup_by_default'"):
        find_option("scheduler", "catchup_by_defualt")


def test_unset_fields_take_the_options_and_set_ones_do_not() -> None:
    config = with_option(AirflowConfig(), find_option("scheduler", "catchup_by_default"), True)
    config = with_option(config, find_option("core", "max_active_runs_per_dag"), 3)
    assert effective_catchup(None, config) is True
    assert effective_catchup(False, config) is False
    assert effective_max_active_runs(None, config) == 3
    assert effective_max_active_runs(16, config) == 16


def test_options_are_saved_by_section_and_defaults_are_left_out() -> None:
    document = small()
    document["airflow_config"] = {
        "core": {"max_active_runs_per_dag": 4, "x-why": "small workers"},
        "scheduler": {"catchup_by_default": False, "create_delta_data_intervals": True},
    }
    saved = json.loads(dumps_scenario(loads_scenario(json.dumps(document))))
    assert saved["airflow_config"] == {
        "scheduler": {"create_delta_data_intervals": True},
        "core": {"max_active_runs_per_dag": 4, "x-why": "small workers"},
    }


def test_an_unknown_option_in_a_file_is_an_error_not_silence() -> None:
    document = small()
    document["airflow_config"] = {"scheduler": {"catchup_by_defualt": True}}
    with pytest.raises(Exception, match=r"airflow_config\.scheduler"):
        loads_scenario(json.dumps(document))


def test_unset_catchup_with_catchup_by_default_needs_a_start_date() -> None:
    # TT-1 as the DAG is parsed: the option makes catchup True, which needs start_date.
    document = small()
    document["airflow_config"] = {"scheduler": {"catchup_by_default": True}}
    for dag in document["dags"]:
        dag.pop("start_date", None)
        dag.pop("catchup", None)
    with pytest.raises(Exception, match="start_date is required when catchup=True"):
        loads_scenario(json.dumps(document))
