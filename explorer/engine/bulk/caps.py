"""The proof that no per-loop cap couples the claimed DAGs to the rest (adr/0012).

The scheduler's caps are the only way one DAG's runs change another's when neither
reads assets the other writes: at most ``max_dagruns_to_create_per_loop`` DAGs get
a run per loop (SCH-2), at most ``max_dagruns_per_loop_to_schedule`` queued runs
are promoted (SCH-5) and running runs examined (RND-6) per loop. When, at every
loop, the DAGs asking are no more than the cap, every one of them is served and
the order among them (which the caps would otherwise make matter) changes nothing
but the order of creation, which the feed reproduces. So:

- :func:`select` keeps claimable DAGs while the claimed runs alone leave every cap
  room (half of it: the loop's own DAGs need the rest);
- :func:`holds` checks, after the simulation, every loop instant with the claimed
  runs and what the loop's DAGs asked (noted by the feed) together, and every
  grid instant for the running runs of the whole log. If it fails, the caller
  simulates again with the loop alone.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from explorer.engine.bulk.feed import BulkFeed
from explorer.engine.bulk.series import DagSeries
from explorer.engine.ticks import GridCadence
from explorer.engine.tz import ONE_US, epoch_us

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = ["holds", "select"]


def select(sim: Host, candidates: list[DagSeries], until: datetime) -> list[DagSeries]:
    """The candidates whose runs, added in DAG order, use at most half of each cap."""
    ticks = sim.ticks
    assert isinstance(ticks, GridCadence)
    step = ticks.step
    size = (until - ticks.origin) // step + 2
    running = np.zeros(size, dtype=np.int32)
    created: Counter[datetime] = Counter()
    create_room = sim.config.max_dagruns_to_create_per_loop // 2
    run_room = sim.config.max_dagruns_per_loop_to_schedule // 2
    chosen: list[DagSeries] = []
    for candidate in candidates:
        spans = []
        for run in candidate.runs:
            first = (run.created - ticks.origin) // step
            last = min(size - 1, (run.ended - ticks.origin) // step)
            spans.append((first, last + 1))
        if any(created[r.created] + 1 > create_room for r in candidate.runs):
            continue
        if any(running[a:b].max(initial=0) + 1 > run_room for a, b in spans):
            continue
        for a, b in spans:
            running[a:b] += 1
        created.update(r.created for r in candidate.runs)
        chosen.append(candidate)
    return chosen


def holds(sim: Host, feed: BulkFeed) -> bool:
    """Did every loop, counting the claimed runs and the loop's own, stay within the caps?"""
    config = sim.config
    bulk_created = Counter(r.created for r in feed.runs)
    for at in bulk_created.keys() | feed.created.keys():
        if bulk_created[at] + feed.created.get(at, 0) > config.max_dagruns_to_create_per_loop:
            return False
    for at in bulk_created.keys() | feed.queued.keys():
        if bulk_created[at] + feed.queued.get(at, 0) > config.max_dagruns_per_loop_to_schedule:
            return False
    return _max_running(sim, feed.until) <= config.max_dagruns_per_loop_to_schedule


def _max_running(sim: Host, until: datetime) -> int:
    """The most runs running at one grid instant (step 5 of that loop), over the log."""
    ticks = sim.ticks
    assert isinstance(ticks, GridCadence)
    log = sim.state.runs
    starts = list(log.instants("start_date"))
    ends = list(log.instants("end_date"))
    origin, step = epoch_us(ticks.origin), ticks.step // ONE_US
    never = epoch_us(until) + step
    first: list[int] = []
    stop: list[int] = []
    for start, end in zip(starts, ends, strict=True):
        if start is None:
            continue
        first.append(-((origin - epoch_us(start)) // step))  # the first loop at or after
        stop.append(((never if end is None else epoch_us(end)) - origin) // step + 1)
    if not first:
        return 0
    keys = np.concatenate([np.array(first, dtype=np.int64), np.array(stop, dtype=np.int64)])
    deltas = np.concatenate([np.ones(len(first), np.int64), -np.ones(len(stop), np.int64)])
    order = np.lexsort((deltas, keys))  # at one instant, ends before starts
    return int(np.cumsum(deltas[order]).max())
