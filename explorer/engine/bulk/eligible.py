"""Which DAGs the bulk path may claim (adr/0012): free-running ones.

A DAG is free-running when nothing but its timetable and the loop's grid decides
its runs: deployed by the initial deploy and never named by any script action, time-driven
(not asset-scheduled, not partitioned), not paused, no task that holds, fails at
random or reads assets (inlets). A task may write assets (outlets) if it takes time:
its events are emitted by the loop's own task timers (``feed.emit``), at the
instant and in the order the loop would emit them; a task of no duration would
emit in the second pass of its creation instant, which the feed does not model.
Scenario-wide features whose effect on the loop's grid is not modelled here
(backfills, explicit ticks, changing deployments, watchers, non-grid loop
cadences) make no DAG eligible.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from explorer.engine import actions as act
from explorer.engine.dagfile import BundleRefresh, DeployDag, RemoveDag, SetOption
from explorer.engine.dagstate import DagState
from explorer.engine.ticks import GridCadence

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["free_running"]

#: Actions that change the grid or the deployment for every DAG (adr/0012).
_SCENARIO_WIDE = (act.Backfill, act.Tick, DeployDag, RemoveDag, SetOption, BundleRefresh)


def named_dags(sim: Host) -> tuple[set[str], set[str]] | None:
    """The dag_ids the script names, and those its first action deploys at the start;
    None when an action may touch every DAG."""
    named: set[str] = set()
    initial: set[str] = set()
    for index, action in enumerate(sim.script):
        if isinstance(action, _SCENARIO_WIDE):
            return None
        if isinstance(action, act.Deploy):
            if index == 0 and action.at == sim.start:
                # the initial deploy (Simulation inserts it first)
                initial.update(action.dag_ids or sim.dag_ids)
                continue
            if action.dag_ids is None:
                return None
            named.update(action.dag_ids)
        elif isinstance(action, act.ExternalEvent):
            continue  # an asset event: the claimed DAGs neither read nor wait on assets
        else:
            dag_id = getattr(action, "dag_id", None)
            selector = getattr(action, "run", None) or getattr(action, "selector", None)
            if dag_id is None and selector is not None:
                dag_id = getattr(selector, "dag_id", None)
            if dag_id is None:
                return None
            named.add(dag_id)
    return named, initial


def _free(dag: DagState) -> bool:
    spec = dag.spec
    table = spec.timetable
    return (
        not dag.deployed
        and not spec.is_paused_upon_creation
        and table.can_be_scheduled
        and table.asset_condition is None
        and not table.partitioned
        and not table.partitioned_at_runtime
        and not dag.direct_assets
        and not dag.schedule_refs
        and not dag.schedule_aliases
        and spec.max_active_runs >= 1
        and bool(spec.tasks)
        and all(
            not t.hold
            and t.failure_rate <= 0
            and not t.inlets
            and (not (t.outlets or t.alias_events) or t.duration > timedelta(0))
            for t in spec.tasks
        )
    )


def free_running(sim: Host) -> list[DagState]:
    """The DAGs the bulk path may claim, in DAG order (checked before the first instant:
    the initial deploy deploys them unpaused)."""
    if not isinstance(sim.ticks, GridCadence) or sim.watchers:
        return []
    found = named_dags(sim)
    if found is None:
        return []
    named, initial = found
    return [
        dag
        for dag in sim.state.dags.values()
        if dag.dag_id not in named and dag.dag_id in initial and _free(dag)
    ]
