"""Reading the behavioural diff of a deployment change as marks (ADR 0009 addendum).

:class:`DagMarker` takes one DAG's listed run changes (ADR 0009's added, removed,
shifted) between the scenario without its change actions and as written, and says
what each is for a person: time skipped or covered twice (DEP-2), a logical date
shifted (DEP-7), a run moved (DEP-1), a run created at the change (DEP-1, DEP-3,
DEP-5, DEP-6), a run added or no longer made.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from explorer.engine.change_model import (
    ChangeMark,
    DeployChange,
    Formatter,
    MarkKind,
    change_before,
)
from explorer.engine.diff import RunChange, RunFacts
from explorer.engine.run_card import span_text

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation

__all__ = ["DagMarker", "RunSide", "run_side"]

#: dag_id -> [[stale from, back at (None: never)], ...] (DEP-6).
StaleSpans = dict[str, list[list[datetime | None]]]


@dataclass(frozen=True, slots=True)
class RunSide:
    """One simulation's runs, as diff facts with their created_at."""

    facts: dict[str, list[RunFacts]]
    created: dict[tuple[str, str], datetime]
    by_after: dict[tuple[str, datetime], list[RunFacts]]


def run_side(sim: Simulation) -> RunSide:
    facts: dict[str, list[RunFacts]] = defaultdict(list)
    created: dict[tuple[str, str], datetime] = {}
    by_after: dict[tuple[str, datetime], list[RunFacts]] = defaultdict(list)
    for run in sim.runs:
        f = RunFacts.of(run)
        facts[f.dag_id].append(f)
        created[(f.dag_id, f.run_id)] = run.created_at
        by_after[(f.dag_id, f.run_after)].append(f)
    return RunSide(dict(facts), created, dict(by_after))


def _interval(f: RunFacts) -> tuple[datetime, datetime] | None:
    if f.data_interval_start is None or f.data_interval_end is None:
        return None
    if f.data_interval_end <= f.data_interval_start:
        return None
    return f.data_interval_start, f.data_interval_end


def _subtract(
    span: tuple[datetime, datetime], covers: Sequence[tuple[datetime, datetime]]
) -> list[tuple[datetime, datetime]]:
    """The parts of ``span`` no interval of ``covers`` covers."""
    parts = [span]
    for c0, c1 in covers:
        nxt = []
        for p0, p1 in parts:
            if c1 <= p0 or c0 >= p1:
                nxt.append((p0, p1))
                continue
            if p0 < c0:
                nxt.append((p0, c0))
            if c1 < p1:
                nxt.append((c1, p1))
        parts = nxt
    return parts


def _merge(
    spans: list[tuple[datetime, datetime, DeployChange]],
) -> list[tuple[datetime, datetime, DeployChange]]:
    """Touching spans as one (the change of the earliest)."""
    out: list[tuple[datetime, datetime, DeployChange]] = []
    for s0, s1, change in sorted(spans, key=lambda s: (s[0], s[1])):
        if out and s0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], s1), out[-1][2])
        else:
            out.append((s0, s1, change))
    return out


def _date_text(f: RunFacts, fmt: Formatter) -> str:
    if f.logical_date is not None:
        return f"logical_date {fmt(f.logical_date)}"
    if f.partition_key is not None:
        return f"partition_key {f.partition_key}"
    return f"the {f.run_type} run (run_after {fmt(f.run_after)})"


def _delta_words(delta: timedelta) -> str:
    if delta == timedelta(0):
        return "at the same time"
    word = "later" if delta > timedelta(0) else "earlier"
    return f"{span_text(abs(delta))} {word}"


@dataclass(slots=True)
class DagMarker:
    """The marks of one DAG: its listed run changes read as what the change did."""

    dag_id: str
    changes: list[DeployChange]
    b: RunSide
    a: RunSide
    stale: StaleSpans
    catchup_changed: bool

    def change_at(self, at: datetime) -> DeployChange:
        found = change_before(self.changes, self.dag_id, at)
        if found is None:
            found = next(c for c in self.changes if c.touches(self.dag_id))
        return found

    def rule(self, change: DeployChange, kind: MarkKind, facts: RunFacts | None) -> str:
        """The DEP rule that explains ``kind`` after ``change``."""
        if self.dag_id in change.removed or self._was_stale(change.at):
            return "DEP-6"
        if facts is not None and facts.run_type == "asset_triggered":
            return "DEP-5"
        if self.dag_id not in change.deployed and change.options:
            return "DEP-7"
        if facts is not None and facts.partition_key is not None and kind == "run_twice":
            return "DEP-8"
        if kind == "catchup":
            return "DEP-3" if self.catchup_changed else "DEP-1"
        if facts is not None and _interval(facts) is not None:
            return "DEP-2"
        if kind == "skipped":
            return "DEP-2"
        return "DEP-1"

    def _was_stale(self, at: datetime) -> bool:
        return any(
            start is not None and start <= at and (end is None or end >= at)
            for start, end in self.stale.get(self.dag_id, [])
        )

    def created(self, side: RunSide, f: RunFacts) -> datetime:
        return side.created[(self.dag_id, f.run_id)]

    def marks(self, changed: list[RunChange], runs_a: list[RunFacts]) -> list[ChangeMark]:
        out: list[ChangeMark] = []
        added = [c.after for c in changed if c.kind == "added" and c.after is not None]
        removed = [c.before for c in changed if c.kind == "removed" and c.before is not None]
        shifted = [c for c in changed if c.kind == "shifted"]
        covers_a = [iv for f in self.a.facts.get(self.dag_id, []) if (iv := _interval(f))]
        done_added: set[str] = set()
        done_removed: set[str] = set()
        # 1. runs created at the change although due before it (catchup, a returned file)
        for f in runs_a:
            change = self.change_at(self.created(self.a, f))
            if not (f.run_after < change.at <= self.created(self.a, f)):
                continue
            twin = self._partner(f)
            if twin is not None and self.created(self.b, twin) >= change.at:
                continue  # made after the instant without the change too: not its doing
            out.append(self._catchup(f, change, twin))
            done_added.add(f.run_id)
        # 2. the run at the same run_after now has another logical date (2 -> 3)
        for f in [*added, *(c.after for c in shifted if c.after is not None)]:
            if f.run_id in done_added:
                continue
            olds = [
                g
                for g in self.b.by_after.get((self.dag_id, f.run_after), [])
                if g.logical_date != f.logical_date and g.run_type == f.run_type
            ]
            if olds and f.logical_date is not None and olds[0].logical_date is not None:
                out.append(self._logical_shift(f, olds[0]))
                done_added.add(f.run_id)
        # 3. intervals covered twice, keys run twice
        for f in added:
            if f.run_id in done_added:
                continue
            mark = self._twice(f)
            if mark is not None:
                out.append(mark)
                done_added.add(f.run_id)
        # 4. time no run covers any more, logical dates that never exist
        skipped: list[tuple[datetime, datetime, DeployChange]] = []
        max_logical = max(
            (f.logical_date for f in self.a.facts.get(self.dag_id, []) if f.logical_date),
            default=None,
        )
        ends = [iv[1] for iv in covers_a]
        ends += [f.logical_date for f in self.a.facts.get(self.dag_id, []) if f.logical_date]
        frontier = max(ends, default=None)
        for f in removed:
            span = _interval(f)
            if span is not None:
                # past the after side's last interval end (or logical date) runs have not
                # come yet by the horizon: only the time before it can be skipped
                gaps = [
                    (g0, min(g1, frontier))
                    for g0, g1 in _subtract(span, covers_a)
                    if frontier is not None and g0 < frontier
                ]
                change = self.change_at(self.created(self.b, f))
                skipped.extend((g0, g1, change) for g0, g1 in gaps)
                # uncovered: a skip; covered by other runs: a reshuffle, said by their marks
                done_removed.add(f.run_id)
            elif (
                f.logical_date is not None
                and max_logical is not None
                and f.logical_date < max_logical
                and not self._stale_at(f.run_after)
                and not any(g.run_after == f.run_after for g in added)
                and not self._moved_pair_possible(added, removed)
            ):
                out.append(self._skipped_date(f))
                done_removed.add(f.run_id)
        for s0, s1, change in _merge(skipped):
            out.append(self._skipped_span(s0, s1, change))
        # 5. the same logical date at another time (ADR 0009 "shifted")
        for c in shifted:
            if c.after is None or c.before is None or c.after.run_id in done_added:
                continue
            out.append(self._moved(c.before, c.after))
            done_added.add(c.after.run_id)
        # 6. what is left: moved to a new time of day when the counts agree, else new/gone
        rest_a = [f for f in added if f.run_id not in done_added]
        rest_b = [f for f in removed if f.run_id not in done_removed]
        if rest_a and len(rest_a) == len(rest_b):
            for old, new in zip(
                sorted(rest_b, key=lambda r: r.run_after),
                sorted(rest_a, key=lambda r: r.run_after),
                strict=True,
            ):
                out.append(self._new_time(old, new))
        else:
            out.extend(self._added(f) for f in rest_a)
            out.extend(self._removed(f) for f in rest_b)
        return out

    def _moved_pair_possible(self, added: list[RunFacts], removed: list[RunFacts]) -> bool:
        """A time-of-day edit: as many new runs as old (step 6 reads them as moved)."""
        return bool(added) and len(added) == len(removed)

    def _stale_at(self, at: datetime) -> bool:
        return self._was_stale(at)

    def _partner(self, f: RunFacts) -> RunFacts | None:
        for g in self.b.facts.get(self.dag_id, []):
            if f.logical_date is not None and g.logical_date == f.logical_date:
                return g
            if f.logical_date is None and g.run_after == f.run_after and g.run_type == f.run_type:
                return g
        return None

    # ------------------------------------------------------------------ one mark each
    def _mark(
        self,
        kind: MarkKind,
        start: datetime,
        end: datetime,
        change: DeployChange,
        label: str,
        explain: Callable[[Formatter], str],
        *,
        known_at: datetime,
        after: RunFacts | None = None,
        before: RunFacts | None = None,
    ) -> ChangeMark:
        return ChangeMark(
            kind,
            self.dag_id,
            start,
            end,
            change,
            self.rule(change, kind, after or before),
            label,
            explain,
            known_at=known_at,
            run_id=after.run_id if after else None,
            before_run_id=before.run_id if before else None,
            toward=after.run_after if after else None,
        )

    def _catchup(self, f: RunFacts, change: DeployChange, twin: RunFacts | None) -> ChangeMark:
        created = self.created(self.a, f)
        stale = self._was_stale(change.at - timedelta(microseconds=1))
        asset = f.run_type == "asset_triggered"

        def why(fmt: Formatter) -> str:
            what = _date_text(f, fmt)
            head = (
                f"{what} (run_after {fmt(f.run_after)}) was already due at "
                f"{fmt(change.at)} ({change.label}); it is created at {fmt(created)}"
            )
            if asset:
                return (
                    f"{head}: the queue rows kept at the deploy satisfy the new condition at "
                    "the next scheduler loop, and run_after is the time of the oldest row"
                )
            if stale:
                return (
                    f"{head}: while the file was gone the DAG was stale and got no run; "
                    "deployed again, its next-run cache is recomputed and the due run is made"
                )
            if twin is None:
                return (
                    f"{head}: the next-run cache is recomputed at the parse from the latest "
                    "scheduled run, with the new catchup, so every due run is made one per "
                    "loop; without the change this run never exists"
                )
            return f"{head}; without the change it was created at {fmt(self.created(self.b, twin))}"

        return self._mark(
            "catchup",
            f.run_after,
            created,
            change,
            "created at change",
            why,
            known_at=created,
            after=f,
            before=twin,
        )

    def _logical_shift(self, f: RunFacts, old: RunFacts) -> ChangeMark:
        change = self.change_at(self.created(self.a, f))
        assert f.logical_date is not None and old.logical_date is not None
        delta = f.logical_date - old.logical_date

        def why(fmt: Formatter) -> str:
            assert f.logical_date is not None and old.logical_date is not None
            iv_new = _interval(f)
            iv_old = _interval(old)
            old_iv = (
                f"data interval {fmt(iv_old[0])} → {fmt(iv_old[1])}" if iv_old else "no interval"
            )
            new_iv = (
                f"data interval {fmt(iv_new[0])} → {fmt(iv_new[1])}"
                if iv_new
                else "an empty data interval (logical_date = run_after)"
            )
            return (
                f"the run at {fmt(f.run_after)} now has logical_date {fmt(f.logical_date)} "
                f"(ds {f.logical_date.strftime('%Y-%m-%d')}) and {new_iv}; without "
                f"{change.label} it had logical_date {fmt(old.logical_date)} "
                f"(ds {old.logical_date.strftime('%Y-%m-%d')}) and {old_iv}"
            )

        return self._mark(
            "shifted",
            min(f.run_after, old.logical_date),
            f.run_after,
            change,
            f"ds {_signed(delta)}",
            why,
            known_at=self.created(self.a, f),
            after=f,
            before=old,
        )

    def _twice(self, f: RunFacts) -> ChangeMark | None:
        created = self.created(self.a, f)
        change = self.change_at(created)
        others = [g for g in self.a.facts.get(self.dag_id, []) if g.run_id != f.run_id]
        span = _interval(f)
        if span is not None:
            overlaps = []
            for g in others:
                iv = _interval(g)
                if iv is None or g.run_after > f.run_after:
                    continue
                lo, hi = max(span[0], iv[0]), min(span[1], iv[1])
                if lo < hi:
                    overlaps.append((lo, hi, g))
            if overlaps:
                lo = min(o[0] for o in overlaps)
                hi = max(o[1] for o in overlaps)
                other = overlaps[0][2]

                def why(fmt: Formatter) -> str:
                    return (
                        f"its data interval {fmt(span[0])} → {fmt(span[1])} overlaps the one "
                        f"of {_date_text(other, fmt)} by {span_text(hi - lo)}: "
                        f"{fmt(lo)} → {fmt(hi)} is processed twice. After {change.label} the "
                        "next interval starts from the latest run's interval end aligned back "
                        "onto the new schedule"
                    )

                return self._mark(
                    "run_twice",
                    lo,
                    hi,
                    change,
                    f"run twice {span_text(hi - lo)}",
                    why,
                    known_at=created,
                    after=f,
                )
        for g in others:
            same_key = f.partition_key is not None and g.partition_key == f.partition_key
            same_date = f.logical_date is not None and g.logical_date == f.logical_date
            if same_key or same_date:

                def why_key(fmt: Formatter, g: RunFacts = g) -> str:
                    return (
                        f"{_date_text(f, fmt)} runs a second time (first at "
                        f"{fmt(g.run_after)}) after {change.label}"
                    )

                return self._mark(
                    "run_twice",
                    f.run_after,
                    f.run_after,
                    change,
                    "run twice",
                    why_key,
                    known_at=created,
                    after=f,
                )
        renamed_from = [d for d in change.removed if d != self.dag_id]
        if change.deployed and renamed_from and f.logical_date is not None:
            for old_id in renamed_from:
                if any(g.logical_date == f.logical_date for g in self.a.facts.get(old_id, [])):

                    def why_rename(fmt: Formatter, old_id: str = old_id) -> str:
                        return (
                            f"{_date_text(f, fmt)} already ran as {old_id}; a rename is a "
                            f"removal plus a new DAG, and {self.dag_id} has no runs, so it runs "
                            "the dates again"
                        )

                    return ChangeMark(
                        "run_twice",
                        self.dag_id,
                        f.run_after,
                        f.run_after,
                        change,
                        "DEP-6",
                        "run again (rename)",
                        why_rename,
                        known_at=created,
                        run_id=f.run_id,
                    )
        return None

    def _skipped_span(self, s0: datetime, s1: datetime, change: DeployChange) -> ChangeMark:
        stale = self._was_stale(s0)
        facts = RunFacts(self.dag_id, "", "scheduled", s0, s0, s1, s1, None)

        def why(fmt: Formatter) -> str:
            if stale:
                return (
                    f"{fmt(s0)} → {fmt(s1)} is never processed: the DAG's file was removed and "
                    "the stale DAG gets no run"
                )
            head = (
                f"{fmt(s0)} → {fmt(s1)} ({span_text(s1 - s0)}) was a data interval without "
                f"{change.label} and no run's interval covers it now"
            )
            if change.options and self.dag_id not in change.deployed:
                return (
                    f"{head}: the option is read at the DAG's next parse, which switches the "
                    "timetable class; the next logical date follows the latest run on the new "
                    f"timetable, so logical_date {fmt(s0)} never exists (DEP-2)"
                )
            return (
                f"{head}: the next data interval continues from the latest run's interval end "
                "aligned back onto the new schedule (one period on when that is not after the "
                "latest run's start)"
            )

        return ChangeMark(
            "skipped",
            self.dag_id,
            s0,
            s1,
            change,
            "DEP-6" if stale else self.rule(change, "skipped", facts),
            f"skipped {span_text(s1 - s0)}",
            why,
            known_at=max(change.at, s0),
        )

    def _skipped_date(self, f: RunFacts) -> ChangeMark:
        assert f.logical_date is not None
        change = self.change_at(self.created(self.b, f))
        day = f.logical_date

        def why(fmt: Formatter) -> str:
            return (
                f"logical_date {fmt(day)} (ds {day.strftime('%Y-%m-%d')}) never exists after "
                f"{change.label}: without it the run at {fmt(f.run_after)} had it; now the "
                "next logical date follows the latest run on the new timetable and jumps "
                "over it"
            )

        return self._mark(
            "skipped",
            day,
            max(f.run_after, day),
            change,
            f"ds {day.strftime('%m-%d')} skipped",
            why,
            known_at=max(change.at, self.created(self.b, f)),
            before=f,
        )

    def _run_after_moved(
        self,
        old: RunFacts,
        new: RunFacts,
        change: DeployChange,
        why: Callable[[Formatter], str],
    ) -> ChangeMark:
        """The "shifted" mark spanning a run's old and new run_after, labelled by how far."""
        return self._mark(
            "shifted",
            min(old.run_after, new.run_after),
            max(old.run_after, new.run_after),
            change,
            _delta_words(new.run_after - old.run_after),
            why,
            known_at=self.created(self.a, new),
            after=new,
            before=old,
        )

    def _moved(self, old: RunFacts, new: RunFacts) -> ChangeMark:
        change = self.change_at(self.created(self.a, new))
        delta = new.run_after - old.run_after

        def why(fmt: Formatter) -> str:
            moved = []
            if old.run_after != new.run_after:
                moved.append(
                    f"it runs at {fmt(new.run_after)} instead of {fmt(old.run_after)} "
                    f"({_delta_words(delta)})"
                )
            iv_o, iv_n = _interval(old), _interval(new)
            if (old.data_interval_start, old.data_interval_end) != (
                new.data_interval_start,
                new.data_interval_end,
            ):
                o = f"{fmt(iv_o[0])} → {fmt(iv_o[1])}" if iv_o else "empty"
                n = f"{fmt(iv_n[0])} → {fmt(iv_n[1])}" if iv_n else "empty"
                moved.append(f"its data interval is {n} (was {o})")
            return f"{_date_text(new, fmt)}: " + "; ".join(moved) + f" after {change.label}"

        return self._run_after_moved(old, new, change, why)

    def _new_time(self, old: RunFacts, new: RunFacts) -> ChangeMark:
        change = self.change_at(self.created(self.a, new))
        delta = new.run_after - old.run_after

        def why(fmt: Formatter) -> str:
            return (
                f"{_date_text(new, fmt)} replaces {_date_text(old, fmt)} of the old schedule "
                f"(run {fmt(new.run_after)} instead of {fmt(old.run_after)}, "
                f"{_delta_words(delta)}): after {change.label} the next run follows the latest "
                "scheduled run on the new timetable; nothing is re-run or back-filled"
            )

        return self._run_after_moved(old, new, change, why)

    def _added(self, f: RunFacts) -> ChangeMark:
        created = self.created(self.a, f)
        change = self.change_at(created)

        def why(fmt: Formatter) -> str:
            return f"{_date_text(f, fmt)} exists only with {change.label}"

        return self._mark(
            "added", f.run_after, f.run_after, change, "new run", why, known_at=created, after=f
        )

    def _removed(self, f: RunFacts) -> ChangeMark:
        created = self.created(self.b, f)
        change = self.change_at(created)
        stale = self._was_stale(f.run_after)

        def why(fmt: Formatter) -> str:
            if stale:
                return (
                    f"{_date_text(f, fmt)} is not created: the file was removed and the stale "
                    "DAG gets no new run"
                )
            return f"{_date_text(f, fmt)} ran without {change.label}; it is not run now"

        return self._mark(
            "removed",
            f.run_after,
            f.run_after,
            change,
            "no longer run",
            why,
            known_at=max(created, change.at),
            before=f,
        )


def _signed(delta: timedelta) -> str:
    sign = "+" if delta >= timedelta(0) else "−"
    return f"{sign}{span_text(abs(delta))}"
