"""Airflow's ``@asset`` / ``@asset.multi`` shorthand, expanded into ordinary DAGs.

``airflow/sdk/definitions/asset/decorators.py`` (3.3.2): ``@asset(name=...,
uri=..., schedule=...) def f()`` makes ``Asset(name, uri)`` (name defaults to
the function's name, uri to the name) and a DAG whose ``dag_id`` is the
asset's name, holding one task named after the function whose outlet is that
asset; ``@asset.multi(outlets=[...]) def f()`` makes one DAG and one task both
named ``f``, writing every outlet. The scenario writes the function's name as
the asset's ``name`` (``@asset``) or as ``multi.dag_id``. Both create their
DAG with ``catchup=False`` and take no ``catchup`` argument.

The file keeps what was written; checks and the build read the scenario
:func:`expand` returns, whose extra DAGs follow ``dags`` and whose implied
asset declarations follow ``assets``, and report at the places the returned
function maps their paths back to (``$.asset_dags[i]...``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from explorer.scenario.errors import JsonPath
from explorer.scenario.model import AssetDag, AssetDecl, AssetNode, Dag, Scenario, Task

__all__ = ["PathMap", "asset_dag_problems", "expand"]

PathMap = Callable[[JsonPath], JsonPath]

#: DAG keys an asset DAG writes itself (same name, same place).
_OWN_KEYS = ("schedule", "start_date", "timezone", "catchup", "is_paused_upon_creation")


def _identity(path: JsonPath) -> JsonPath:
    return path


def _dag(entry: AssetDag) -> Dag:
    own: AssetNode = {"asset": entry.dag_id}
    outlets = (own,) if entry.multi is None else entry.multi.outlets
    task = Task(task_id=entry.dag_id, duration=entry.duration, outlets=outlets, inlets=entry.inlets)
    return Dag(
        dag_id=entry.dag_id,
        schedule=entry.schedule,
        start_date=entry.start_date,
        timezone=entry.timezone,
        catchup=entry.catchup,
        is_paused_upon_creation=entry.is_paused_upon_creation,
        tasks=(task,),
    )


def expand(scenario: Scenario) -> tuple[Scenario, PathMap]:
    """``scenario`` with its asset DAGs as DAGs (and their assets declared), and the map
    from paths in that scenario back to paths in the file."""
    if not scenario.asset_dags:
        return scenario, _identity
    n_dags, n_assets = len(scenario.dags), len(scenario.assets)
    names = {decl.name for decl in scenario.assets}
    implied: list[AssetDecl] = []
    origin: dict[int, int] = {}  # expanded asset index -> asset_dags index
    for index, entry in enumerate(scenario.asset_dags):
        if entry.multi is None and entry.dag_id not in names:
            names.add(entry.dag_id)
            origin[n_assets + len(implied)] = index
            implied.append(AssetDecl(entry.dag_id, entry.uri))
    expanded = replace(
        scenario,
        assets=(*scenario.assets, *implied),
        dags=(*scenario.dags, *(_dag(entry) for entry in scenario.asset_dags)),
    )
    entries = scenario.asset_dags

    def back(path: JsonPath) -> JsonPath:
        if len(path) >= 2 and path[0] == "assets" and path[1] in origin:
            key = path[2] if len(path) > 2 and path[2] == "uri" else "name"
            return ("asset_dags", origin[int(path[1])], key)
        if len(path) < 2 or path[0] != "dags" or not isinstance(path[1], int):
            return path
        if path[1] < n_dags:
            return path
        index = path[1] - n_dags
        here: JsonPath = ("asset_dags", index)
        multi = entries[index].multi is not None
        ident: JsonPath = (*here, "multi", "dag_id") if multi else (*here, "name")
        rest = path[2:]
        if not rest:
            return here
        if rest[0] == "dag_id":
            return ident
        if rest[0] in _OWN_KEYS:
            return (*here, *rest)
        if rest[0] == "max_active_runs":  # the decorator's DAG keeps the default
            return (*here, "schedule")
        if rest[0] == "tasks" and len(rest) >= 3:
            if rest[2] == "duration":
                return (*here, "duration")
            if rest[2] == "task_id":
                return ident
            if rest[2] == "outlets":
                return (*here, "multi", "outlets", *rest[3:]) if multi else (*here, "name")
        return here

    return expanded, back


def asset_dag_problems(scenario: Scenario) -> list[tuple[JsonPath, str]]:
    """What Airflow refuses in the shorthand itself, each at its place in the file."""
    out: list[tuple[JsonPath, str]] = []
    dag_ids: dict[str, str] = {}
    for index, dag in enumerate(scenario.dags):
        dag_ids.setdefault(dag.dag_id, f"$.dags[{index}]")
    declared = {decl.name: decl for decl in scenario.assets}
    for index, entry in enumerate(scenario.asset_dags):
        here: JsonPath = ("asset_dags", index)
        multi = entry.multi is not None
        ident: JsonPath = (*here, "multi", "dag_id") if multi else (*here, "name")
        decorator = "@asset.multi" if multi else "@asset"
        if entry.dag_id in dag_ids:
            out.append(
                (
                    ident,
                    f"{decorator} makes a DAG with dag_id {entry.dag_id!r}, which "
                    f"{dag_ids[entry.dag_id]} already has: Airflow refuses two DAGs with one id",
                )
            )
        dag_ids.setdefault(entry.dag_id, f"$.asset_dags[{index}]")
        if entry.catchup:
            out.append(
                (
                    (*here, "catchup"),
                    f"{decorator} creates its DAG with catchup=False and takes no catchup "
                    "argument: set catchup to false or write an ordinary DAG",
                )
            )
        decl = declared.get(entry.dag_id)
        if not multi and decl is not None and (decl.uri or decl.name) != (entry.uri or entry.name):
            out.append(
                (
                    (*here, "uri"),
                    f"asset {entry.dag_id!r} is declared in assets with uri "
                    f"{decl.uri or decl.name!r}, but @asset gives it uri "
                    f"{entry.uri or entry.name!r}: one name, two assets",
                )
            )
    return out
