"""Scenario models for the graph tests, built in code (as the GUI's edits build them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explorer.scenario.model import AssetDecl, Clock, Dag, Scenario, Task
from explorer.scenario.values import Duration, Instant

EXAMPLES = Path(__file__).parents[2] / "resources" / "scenarios"


def task(task_id: str, *outlets: Any, **fields: Any) -> Task:
    return Task(task_id, Duration.parse("PT5M"), outlets=tuple(outlets), **fields)


def dag(dag_id: str, schedule: Any = "@daily", *tasks: Task) -> Dag:
    return Dag(dag_id, schedule, tasks=tasks)


def scenario(*dags: Dag, assets: tuple[AssetDecl, ...] = ()) -> Scenario:
    clock = Clock(Instant.parse("2024-05-01T00:00:00Z"))
    return Scenario("test", clock, assets=assets, dags=dags)


def declared(*names: str) -> tuple[AssetDecl, ...]:
    return tuple(AssetDecl(name, f"s3://warehouse/{name}") for name in names)


def edges(graph: Any, kind: str | None = None) -> set[tuple[str, str]]:
    """The graph's edges (of one kind, if given)."""
    return {(u, v) for u, v, k in graph.edges(data="kind") if kind is None or k == kind}


def kinds(graph: Any) -> dict[str, str]:
    return dict(graph.nodes(data="kind"))
