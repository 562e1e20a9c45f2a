"""The review report: one self-contained HTML file a design review reads, prints and keeps.

Everything is inline (pictures as SVG, CSS in the page, system fonts only) so the file
opens offline and from an e-mail attachment. The data is gathered here, headless; the
pictures come in as SVG bytes from the app's drawing module (``explorer.ui.pictures``),
so the report and File > Export picture show the same drawing. The page is a jinja2
template in the package (``templates/report.html.j2``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import jinja2
from markupsafe import Markup, escape

from explorer import __version__
from explorer.analysis.expectations import ExpectationResult
from explorer.engine.alerts import Alert
from explorer.engine.explain import Explanation, explain
from explorer.engine.record import iso
from explorer.engine.simulation import Simulation
from explorer.engine.tz import get_zone

__all__ = ["DstDay", "ReportData", "dst_days", "explanations_at", "render_report", "report_data"]

#: Rows per DAG in the runs table; a year of an hourly DAG would print 9,000 rows.
MAX_ROWS = 400


#: Conditions listed per explanation; a partitioned consumer can have hundreds.
MAX_CONDITIONS = 12


def shown_conditions(why: Explanation) -> tuple[list[Any], int]:
    """The blocking conditions first, then the rest, at most :data:`MAX_CONDITIONS`."""
    ordered = sorted(why.conditions, key=lambda c: {False: 0, None: 2, True: 1}[c.ok])
    return ordered[:MAX_CONDITIONS], max(0, len(ordered) - MAX_CONDITIONS)


@dataclass(frozen=True, slots=True)
class DstDay:
    zone: str
    day: date
    hours: float
    offset_before: str
    offset_after: str


@dataclass(slots=True)
class ReportData:
    title: str
    description: str
    start: datetime
    until: datetime
    zone: str
    runs: dict[str, list[dict[str, Any]]]
    truncated: dict[str, int]
    dst: list[DstDay]
    alerts: list[tuple[Alert, Explanation | None]]
    never_ran: list[Explanation]
    expectations: Sequence[ExpectationResult]
    pictures: Mapping[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _span(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    if hours >= 48 and hours % 24 == 0:
        return f"{int(hours // 24)} d"
    return f"{hours:g} h" if hours >= 1 else f"{delta.total_seconds() / 60:g} min"


def _offset(value: timedelta | None) -> str:
    if value is None:
        return "?"
    minutes = int(value.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def dst_days(zones: Sequence[str], start: datetime, until: datetime) -> list[DstDay]:
    """Local days in ``[start, until]`` that are not 24 hours long (DST-1, DST-2)."""
    out = []
    for name in sorted(set(zones)):
        zone = get_zone(name)
        day = start.astimezone(zone).date()
        last = until.astimezone(zone).date()
        while day <= last:
            begin = datetime.combine(day, datetime.min.time(), tzinfo=zone)
            end = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=zone)
            length = end.astimezone(UTC) - begin.astimezone(UTC)
            if length != timedelta(days=1):
                out.append(
                    DstDay(
                        name,
                        day,
                        length.total_seconds() / 3600,
                        _offset(begin.utcoffset()),
                        _offset(end.utcoffset()),
                    )
                )
            day += timedelta(days=1)
    return sorted(out, key=lambda d: (d.day, d.zone))


def _run_rows(
    sim: Simulation, zone_of: Mapping[str, str]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    rows: dict[str, list[dict[str, Any]]] = {d: [] for d in sim.dags}
    truncated: dict[str, int] = {}
    for run in sim.runs:
        table = rows.setdefault(run.dag_id, [])
        if len(table) >= MAX_ROWS:
            truncated[run.dag_id] = truncated.get(run.dag_id, 0) + 1
            continue
        zone = get_zone(zone_of.get(run.dag_id, "UTC"))

        def local(value: datetime | None, zone: Any = zone) -> str:
            return "—" if value is None else value.astimezone(zone).strftime("%d %b %H:%M %Z")

        interval = run.data_interval
        table.append(
            {
                "run_id": run.run_id,
                "run_type": run.run_type,
                "logical_date": local(run.logical_date),
                "logical_date_utc": iso(run.logical_date) or "",
                "interval": "no interval"
                if interval is None
                else f"{local(interval.start)} → {local(interval.end)}",
                "length": ""
                if interval is None
                else _span(interval.end - interval.start)
                if interval.end != interval.start
                else "0 (a point)",
                "run_after": local(run.run_after),
                "start_date": local(run.start_date),
                "end_date": local(run.end_date),
                "partition_key": run.partition_key or "",
                "state": run.state,
            }
        )
    return rows, truncated


def explanations_at(
    make: Any, instants: Sequence[tuple[datetime, str]]
) -> dict[tuple[datetime, str], Explanation]:
    """Explain each (instant, dag_id) on one fresh simulation advanced in time order."""
    sim: Simulation = make()
    out = {}
    for at, dag_id in sorted(set(instants)):
        sim.advance_to(at)
        if dag_id in sim.dags:
            out[(at, dag_id)] = explain(sim, dag_id)
    return out


def report_data(
    *,
    title: str,
    description: str,
    sim: Simulation,
    make_simulation: Any,
    start: datetime,
    until: datetime,
    alerts: Sequence[Alert],
    expectations: Sequence[ExpectationResult],
    pictures: Mapping[str, str],
    warnings: Sequence[str] = (),
) -> ReportData:
    """Gather the report's contents; ``sim`` has run to ``until``; ``make_simulation`` gives
    a fresh one for the explanations at earlier instants."""
    zones = {d: s.spec.timezone for d, s in sim.dags.items()}
    rows, truncated = _run_rows(sim, zones)
    subjects = []
    for alert in alerts:
        dag = alert.subject.split(",")[0].strip()
        subjects.append((alert.at, dag))
    never = [d for d, r in rows.items() if not r]
    asked = [*subjects, *((until, d) for d in never)]
    answers = explanations_at(make_simulation, asked)
    local_zones = [z for z in zones.values() if z not in ("UTC", "Etc/UTC")]
    return ReportData(
        title=title,
        description=description,
        start=start,
        until=until,
        zone=local_zones[0] if local_zones else "UTC",
        runs=rows,
        truncated=truncated,
        dst=dst_days(local_zones or ["UTC"], start, until),
        alerts=[(a, answers.get(key)) for a, key in zip(alerts, subjects, strict=True)],
        never_ran=[answers[(until, d)] for d in never if (until, d) in answers],
        expectations=expectations,
        pictures=pictures,
        warnings=list(warnings),
    )


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("explorer.analysis", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["breakable"] = _break_at_separators
    return env


def _svg_inline(data: bytes | str) -> str:
    """An SVG document as an inline element: the XML declaration has no place in HTML, and
    every font is the app's sans-serif. Qt writes the families it resolved (``Sans Serif``
    is not a CSS generic family: a browser or a PDF printer falls back to a serif face for
    it), so each family gets the app's own font and the generic ``sans-serif`` after it."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    text = text[text.index("<svg") :] if "<svg" in text else text
    return _FONT_FAMILY.sub(_sans, text)


_FONT_FAMILY = re.compile(r'font-family="([^"]*)"')


def _sans(match: re.Match[str]) -> str:
    family = match.group(1)
    if family.lower() in ("sans serif", "sans", "sansserif", "", "dejavu sans"):
        return 'font-family="DejaVu Sans, sans-serif"'
    return f'font-family="{family}, DejaVu Sans, sans-serif"'


def _break_at_separators(value: object) -> Markup:
    """A run id that wraps only between its parts (after ``__``, ``_``, ``:``, ``+``, ``-``
    and ``T``), never inside a number: the text escaped, a ``<wbr>`` after each."""
    escaped = str(escape(str(value)))
    return Markup(re.sub(r"(__|_|:|\+|-|T)", r"\1<wbr>", escaped))


def render_report(data: ReportData) -> str:
    template = _environment().get_template("report.html.j2")
    zone = get_zone(data.zone)
    return template.render(
        d=data,
        shown=shown_conditions,
        version=__version__,
        iso=iso,
        when=lambda v: (
            "—"
            if v is None
            else f"{v.astimezone(zone).strftime('%a %d %b %Y %H:%M %Z')} ({iso(v)})"
        ),
        pictures={k: Markup(_svg_inline(v)) for k, v in data.pictures.items()},
    )
