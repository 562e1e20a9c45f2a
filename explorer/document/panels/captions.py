"""Captions for a step of the clock: what happened, in a sentence per change. No Qt.

Presentation mode shows them under the timeline while the presenter walks
the script with the arrow keys; the status bar shows the same line.
A script action may carry its own caption as ``"x-caption"`` (kept verbatim
by the scenario file, contract section 3); it is shown first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from explorer.document.timeline.timebase import fmt_local, fmt_span, fmt_utc

if TYPE_CHECKING:
    from explorer.engine.simulation import Change
    from explorer.scenario.model import ScriptAction

__all__ = ["StepReport", "back_caption", "caption"]


@dataclass(slots=True)
class StepReport:
    """What one clock movement did: from where to where, the engine's changes, the script."""

    before: datetime
    after: datetime
    changes: list[Change] = field(default_factory=list)
    actions: list[ScriptAction] = field(default_factory=list)


def _describe(change: Change, zone: tzinfo) -> str | None:
    run = change.run
    if change.kind == "run_created" and run is not None:
        if run.data_interval is not None and run.data_interval.end > run.data_interval.start:
            span = fmt_span(run.data_interval.end - run.data_interval.start)
            what = (
                f"run for the {span} interval from "
                f"{fmt_local(run.data_interval.start, zone)} created"
            )
        elif run.logical_date is not None:
            what = f"{run.run_type} run for {fmt_local(run.logical_date, zone)} created"
        else:
            what = f"{run.run_type.replace('_', '-')} run created (no data interval)"
        return f"{change.dag_id}: {what}"
    if change.kind == "run_state" and change.detail == "running":
        return f"{change.dag_id}: run started"
    if change.kind == "run_state" and change.detail in ("success", "failed"):
        state = change.detail.upper() if change.detail == "failed" else change.detail
        return f"{change.dag_id}: run {state}"
    if change.kind == "dag_paused":
        return f"{change.dag_id} paused"
    if change.kind == "dag_unpaused":
        return f"{change.dag_id} unpaused"
    if change.kind == "warning":
        return f"warning: {change.detail}"
    return None


def _action_caption(action: ScriptAction) -> str:
    extra = action.extras.get("x-caption")
    if isinstance(extra, str):
        return extra
    name = type(action).__name__.removesuffix("Action").lower()
    subject = getattr(action, "dag_id", None) or getattr(getattr(action, "run", None), "dag_id", "")
    return f"script: {name} {subject}".strip()


def caption(report: StepReport, zone: tzinfo, *, limit: int = 4) -> str:
    """``Sun 10 Mar 2024 00:00 EST · 05:00Z — ingest_orders: run for the 24 h interval …``."""
    when = f"{fmt_local(report.after, zone)} · {fmt_utc(report.after)}"
    lines = _lines(report, zone)
    if not lines:
        lines.append("nothing visible changed")
    more = f" (+{len(lines) - limit} more)" if len(lines) > limit else ""
    return f"{when} — " + "; ".join(lines[:limit]) + more


def _lines(report: StepReport, zone: tzinfo) -> list[str]:
    lines = [_action_caption(a) for a in report.actions]
    seen: set[str] = set()
    for change in report.changes:
        text = _describe(change, zone)
        if text and text not in seen:
            seen.add(text)
            lines.append(text)
    return lines


def back_caption(
    report: StepReport, undone: list[StepReport], zone: tzinfo, *, limit: int = 4
) -> str:
    """``← back to … — undone: ingest_orders: run started``: what a step back took away.

    The engine reports no changes when the clock goes back (it restores a
    checkpoint), so the caption names what the forward steps it undid had done;
    when those are unknown (the clock was moved back past them), it says how far.
    """
    when = f"{fmt_local(report.after, zone)} · {fmt_utc(report.after)}"
    lines: list[str] = []
    for step in reversed(undone):
        for line in _lines(step, zone):
            if line not in lines:
                lines.append(line)
    if not lines:
        return f"← back to {when} — the clock moved back {fmt_span(report.before - report.after)}"
    more = f" (+{len(lines) - limit} more)" if len(lines) > limit else ""
    return f"← back to {when} — undone: " + "; ".join(lines[:limit]) + more
