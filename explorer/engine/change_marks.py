"""What each change of a deployment did to the runs: the marks a deploy leaves.

A scenario whose script deploys a new DAG file, removes one or sets an Airflow
option at an instant asks "what happens when I ship this?". The answer is a
behavioural diff (ADR 0009, :mod:`explorer.engine.diff`, the one model): the
same scenario simulated *without* its change actions is the "before", the
scenario as written the "after", both to the same instant. Only runs created at
or after a DAG's first change differ (the engine is deterministic), so the diff
is taken there and each listed change becomes a mark people can read:

- ``skipped``: time a run covered before and no run covers after (a data
  interval never covered, a logical date that never exists, DEP-2), or a run a
  removed DAG never gets (DEP-6);
- ``run_twice``: a data interval covered by two runs (DEP-2), a partition key or
  a logical date run again (DEP-8, DEP-1, a rename DEP-6);
- ``shifted``: the run at the same ``run_after`` now has another logical date (the
  2 -> 3 upgrade), or the same logical date runs at another time (DEP-1, DEP-2);
- ``catchup``: a run created at the change although it was due before it (the
  next-run cache recomputed with catchup, DEP-1, DEP-3, a returned file DEP-6);
- ``added`` / ``removed``: other runs the change makes or takes away;
- ``events_dropped`` / ``events_kept``: queue rows deleted with a condition's
  references or kept for the new condition (DEP-5);
- ``stale``: the span a removed file freezes its DAG (DEP-6).

Every mark names its change, its DEP rule and says why in a sentence. The engine
never reads files: :func:`deploy_report` takes a factory that makes a simulation
from a script, so the scenario layer (or a test) decides what a simulation is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey
from explorer.engine.change_model import (
    ChangeMark,
    DeployChange,
    DeployReport,
    Formatter,
    MarkKind,
    change_before,
    marks_between,
    utc_format,
)
from explorer.engine.change_reading import DagMarker, run_side
from explorer.engine.dagfile import DeployDag, RemoveDag, SetOption
from explorer.engine.diff import RunChange, diff_runs
from explorer.engine.run_card import span_text

if TYPE_CHECKING:
    from explorer.engine.simulation import Change, Simulation

__all__ = [
    "ChangeMark",
    "DeployChange",
    "DeployReport",
    "MarkKind",
    "baseline_script",
    "change_instants",
    "deploy_report",
    "marks_between",
    "utc_format",
]

ChangeAction = DeployDag | RemoveDag | SetOption


def _option_text(action: SetOption) -> str:
    return f"[{action.section}] {action.key} = {action.value}"


def change_instants(script: Sequence[act.Action | ChangeAction]) -> list[DeployChange]:
    """The script's change actions grouped by instant, in time order."""
    grouped: dict[datetime, tuple[list[str], list[str], list[str]]] = {}
    for action in script:
        if isinstance(action, DeployDag | RemoveDag | SetOption):
            deployed, removed, options = grouped.setdefault(action.at, ([], [], []))
            if isinstance(action, DeployDag):
                deployed.append(action.dag_id)
            elif isinstance(action, RemoveDag):
                removed.append(action.dag_id)
            else:
                options.append(_option_text(action))
    return [
        DeployChange(at, tuple(dict.fromkeys(d)), tuple(dict.fromkeys(r)), tuple(o))
        for at, (d, r, o) in sorted(grouped.items())
    ]


def _dag_ids_of(action: object) -> tuple[str, ...]:
    ids: list[str] = []
    for name in ("dag_id",):
        value = getattr(action, name, None)
        if isinstance(value, str):
            ids.append(value)
    for name in ("run", "selector"):
        selector = getattr(action, name, None)
        if selector is not None and isinstance(getattr(selector, "dag_id", None), str):
            ids.append(selector.dag_id)
    return tuple(ids)


def baseline_script(
    script: Sequence[act.Action | ChangeAction], initial_dag_ids: Sequence[str]
) -> list[act.Action | ChangeAction]:
    """``script`` without its change actions: the deployment as it was, kept all along.

    Actions about DAGs that only a change adds (``initial_dag_ids`` are the others)
    go too: without the change those DAGs do not exist.
    """
    known = set(initial_dag_ids)
    out: list[act.Action | ChangeAction] = []
    for action in script:
        if isinstance(action, DeployDag | RemoveDag | SetOption):
            continue
        if isinstance(action, act.Deploy) and action.dag_ids is not None:
            kept = tuple(d for d in action.dag_ids if d in known)
            if not kept:
                continue
            if kept != action.dag_ids:
                action = act.Deploy(action.at, kept)
        if any(d not in known for d in _dag_ids_of(action)):
            continue
        out.append(action)
    return out


# ----------------------------------------------------------------------------- simulation
@dataclass(slots=True)
class _Watch:
    """What the deployment as written does at its changes (heard from the simulation)."""

    sim: Simulation
    #: (dag_id, change instant) -> queue rows right after the deploy's parse (DEP-5).
    rows_after: dict[tuple[str, datetime], dict[str, datetime]] = field(default_factory=dict)
    #: dag_id -> [stale from, back at (None: never)] (DEP-6).
    stale: dict[str, list[list[datetime | None]]] = field(default_factory=dict)

    def __call__(self, change: Change) -> None:
        if change.kind == "dag_parsed" and change.detail == "deploy" and change.dag_id:
            dag = self.sim.dags[change.dag_id]
            self.rows_after[(change.dag_id, change.at)] = _rows(dag.adrq)
            spans = self.stale.get(change.dag_id)
            if spans and spans[-1][1] is None:
                spans[-1][1] = change.at
        elif change.kind == "dag_stale" and change.dag_id:
            self.stale.setdefault(change.dag_id, []).append([change.at, None])


def _rows(adrq: Mapping[AssetKey, datetime]) -> dict[str, datetime]:
    """A DAG's queue rows by asset name (its uri when it has none)."""
    return {(key.name or key.uri): at for key, at in adrq.items()}


def deploy_report(
    make: Callable[[list[act.Action | ChangeAction]], Simulation],
    script: Sequence[act.Action | ChangeAction],
    until: datetime,
) -> DeployReport | None:
    """Simulate ``script`` with and without its change actions to ``until`` and mark the
    difference; None when the script changes nothing of the deployment.

    ``make(script)`` returns a fresh simulation at the scenario's start with that script.
    """
    changes = change_instants(script)
    if not changes:
        return None
    after = make(list(script))
    initial = [d for d in after.dags if d in after.specs]  # not only added by a deploy
    before = make(baseline_script(script, initial))
    before.advance_to(until)
    watch = _Watch(after)
    unsubscribe = after.subscribe(watch)
    rows_before: dict[tuple[str, datetime], dict[str, datetime]] = {}
    try:
        for change in changes:
            if change.at > until:
                break
            just_before = change.at - timedelta(microseconds=1)
            if just_before > after.now:
                after.advance_to(just_before)
            for dag_id in change.deployed:
                rows_before[(dag_id, change.at)] = _rows(after.dags[dag_id].adrq)
        after.advance_to(max(until, after.now))
    finally:
        unsubscribe()
    return _report(changes, before, after, watch, rows_before, until)


def _report(
    changes: list[DeployChange],
    before: Simulation,
    after: Simulation,
    watch: _Watch,
    rows_before: dict[tuple[str, datetime], dict[str, datetime]],
    until: datetime,
) -> DeployReport:
    b, a = run_side(before), run_side(after)
    marks: list[ChangeMark] = []
    listed: list[RunChange] = []
    dags = sorted(set(b.facts) | set(a.facts) | {d for c in changes for d in c.deployed})
    for dag_id in dags:
        first = next((c for c in changes if c.touches(dag_id)), None)
        if first is None:
            continue
        cut = first.at
        runs_b = [f for f in b.facts.get(dag_id, []) if b.created[(dag_id, f.run_id)] >= cut]
        runs_a = [f for f in a.facts.get(dag_id, []) if a.created[(dag_id, f.run_id)] >= cut]
        changed = diff_runs(runs_b, runs_a)
        listed.extend(changed)
        catchup_changed = (
            dag_id in before.dags
            and dag_id in after.dags
            and before.dags[dag_id].spec.catchup != after.dags[dag_id].spec.catchup
        )
        marker = DagMarker(dag_id, changes, b, a, watch.stale, catchup_changed)
        marks.extend(marker.marks(changed, runs_a))
    for (dag_id, at), rows in rows_before.items():
        change = next(c for c in changes if c.at == at)
        kept_rows = watch.rows_after.get((dag_id, at), {})
        marks.extend(_queue_marks(dag_id, change, rows, kept_rows))
    for dag_id, spans in watch.stale.items():
        for start, end in spans:
            assert start is not None
            removal = change_before(changes, dag_id, start)
            if removal is not None:
                marks.append(_stale_mark(dag_id, removal, start, end, until))
    marks.sort(key=lambda m: (m.start, m.dag_id, m.kind))
    return DeployReport(tuple(changes), tuple(marks), tuple(listed))


def _queue_marks(
    dag_id: str, change: DeployChange, rows: dict[str, datetime], kept: dict[str, datetime]
) -> list[ChangeMark]:
    out = []
    at = change.at
    for asset, since in sorted(rows.items(), key=lambda kv: kv[1]):
        if asset in kept:

            def why_kept(fmt: Formatter, asset: str = asset, since: datetime = since) -> str:
                return (
                    f"the queue row of {asset} (since {fmt(since)}) is kept: the new condition "
                    "still names it, so it is evaluated under the new condition at the next "
                    "scheduler loop"
                )

            out.append(
                ChangeMark(
                    "events_kept",
                    dag_id,
                    since,
                    at,
                    change,
                    "DEP-5",
                    f"row kept: {asset}",
                    why_kept,
                    known_at=at,
                )
            )
        else:

            def why_dropped(fmt: Formatter, asset: str = asset, since: datetime = since) -> str:
                return (
                    f"the queue row of {asset} (since {fmt(since)}) is deleted with the "
                    f"reference at the deploy's parse ({fmt(at)}): the new schedule no longer "
                    f"names {asset}, so that event will never trigger {dag_id}"
                )

            out.append(
                ChangeMark(
                    "events_dropped",
                    dag_id,
                    since,
                    at,
                    change,
                    "DEP-5",
                    f"row dropped: {asset}",
                    why_dropped,
                    known_at=at,
                )
            )
    return out


def _stale_mark(
    dag_id: str, change: DeployChange, start: datetime, end: datetime | None, until: datetime
) -> ChangeMark:
    stop = end or until

    def why(fmt: Formatter) -> str:
        back = f"until its file is deployed again at {fmt(end)}" if end else "until the horizon"
        return (
            f"the file was removed at {fmt(change.at)}; the bundle refresh at {fmt(start)} "
            f"marks {dag_id} stale {back}: no new run, queued runs are not started and "
            "running runs are not examined (they stay running)"
        )

    return ChangeMark(
        "stale",
        dag_id,
        start,
        stop,
        change,
        "DEP-6",
        f"stale {span_text(stop - start)}",
        why,
        known_at=start,
    )
