"""One free-running DAG's runs, as the loop would make them if it were alone (adr/0012).

The DAG's next-run cache is driven by the real :func:`dagschedule.compute_next_run`
(on a scratch copy of its state, memo included) at exactly the instants the loop
touches the DAG: a run is created at the first loop-grid instant at or after its
run_after (and after the previous creation: one run per DAG per loop, SCH-2); the
lazy parse (SCH-4b) is applied where the loop would apply it, when the DAG is due
and when one of its runs ends. Created, queued and running fall on that loop
(SCH-5, SCH-10: the logical date is never ahead of it here); each task ends after
its duration; the run ends at the first loop at or after its last task, and
strictly after its start (a timer due at the loop's instant fires after that loop,
trace README 7.3). Anything outside that model (a max_active_runs reached, a
logical date taken or ahead of the loop, a timetable error) makes the DAG
unclaimable: :func:`series` returns None and the loop keeps it.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

from explorer.engine import dagschedule
from explorer.engine.dagstate import DagState
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.task_instances import has_task_instances
from explorer.engine.ticks import GridCadence
from explorer.engine.types import DagRunInfo, ReferenceRun
from explorer.engine.tz import ONE_US

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["BulkRun", "DagSeries", "series"]


@dataclass(frozen=True, slots=True)
class BulkRun:
    """A scheduled run the bulk path makes: created (and started) at ``created``, each
    task ending at ``task_ends``, the run ending at ``ended``."""

    created: datetime
    order: int
    info: DagRunInfo
    task_ends: tuple[datetime, ...]
    ended: datetime

    @property
    def sort_key(self) -> tuple[datetime, bool, datetime, int]:
        """Step 2's creation order at one loop: next_dagrun_create_after, DAG order."""
        return (self.created, True, self.info.run_after, self.order)


@dataclass(slots=True)
class DagSeries:
    """A DAG's bulk runs up to the horizon and its next-run cache there."""

    dag: DagState
    runs: list[BulkRun]
    scratch: DagState


class _Refused(Exception):
    """The model does not hold for this DAG: the loop keeps it."""


class _Quiet:
    """What ``compute_next_run`` may ask of the simulation: a warning means an error
    the loop would report, so the DAG is not claimed."""

    def warn(self, message: str) -> None:
        raise _Refused(message)


def series(sim: Host, dag: DagState, until: datetime) -> DagSeries | None:
    """The runs of ``dag`` created at or before ``until``, or None (not claimable)."""
    try:
        return _series(sim, dag, until)
    except _Refused:
        return None


def _series(sim: Host, dag: DagState, until: datetime) -> DagSeries:
    ticks = sim.ticks
    parses = sim.parses
    assert isinstance(ticks, GridCadence)
    spec = dag.spec
    durations = [t.duration for t in spec.tasks]
    quiet = cast("Host", _Quiet())
    scratch = DagState(spec, dag.order, runs=DagRuns(RunLog()))
    # the initial deploy's parse (scripting.deploy_dag -> dagschedule.parse at the start)
    scratch.deployed, scratch.deployed_at = True, sim.start
    scratch.parsed_at = sim.start
    latest: ReferenceRun | None = None
    dagschedule.compute_next_run(quiet, scratch, latest, sim.start)
    logical_dates: set[datetime] = set()
    runs: list[BulkRun] = []
    ends: list[datetime] = []  # heap of the ends of runs still active
    floor = sim.start  # the first loop at which the DAG can get its next run

    def touch(at: datetime) -> None:
        """``sync_parse`` at ``at`` (the lazy parse, SCH-4b)."""
        p = parses.at_or_before(at)
        if p is None or (scratch.parsed_at is not None and p <= scratch.parsed_at):
            return
        if scratch.deployed_at is not None and p < scratch.deployed_at:
            return
        scratch.parsed_at = p
        dagschedule.compute_next_run(quiet, scratch, latest, p)

    while True:
        info = scratch.next_run
        created = None if info is None else ticks.at_or_after(max(info.run_after, floor))
        # runs ending before that loop touch the DAG first (a parse may move next_run)
        if ends and (created is None or ends[0] < created) and ends[0] <= until:
            touch(heapq.heappop(ends))
            continue
        if info is None or created is None or created > until:
            break
        touch(created)  # collect_due's sync_parse
        if scratch.next_run != info:
            continue  # the parse moved it: due later (or again now)
        logical = info.logical_date
        if logical is None or logical > created or logical in logical_dates:
            raise _Refused("logical date")
        if not has_task_instances(spec, logical, "scheduled"):
            raise _Refused("no task instances")
        active = sum(1 for e in ends if e >= created) + 1
        if active >= spec.max_active_runs:
            raise _Refused("max_active_runs")
        task_ends = tuple(created + d for d in durations)
        last = max(task_ends)
        ended = ticks.at_or_after(last) if last > created else created + ticks.step
        assert ended is not None
        runs.append(BulkRun(created, dag.order, info, task_ends, ended))
        logical_dates.add(logical)
        heapq.heappush(ends, ended)
        latest = ReferenceRun.of(info)
        dagschedule.compute_next_run(quiet, scratch, latest, created)
        floor = created + ONE_US
    return DagSeries(dag, runs, scratch)
