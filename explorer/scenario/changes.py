"""One scenario's edits as a deployment of another at an instant (DEP-1..DEP-7).

"What happens when I ship this change?": the saved scenario runs until the
instant, then the edited DAG files are deployed, removed DAG files deleted and
changed Airflow options set. The result is a scenario of its own (the old DAGs,
the old script, and the change as ``deploy`` / ``remove_dag`` / ``set_option``
actions at that instant), so it is simulated, saved and diffed like any other.
"""

from __future__ import annotations

import dataclasses

from explorer.scenario.model import (
    DeployAction,
    RemoveDagAction,
    Scenario,
    ScriptAction,
    SetOptionAction,
)
from explorer.scenario.options import OPTIONS
from explorer.scenario.values import Instant

__all__ = ["change_actions", "deploy_change"]


def change_actions(old: Scenario, new: Scenario, at: Instant) -> list[ScriptAction]:
    """The actions that turn ``old``'s deployment into ``new``'s at ``at``.

    Options first (a file deployed at the same instant is read under them, DEP-7),
    then each DAG of ``new`` that differs from ``old``'s or is new (DEP-1, in
    ``new``'s order), then each DAG of ``old`` that ``new`` no longer has (DEP-6).
    """
    actions: list[ScriptAction] = []
    for option in OPTIONS:
        before = getattr(old.airflow_config, option.key)
        after = getattr(new.airflow_config, option.key)
        if before != after:
            actions.append(SetOptionAction(at, option.section, option.key, after))
    previous = {dag.dag_id: dag for dag in reversed(old.dags)}  # the first of an id counts
    seen: set[str] = set()
    for dag in new.dags:
        if dag.dag_id in seen:
            continue
        seen.add(dag.dag_id)
        if previous.get(dag.dag_id) != dag:
            actions.append(DeployAction(at, dag))
    kept = {dag.dag_id for dag in new.dags}
    for dag_id in dict.fromkeys(d.dag_id for d in old.dags):
        if dag_id not in kept:
            actions.append(RemoveDagAction(at, dag_id))
    return actions


def deploy_change(old: Scenario, new: Scenario, at: Instant) -> Scenario:
    """``old`` with ``new``'s edits deployed at ``at``: its script gains the change
    actions after every action at or before ``at`` (the script stays in time order).

    Assets ``new`` declares that ``old`` does not are declared too, so the deployed
    DAGs can name them.
    """
    actions = change_actions(old, new, at)
    cut = sum(1 for action in old.script if action.at.value <= at.value)
    script = (*old.script[:cut], *actions, *old.script[cut:])
    names = {asset.name for asset in old.assets}
    assets = (*old.assets, *(a for a in new.assets if a.name not in names))
    return dataclasses.replace(old, script=script, assets=assets)
