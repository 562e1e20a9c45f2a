"""The behavioural diff in words, for a terminal or a pull-request comment."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TextIO

from explorer.engine.diff import BehaviourDiff, RunFacts
from explorer.engine.record import iso
from explorer.engine.tz import get_zone

__all__ = ["write_diff"]


def _span(delta: timedelta) -> str:
    hours, rest = divmod(int(delta.total_seconds()), 3600)
    minutes = rest // 60
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def _signed(delta: timedelta) -> str:
    """``+2 h``, ``-30 min``: how far a run moved."""
    sign = "-" if delta < timedelta(0) else "+"
    hours, rest = divmod(int(abs(delta.total_seconds())), 3600)
    minutes = rest // 60
    text = " ".join(
        p for p in (f"{hours} h" if hours else "", f"{minutes} min" if minutes else "") if p
    )
    return f"{sign}{text or '0 min'}"


def _at(value: datetime | None, zone: str) -> str:
    if value is None:
        return "none"
    if zone == "UTC":
        return iso(value) or "none"
    local = value.astimezone(get_zone(zone)).strftime("%Y-%m-%d %H:%M %Z")
    return f"{iso(value)} ({local})"


def _interval(run: RunFacts, zone: str) -> str:
    if run.data_interval_start is None or run.data_interval_end is None:
        return "none"
    length = _span(run.data_interval_end - run.data_interval_start)
    return f"[{_at(run.data_interval_start, zone)}, {_at(run.data_interval_end, zone)}) {length}"


def write_diff(diff: BehaviourDiff, out: TextIO, zones: Mapping[str, str]) -> None:
    """Runs per DAG, then consumers, alerts and expectations; "no change" when same."""
    if diff.same:
        out.write("no change in behaviour\n")
        return
    dag = None
    for change in diff.runs:
        zone = zones.get(change.dag_id, "UTC")
        if change.dag_id != dag:
            dag = change.dag_id
            out.write(f"{dag}\n")
        facts = change.after or change.before
        assert facts is not None
        label = f"logical_date {_at(facts.logical_date, zone)}"
        if facts.logical_date is None and facts.partition_key is not None:
            label = f"partition_key {facts.partition_key}"
        elif facts.logical_date is None:
            label = f"{facts.run_type} run"
        if change.kind == "shifted" and change.before and change.after:
            b, a = change.before, change.after
            if "logical_date" in change.fields and b.logical_date and a.logical_date:
                by = _signed(a.logical_date - b.logical_date)
                label = f"logical_date {_at(b.logical_date, zone)} moved {by}"
            out.write(f"  shifted  {label}\n")
            if "run_after" in change.fields:
                out.write(f"             run_after {_at(b.run_after, zone)}\n")
                out.write(f"                    -> {_at(a.run_after, zone)}\n")
            if "data_interval" in change.fields:
                out.write(f"             data_interval {_interval(b, zone)}\n")
                out.write(f"                        -> {_interval(a, zone)}\n")
        else:
            out.write(f"  {change.kind:<8} {label}, run_after {_at(facts.run_after, zone)}\n")
    for name in diff.dags_added:
        out.write(f"DAG {name}: only after\n")
    for name in diff.dags_removed:
        out.write(f"DAG {name}: only before\n")
    if diff.consumers:
        out.write("consumers whose firing changes\n")
        for c in diff.consumers:
            out.write(
                f"  {c.dag_id}: {c.runs_before} runs -> {c.runs_after} runs ({c.changes} changes)\n"
            )
    if diff.alerts:
        out.write("alerts\n")
        for alert in diff.alerts:
            out.write(
                f"  {alert.kind:<11} {alert.alert_kind} on {alert.subject} at "
                f"{iso(alert.at)}: {alert.message}\n"
            )
    if diff.expectations:
        out.write("expectations that flip\n")
        for flip in diff.expectations:
            word = {True: "holds", False: "fails"}
            out.write(f"  {flip.name}: {word[flip.before]} -> {word[flip.after]}\n")
    counts = diff.counts()
    out.write(
        f"\n{counts['added']} added, {counts['removed']} removed, {counts['shifted']} shifted; "
        f"{len(diff.alerts)} alert changes; {len(diff.expectations)} expectations flip\n"
    )
