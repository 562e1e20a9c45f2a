"""The converted DAGs as a format-2 scenario (ADR 0007): provenance, unset options, ``import``.

The deployment instant is ``parsed_at`` (every DAG is first parsed then) and
the horizon a week after it, long enough to see daily schedules repeat. Every
task gets the stated default duration.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from explorer.importer.convert import ConvertedAsset, ConvertedDag
from explorer.scenario.model import AssetDag, Clock, Dag, MultiAsset, Scenario, Task
from explorer.scenario.values import Duration, Instant, JsonObject

__all__ = ["DEFAULT_HORIZON", "build_scenario"]

#: How far past the deployment instant an imported scenario simulates by default.
DEFAULT_HORIZON = timedelta(days=7)


def build_scenario(
    dags: list[ConvertedDag],
    assets: list[ConvertedAsset],
    files: dict[str, str],
    *,
    parsed_at: datetime,
    task_duration: timedelta,
    roots: list[str],
    name: str,
) -> Scenario:
    duration = Duration.of(task_duration)
    model_dags = tuple(_dag(d, files[d.dag_id], duration) for d in dags)
    asset_dags = tuple(_asset_dag(a, files[a.dag_id], duration) for a in assets)
    clock = Clock(Instant.of(parsed_at), Instant.of(parsed_at + DEFAULT_HORIZON))
    extras: JsonObject = {
        "x-import": {
            "roots": list(roots),
            "task_duration": duration.text,
            "parsed_at": Instant.of(parsed_at).text,
        }
    }
    return Scenario(name=name, clock=clock, dags=model_dags, asset_dags=asset_dags, extras=extras)


def _provenance(
    file: str, line: int, tags: tuple[str, ...], unresolved: list[object]
) -> JsonObject:
    out: JsonObject = {"x-source": {"file": file, "line": line}}
    if tags:
        out["x-tags"] = list(tags)
    return out


def _dag(dag: ConvertedDag, file: str, duration: Duration) -> Dag:
    tasks = tuple(
        Task(task_id=t.task_id, duration=duration, outlets=t.outlets, inlets=t.inlets)
        for t in dag.tasks
    )
    return Dag(
        dag_id=dag.dag_id,
        schedule=dag.schedule,
        start_date=dag.start_date,
        end_date=dag.end_date,
        timezone=dag.timezone,
        catchup=bool(dag.catchup),
        max_active_runs=16 if dag.max_active_runs is None else dag.max_active_runs,
        is_paused_upon_creation=dag.is_paused_upon_creation,
        tasks=tasks,
        extras=_provenance(file, dag.line, dag.tags, list(dag.unresolved)),
    )


def _asset_dag(asset: ConvertedAsset, file: str, duration: Duration) -> AssetDag:
    multi = None
    if asset.outlets is not None:
        multi = MultiAsset(dag_id=asset.dag_id, outlets=asset.outlets)
    return AssetDag(
        duration=duration,
        schedule=asset.schedule,
        name=asset.name,
        uri=asset.uri,
        multi=multi,
        start_date=asset.start_date,
        timezone=asset.timezone,
        is_paused_upon_creation=asset.is_paused_upon_creation,
        extras=_provenance(file, asset.line, asset.tags, list(asset.unresolved)),
    )
