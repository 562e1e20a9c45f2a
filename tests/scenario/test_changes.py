"""Edits of a scenario deployed at an instant (explorer.scenario.changes)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.changes import change_actions, deploy_change
from explorer.scenario.model import DeployAction, RemoveDagAction, SetOptionAction
from explorer.scenario.simulate import make_simulation
from explorer.scenario.values import Instant
from tests.scenario.helpers import EXAMPLES


def _at(text: str) -> Instant:
    return Instant.parse(text)


def test_changed_added_and_removed_dags_and_options_become_actions() -> None:
    old = load_scenario(EXAMPLES / "catchup_flood.json")
    dag = old.dags[0]
    edited = dataclasses.replace(dag, schedule="0 6 * * *")
    added = dataclasses.replace(dag, dag_id="daily_sales_v2")
    config = dataclasses.replace(old.airflow_config, catchup_by_default=True)
    new = dataclasses.replace(old, dags=(edited, added), airflow_config=config)
    at = _at("2024-06-01T03:00:00Z")
    actions = change_actions(old, new, at)
    assert [type(a) for a in actions] == [SetOptionAction, DeployAction, DeployAction]
    assert [getattr(a, "dag", None) for a in actions[1:]] == [edited, added]
    gone = change_actions(old, dataclasses.replace(old, dags=(added,)), at)
    assert [type(a) for a in gone] == [DeployAction, RemoveDagAction]
    assert change_actions(old, old, at) == []


def test_the_old_runs_come_before_the_instant_and_the_new_ones_after() -> None:
    """DEP-1: the cron edited at 03:00 leaves earlier runs alone; the next follows the
    latest scheduled run on the new cron."""
    old = load_scenario(EXAMPLES / "change_cron_edit_ny_dst.json")
    old = dataclasses.replace(old, script=())
    new = dataclasses.replace(old, dags=(dataclasses.replace(old.dags[0], schedule="0 18 * * *"),))
    at = _at("2024-10-30T15:00:00Z")
    combined = deploy_change(old, new, at)
    assert [a.at for a in combined.script] == [at]
    inputs = build_engine_inputs(combined)
    sim = make_simulation(inputs)
    assert inputs.until is not None
    sim.advance_to(inputs.until)
    after = [r.run_after for r in sim.runs]
    before = [t for t in after if t <= at.value]
    assert before[-1] == datetime(2024, 10, 30, 10, tzinfo=UTC)  # 06:00 EDT, the old cron
    # 18:00 New York the same day (22:00Z), then daily; 23:00Z after the fall back
    assert [t for t in after if t > at.value][:2] == [
        datetime(2024, 10, 30, 22, tzinfo=UTC),
        datetime(2024, 10, 31, 22, tzinfo=UTC),
    ]
    assert datetime(2024, 11, 3, 23, tzinfo=UTC) in after
