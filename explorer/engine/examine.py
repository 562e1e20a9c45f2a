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

What a loop costs (issue 14, scope 3): the loop names the paused DAGs
(``SimState.paused_ids``); with none paused, no entry keeps its place, so an
examination pops the front entries in bulk and drops the ended ones with one
filter, without looking any DAG up. Entries of ended runs are dropped lazily,
when an examination meets them (or before a long skip). The tests hold the
rotation to RND-6 sorted at every loop (``tests/engine/test_step5_examine_work.py``)
and the skip to the loop-by-loop replay (``tests/engine/test_examine_rotation.py``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
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
    #: Counts the changes of the examination order other than loops following it
    #: (a run started, an examination that may end runs, a pause: :meth:`changed`); a
    #: loop the caller derived from the order stays right while it is unchanged.
    epoch: int = 0
    #: The caller's memo of such a loop (``loop.earliest_reason``): the epoch and the
    #: ids of the runs it was derived for, and the loop.
    memo: tuple[tuple[int, frozenset[int]], datetime | None] | None = None

    def changed(self) -> None:
        """Something may have changed which runs are examinable (RND-4, runs ended)."""
        self.epoch += 1

    def _sort_fresh(self) -> None:
        """Sort the runs never examined by run_after (stably), as an examination reads them."""
        if not self.fresh_sorted:
            self.fresh = deque(sorted(self.fresh, key=_run_after))
            self.fresh_sorted = True

    def started(self, run: DagRun) -> None:
        """``run`` became running: it is examined before every run examined already."""
        run.last_scheduling_decision = None
        self.fresh.append((run, run.start_date))
        self.fresh_sorted = False
        self.epoch += 1

    def examine(
        self,
        dags: dict[str, DagState],
        now: datetime,
        cap: int,
        paused: Collection[str] | None = None,
    ) -> list[DagRun]:
        """One loop's examination: at most ``cap`` running runs of unpaused DAGs, stamped
        ``now`` and moved to the back; returned in rotation order.

        ``paused``: the ids of the DAGs paused now (``SimState.paused_ids``), when the
        caller keeps them; None: each entry's DAG is looked up in ``dags``. With no DAG
        paused (the usual case) no entry keeps its place (RND-4), so a loop pops the
        front entries in bulk and drops the ended ones with one filter (issue 14: the
        entry-by-entry walk was most of step 5's cost).
        """
        self._sort_fresh()
        taken: list[_Entry]
        if paused is not None and not paused:
            taken = _take_live(self.fresh, cap) if self.fresh else []
            if len(taken) < cap and self.queue:
                taken += _take_live(self.queue, cap - len(taken))
        else:
            taken = []
            self._take(self.fresh, taken, dags, cap, paused)
            self._take(self.queue, taken, dags, cap, paused)
        taken.sort(key=_run_after)  # stable: earlier place breaks ties
        for run, _ in taken:
            run.last_scheduling_decision = now
        self.queue.extend(taken)
        return [run for run, _ in taken]

    def examinations_until(
        self,
        wanted: Collection[int],
        dags: dict[str, DagState],
        cap: int,
        paused: Collection[str] | None = None,
    ) -> int | None:
        """How many examinations, from this state on and with nothing else changing, until
        the first run whose ``id`` is in ``wanted`` is examined (1: the next loop's);
        None if no such run is examinable.

        Each loop takes the first ``cap`` examinable entries (running, of an unpaused
        DAG) and puts them at the back, so the examinable entry at place ``p`` is taken
        by loop ``p // cap + 1``: every entry before it goes out in an earlier group and
        none comes back in front of it. The loops skipped until then change nothing
        else (adr/0003), so the loop (``loop.earliest_reason``) need not run the ones
        in between (issue 14, scope 3).
        """
        if not wanted:
            return None
        self._sort_fresh()  # the order the next examination sorts them into
        place = 0
        for source in (self.fresh, self.queue):
            for run, start_date in source:
                if run.state != "running" or run.start_date != start_date:
                    continue  # dropped unseen by the examination (ended, or started again)
                if _is_paused(run, dags, paused):
                    continue  # RND-4: keeps its place, never taken
                if id(run) in wanted:
                    return place // cap + 1
                place += 1
        return None

    @staticmethod
    def _take(
        source: deque[_Entry],
        taken: list[_Entry],
        dags: dict[str, DagState],
        cap: int,
        paused: Collection[str] | None = None,
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
            if _is_paused(run, dags, paused):
                passed.append(entry)
            else:
                take(entry)
        if passed:
            source.extendleft(reversed(passed))

    def skip(
        self,
        dags: dict[str, DagState],
        count: int,
        last: datetime,
        cap: int,
        paused: Collection[str] | None = None,
    ) -> None:
        """Replay the examinations of ``count`` loops the simulator skipped (``last`` the
        latest of them).

        Nothing else changes in those loops, so every one takes the first ``cap``
        examinable entries, sorts them by run_after and puts them at the back. Without
        runs of paused DAGs in the queue (the usual case) that is a rotation of one list
        (:meth:`_rotate`); with them, each loop is replayed as :meth:`examine` does it.
        """
        if count <= 0:
            return
        if count * cap <= len(self.fresh) + len(self.queue):
            # A short gap (the usual one: a few loops between busy instants): replaying
            # it costs O(count * cap), less than the one pass over the whole queue that
            # the rotation below starts with (issue 14). Ended entries stay until
            # ``_take`` meets them, as in a real loop.
            self._replay(dags, count, last, cap, paused)
            return
        self._drop_ended()
        if paused is None:
            some_paused = any(dags[run.dag_id].is_paused for run, _ in (*self.fresh, *self.queue))
        else:
            some_paused = bool(paused) and any(
                run.dag_id in paused for run, _ in (*self.fresh, *self.queue)
            )
        if some_paused:
            self._replay(dags, count, last, cap, paused)
        else:
            self._rotate(dags, count, last, cap, paused)

    def _drop_ended(self) -> None:
        """Forget entries of runs that ended or started again: :meth:`_take` would drop
        them unseen, so removing them first changes no examination."""
        for name in ("fresh", "queue"):
            entries: deque[_Entry] = getattr(self, name)
            live = [e for e in entries if e[0].state == "running" and e[0].start_date == e[1]]
            if len(live) < len(entries):
                setattr(self, name, deque(live))

    def _rotate(
        self,
        dags: dict[str, DagState],
        count: int,
        last: datetime,
        cap: int,
        paused: Collection[str] | None,
    ) -> None:
        """``count`` examinations when every entry is examinable: the front ``cap``
        entries of fresh-then-queue, sorted by run_after, go to the back, ``count`` times,
        on one list of runs. The rotation is deterministic, so once every fresh run has
        been taken it is periodic: Brent's cycle search (one saved state, compared in C)
        finds the period and whole periods are jumped over."""
        self._sort_fresh()
        entries = [*self.fresh, *self.queue]
        size, fresh_size = len(entries), len(self.fresh)
        if size <= cap:  # every run examined at once; later loops keep that order
            self.examine(dags, last, cap, paused)
            return
        # The rotation moves positions (ints) into ``entries``; each loop sorts its
        # group by the runs' run_after, read from a list by position (the run_afters of
        # one simulation share their UTC tzinfo, which datetime compares in C without
        # an offset). Stable sorts keep the order.
        key = [run.run_after for run, _ in entries].__getitem__
        order, head, consumed, done = list(range(size)), 0, 0, 0
        saved: list[int] | None = None
        power = steps = 1
        while done < count:
            group = order[head : head + cap]
            group.sort(key=key)  # stable: earlier place breaks ties
            order.extend(group)
            head += cap
            consumed += cap
            done += 1
            if head >= 4 * size:  # keep the list short: drop what was rotated away
                del order[:head]
                head = 0
            if consumed < fresh_size + size or count - done < 2:
                continue  # fresh runs still to take: no state can repeat yet
            # The front positions differ unless the states may be equal: the whole state
            # is copied only when Brent saves one (at powers of two), not every loop.
            if saved is not None and order[head] == saved[0] and order[head:] == saved:
                jumped = (count - done) // steps * steps
                done += jumped
                consumed += jumped * cap
                saved = None  # the remainder is shorter than a period
                continue
            if saved is None or steps == power:
                saved, power, steps = order[head:], power * 2, 0
            steps += 1
        for run, _ in entries[: min(consumed, size)]:
            run.last_scheduling_decision = last
        remaining = [entries[i] for i in order[head:]]
        fresh_left = max(0, fresh_size - consumed)
        self.fresh = deque(remaining[:fresh_left])
        self.queue = deque(remaining[fresh_left:])

    def _replay(
        self,
        dags: dict[str, DagState],
        count: int,
        last: datetime,
        cap: int,
        paused: Collection[str] | None,
    ) -> None:
        """``count`` examinations one by one (runs of paused DAGs keep their places); once
        a state repeats, whole periods are jumped over (the stamps only say when a run was
        last examined; the order is the queue's)."""
        seen: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        done = 0
        while done < count:
            if len(self.examine(dags, last, cap, paused)) < cap:
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


def _take_live(source: deque[_Entry], need: int) -> list[_Entry]:
    """Pop entries from the front of ``source`` until ``need`` live ones are out (or it
    is empty); the ended ones are dropped (as :meth:`Rotation._take` does when no DAG is
    paused). Pops ``need`` at a time and filters each batch in one pass."""
    out: list[_Entry] = []
    pop = source.popleft
    while need > 0 and source:
        batch = [pop() for _ in range(min(need, len(source)))]
        live = [e for e in batch if e[0].state == "running" and e[0].start_date == e[1]]
        out += live
        need -= len(live)
    return out


def _is_paused(run: DagRun, dags: dict[str, DagState], paused: Collection[str] | None) -> bool:
    """Is ``run``'s DAG paused (RND-4)? ``paused``: the paused ids when the caller keeps
    them (``SimState.paused_ids``), None: read from the DAG's state."""
    return run.dag_id in paused if paused is not None else dags[run.dag_id].is_paused


def _run_after(entry: _Entry) -> datetime:
    return entry[0].run_after


#: Ids kept while looking for the rotation's period (memory bound).
_MEMO_LIMIT = 2_000_000
