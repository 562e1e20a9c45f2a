"""What is under the mouse on the timeline, and how to describe it in a tooltip.

Qt-free so the tests can ask "what is at this instant on this lane" without
synthesising mouse events, and so the context menu and the tooltip agree.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from explorer.document.timeline.data import EventStore, GhostRun, Lane, RunStore, WindowBox
from explorer.document.timeline.dst import DstTransition
from explorer.document.timeline.timebase import fmt_local, fmt_span, fmt_utc

if TYPE_CHECKING:
    from explorer.document.timeline.injected import Injected
    from explorer.engine.assets.store import AssetEvent
    from explorer.engine.runs import DagRun

__all__ = ["TimelineTarget", "describe", "pick"]


@dataclass(frozen=True, slots=True)
class TimelineTarget:
    """A thing on the timeline: a run, the next-run ghost, an asset event, or a bare lane."""

    kind: str  # "run", "ghost", "event", "lane"
    lane: Lane
    at: datetime
    row: int | None = None
    run: DagRun | None = None
    ghost: GhostRun | None = None
    event: AssetEvent | None = None
    member: WindowBox | None = None

    @property
    def dag_id(self) -> str | None:
        return self.lane.key if self.lane.kind == "dag" else None


def pick(
    *,
    lanes: list[Lane],
    lane_rows: dict[int, npt.NDArray[np.int32]],
    left: npt.NDArray[np.float64],
    right: npt.NDArray[np.float64],
    runs: RunStore,
    events: EventStore,
    event_lanes: npt.NDArray[np.float64],
    ghosts: dict[str, GhostRun],
    x: float,
    y: float,
    tolerance: float,
    members: list[WindowBox] | None = None,
) -> TimelineTarget | None:
    """The target at data point ``(x, y)``; ``tolerance`` is a few pixels in data units."""
    index = round(y)
    if not (0 <= index < len(lanes)) or not math.isfinite(x):
        return None
    lane = lanes[index]
    at = datetime.fromtimestamp(x, UTC)
    if lane.kind == "dag" and members and y - index > 0.1:
        near = [m for m in members if m.dag_id == lane.key and abs(m.at - x) <= tolerance * 1.5]
        if near:
            box = min(near, key=lambda m: abs(m.at - x))
            return TimelineTarget("member", lane, at, member=box)
    if lane.kind == "dag":
        rows = lane_rows.get(index)
        if rows is not None and rows.size:
            lo, hi = left[rows], right[rows]
            distance = np.where(x < lo, lo - x, np.where(x > hi, x - hi, 0.0))
            distance = np.nan_to_num(distance, nan=np.inf)
            best = int(np.argmin(distance[::-1]))  # ties: the latest run wins
            best = rows.size - 1 - best
            if distance[best] <= tolerance:
                row = int(rows[best])
                return TimelineTarget("run", lane, at, row=row, run=runs.runs[row])
        ghost = ghosts.get(lane.key)
        if ghost is not None:
            marks = [
                v.timestamp()
                for v in (ghost.interval_start, ghost.interval_end, ghost.run_after)
                if v is not None
            ]
            if min(marks) - tolerance <= x <= max(marks) + tolerance:
                return TimelineTarget("ghost", lane, at, ghost=ghost)
        return TimelineTarget("lane", lane, at)
    if len(events):
        mask = event_lanes == index
        if mask.any():
            hits = np.flatnonzero(mask)
            t = events.col_t()[hits]
            nearest = int(np.argmin(np.abs(t - x)))
            if abs(t[nearest] - x) <= tolerance:
                row = int(hits[nearest])
                return TimelineTarget("event", lane, at, row=row, event=events.events[row])
    return TimelineTarget("lane", lane, at)


def _both(value: datetime | None, zone: tzinfo) -> str:
    if value is None:
        return "<i>null</i>"
    return f"{html.escape(fmt_local(value, zone, seconds=True))} · {fmt_utc(value, seconds=True)}"


def describe(
    target: TimelineTarget,
    zone: tzinfo,
    transitions: list[DstTransition] | None = None,
    *,
    injected: Injected | None = None,
) -> str:
    """Tooltip HTML: Airflow's field names, each instant in the display zone and in UTC."""
    rows: list[tuple[str, str]] = []
    title = ""
    if target.run is not None:
        run = target.run
        title = f"{run.dag_id} · {run.run_id}"
        interval = run.data_interval
        rows += [
            ("run_type", run.run_type),
            ("state", run.state),
            ("logical_date", _both(run.logical_date, zone)),
        ]
        if interval is None:
            rows.append(("data interval", "<i>none</i> (asset-triggered / partitioned runs)"))
        else:
            rows.append(("data_interval_start", _both(interval.start, zone)))
            rows.append(("data_interval_end", _both(interval.end, zone)))
            rows.append(("interval length", fmt_span(interval.end - interval.start)))
        if run.partition_key is not None:
            rows.append(("partition_key", html.escape(run.partition_key)))
        rows += [
            ("run_after", _both(run.run_after, zone)),
            ("created_at", _both(run.created_at, zone)),
            ("start_date", _both(run.start_date, zone)),
            ("end_date", _both(run.end_date, zone)),
        ]
        if run.consumed_asset_events:
            rows.append(("consumed", f"{len(run.consumed_asset_events)} asset event(s)"))
    elif target.ghost is not None:
        g = target.ghost
        title = f"{g.dag_id} · next run (not created yet)"
        if injected is not None:
            rows.append(("<span style='color:#c62828'>✗</span>", html.escape(injected.text)))
        rows += [
            ("logical_date", _both(g.logical_date, zone)),
            ("data_interval_start", _both(g.interval_start, zone)),
            ("data_interval_end", _both(g.interval_end, zone)),
            ("run_after", _both(g.run_after, zone)),
        ]
        if g.interval_start and g.interval_end:
            rows.append(("interval length", fmt_span(g.interval_end - g.interval_start)))
        if injected is None:
            rows.append(("", "right-click to make it fail, be delayed, …"))
    elif target.event is not None:
        e = target.event
        title = f"asset event #{e.id} · {e.asset.name or e.asset.uri}"
        source = e.source
        origin = (
            f"{source.dag_id}.{source.task_id} ({source.run_id})"
            if source.kind == "task"
            else source.kind
        )
        rows += [
            ("timestamp", _both(e.timestamp, zone)),
            ("uri", html.escape(e.asset.uri)),
            ("source", html.escape(origin)),
            ("wrote data", "yes" if e.wrote_data else "<b>no</b> (success without data)"),
        ]
        if e.partition_key is not None:
            rows.append(("partition_key", html.escape(e.partition_key)))
    elif target.member is not None:
        m = target.member
        title = f"{m.dag_id} · partition {m.partition_key} · window member"
        status = {"arrived": "arrived", "pending": "pending", "never": "<b>can never arrive</b>"}
        rows += [
            ("member key", html.escape(m.member_key)),
            ("asset", html.escape(m.asset)),
            ("status", status.get(m.status, m.status)),
            ("", html.escape(m.note)),
        ]
    else:
        title = f"{target.lane.kind}: {target.lane.label}"
        rows.append(("at", _both(target.at, zone)))
    for tr in transitions or []:
        if tr.day_start <= target.at < tr.day_end:
            rows.append(("DST", html.escape(tr.detail)))
    body = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows)
    return f"<b>{html.escape(title)}</b><table>{body}</table>"
