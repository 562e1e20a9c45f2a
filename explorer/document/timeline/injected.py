"""Which runs an injected override will change, before it happens. No Qt.

A failure injected on a run that does not exist yet ("Make it fail when it
runs" on the next-run ghost) changes nothing visible until that run is
created and its tasks end: hours or days of simulated time later. Until then
the timeline must say that the run is doomed, so the audience is
not surprised by a red bar, and the one who injected it can find it again.

The script's ``Override`` actions are matched to runs the way the engine
matches them (``RunSelector``: ``nth``, ``logical_date``, ``partition_key``
or ``next`` = the first run created at or after the action's instant), against
the next-run ghosts of the cache and the queued and running runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.document.timeline.timebase import fmt_span
from explorer.engine import actions as act

if TYPE_CHECKING:
    from explorer.document.timeline.data import GhostRun
    from explorer.engine.runs import DagRun
    from explorer.engine.simulation import Simulation

__all__ = ["Injected", "describe_override", "injected_on_ghost", "injected_on_runs"]


@dataclass(frozen=True, slots=True)
class Injected:
    """What the script will do to a run that has not ended yet: ``fails`` draws it red."""

    text: str
    fails: bool


def describe_override(override: act.Override) -> str:
    """An override in a few words, the way a reviewer says it."""
    who = "its tasks" if override.task_id is None else f"task {override.task_id}"
    parts = []
    if override.outcome == "failed":
        parts.append(f"{who} fail")
    elif override.outcome == "success_no_data":
        parts.append(f"{who} succeed without writing data")
    elif override.outcome is not None:
        parts.append(f"{who} end {override.outcome}")
    if override.delay:
        parts.append(f"{who} run {fmt_span(override.delay)} longer")
    if override.hold:
        parts.append(f"{who} are held until told")
    return "; ".join(parts) or "override"


def _overrides(sim: Simulation) -> list[act.Override]:
    return [a for a in sim.script if isinstance(a, act.Override)]


def _matched(sim: Simulation) -> set[int]:
    """The overrides the engine already matched to a run (a ``next`` one matches once)."""
    return {id(p.action) for p in sim.state.overrides if p.matched}


def _summary(found: Sequence[act.Override]) -> Injected | None:
    if not found:
        return None
    text = "; ".join(dict.fromkeys(describe_override(o) for o in found))
    return Injected(f"injected: {text}", any(o.outcome == "failed" for o in found))


def injected_on_ghost(sim: Simulation, ghost: GhostRun) -> Injected | None:
    """The overrides waiting for the run the cache promises next (none matched it yet)."""
    dag = sim.state.dags.get(ghost.dag_id)
    nth = len(dag.runs) if dag is not None else None
    matched = _matched(sim)
    found = []
    for o in _overrides(sim):
        sel = o.run
        if sel.dag_id != ghost.dag_id:
            continue
        if sel.next:
            hit = id(o) not in matched and o.at <= ghost.run_after
        elif sel.logical_date is not None:
            hit = sel.logical_date == ghost.logical_date
        elif sel.partition_key is not None:
            hit = sel.partition_key == ghost.partition_key
        else:
            hit = sel.nth is not None and sel.nth == nth
        if hit:
            found.append(o)
    return _summary(found)


def injected_on_runs(sim: Simulation) -> dict[tuple[str, str], Injected]:
    """(dag_id, run_id) → what the script will still do to that queued or running run."""
    by_dag: dict[str, list[act.Override]] = {}
    for o in _overrides(sim):
        if o.at <= sim.now:
            by_dag.setdefault(o.run.dag_id, []).append(o)
    out: dict[tuple[str, str], Injected] = {}
    for dag_id, overrides in by_dag.items():
        dag = sim.state.dags.get(dag_id)
        if dag is None:
            continue
        for run in list(dag.active):
            found = [o for o in overrides if _selects(o, run, dag.runs)]
            summary = _summary(found)
            if summary is not None:
                out[(dag_id, run.run_id)] = summary
    return out


def _selects(o: act.Override, run: DagRun, runs: Sequence[DagRun]) -> bool:
    sel = o.run
    if sel.next:  # the first run created at or after the action (runs are in creation order)
        return run.created_at >= o.at and (run.nth == 0 or runs[run.nth - 1].created_at < o.at)
    if sel.logical_date is not None:
        return sel.logical_date == run.logical_date
    if sel.partition_key is not None:
        return sel.partition_key == run.partition_key
    return sel.nth == run.nth
