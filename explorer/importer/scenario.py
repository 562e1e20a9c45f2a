"""The converted DAGs as a format-2 scenario (ADR 0007): provenance, unset options, ``import``.

The deployment instant is ``parsed_at`` (every DAG is first parsed then) and
the horizon a week after it, long enough to see daily schedules repeat. Every
task gets the stated default duration.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from explorer.importer.convert import ConvertedAsset, ConvertedDag
from explorer.importer.report import Unresolved as ReportItem
from explorer.scenario.model import (
    AssetDag,
    Clock,
    Dag,
    DagSource,
    ImportInfo,
    MultiAsset,
    Scenario,
    Task,
    Unresolved,
)
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
    deployed = Instant.of(parsed_at)
    clock = Clock(deployed, Instant.of(parsed_at + DEFAULT_HORIZON))
    info = ImportInfo(roots=tuple(roots), task_duration=duration, parsed_at=deployed)
    return Scenario(
        name=name, clock=clock, dags=model_dags, asset_dags=asset_dags, import_info=info
    )


def _unresolved(items: list[ReportItem], file: str) -> tuple[Unresolved, ...]:
    """The report's items as the scenario keeps them (file left out when it is the DAG's)."""
    return tuple(
        Unresolved(
            field=u.field,
            reason=u.reason,
            line=u.line,
            file=None if u.file == file else u.file,
        )
        for u in items
    )


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
        catchup=dag.catchup,
        max_active_runs=dag.max_active_runs,
        is_paused_upon_creation=dag.is_paused_upon_creation,
        tasks=tasks,
        tags=dag.tags,
        source=DagSource(file, dag.line),
        unresolved=_unresolved(dag.unresolved, file),
    )


def _asset_dag(asset: ConvertedAsset, file: str, duration: Duration) -> AssetDag:
    """An ``@asset`` entry; format 2 has no provenance fields for these, so it goes in
    ``x-`` keys (kept by every save) until the format gives it a place."""
    multi = None
    if asset.outlets is not None:
        multi = MultiAsset(dag_id=asset.dag_id, outlets=asset.outlets)
    extras: JsonObject = {"x-source": {"file": file, "line": asset.line}}
    if asset.unresolved:
        extras["x-unresolved"] = [
            {"field": u.field, "reason": u.reason, "line": u.line} for u in asset.unresolved
        ]
    return AssetDag(
        duration=duration,
        schedule=asset.schedule,
        name=asset.name,
        uri=asset.uri,
        multi=multi,
        start_date=asset.start_date,
        timezone=asset.timezone,
        is_paused_upon_creation=asset.is_paused_upon_creation,
        extras=extras,
        inlets=asset.inlets,
    )
