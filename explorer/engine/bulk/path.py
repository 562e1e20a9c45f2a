"""The bulk path (adr/0012): claim the free-running DAGs, let the loop do the rest.

:func:`advance` is ``Simulation.advance_to`` for a fresh simulation that will not
be stepped further (the CLI, analysis): after the initial deploy it computes the
claimable DAGs' runs (``series``), keeps those whose runs leave the per-loop caps
room (``caps.select``), parks them (the loop never finds them due) and runs the
loop for everything else while the feed slips the claimed runs into the run log at
their places. At the horizon the claimed DAGs get the next-run cache the loop
would have left, and ``caps.holds`` checks the whole simulation: if any cap could
have bound, the caller starts again with the loop alone. Either way the record is
the loop's.
"""

from __future__ import annotations

import heapq
from collections import Counter
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from explorer.engine import loop
from explorer.engine.bulk import caps
from explorer.engine.bulk.eligible import free_running
from explorer.engine.bulk.feed import BulkFeed, CapBound
from explorer.engine.bulk.series import DagSeries, series
from explorer.engine.dagstate import DagState

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["advance", "claim"]


def claim(sim: Host, until: datetime) -> list[DagSeries]:
    """The DAGs the bulk path takes over until ``until`` (before the first instant)."""
    free = free_running(sim)
    if not free or _crowded(sim, free, until):
        return []
    found = [s for dag in free if (s := series(sim, dag, until)) is not None]
    return caps.select(sim, found, until) if found else []


def _crowded(sim: Host, free: list[DagState], until: datetime) -> bool:
    """Do more claimable DAGs than step 2's cap get a run at one loop of the first day?
    Then SCH-2 binds among them alone (1,000 DAGs at midnight) and the attempt would
    only cost time before the loop has to do it all: leave it to the loop at once."""
    probe = min(until, sim.start + _PROBE)
    cap = sim.config.max_dagruns_to_create_per_loop
    created: Counter[datetime] = Counter()
    for dag in free:  # DAG by DAG, so that a crowded start is seen after a dozen
        found = series(sim, dag, probe)
        if found is None:
            continue
        created.update(r.created for r in found.runs)
        if any(created[r.created] > cap for r in found.runs):
            return True
    return False


#: How far :func:`_crowded` looks.
_PROBE = timedelta(days=1)


def advance(sim: Host, until: datetime) -> bool | None:
    """Simulate to ``until`` from the start with the bulk path. True: done, exactly as
    the loop would; False: a cap may have bound (the state is spoiled: restore it and
    use the loop); None: nothing to claim (nothing was done)."""
    claimed = claim(sim, until)
    if not claimed:
        return None
    runs = sorted((r for s in claimed for r in s.runs), key=lambda r: r.sort_key)
    st = sim.state
    config = sim.config
    feed = BulkFeed(
        until,
        runs,
        frozenset(s.dag.dag_id for s in claimed),
        create_cap=config.max_dagruns_to_create_per_loop,
        schedule_cap=config.max_dagruns_per_loop_to_schedule,
        per_loop=dict(Counter(r.created for r in runs)),
    )
    st.bulk = feed  # parked from the start: the loop never finds them due
    _timers(sim, claimed, until)
    try:
        while True:
            t = loop.next_event_time(sim)
            if t is None or t > until:
                break
            loop.process_instant(sim, t)
    except CapBound:
        return False
    loop.set_clock(sim, until)
    feed.through(sim, until)
    for s in claimed:
        dag, scratch = s.dag, s.scratch
        dag.next_run, dag.next_run_memo = scratch.next_run, scratch.next_run_memo
        dag.next_run_error, dag.parsed_at = scratch.next_run_error, scratch.parsed_at
    st.bulk = None
    ok = caps.holds(sim, feed)
    for s in claimed:
        sim.reschedule(s.dag)
    return ok


def _timers(sim: Host, claimed: list[DagSeries], until: datetime) -> None:
    """The timers of claimed tasks that write assets go into the loop's timer heap, so
    that their events come at their instants in the loop's order (``feed.emit``). Their
    tie-break sequence is 0: (instant, DAG order, nth, task) never ties."""
    st = sim.state
    for s in claimed:
        emitting = [
            i
            for i, t in enumerate(s.dag.spec.tasks)
            if (t.outlets or t.alias_events) and t.outcome != "failed"
        ]
        if not emitting:
            continue
        for nth, run in enumerate(s.runs):
            for i in emitting:
                if run.task_ends[i] <= until:
                    st.completions.append((run.task_ends[i], run.order, nth, i, 0))
    heapq.heapify(st.completions)
