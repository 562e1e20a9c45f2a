"""What changes for users between two simulations: the one behavioural diff model (ADR 0009).

``explorer diff``, the app's compare view and the marks a deploy leaves on the
timeline all ask the same question -- "which runs moved, appeared or vanished?" --
and must answer it the same way, or a reviewer sees one answer on the command
line and another on screen. This module is that one answer. It knows nothing of
files or Qt: it takes runs (anything with Airflow's run fields), alerts, and
optionally a verdict per expectation, and returns plain frozen values.

The pairing rule, per DAG (ADR 0009):

1. runs that have a ``logical_date`` are paired with the run of the other side that
   has the *same* ``logical_date``;
2. of the rest, runs that have a ``partition_key`` are paired by equal
   ``partition_key``;
3. the rest (asset-triggered runs without either) are paired in ``run_after`` order;
4. (a reviewer's diff of two scenarios, ``moved``) runs with a logical date still alone
   on both sides are paired in logical-date order
   when the two are less than one period of the schedule apart (the smallest gap
   between consecutive logical dates of that DAG): a cron whose hour changed moves
   each run by two hours, it does not remove five runs and add five others.

Within one key, runs pair in ``run_after`` order (manual runs may share a logical
date with nothing else, but nothing forbids two). A pair whose ``run_after`` or data
interval differs is *shifted*; an unpaired run is *added* (only after) or *removed*
(only before). Pairs that agree on both are *same* and are not listed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any, Literal, Protocol

from explorer.engine.types import DataInterval
from explorer.engine.tz import iso

__all__ = [
    "AlertChange",
    "AlertLike",
    "BehaviourDiff",
    "ConsumerChange",
    "ExpectationFlip",
    "RunChange",
    "RunFacts",
    "RunLike",
    "diff_alerts",
    "diff_behaviour",
    "diff_runs",
    "pair_runs",
]

ChangeKind = Literal["added", "removed", "shifted"]


class RunLike(Protocol):
    """The fields the diff reads; :class:`explorer.engine.runs.DagRun` has them all."""

    @property
    def dag_id(self) -> str: ...
    @property
    def run_id(self) -> str: ...
    @property
    def run_type(self) -> str: ...
    @property
    def logical_date(self) -> datetime | None: ...
    @property
    def data_interval(self) -> DataInterval | None: ...
    @property
    def run_after(self) -> datetime: ...
    @property
    def partition_key(self) -> str | None: ...


class AlertLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def at(self) -> datetime: ...
    @property
    def message(self) -> str: ...


def _iso(value: datetime | None) -> str | None:
    return iso(value)


@dataclass(frozen=True, slots=True)
class RunFacts:
    """A run reduced to what the diff compares and prints (a copy: packed runs are views)."""

    dag_id: str
    run_id: str
    run_type: str
    logical_date: datetime | None
    data_interval_start: datetime | None
    data_interval_end: datetime | None
    run_after: datetime
    partition_key: str | None

    @property
    def data_interval(self) -> DataInterval | None:
        if self.data_interval_start is None or self.data_interval_end is None:
            return None
        return DataInterval(self.data_interval_start, self.data_interval_end)

    @classmethod
    def of(cls, run: RunLike) -> RunFacts:
        if isinstance(run, RunFacts):
            return run
        interval = run.data_interval
        return cls(
            run.dag_id,
            run.run_id,
            run.run_type,
            run.logical_date,
            interval.start if interval else None,
            interval.end if interval else None,
            run.run_after,
            run.partition_key,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "run_type": self.run_type,
            "logical_date": _iso(self.logical_date),
            "data_interval_start": _iso(self.data_interval_start),
            "data_interval_end": _iso(self.data_interval_end),
            "run_after": _iso(self.run_after),
            "partition_key": self.partition_key,
        }


@dataclass(frozen=True, slots=True)
class RunChange:
    """One listed difference: ``before`` is None when added, ``after`` None when removed."""

    dag_id: str
    kind: ChangeKind
    before: RunFacts | None
    after: RunFacts | None
    #: What moved in a shifted pair: ``run_after`` and/or ``data_interval``.
    fields: tuple[str, ...] = ()

    @property
    def run_after(self) -> datetime:
        """Where the change sits on a time axis (the after side when there is one)."""
        facts = self.after or self.before
        assert facts is not None
        return facts.run_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "dag_id": self.dag_id,
            "change": self.kind,
            "fields": list(self.fields),
            "before": self.before.to_dict() if self.before else None,
            "after": self.after.to_dict() if self.after else None,
        }


@dataclass(frozen=True, slots=True)
class ConsumerChange:
    """An asset-triggered DAG whose firing changes: how many runs before and after."""

    dag_id: str
    runs_before: int
    runs_after: int
    changes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "dag_id": self.dag_id,
            "runs_before": self.runs_before,
            "runs_after": self.runs_after,
            "changes": self.changes,
        }


@dataclass(frozen=True, slots=True)
class AlertChange:
    kind: Literal["appears", "disappears"]
    alert_kind: str
    subject: str
    at: datetime
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": self.kind,
            "kind": self.alert_kind,
            "subject": self.subject,
            "at": _iso(self.at),
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class ExpectationFlip:
    """An expectation that holds on one side and fails on the other."""

    name: str
    before: bool
    after: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "before": self.before, "after": self.after}


@dataclass(frozen=True, slots=True)
class BehaviourDiff:
    runs: tuple[RunChange, ...] = ()
    consumers: tuple[ConsumerChange, ...] = ()
    alerts: tuple[AlertChange, ...] = ()
    expectations: tuple[ExpectationFlip, ...] = ()
    #: DAG ids present on one side only (their runs are all added or removed).
    dags_added: tuple[str, ...] = field(default=())
    dags_removed: tuple[str, ...] = field(default=())

    @property
    def same(self) -> bool:
        return not (self.runs or self.alerts or self.expectations or self.consumers)

    def counts(self) -> dict[str, int]:
        out = {"added": 0, "removed": 0, "shifted": 0}
        for change in self.runs:
            out[change.kind] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "same": self.same,
            "counts": self.counts(),
            "runs": [c.to_dict() for c in self.runs],
            "consumers": [c.to_dict() for c in self.consumers],
            "alerts": [a.to_dict() for a in self.alerts],
            "expectations": [e.to_dict() for e in self.expectations],
            "dags_added": list(self.dags_added),
            "dags_removed": list(self.dags_removed),
        }


# ----------------------------------------------------------------------------- pairing
def _pair_by(
    before: list[RunFacts],
    after: list[RunFacts],
    key: Callable[[RunFacts], Hashable],
) -> tuple[list[tuple[RunFacts, RunFacts]], list[RunFacts], list[RunFacts]]:
    """Pair equal keys in ``run_after`` order; return pairs and the leftovers of each side."""
    groups_b: dict[Hashable, list[RunFacts]] = defaultdict(list)
    for run in before:
        groups_b[key(run)].append(run)
    groups_a: dict[Hashable, list[RunFacts]] = defaultdict(list)
    for run in after:
        groups_a[key(run)].append(run)
    pairs: list[tuple[RunFacts, RunFacts]] = []
    left_b: list[RunFacts] = []
    for k, runs_b in groups_b.items():
        runs_a = groups_a.pop(k, [])
        pairs.extend(zip(runs_b, runs_a, strict=False))
        left_b.extend(runs_b[len(runs_a) :])
        groups_a_rest = runs_a[len(runs_b) :]
        if groups_a_rest:
            groups_a[k] = groups_a_rest
    left_a = [run for runs in groups_a.values() for run in runs]
    return pairs, left_b, left_a


def pair_runs(
    before: Sequence[RunFacts], after: Sequence[RunFacts], *, moved: bool = False
) -> tuple[list[tuple[RunFacts, RunFacts]], list[RunFacts], list[RunFacts]]:
    """The ADR 0009 pairing of one DAG's runs: (pairs, only before, only after).
    ``moved``: pass 4 too, for a reviewer's diff of two scenarios (a deploy's marks keep
    the runs a change removes and adds apart: they are different runs in Airflow)."""
    b = sorted(before, key=lambda r: r.run_after)
    a = sorted(after, key=lambda r: r.run_after)
    # 1. logical_date, where both runs have one.
    pairs, rest_b, rest_a = _pair_by(
        [r for r in b if r.logical_date is not None],
        [r for r in a if r.logical_date is not None],
        lambda r: r.logical_date,
    )
    rest_b += [r for r in b if r.logical_date is None]
    rest_a += [r for r in a if r.logical_date is None]
    # 2. partition_key, among the runs still alone.
    by_key, left_b, left_a = _pair_by(
        [r for r in rest_b if r.partition_key is not None],
        [r for r in rest_a if r.partition_key is not None],
        lambda r: r.partition_key,
    )
    for b_run, a_run in by_key:
        if b_run.logical_date is not None and a_run.logical_date is not None:
            # Both have a logical date and they differ: the logical date decides (rule 1).
            left_b.append(b_run)
            left_a.append(a_run)
        else:
            pairs.append((b_run, a_run))
    left_b += [r for r in rest_b if r.partition_key is None]
    left_a += [r for r in rest_a if r.partition_key is None]
    # 3. the rest in run_after order -- but a run with a logical date or a partition key
    # that found no equal has a real partner nowhere: it stays added/removed.
    plain_b = sorted(
        (r for r in left_b if r.logical_date is None and r.partition_key is None),
        key=lambda r: r.run_after,
    )
    plain_a = sorted(
        (r for r in left_a if r.logical_date is None and r.partition_key is None),
        key=lambda r: r.run_after,
    )
    pairs += list(zip(plain_b, plain_a, strict=False))
    only_b = [r for r in left_b if r.logical_date is not None or r.partition_key is not None]
    only_a = [r for r in left_a if r.logical_date is not None or r.partition_key is not None]
    # 4. runs moved within one period of the schedule (a changed cron hour)
    if moved:
        periods = [p for p in (_period(b), _period(a)) if p is not None]
        shifted, only_b, only_a = _pair_moved(only_b, only_a, min(periods) if periods else None)
        pairs += shifted
    only_b += plain_b[len(plain_a) :]
    only_a += plain_a[len(plain_b) :]
    pairs.sort(key=lambda p: p[1].run_after)
    only_b.sort(key=lambda r: r.run_after)
    only_a.sort(key=lambda r: r.run_after)
    return pairs, only_b, only_a


def _period(runs: Sequence[RunFacts]) -> timedelta | None:
    """The schedule's period as one side's runs show it: the smallest gap between
    consecutive distinct logical dates (None with fewer than two)."""
    dates = sorted({r.logical_date for r in runs if r.logical_date is not None})
    gaps = [later - earlier for earlier, later in pairwise(dates)]
    return min(gaps) if gaps else None


def _pair_moved(
    only_b: list[RunFacts], only_a: list[RunFacts], period: timedelta | None
) -> tuple[list[tuple[RunFacts, RunFacts]], list[RunFacts], list[RunFacts]]:
    """Rule 4: the lone runs with logical dates paired in order when less than ``period``
    apart; the rest stay removed and added."""
    dated_b = sorted((r for r in only_b if r.logical_date is not None), key=_logical)
    dated_a = sorted((r for r in only_a if r.logical_date is not None), key=_logical)
    if period is None or not dated_b or not dated_a:
        return [], only_b, only_a
    pairs: list[tuple[RunFacts, RunFacts]] = []
    i = j = 0
    while i < len(dated_b) and j < len(dated_a):
        gap = _logical(dated_a[j]) - _logical(dated_b[i])
        if abs(gap) < period:
            pairs.append((dated_b[i], dated_a[j]))
            i += 1
            j += 1
        elif gap > timedelta(0):
            i += 1
        else:
            j += 1
    paired_b = {id(b) for b, _ in pairs}
    paired_a = {id(a) for _, a in pairs}
    return (
        pairs,
        [r for r in only_b if id(r) not in paired_b],
        [r for r in only_a if id(r) not in paired_a],
    )


def _logical(run: RunFacts) -> datetime:
    assert run.logical_date is not None
    return run.logical_date


def _moved(b: RunFacts, a: RunFacts) -> tuple[str, ...]:
    out = []
    if b.logical_date != a.logical_date:
        out.append("logical_date")
    if b.run_after != a.run_after:
        out.append("run_after")
    if (b.data_interval_start, b.data_interval_end) != (a.data_interval_start, a.data_interval_end):
        out.append("data_interval")
    return tuple(out)


def _position(change: RunChange) -> tuple[datetime, str]:
    """Listed in time order of the earlier side: a run moved later stays where it was."""
    sides = [f.run_after for f in (change.before, change.after) if f is not None]
    return min(sides), change.kind


def diff_runs(
    before: Iterable[RunLike], after: Iterable[RunLike], *, moved: bool = False
) -> list[RunChange]:
    """Every added, removed and shifted run, by DAG id then ``run_after`` (``moved``: as
    :func:`pair_runs`)."""
    by_dag_b: dict[str, list[RunFacts]] = defaultdict(list)
    by_dag_a: dict[str, list[RunFacts]] = defaultdict(list)
    for run in before:
        by_dag_b[run.dag_id].append(RunFacts.of(run))
    for run in after:
        by_dag_a[run.dag_id].append(RunFacts.of(run))
    out: list[RunChange] = []
    for dag_id in sorted(set(by_dag_b) | set(by_dag_a)):
        pairs, only_b, only_a = pair_runs(
            by_dag_b.get(dag_id, []), by_dag_a.get(dag_id, []), moved=moved
        )
        changes = [RunChange(dag_id, "removed", r, None) for r in only_b]
        changes += [RunChange(dag_id, "added", None, r) for r in only_a]
        for b, a in pairs:
            fields = _moved(b, a)
            if fields:
                changes.append(RunChange(dag_id, "shifted", b, a, fields))
        changes.sort(key=_position)
        out.extend(changes)
    return out


def diff_alerts(before: Iterable[AlertLike], after: Iterable[AlertLike]) -> list[AlertChange]:
    """Alerts keyed by (kind, subject), paired in time order; the unpaired appear/disappear.

    An alert that only moved in time (a silence starting an hour later) is the same
    alert: the user already knows of it.
    """
    groups: dict[tuple[str, str], tuple[list[AlertLike], list[AlertLike]]] = defaultdict(
        lambda: ([], [])
    )
    for alert in before:
        groups[(alert.kind, alert.subject)][0].append(alert)
    for alert in after:
        groups[(alert.kind, alert.subject)][1].append(alert)
    out: list[AlertChange] = []
    for (kind, subject), (b, a) in groups.items():
        b.sort(key=lambda x: x.at)
        a.sort(key=lambda x: x.at)
        out += [AlertChange("disappears", kind, subject, x.at, x.message) for x in b[len(a) :]]
        out += [AlertChange("appears", kind, subject, x.at, x.message) for x in a[len(b) :]]
    out.sort(key=lambda c: (c.at, c.alert_kind, c.subject))
    return out


def diff_behaviour(
    before: Iterable[RunLike],
    after: Iterable[RunLike],
    *,
    alerts_before: Iterable[AlertLike] = (),
    alerts_after: Iterable[AlertLike] = (),
    expectations_before: Mapping[str, bool] | None = None,
    expectations_after: Mapping[str, bool] | None = None,
    dags_before: Iterable[str] = (),
    dags_after: Iterable[str] = (),
    moved: bool = True,
) -> BehaviourDiff:
    """The whole diff. Consumers are the DAGs with an ``asset_triggered`` run on either side.
    Runs moved within a period pair as shifted (pass 4) unless ``moved`` is False."""
    runs_b = [RunFacts.of(r) for r in before]
    runs_a = [RunFacts.of(r) for r in after]
    changes = diff_runs(runs_b, runs_a, moved=moved)
    consumers_ids = {r.dag_id for r in (*runs_b, *runs_a) if r.run_type == "asset_triggered"}
    per_dag: dict[str, int] = defaultdict(int)
    for change in changes:
        per_dag[change.dag_id] += 1
    count_b: dict[str, int] = defaultdict(int)
    count_a: dict[str, int] = defaultdict(int)
    for r in runs_b:
        count_b[r.dag_id] += 1
    for r in runs_a:
        count_a[r.dag_id] += 1
    consumers = tuple(
        ConsumerChange(d, count_b[d], count_a[d], per_dag[d])
        for d in sorted(consumers_ids)
        if per_dag[d]
    )
    flips: list[ExpectationFlip] = []
    eb, ea = expectations_before or {}, expectations_after or {}
    for name in [*eb, *(n for n in ea if n not in eb)]:
        if name in eb and name in ea and eb[name] != ea[name]:
            flips.append(ExpectationFlip(name, eb[name], ea[name]))
    set_b, set_a = set(dags_before), set(dags_after)
    return BehaviourDiff(
        runs=tuple(changes),
        consumers=consumers,
        alerts=tuple(diff_alerts(alerts_before, alerts_after)),
        expectations=tuple(flips),
        dags_added=tuple(sorted(set_a - set_b)),
        dags_removed=tuple(sorted(set_b - set_a)),
    )
