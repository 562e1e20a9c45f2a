"""Two schedules side by side: their next runs, paired, with what differs. No Qt.

The lesson this makes visible: ``CronTriggerTimetable`` and
``CronDataIntervalTimetable`` of the same cron run at the *same* instants
(``run_after``) but label them differently — the trigger run's
``logical_date`` is its own run time and its interval is empty, the
data-interval run's ``logical_date`` is the start of the period that just
ended (a day earlier; 23 hours earlier across a spring-forward night).

Runs are paired by the one behavioural diff rule (ADR 0009,
:mod:`explorer.engine.diff`): equal ``logical_date``, then equal
``partition_key``, then ``run_after`` order. Read that way, the two cron
timetables run the *same* run (same logical date, same run_id) a day apart: the
trigger timetable runs the date at its start, the data-interval timetable once
the day is over. Two runs with different logical dates are different runs
(Airflow gives them different run_ids) and are listed alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from explorer.document.timeline.timebase import fmt_span
from explorer.engine.dag import DagSpec
from explorer.engine.diff import RunFacts, pair_runs
from explorer.engine.errors import EngineError
from explorer.engine.timetables.base import Timetable
from explorer.engine.timetables.interval import CronDataIntervalTimetable
from explorer.engine.timetables.trigger import CronTriggerTimetable
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction

__all__ = ["Pair", "Side", "compare", "differences", "next_infos", "side_of", "variants_of"]


@dataclass(frozen=True, slots=True)
class Side:
    """One schedule to compare: a DAG's own timetable, or a variant of it."""

    label: str
    timetable: Timetable
    restriction: TimeRestriction
    zone: str


@dataclass(frozen=True, slots=True)
class Pair:
    a: DagRunInfo | None
    b: DagRunInfo | None
    differences: tuple[str, ...]

    @property
    def run_after(self) -> datetime:
        info = self.a or self.b
        assert info is not None
        return info.run_after


def side_of(spec: DagSpec, *, label: str | None = None) -> Side:
    return Side(
        label or spec.dag_id,
        spec.timetable,
        TimeRestriction(spec.start_date, spec.end_date, True),
        spec.timezone,
    )


def variants_of(spec: DagSpec) -> list[Side]:
    """The same cron read by the other cron timetable (trigger ↔ data interval)."""
    table = spec.timetable
    restriction = TimeRestriction(spec.start_date, spec.end_date, True)
    expression = getattr(table, "expression", None)
    zone = getattr(table, "timezone_name", spec.timezone)
    if expression is None or table.partitioned:
        return []
    out: list[Side] = []
    if not isinstance(table, CronTriggerTimetable) or type(table) is not CronTriggerTimetable:
        out.append(
            Side(
                f"{spec.dag_id} as CronTriggerTimetable({expression})",
                CronTriggerTimetable(expression, timezone=zone),
                restriction,
                zone,
            )
        )
    if not isinstance(table, CronDataIntervalTimetable):
        out.append(
            Side(
                f"{spec.dag_id} as CronDataIntervalTimetable({expression})",
                CronDataIntervalTimetable(expression, zone),
                restriction,
                zone,
            )
        )
    return out


def next_infos(side: Side, start: datetime, count: int) -> list[DagRunInfo]:
    """The first ``count`` runs with ``run_after >= start`` (the schedule from ``start`` on)."""
    earliest = side.restriction.earliest
    restriction = TimeRestriction(
        start if earliest is None else max(earliest, start - timedelta(days=400)),
        side.restriction.latest,
        True,
    )
    out: list[DagRunInfo] = []
    last: ReferenceRun | None = None
    try:
        for _ in range(count * 50 + 500):
            info = side.timetable.next_dagrun_info(last=last, restriction=restriction, now=start)
            if info is None:
                break
            last = ReferenceRun.of(info)
            if info.run_after >= start:
                out.append(info)
                if len(out) >= count:
                    break
    except EngineError:
        pass
    return out


def _length(info: DagRunInfo) -> timedelta | None:
    interval = info.data_interval
    return None if interval is None else interval.end - interval.start


def _shift(delta: timedelta) -> str:
    later = delta > timedelta(0)
    return f"{fmt_span(abs(delta))} {'later' if later else 'earlier'}"


def differences(a: DagRunInfo, b: DagRunInfo) -> tuple[str, ...]:
    """What differs between two paired runs, in words (``B`` relative to ``A``)."""
    out = []
    if a.run_after != b.run_after:
        out.append(f"run_after: B {_shift(b.run_after - a.run_after)}")
    if a.logical_date != b.logical_date:
        if a.logical_date is None or b.logical_date is None:
            out.append("logical_date null on one side")
        else:
            out.append(f"logical_date: B {_shift(b.logical_date - a.logical_date)}")
    la, lb = _length(a), _length(b)
    if la != lb:
        out.append(
            "interval "
            + (fmt_span(la) if la is not None else "none")
            + " vs "
            + (fmt_span(lb) if lb is not None else "none")
        )
    return tuple(out)


def _facts(index: int, info: DagRunInfo) -> RunFacts:
    interval = info.data_interval
    return RunFacts(
        "",
        str(index),
        "scheduled",
        info.logical_date,
        interval.start if interval else None,
        interval.end if interval else None,
        info.run_after,
        info.partition_key,
    )


def compare(a: Side, b: Side, start: datetime, count: int) -> list[Pair]:
    """Pair the next ``count`` runs of each side by the ADR 0009 rule, in ``run_after`` order."""
    runs_a = next_infos(a, start, count)
    runs_b = next_infos(b, start, count)
    facts_a = [_facts(i, info) for i, info in enumerate(runs_a)]
    facts_b = [_facts(i, info) for i, info in enumerate(runs_b)]
    paired, only_a, only_b = pair_runs(facts_a, facts_b)
    pairs: list[Pair] = []
    for fa, fb in paired:
        x, y = runs_a[int(fa.run_id)], runs_b[int(fb.run_id)]
        pairs.append(Pair(x, y, differences(x, y)))
    pairs += [Pair(runs_a[int(f.run_id)], None, ("only in A",)) for f in only_a]
    pairs += [Pair(None, runs_b[int(f.run_id)], ("only in B",)) for f in only_b]
    pairs.sort(key=lambda p: (p.run_after, p.a is None))
    return pairs
