"""Which running runs one scheduler loop examines (step 5 of SCH-1, RND-6, RND-4).

``DagRun.get_running_dag_runs_to_examine`` reads the running runs of unpaused
DAGs ordered by ``last_scheduling_decision`` (never examined first), then
``run_after``, and takes at most ``max_dagruns_per_loop_to_schedule`` = 20 of
them (RND-6). Only an examined run whose tasks have all finished ends in that
loop; a finished run beyond the 20 ends in a later loop, once the rotation
reaches it. Examining a run stamps its ``last_scheduling_decision``.

That order is kept as a :class:`Rotation` rather than sorted at every loop:
runs examined together get one stamp, later than every earlier one, so they go
to the back of a queue, among themselves by ``run_after``; runs never examined
wait in front of it. The simulator skips loops in which nothing can change
(adr/0003), yet every loop moves the rotation on: :meth:`Rotation.skip` replays
the skipped loops' examinations (nothing else happens in them).

Running runs of *paused* DAGs are never examined: the scheduler's sweep of
paused DAGs finishes them instead, after the examination, without refreshing
the DAG's max_active_runs flag (RND-4, see ``max_active_flag``). They keep
their place in the queue.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from explorer.engine.runs import DagRun

if TYPE_CHECKING:
    from explorer.engine.dagstate import DagState

__all__ = ["Rotation"]

#: A queue entry: the run and its start_date when it entered (a run a backfill clears
#: and starts again enters afresh; its old entry is then stale).
_Entry = tuple[DagRun, datetime | None]


@dataclass(slots=True)
class Rotation:
    """The running runs in step 5's examination order."""

    #: Running runs never examined (sorted by run_after, stable, when ``fresh_sorted``).
    fresh: deque[_Entry] = field(default_factory=deque)
    fresh_sorted: bool = True
    #: Examined runs, by last scheduling decision, then run_after.
    queue: deque[_Entry] = field(default_factory=deque)

    def started(self, run: DagRun) -> None:
        """``run`` became running: it is examined before every run examined already."""
        run.last_scheduling_decision = None
        self.fresh.append((run, run.start_date))
        self.fresh_sorted = False

    def examine(self, dags: dict[str, DagState], now: datetime, cap: int) -> list[DagRun]:
        """One loop's examination: at most ``cap`` running runs of unpaused DAGs, stamped
        ``now`` and moved to the back; returned in rotation order."""
        taken: list[_Entry] = []
        if not self.fresh_sorted:
            self.fresh = deque(sorted(self.fresh, key=lambda e: e[0].run_after))
            self.fresh_sorted = True
        self._take(self.fresh, taken, dags, cap)
        self._take(self.queue, taken, dags, cap)
        taken.sort(key=lambda e: e[0].run_after)  # stable: earlier place breaks ties
        for run, _ in taken:
            run.last_scheduling_decision = now
        self.queue.extend(taken)
        return [run for run, _ in taken]

    @staticmethod
    def _take(
        source: deque[_Entry], taken: list[_Entry], dags: dict[str, DagState], cap: int
    ) -> None:
        """Move runs from the front of ``source`` to ``taken`` up to ``cap``; ended runs are
        dropped, runs of paused DAGs keep their place."""
        passed: list[_Entry] = []
        pop, take = source.popleft, taken.append
        while len(taken) < cap and source:
            entry = pop()
            run = entry[0]
            if run.state != "running" or run.start_date != entry[1]:
                continue  # ended (or started again: a newer entry stands for it)
            if dags[run.dag_id].is_paused:
                passed.append(entry)
            else:
                take(entry)
        if passed:
            source.extendleft(reversed(passed))

    def skip(self, dags: dict[str, DagState], count: int, last: datetime, cap: int) -> None:
        """Replay the examinations of ``count`` loops the simulator skipped (``last`` the
        latest of them). With nothing else changing, the rotation is periodic: once a
        state repeats, whole periods are jumped over (the stamps only say when a run was
        last examined; the order is the queue's)."""
        seen: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        done = 0
        while done < count:
            if len(self.examine(dags, last, cap)) < cap:
                return  # every examinable run was taken: later loops change nothing
            done += 1
            # Looking for the period costs a key per loop: only worth it for long gaps.
            if count < 4 * (len(self.queue) // cap + 2) or count - done < 2:
                continue
            if len(seen) * (len(self.queue) + 1) > _MEMO_LIMIT:
                continue
            key = (tuple(id(r) for r, _ in self.fresh), tuple(id(r) for r, _ in self.queue))
            first = seen.get(key)
            if first is None:
                seen[key] = done
                continue
            period = done - first
            done += (count - done) // period * period
            seen.clear()


#: Ids kept while looking for the rotation's period (memory bound).
_MEMO_LIMIT = 2_000_000
