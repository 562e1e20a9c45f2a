"""A simulation read once into the plain facts that expectations, diffs and reports judge.

The app and the command line both hold a :class:`~explorer.engine.simulation.Simulation`;
what they ask of it here is the same (runs, alerts, who emitted what), so it is read
here once instead of three times in three shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from explorer.analysis.expectations import (
    AlertRow,
    ExpectationResult,
    Facts,
    ProducedAt,
    RunRow,
    evaluate_all,
)
from explorer.engine.alerts import DEFAULT_SILENCE_FACTOR, Alert, compute_alerts
from explorer.engine.simulation import Simulation

__all__ = ["Outcome", "facts_of", "outcome_of"]


def facts_of(
    sim: Simulation,
    *,
    start: datetime,
    until: datetime,
    alerts: Iterable[Alert] = (),
) -> Facts:
    runs = []
    for run in sim.runs:
        interval = run.data_interval
        runs.append(
            RunRow(
                run.dag_id,
                run.run_id,
                run.run_type,
                run.logical_date,
                interval.start if interval else None,
                interval.end if interval else None,
                run.run_after,
                run.partition_key,
                run.state,
                run.start_date,
                run.end_date,
            )
        )
    produced = tuple(
        ProducedAt(e.source.dag_id, e.asset.uri, e.timestamp)
        for e in sim.state.assets.events
        if e.source.kind == "task" and e.source.dag_id is not None
    )
    producers: dict[str, set[str]] = {}
    for dag_id, state in sim.dags.items():
        for task in state.spec.tasks:
            for outlet in task.outlets:
                uri = getattr(outlet, "uri", None)
                if isinstance(uri, str):
                    producers.setdefault(uri, set()).add(dag_id)
            for emission in task.alias_events:
                producers.setdefault(emission.asset.uri, set()).add(dag_id)
    return Facts(
        start=start,
        until=until,
        runs=tuple(runs),
        alerts=tuple(AlertRow(a.kind, a.at, a.subject, a.message) for a in alerts),
        produced=produced,
        timezones={d: s.spec.timezone for d, s in sim.dags.items()},
        producers={uri: frozenset(dags) for uri, dags in producers.items()},
        schedule_assets={
            d: frozenset(k.uri for k in s.spec.direct_assets) for d, s in sim.dags.items()
        },
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """One simulated scenario: its facts, alerts and the verdict on its expectations."""

    facts: Facts
    alerts: tuple[Alert, ...]
    results: tuple[ExpectationResult, ...]

    @property
    def failed(self) -> list[ExpectationResult]:
        return [r for r in self.results if not r.ok]

    def verdicts(self) -> dict[str, bool]:
        return {r.name: r.ok for r in self.results}


def outcome_of(
    sim: Simulation,
    *,
    start: datetime,
    until: datetime,
    expectations: Sequence[Any] = (),
    silence_factor: float = DEFAULT_SILENCE_FACTOR,
) -> Outcome:
    """Judge ``sim`` as simulated to ``until`` (the caller advanced it)."""
    alerts = tuple(compute_alerts(sim, until, silence_factor))
    facts = facts_of(sim, start=start, until=until, alerts=alerts)
    return Outcome(facts, alerts, tuple(evaluate_all(expectations, facts)))
