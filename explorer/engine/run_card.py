"""The facts about one DAG run, in Airflow's names, ready for a person to read.

One place decides what "the card" of a run says, so the timeline's hover card,
a written report and a template context all show the same fields in the same
order: dag_id, run_id, run_type, state, logical_date, the data interval with its
length, run_after, created_at, start_date, end_date, partition_key and the asset
events the run consumed (AS-5). Instants stay aware datetimes (UTC, as the engine
keeps them); :meth:`RunCard.rows` renders them in a display zone and in UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.engine.assets.store import AssetEvent, Events
    from explorer.engine.runs import DagRun

__all__ = [
    "CONTEXT_KEYS",
    "ConsumedEvent",
    "RunCard",
    "run_card",
    "span_text",
    "utc_text",
    "wall_text",
]

#: The card's instants, in the order they are shown (Airflow's column names).
INSTANT_FIELDS = (
    "logical_date",
    "data_interval_start",
    "data_interval_end",
    "run_after",
    "created_at",
    "start_date",
    "end_date",
)


def span_text(delta: timedelta) -> str:
    """``23 h``, ``25 h``, ``3 d 2 h``, ``20 min``: a length the way people say it.

    Under two days the length is given in hours, so that a DST day reads
    ``23 h`` or ``25 h`` next to an ordinary ``24 h``.
    """
    seconds = round(delta.total_seconds())
    sign = "−" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds >= 2 * 86400:
        days, rest = divmod(seconds, 86400)
        hours = rest // 3600
        return f"{sign}{days} d" + (f" {hours} h" if hours else "")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else ""]
    if secs and not hours:
        parts.append(f"{secs} s")
    return sign + (" ".join(p for p in parts if p) or "0 s")


def wall_text(instant: datetime, zone: tzinfo) -> str:
    """``Sun 10 Mar 2024 03:00:00 EDT``: the wall clock in ``zone`` with its abbreviation."""
    local = instant.astimezone(zone)
    return f"{local.strftime('%a %d %b %Y %H:%M:%S')} {local.tzname()}"


def utc_text(instant: datetime) -> str:
    """``2024-03-10 07:00:00Z``."""
    return instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S") + "Z"


#: The template context keys the card shows, in this order (adr/0008, CTX-1, CTX-2).
CONTEXT_KEYS = (
    "ds",
    "ds_nodash",
    "ts",
    "logical_date",
    "data_interval_start",
    "data_interval_end",
    "prev_data_interval_start_success",
    "prev_data_interval_end_success",
    "prev_start_date_success",
    "prev_end_date_success",
    "partition_key",
    "partition_date",
    "triggering_asset_events",
)


def _events_summary(value: Any) -> str:
    """``orders ×2, customers ×1`` for ``triggering_asset_events`` (``{}`` when empty)."""
    items = list(value.items()) if hasattr(value, "items") else []
    if not items:
        return "{} (no event consumed)"
    parts = []
    for key, events in items:
        if isinstance(key, tuple):  # ("alias", name): the same events again, by alias
            parts.append(f"alias {key[1]} ×{len(events)}")
        else:
            parts.append(f"{getattr(key, 'name', None) or getattr(key, 'uri', key)} ×{len(events)}")
    return ", ".join(parts)


def context_rows(context: Mapping[str, Any]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(key, the value as ``{{ key }}`` renders it) for :data:`CONTEXT_KEYS` the context has,
    and the keys it leaves out (a run without logical date, CTX-2: reading them fails)."""
    from explorer.engine.context import LOGICAL_DATE_KEYS

    rows = []
    for key in CONTEXT_KEYS:
        if key not in context:
            continue
        value = context[key]
        text = _events_summary(value) if key == "triggering_asset_events" else str(value)
        rows.append((key, text))
    absent = tuple(k for k in LOGICAL_DATE_KEYS if k not in context)
    return tuple(rows), absent


@dataclass(frozen=True, slots=True)
class ConsumedEvent:
    """An asset event a run consumed: which asset, when, and who emitted it."""

    id: int
    asset: str  # the asset's name, or its uri when it has none
    uri: str
    timestamp: datetime
    source: str  # ``dag.task (run_id)``, ``rest_api`` or ``watcher <name>``
    partition_key: str | None


@dataclass(frozen=True, slots=True)
class RunCard:
    """What one run is, read from the engine's ``DagRun`` (values, not formatted text)."""

    dag_id: str
    run_id: str
    run_type: str
    state: str
    triggered_by: str
    logical_date: datetime | None
    data_interval_start: datetime | None
    data_interval_end: datetime | None
    run_after: datetime
    created_at: datetime
    start_date: datetime | None
    end_date: datetime | None
    partition_key: str | None
    consumed: tuple[ConsumedEvent, ...]
    #: The template context as the run's first task renders it (key, text), adr/0008.
    context: tuple[tuple[str, str], ...] = ()
    #: Context keys Airflow leaves out for this run (no logical date: a template fails).
    context_absent: tuple[str, ...] = ()
    #: The user's template, and what it renders to for this run (or the error).
    template: str | None = None
    rendered: str | None = None
    render_error: str | None = None

    @property
    def interval_length(self) -> timedelta | None:
        """``data_interval_end - data_interval_start``; None for a run without an interval."""
        if self.data_interval_start is None or self.data_interval_end is None:
            return None
        return self.data_interval_end - self.data_interval_start

    def instants(self) -> list[tuple[str, datetime | None]]:
        """(Airflow's field name, value) for every instant of the card, in card order."""
        return [(name, getattr(self, name)) for name in INSTANT_FIELDS]

    def rows(self, zone: tzinfo) -> list[tuple[str, str, str]]:
        """(field, in ``zone``, in UTC) for every line of the card; "—" for a null field.

        The data interval's length follows ``data_interval_end`` (a DST day reads
        23 h or 25 h: DST-4); a run without an interval says so on one line.
        """
        rows: list[tuple[str, str, str]] = [
            ("run_type", self.run_type, ""),
            ("state", self.state, ""),
        ]
        for name, value in self.instants():
            if name.startswith("data_interval") and self.interval_length is None:
                if name == "data_interval_start":
                    rows.append(("data interval", "none (asset-triggered or partitioned)", ""))
                continue
            rows.append(
                (
                    name,
                    "—" if value is None else wall_text(value, zone),
                    "—" if value is None else utc_text(value),
                )
            )
            if name == "data_interval_end" and self.interval_length is not None:
                rows.append(("interval length", span_text(self.interval_length), ""))
        key = self.partition_key
        rows.append(("partition_key", "—" if key is None else key, ""))
        rows.append(("events consumed", str(len(self.consumed)), ""))
        return rows

    def as_dict(self) -> dict[str, object]:
        """Plain values for a template or a JSON report (instants as ISO-8601 UTC)."""

        def iso(value: datetime | None) -> str | None:
            return None if value is None else value.astimezone(UTC).isoformat()

        length = self.interval_length
        return {
            "dag_id": self.dag_id,
            "run_id": self.run_id,
            "run_type": self.run_type,
            "state": self.state,
            "triggered_by": self.triggered_by,
            **{name: iso(value) for name, value in self.instants()},
            "interval_seconds": None if length is None else length.total_seconds(),
            "interval_length": None if length is None else span_text(length),
            "partition_key": self.partition_key,
            "template_context": dict(self.context),
            "template_context_absent": list(self.context_absent),
            "template": self.template,
            "rendered": self.rendered,
            "render_error": self.render_error,
            "consumed_asset_events": [
                {
                    "id": e.id,
                    "asset": e.asset,
                    "uri": e.uri,
                    "timestamp": iso(e.timestamp),
                    "source": e.source,
                    "partition_key": e.partition_key,
                }
                for e in self.consumed
            ],
        }


def _source(event: AssetEvent) -> str:
    source = event.source
    if source.kind == "task":
        run_id = source.run_id
        return f"{source.dag_id}.{source.task_id}" + (f" ({run_id})" if run_id else "")
    if source.kind == "watcher":
        return f"watcher {source.watcher}" if source.watcher else "watcher"
    return source.kind


def run_card(
    run: DagRun,
    events: Events = (),
    *,
    context: Mapping[str, Any] | None = None,
    template: str | None = None,
    rendered: tuple[str | None, str | None] = (None, None),
) -> RunCard:
    """The card of ``run``; ``events`` is the simulation's event log (``id`` = position).

    ``context``: the run's template context (:func:`explorer.engine.context.template_context`)
    to show; ``template`` and ``rendered`` (text, error): the user's template for this run.
    """
    consumed = []
    for event_id in run.consumed_asset_events:
        if 0 <= event_id < len(events):
            event = events[event_id]
            consumed.append(
                ConsumedEvent(
                    event.id,
                    event.asset.name or event.asset.uri,
                    event.asset.uri,
                    event.timestamp,
                    _source(event),
                    event.partition_key,
                )
            )
    interval = run.data_interval
    rows, absent = context_rows(context) if context is not None else ((), ())
    return RunCard(
        dag_id=run.dag_id,
        run_id=run.run_id,
        run_type=run.run_type,
        state=run.state,
        triggered_by=run.triggered_by,
        logical_date=run.logical_date,
        data_interval_start=None if interval is None else interval.start,
        data_interval_end=None if interval is None else interval.end,
        run_after=run.run_after,
        created_at=run.created_at,
        start_date=run.start_date,
        end_date=run.end_date,
        partition_key=run.partition_key,
        consumed=tuple(consumed),
        context=rows,
        context_absent=absent,
        template=template,
        rendered=rendered[0],
        render_error=rendered[1],
    )
