"""Would this edit make the scenario invalid? The scenario layer's own rules decide. No Qt.

The inspector refuses a value in place when it would add a problem the
scenario layer reports (``validate_scenario``: the schema, then Airflow's
rules, with the engine's own messages). Checking the whole scenario on every
keystroke would cost milliseconds per DAG, so an edit of one DAG is checked
in a scenario holding only that DAG and the declared assets: the rules that
involve one DAG are all there, and the paths point at its fields.
"""

from __future__ import annotations

import dataclasses

from explorer.scenario import Dag, Scenario, ScenarioError, validate_scenario
from explorer.scenario.model import AssetDag

__all__ = [
    "asset_dag_problems",
    "dag_problems",
    "new_asset_dag_problems",
    "new_problems",
    "scenario_problems",
]


def _key(error: ScenarioError) -> tuple[str, str]:
    return (error.path, error.message)


def dag_problems(scenario: Scenario, dag: Dag) -> list[ScenarioError]:
    """The problems of ``dag`` alone; paths are ``$.dags[0]...``."""
    alone = dataclasses.replace(scenario, dags=(dag,), script=(), layout={})
    return validate_scenario(alone, source="")


def new_problems(scenario: Scenario, before: Dag, after: Dag) -> list[ScenarioError]:
    """Problems ``after`` has that ``before`` did not (a refused edit's reasons)."""
    old = {_key(e) for e in dag_problems(scenario, before)}
    return [e for e in dag_problems(scenario, after) if _key(e) not in old]


def asset_dag_problems(scenario: Scenario, entry: AssetDag) -> list[ScenarioError]:
    """The problems of an ``@asset`` entry alone; paths are ``$.asset_dags[0]...``."""
    alone = dataclasses.replace(scenario, dags=(), asset_dags=(entry,), script=(), layout={})
    return validate_scenario(alone, source="")


def new_asset_dag_problems(
    scenario: Scenario, before: AssetDag, after: AssetDag
) -> list[ScenarioError]:
    """Problems ``after`` has that ``before`` did not."""
    old = {_key(e) for e in asset_dag_problems(scenario, before)}
    return [e for e in asset_dag_problems(scenario, after) if _key(e) not in old]


def scenario_problems(scenario: Scenario) -> list[ScenarioError]:
    return validate_scenario(scenario, source="")


def field_of(error: ScenarioError) -> str:
    """The DAG field a ``$.dags[0].<field>...`` problem is about (``schedule``, ``catchup``...)."""
    steps = error.steps
    if len(steps) >= 3 and steps[0] == "dags":
        return str(steps[2])
    return ""
