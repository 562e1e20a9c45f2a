"""Deployments that change while the scheduler runs (DEP-1..DEP-8).

Functions over the simulation's part interface (:class:`~explorer.engine.host.Host`), called
where Airflow does the same thing: a re-parse installs the file's new
definition (``DagFile.resolve`` under the options in force, DEP-7) before the
usual parse computation (DEP-1, DEP-2, DEP-3, DEP-4); a deleted file is
noticed by a DAG processor bundle refresh, which marks the DAG stale, and its
asset references go at the refresh after (DEP-6); an option changes what
later parses give (DEP-7).

What is *not* here is as important: nothing touches runs already created
(DEP-1), queue rows survive a removal (DEP-6), and partition requests of an
edited rollup are dropped by the loop itself (``fire_partition_requests``,
DEP-8), which records them in :attr:`DeploymentState.dropped_requests`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from explorer.engine.assets import partitioned
from explorer.engine.assets import scheduling as asset_rules
from explorer.engine.dag import DagError, DagSpec
from explorer.engine.dagfile import BundleRefresh, DeployDag, RemoveDag, SetOption
from explorer.engine.dagstate import DagState
from explorer.engine.deployment_state import DeploymentState

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = [
    "DeploymentAction",
    "DeploymentState",
    "apply",
    "install_spec",
    "next_refresh",
    "reparse",
    "run_due_refreshes",
]

DeploymentAction = DeployDag | RemoveDag | SetOption | BundleRefresh


def apply(sim: Host, action: DeploymentAction) -> None:
    """Apply one deployment action at its instant."""
    if isinstance(action, DeployDag):
        _deploy(sim, action)
    elif isinstance(action, RemoveDag):
        _remove(sim, action)
    elif isinstance(action, SetOption):
        _set_option(sim, action)
    else:
        refresh_bundle(sim, action.at)


# ---------------------------------------------------------------- deploy (DEP-1, DEP-6)
def _deploy(sim: Host, action: DeployDag) -> None:
    st = sim.state
    dag = st.dags[action.dag_id]
    sim.sync_parse(dag, action.at)  # parses before the edit read the old file
    st.deployment.files[dag.dag_id] = action.file
    if dag.is_stale:
        dag.is_stale = False  # the file is back: the DAG is the same DAG (DEP-6)
    if dag.refs_dropped:
        # The references are created again: a DAG that never had an asset-triggered
        # run floors its first one at this instant (DEP-6, AS-5).
        dag.refs_dropped = False
        dag.assets_first_seen = None
        dag.direct_assets = dag.spec.direct_assets
        dag.schedule_refs = dag.spec.schedule_refs
        dag.schedule_aliases = dag.spec.schedule_aliases
    sim.deploy_dag(dag, action.at)
    asset_rules.activate_assets(sim, [dag], action.at)
    _recount(sim)
    sim.emit("dag_parsed", dag.dag_id, detail="deploy")


def reparse(sim: Host, dag: DagState) -> None:
    """At a parse: the file's definition under the options in force (DEP-7)."""
    file = sim.state.deployment.files.get(dag.dag_id)
    if file is None:
        return
    try:
        spec = file.resolve(sim.state.deployment.options)
    except DagError as exc:
        # An import error: Airflow keeps the DAG it parsed last.
        sim.warn(f"DAG {dag.dag_id!r} fails to parse at {sim.state.now.isoformat()}: {exc}")
        return
    install_spec(sim, dag, spec)


def install_spec(sim: Host, dag: DagState, spec: DagSpec) -> None:
    """The DAG's new definition replaces its old one; runs stay as they are (DEP-1).

    Queue rows of assets the new schedule no longer names go with their
    references (DEP-5); pending partition requests are looked at again by the
    next loop, which drops those of another rollup definition (DEP-8).
    """
    if spec is dag.spec:
        return
    st = sim.state
    had_assets = bool(dag.direct_assets) or bool(dag.schedule_refs) or bool(dag.schedule_aliases)
    dag.spec = spec
    dag.next_run_memo = None
    dag.stalled_on = None
    dag.wake_at = None
    if not dag.refs_dropped:
        dag.direct_assets = spec.direct_assets
        dag.schedule_refs = spec.schedule_refs
        dag.schedule_aliases = spec.schedule_aliases
    if not spec.direct_assets and had_assets:
        dag.assets_first_seen = None  # references deleted: a later condition makes new ones
    asset_rules.drop_queue_rows(sim, dag)  # DEP-5: rows of assets no longer named
    for request in st.partition_requests:
        if request.dag_id == dag.dag_id and request.run is None:
            partitioned.reevaluate(sim, request)
    sim.index_listeners()
    st.dirty = True


def _recount(sim: Host) -> None:
    """Keep the listener index and readiness in step with references (AS-2, AS-3)."""
    sim.index_listeners()
    asset_rules.refresh_ready(sim, None)


# ---------------------------------------------------------------- remove / refresh (DEP-6)
def _remove(sim: Host, action: RemoveDag) -> None:
    st = sim.state
    dag = st.dags[action.dag_id]
    sim.sync_parse(dag, action.at)  # periodic parses before the deletion still happened
    st.deployment.files.pop(dag.dag_id, None)
    if sim.refresh_grid:
        _plan_refresh(sim, action.at)
    sim.emit("dag_removed", dag.dag_id)


def _plan_refresh(sim: Host, after: datetime) -> None:
    """The next refresh of the grid ``clock.start + k * refresh_interval`` after ``after``."""
    step = sim.state.deployment.options.refresh_period
    k = (after - sim.start) // step + 1
    at = sim.start + k * step
    refreshes = sim.state.deployment.refreshes
    if at not in refreshes:
        refreshes.append(at)
        refreshes.sort()


def refresh_bundle(sim: Host, at: datetime) -> None:
    """A bundle refresh (``DagModel.deactivate_deleted_dags``).

    References of DAGs the database already holds as stale are deleted first;
    then DAGs whose file is gone become stale (the flag is not flushed before
    the reference clean-up, so their references survive until the next
    refresh). Paused flag, next-run cache and queue rows stay (DEP-6).
    """
    st = sim.state
    files = st.deployment.files
    changed = False
    for dag in st.dags.values():
        if dag.is_stale and not dag.refs_dropped:
            dag.refs_dropped = True
            dag.direct_assets = frozenset()
            dag.schedule_refs = ()
            dag.schedule_aliases = frozenset()
            changed = True
    newly: list[DagState] = []
    for dag in st.dags.values():
        if dag.deployed and not dag.is_stale and dag.dag_id not in files:
            dag.is_stale = True
            sim.reschedule(dag)
            newly.append(dag)
    if changed:
        _recount(sim)
    if newly and sim.refresh_grid:
        _plan_refresh(sim, at)  # the refresh after drops their references
    st.dirty = True
    for dag in newly:
        sim.emit("dag_stale", dag.dag_id)


def next_refresh(sim: Host) -> datetime | None:
    refreshes = sim.state.deployment.refreshes
    return refreshes[0] if refreshes else None


def run_due_refreshes(sim: Host, t: datetime) -> None:
    refreshes = sim.state.deployment.refreshes
    while refreshes and refreshes[0] <= t:
        refreshes.pop(0)
        refresh_bundle(sim, t)


# ---------------------------------------------------------------- options (DEP-7)
def _set_option(sim: Host, action: SetOption) -> None:
    st = sim.state
    for dag in st.dags.values():  # parses before the change read the old value
        sim.sync_parse(dag, action.at)
    st.deployment.options = st.deployment.options.set(action.section, action.key, action.value)
    sim.emit("option_set", detail=f"[{action.section}] {action.key} = {action.value}")


def refresh_period(sim: Host) -> timedelta:
    return sim.state.deployment.options.refresh_period
