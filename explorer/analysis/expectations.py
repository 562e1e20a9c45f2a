"""Expectations: what a scenario states must happen, checked against a simulation (ADR 0007 §5).

A team states "the report runs between 06:00 and 07:00 New York time every weekday"
once, and every later change of a schedule is checked against it: by ``explorer
check`` in CI, live in the app's expectations dock, and as flips in ``explorer diff``.
Each kind is one small function over the simulated facts; each returns the instants
and runs that break it, because "failed" alone sends the user hunting.

Ranges are half-open ``[from, to)``; a missing ``from`` is ``clock.start``, a missing
``to`` the end of the simulated horizon. Instants are aware; UTC inside.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from explorer.engine.diff import RunFacts, diff_runs
from explorer.engine.record import iso
from explorer.engine.tz import get_zone

__all__ = [
    "ExpectationResult",
    "Facts",
    "RunRow",
    "Violation",
    "check_count",
    "check_fires_within",
    "check_no_alert",
    "check_no_run",
    "check_runs_between",
    "check_same_as",
    "describe",
    "evaluate",
    "evaluate_all",
    "field_of",
]


@dataclass(frozen=True, slots=True)
class RunRow:
    """The fields of a run the checks read (a copy: the run log packs ended runs)."""

    dag_id: str
    run_id: str
    run_type: str
    logical_date: datetime | None
    data_interval_start: datetime | None
    data_interval_end: datetime | None
    run_after: datetime
    partition_key: str | None
    state: str
    start_date: datetime | None
    end_date: datetime | None

    def facts(self) -> RunFacts:
        return RunFacts(
            self.dag_id,
            self.run_id,
            self.run_type,
            self.logical_date,
            self.data_interval_start,
            self.data_interval_end,
            self.run_after,
            self.partition_key,
        )


@dataclass(frozen=True, slots=True)
class AlertRow:
    kind: str
    at: datetime
    subject: str
    message: str


@dataclass(frozen=True, slots=True)
class ProducedAt:
    """A task of ``dag_id`` emitted an event of ``asset`` (its uri) at ``at``."""

    dag_id: str
    asset: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Facts:
    """What one simulation did, read once, shared by every expectation."""

    start: datetime
    until: datetime
    runs: tuple[RunRow, ...]
    alerts: tuple[AlertRow, ...] = ()
    produced: tuple[ProducedAt, ...] = ()
    #: Per DAG: its time zone and the uris its schedule names directly (consumers).
    timezones: Mapping[str, str] = field(default_factory=dict)
    schedule_assets: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: Per asset uri: the DAGs with a task that has it as an outlet.
    producers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def runs_of(self, dag_id: str) -> list[RunRow]:
        return sorted((r for r in self.runs if r.dag_id == dag_id), key=lambda r: r.run_after)


@dataclass(frozen=True, slots=True)
class Violation:
    """One instant or run that breaks an expectation, said in words."""

    at: datetime | None
    message: str
    dag_id: str | None = None
    run_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": iso(self.at),
            "message": self.message,
            "dag_id": self.dag_id,
            "run_id": self.run_id,
        }


@dataclass(frozen=True, slots=True)
class ExpectationResult:
    index: int
    name: str
    kind: str
    description: str
    violations: tuple[Violation, ...]
    #: An expectation that cannot be judged (a DAG that does not exist) fails with this.
    error: str | None = None

    @property
    def ok(self) -> bool:
        return not self.violations and self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "expect": self.kind,
            "description": self.description,
            "ok": self.ok,
            "error": self.error,
            "violations": [v.to_dict() for v in self.violations],
        }


# ------------------------------------------------------------------------------ helpers
def _range(facts: Facts, start: datetime | None, end: datetime | None) -> tuple[datetime, datetime]:
    return (start or facts.start).astimezone(UTC), (end or facts.until).astimezone(UTC)


def _hhmm(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def _local(day: date, at: time, zone_name: str) -> datetime:
    """A wall-clock time on a local day as UTC; a time the spring-forward skips is read
    with fold 0, as Python's zoneinfo does (the offset before the gap)."""
    return datetime.combine(day, at, tzinfo=get_zone(zone_name)).astimezone(UTC)


def _when(at: datetime | None, zone: str) -> str:
    if at is None:
        return "-"
    return f"{at.astimezone(get_zone(zone)).strftime('%Y-%m-%d %H:%M %Z')} ({iso(at)})"


def _run_words(run: RunRow, zone: str) -> str:
    logical = iso(run.logical_date) if run.logical_date else "none"
    return f"{run.run_id} (logical_date {logical}, run_after {_when(run.run_after, zone)})"


# ------------------------------------------------------------------------------ kinds
def check_runs_between(
    facts: Facts,
    dag_id: str,
    after: str,
    before: str,
    *,
    timezone: str | None = None,
    days: str = "every_day",
    field_name: str = "run_after",
    start: datetime | None = None,
    end: datetime | None = None,
) -> list[Violation]:
    """Every local day (or weekday) of the range has a run whose ``run_after`` (or
    ``end_date``) is in ``[after, before)`` local time. A window past the horizon is not
    judged yet; a window that crosses midnight ends on the next day."""
    zone = timezone or facts.timezones.get(dag_id, "UTC")
    lo, hi = _range(facts, start, end)
    t_after, t_before = _hhmm(after), _hhmm(before)
    values = [
        r.run_after if field_name == "run_after" else r.end_date for r in facts.runs_of(dag_id)
    ]
    present = sorted(v for v in values if v is not None)
    out: list[Violation] = []
    day = lo.astimezone(get_zone(zone)).date() - timedelta(days=1)
    last = hi.astimezone(get_zone(zone)).date()
    while day <= last:
        if days == "weekdays" and day.weekday() >= 5:
            day += timedelta(days=1)
            continue
        w_lo = _local(day, t_after, zone)
        w_hi = _local(day + timedelta(days=1) if t_before <= t_after else day, t_before, zone)
        if w_lo >= lo and w_hi <= hi and not any(w_lo <= v < w_hi for v in present):
            out.append(
                Violation(
                    w_lo,
                    f"{day.isoformat()} ({day.strftime('%a')}): no run of {dag_id} with "
                    f"{field_name} between {after} and {before} {zone}",
                    dag_id,
                )
            )
        day += timedelta(days=1)
    return out


def check_no_run(
    facts: Facts, dag_id: str, start: datetime | None, end: datetime | None
) -> list[Violation]:
    """No run of the DAG is due (``run_after``) or executing (start..end) in the range."""
    lo, hi = _range(facts, start, end)
    zone = facts.timezones.get(dag_id, "UTC")
    out = []
    for run in facts.runs_of(dag_id):
        due = lo <= run.run_after < hi
        running = (
            run.start_date is not None
            and run.start_date < hi
            and (run.end_date is None or run.end_date > lo)
        )
        if due or running:
            out.append(
                Violation(
                    run.run_after, f"{_run_words(run, zone)} in the range", dag_id, run.run_id
                )
            )
    return out


def check_count(
    facts: Facts,
    dag_id: str,
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    exactly: int | None = None,
    at_least: int | None = None,
    at_most: int | None = None,
) -> list[Violation]:
    """The number of runs whose ``run_after`` is in the range."""
    lo, hi = _range(facts, start, end)
    runs = [r for r in facts.runs_of(dag_id) if lo <= r.run_after < hi]
    n = len(runs)
    wanted = (
        ("exactly", exactly, n == exactly)
        if exactly is not None
        else ("at least", at_least, n >= (at_least or 0))
        if at_least is not None
        else ("at most", at_most, n <= (at_most if at_most is not None else n))
    )
    words, bound, ok = wanted
    if ok:
        return []
    zone = facts.timezones.get(dag_id, "UTC")
    listed = ", ".join(_when(r.run_after, zone) for r in runs[:8])
    more = f" and {n - 8} more" if n > 8 else ""
    return [
        Violation(
            lo,
            f"{n} runs of {dag_id} in [{iso(lo)}, {iso(hi)}), expected {words} {bound}"
            + (f": {listed}{more}" if runs else ""),
            dag_id,
        )
    ]


def check_fires_within(
    facts: Facts, dag_id: str, within: timedelta, producer: str | None = None
) -> list[Violation]:
    """The consumer has a run (``run_after``) within ``within`` after every event its
    producer emits for an asset it is scheduled on; without ``producer``, after the
    moment every one of its producers has emitted since its previous run."""
    assets = facts.schedule_assets.get(dag_id, frozenset())
    produced = sorted(
        (
            p
            for p in facts.produced
            if p.asset in assets and (producer is None or p.dag_id == producer)
        ),
        key=lambda p: p.at,
    )
    fired = [r.run_after for r in facts.runs_of(dag_id)]
    zone = facts.timezones.get(dag_id, "UTC")
    triggers: list[tuple[datetime, str]] = []
    if producer is not None:
        seen: set[datetime] = set()
        for p in produced:
            if p.at not in seen:
                seen.add(p.at)
                triggers.append((p.at, f"{producer} emitted {p.asset}"))
    else:
        everyone = {d for uri in assets for d in facts.producers.get(uri, ())}
        fresh: set[str] = set()
        last_fire = None
        for p in produced:
            if last_fire is not None and any(last_fire < f <= p.at for f in fired):
                fresh = set()
            fresh.add(p.dag_id)
            last_fire = p.at
            if everyone and fresh == everyone:
                triggers.append((p.at, f"{p.dag_id} emitted, the last producer it waited for"))
                fresh = set()
    out = []
    for at, why in triggers:
        if at + within > facts.until:
            continue  # not judged: the horizon ends first
        if not any(at <= f <= at + within for f in fired):
            out.append(
                Violation(
                    at, f"{why} at {_when(at, zone)}; no run of {dag_id} within {within}", dag_id
                )
            )
    if producer is not None and not produced:
        out.append(
            Violation(None, f"{producer} never emitted an asset {dag_id} is scheduled on", dag_id)
        )
    return out


def check_no_alert(
    facts: Facts, kind: str | None, start: datetime | None, end: datetime | None
) -> list[Violation]:
    lo, hi = _range(facts, start, end)
    return [
        Violation(a.at, f"{a.kind} on {a.subject}: {a.message}", None)
        for a in facts.alerts
        if (kind is None or a.kind == kind) and lo <= a.at < hi
    ]


def check_same_as(facts: Facts, dag_id: str, golden: Sequence[RunFacts]) -> list[Violation]:
    """The runs equal the accepted list, paired by the behavioural diff's rule (ADR 0009)."""
    zone = facts.timezones.get(dag_id, "UTC")
    actual = [r.facts() for r in facts.runs_of(dag_id)]
    out = []
    for change in diff_runs(golden, actual):
        b, a = change.before, change.after
        if change.kind == "added" and a is not None:
            out.append(
                Violation(
                    a.run_after,
                    f"unexpected run: run_after {_when(a.run_after, zone)}"
                    f", logical_date {iso(a.logical_date)}",
                    dag_id,
                    a.run_id,
                )
            )
        elif change.kind == "removed" and b is not None:
            out.append(
                Violation(
                    b.run_after,
                    f"missing run: run_after {_when(b.run_after, zone)}"
                    f", logical_date {iso(b.logical_date)}",
                    dag_id,
                )
            )
        elif b is not None and a is not None:
            out.append(
                Violation(
                    a.run_after,
                    f"run of logical_date {iso(a.logical_date)} moved ({', '.join(change.fields)})"
                    f": run_after {_when(b.run_after, zone)} -> {_when(a.run_after, zone)}",
                    dag_id,
                    a.run_id,
                )
            )
    return out


# ------------------------------------------------------------------------------ dispatch
#: The model's attribute where the file's key is a Python keyword or too generic.
_ATTRIBUTES = {"from": "from_", "field": "time_field"}


def field_of(item: Any, name: str, default: Any = None) -> Any:
    """A field of an expectation, read from the model's dataclass (ADR 0007's
    ``explorer.scenario.model``) or from its JSON mapping; an ``Instant`` or a
    ``Duration`` of the model gives its value."""
    if isinstance(item, Mapping):
        return item.get(name, default)
    value = getattr(item, _ATTRIBUTES.get(name, name), default)
    if hasattr(value, "value") and hasattr(value, "text"):
        return value.value
    return value


def _instant_of(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed.astimezone(UTC)


def _duration_of(value: Any) -> timedelta:
    if isinstance(value, timedelta):
        return value
    from explorer.scenario.values import parse_duration

    return parse_duration(str(value))


def _golden(item: Any, dag_id: str) -> list[RunFacts]:
    out = []
    for i, run in enumerate(field_of(item, "runs", ()) or ()):
        out.append(
            RunFacts(
                dag_id,
                str(field_of(run, "run_id", f"expected #{i + 1}") or f"expected #{i + 1}"),
                str(field_of(run, "run_type", "scheduled")),
                _instant_of(field_of(run, "logical_date")),
                _instant_of(field_of(run, "data_interval_start")),
                _instant_of(field_of(run, "data_interval_end")),
                _instant_of(field_of(run, "run_after")) or datetime.min.replace(tzinfo=UTC),
                field_of(run, "partition_key"),
            )
        )
    return out


def describe(item: Any) -> str:
    """One line a reviewer reads in a report, a dock or a JUnit test name."""
    kind = str(field_of(item, "expect"))
    dag = field_of(item, "dag_id")
    lo, hi = field_of(item, "from"), field_of(item, "to")
    span = ""
    if lo is not None or hi is not None:
        span = f" in [{iso(_instant_of(lo)) or 'start'}, {iso(_instant_of(hi)) or 'end'})"
    if kind == "runs_between":
        days = "every weekday" if field_of(item, "days") == "weekdays" else "every day"
        named = field_of(item, "timezone")
        zone = f"in {named}" if named else "in the DAG's zone"
        field_name = field_of(item, "field") or "run_after"
        return (
            f"{dag} has a run ({field_name}) between {field_of(item, 'after')} and "
            f"{field_of(item, 'before')} {zone}, {days}{span}"
        )
    if kind == "no_run":
        return f"{dag} has no run{span}"
    if kind == "count":
        for words, key in (
            ("exactly", "exactly"),
            ("at least", "at_least"),
            ("at most", "at_most"),
        ):
            if field_of(item, key) is not None:
                return f"{dag} has {words} {field_of(item, key)} runs{span}"
    if kind == "fires_within":
        prod = field_of(item, "producer")
        after = f"every run of {prod}" if prod else "all its producers have emitted"
        return f"{dag} runs within {field_of(item, 'within')} after {after}"
    if kind == "no_alert":
        what = field_of(item, "alert") or "any kind"
        return f"no alert ({what}){span}"
    if kind == "same_as":
        accepted = len(field_of(item, "runs", ()) or ())
        return f"{dag} runs exactly as the accepted list ({accepted} runs)"
    return kind


def evaluate(item: Any, facts: Facts, index: int = 0) -> ExpectationResult:
    """Judge one expectation (a model dataclass or its JSON mapping)."""
    kind = str(field_of(item, "expect"))
    name = str(field_of(item, "name") or f"#{index + 1} {kind}")
    text = describe(item)
    dag_id = field_of(item, "dag_id")
    known = set(facts.timezones)
    if dag_id is not None and known and dag_id not in known:
        return ExpectationResult(index, name, kind, text, (), f"no DAG {dag_id!r} in the scenario")
    lo, hi = _instant_of(field_of(item, "from")), _instant_of(field_of(item, "to"))
    checks: dict[str, Callable[[], list[Violation]]] = {
        "runs_between": lambda: check_runs_between(
            facts,
            dag_id,
            str(field_of(item, "after")),
            str(field_of(item, "before")),
            timezone=field_of(item, "timezone"),
            days=field_of(item, "days") or "every_day",
            field_name=field_of(item, "field") or "run_after",
            start=lo,
            end=hi,
        ),
        "no_run": lambda: check_no_run(facts, dag_id, lo, hi),
        "count": lambda: check_count(
            facts,
            dag_id,
            start=lo,
            end=hi,
            exactly=field_of(item, "exactly"),
            at_least=field_of(item, "at_least"),
            at_most=field_of(item, "at_most"),
        ),
        "fires_within": lambda: check_fires_within(
            facts, dag_id, _duration_of(field_of(item, "within")), field_of(item, "producer")
        ),
        "no_alert": lambda: check_no_alert(facts, field_of(item, "alert"), lo, hi),
        "same_as": lambda: check_same_as(facts, dag_id, _golden(item, dag_id)),
    }
    check = checks.get(kind)
    if check is None:
        return ExpectationResult(index, name, kind, text, (), f"unknown expectation {kind!r}")
    return ExpectationResult(index, name, kind, text, tuple(check()))


def evaluate_all(items: Iterable[Any], facts: Facts) -> list[ExpectationResult]:
    return [evaluate(item, facts, i) for i, item in enumerate(items)]
