"""Re-import: the same roots read again, merged into the open scenario, with what changed.

A re-import must not cost the user their work: layout positions, the script,
and every value they ``supplied`` by hand stay; everything else is the files'.
The changes are listed so that a user sees what the new files mean before
simulating them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from os import PathLike
from pathlib import Path
from typing import Literal

from explorer.importer.api import import_paths
from explorer.importer.report import ImportReport
from explorer.importer.result import DEFAULT_TASK_DURATION, ImportResult
from explorer.scenario.model import Dag, Scenario
from explorer.scenario.values import Instant

__all__ = ["Change", "ReimportResult", "merge_reimport", "reimport"]

ChangeKind = Literal["dag_added", "dag_removed", "changed"]


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the open scenario and the files."""

    kind: ChangeKind
    dag_id: str
    #: The field that changed (``changed`` only): schedule, start_date, assets, ...
    field: str | None = None
    before: str | None = None
    after: str | None = None

    def __str__(self) -> str:
        if self.kind == "dag_added":
            return f"{self.dag_id}: added"
        if self.kind == "dag_removed":
            return f"{self.dag_id}: removed"
        return f"{self.dag_id}: {self.field} changed from {self.before} to {self.after}"


@dataclass(frozen=True, slots=True)
class ReimportResult:
    scenario: Scenario
    report: ImportReport
    changes: tuple[Change, ...]


def merge_reimport(old: Scenario, fresh: ImportResult) -> ReimportResult:
    """``fresh`` with ``old``'s layout, script and supplied values; the changes between them."""
    old_dags = {d.dag_id: d for d in old.dags}
    merged: list[Dag] = []
    changes: list[Change] = []
    for dag in fresh.scenario.dags:
        before = old_dags.get(dag.dag_id)
        if before is None:
            changes.append(Change("dag_added", dag.dag_id))
            merged.append(dag)
            continue
        keep = {name: getattr(before, name) for name in before.supplied if hasattr(before, name)}
        if keep:
            # A supplied value is no longer unresolved; the user's word stands.
            left = tuple(u for u in dag.unresolved if u.field not in keep)
            after = replace(dag, **keep, unresolved=left, supplied=before.supplied)
        else:
            after = dag
        changes.extend(_field_changes(before, after))
        merged.append(after)
    fresh_ids = {d.dag_id for d in fresh.scenario.dags}
    changes.extend(Change("dag_removed", d.dag_id) for d in old.dags if d.dag_id not in fresh_ids)
    scenario = replace(
        fresh.scenario,
        name=old.name,
        description=old.description,
        dags=tuple(merged),
        script=old.script,
        layout={k: v for k, v in old.layout.items()},
        seed=old.seed,
        alerts=old.alerts,
        scheduler=old.scheduler,
        airflow_config=old.airflow_config,
        assets=old.assets,
        expectations=old.expectations,
    )
    return ReimportResult(scenario, fresh.report, tuple(changes))


_COMPARED = (
    "schedule",
    "start_date",
    "end_date",
    "timezone",
    "catchup",
    "max_active_runs",
    "is_paused_upon_creation",
    "tags",
)


def _text(value: object) -> str:
    if isinstance(value, Instant):
        return value.text
    return json.dumps(value, sort_keys=True, default=str)


def _field_changes(before: Dag, after: Dag) -> list[Change]:
    out: list[Change] = []
    for name in _COMPARED:
        a, b = getattr(before, name), getattr(after, name)
        if a != b and _text(a) != _text(b):
            out.append(Change("changed", after.dag_id, name, _text(a), _text(b)))
    assets_before = [(t.task_id, t.outlets, t.inlets) for t in before.tasks]
    assets_after = [(t.task_id, t.outlets, t.inlets) for t in after.tasks]
    if assets_before != assets_after:
        out.append(
            Change("changed", after.dag_id, "assets", _text(assets_before), _text(assets_after))
        )
    return out


def reimport(
    old: Scenario,
    *,
    base_dir: str | PathLike[str] | None = None,
    parsed_at: datetime | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> ReimportResult:
    """Import ``old.import_info.roots`` again (relative to ``base_dir``, the scenario's folder;
    ``parsed_at`` defaults to the old one) and merge."""
    info = old.import_info
    if info is None or not info.roots:
        raise ValueError("this scenario was not made by an import: it names no import roots")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    roots = [base / r for r in info.roots]
    at = parsed_at or (info.parsed_at.value if info.parsed_at else old.clock.start.value)
    duration = info.task_duration.value if info.task_duration else DEFAULT_TASK_DURATION
    fresh = import_paths(
        roots,
        parsed_at=at,
        task_duration=duration,
        base_dir=base,
        progress=progress,
        cancel=cancel,
    )
    return merge_reimport(old, fresh)
