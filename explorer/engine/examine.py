"""Which running runs one scheduler loop examines (step 5 of SCH-1, RND-6, RND-4).

``DagRun.get_running_dag_runs_to_examine`` reads the running runs of unpaused
DAGs ordered by ``last_scheduling_decision`` (never examined first), then
``run_after``, and takes at most ``max_dagruns_per_loop_to_schedule`` = 20 of
them (RND-6). Runs tied on both come in the order the database reads them: the
partial index ``idx_dag_run_running_dags`` on (state, dag_id), so by ``dag_id``,
then by ``id`` (RND-8). Only an examined run whose tasks have all finished ends in
that loop; a finished run beyond the 20 ends in a later loop, once the rotation
reaches it. Examining a run stamps its ``last_scheduling_decision``.

That order is kept as a :class:`Rotation` rather than sorted at every loop:
runs examined together get one stamp, later than every earlier one, so they go
to the back of a queue, among themselves by ``run_after``, ``dag_id`` and ``id``
(the entry's key, :func:`sort_key`); runs never examined wait in front of it. The
simulator skips loops in which nothing can change (adr/0003), yet every loop moves
the rotation on: :meth:`Rotation.skip` replays the skipped loops' examinations
(nothing else happens in them).

Running runs of *paused* DAGs are never examined: the scheduler's sweep of
paused DAGs finishes them instead, after the examination, without refreshing
the DAG's max_active_runs flag (RND-4, see ``max_active_flag``). They keep
their place in the queue.

What a loop costs. The queue is one list kept from loop to
loop with a head index (the examined front is cut off now and then, never shifted
one entry at a time), its entries ``(run_after, run, start_date)`` with run_after
as a number (:func:`sort_key`), so that a group sorts by a C key comparing floats.
Every entry stands for a running run: the loop drops the runs it ends
(:meth:`Rotation.ended`), and whatever else may end or restart a run (a script
step, a bundle refresh, the paused sweep) says so with :meth:`Rotation.changed`,
after which the next use drops the dead entries once. So with no DAG paused (the
loop names them, ``SimState.paused_ids``) an examination is two slices and a sort,
without looking at a run's state or its DAG. The tests hold the rotation to RND-6
sorted at every loop (``tests/engine/test_step5_examine_work.py``) and the skip to
the loop-by-loop replay (``tests/engine/test_examine_rotation.py``).

Why a skip still replays loop by loop (adr/0003, "Since then"): when the cap does not
divide the number of running runs, every loop's group straddles two earlier groups,
and the order never settles into one that later loops only rotate (unless all the
run_afters are equal); it becomes periodic, and whole periods are jumped over.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain, compress, islice, repeat
from itertools import count as places
from operator import attrgetter, eq, is_, itemgetter
from typing import TYPE_CHECKING

from explorer.engine.runs import DagRun
from explorer.engine.tz import epoch_us

if TYPE_CHECKING:
    from explorer.engine.dagstate import DagState

__all__ = ["Rotation", "sort_key"]

#: A run's place among runs of one examination stamp (:func:`sort_key`).
_Key = tuple[int, str, int]
#: A queue entry: the run's sort key, the run, and its start_date when it entered (a
#: run a backfill clears and starts again enters afresh; its old entry is then dead).
_Entry = tuple[_Key, DagRun, datetime | None]

#: An entry's sort key, read in C (a group of 20 is sorted at every loop); it leads
#: with run_after.
_RUN_AFTER = itemgetter(0)
#: An entry's run, and a run's state, read in C.
_RUN = itemgetter(1)
_STATE = attrgetter("state")


def sort_key(run: DagRun) -> _Key:
    """The examination order among runs stamped alike: ``run_after`` (microseconds
    since the epoch), then the order the database reads ties in, ``dag_id`` then
    ``id`` (RND-8)."""
    return (epoch_us(run.run_after), run.dag_id, run.id)


@dataclass(slots=True)
class Rotation:
    """The running runs in step 5's examination order."""

    #: Running runs never examined (sorted by run_after, stable, when ``fresh_sorted``).
    fresh: list[_Entry] = field(default_factory=list)
    fresh_sorted: bool = True
    #: Examined runs, by last scheduling decision, then run_after: ``queue[head:]``.
    queue: list[_Entry] = field(default_factory=list)
    head: int = 0
    #: Some entries may stand for runs no longer running (:meth:`changed`): dropped
    #: before the order is next read.
    unchecked: bool = False
    #: Counts the changes of the examination order other than loops following it
    #: (a run started or ended, an examination, a pause: :meth:`changed`, :meth:`moved`,
    #: :meth:`ended`); a loop the caller derived from the order stays right while it is
    #: unchanged.
    epoch: int = 0
    #: The caller's memo of such a loop (``loop.earliest_reason``): the epoch and the
    #: ids of the runs it was derived for, and the loop.
    memo: tuple[tuple[int, frozenset[int]], datetime | None] | None = None

    def changed(self) -> None:
        """Something may have changed which runs are examinable (RND-4, runs ended or
        started again other than by :meth:`ended`)."""
        self.epoch += 1
        self.unchecked = True

    def moved(self) -> None:
        """An examination off the loops' order happened (the order the reasons read
        changes); the runs it ends are reported by :meth:`ended`."""
        self.epoch += 1

    def ended(self, examined: int) -> None:
        """Some of the ``examined`` runs the latest examination took (the back of the
        queue) ended: their entries go."""
        self.epoch += 1
        queue = self.queue
        if examined <= 0 or len(queue) - self.head < examined:
            self.unchecked = True  # not where the latest examination put them
            return
        back = queue[-examined:]
        # The states read in C: one loop a run ends in.
        states = map(_STATE, map(_RUN, back))
        queue[-examined:] = compress(back, map(eq, states, repeat("running")))

    def entries(self) -> Iterator[_Entry]:
        """The entries in examination order (fresh ones once sorted), dead ones included
        until the next use drops them."""
        self._sort_fresh()
        return chain(self.fresh, islice(self.queue, self.head, None))

    def __len__(self) -> int:
        return len(self.fresh) + len(self.queue) - self.head

    def _sort_fresh(self) -> None:
        """Sort the runs never examined by run_after (stably), as an examination reads them."""
        if not self.fresh_sorted:
            self.fresh.sort(key=_RUN_AFTER)
            self.fresh_sorted = True

    def _check(self) -> None:
        """Drop the entries of runs that ended or started again (after :meth:`changed`):
        an examination would pass them unseen, so removing them changes none."""
        if not self.unchecked:
            return
        self.unchecked = False
        self.fresh = [e for e in self.fresh if _live(e)]
        self.queue = [e for e in islice(self.queue, self.head, None) if _live(e)]
        self.head = 0

    def started(self, run: DagRun) -> None:
        """``run`` became running: it is examined before every run examined already."""
        run.last_scheduling_decision = None
        self.fresh.append((sort_key(run), run, run.start_date))
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
        paused (the usual case) no entry keeps its place (RND-4): the front entries are
        sliced off, none looked at.
        """
        self._check()
        self._sort_fresh()
        if paused is not None and not paused:
            taken = self._take_front(cap)
        else:
            taken = self._take_unpaused(dags, cap, paused)
        taken.sort(key=_RUN_AFTER)
        runs = list(map(_RUN, taken))
        for run in runs:
            run.last_scheduling_decision = now
        self.queue += taken
        return runs

    def _take_front(self, cap: int) -> list[_Entry]:
        """The first ``cap`` entries (fresh ones first), out of the rotation."""
        fresh, queue, head = self.fresh, self.queue, self.head
        if fresh:
            taken = fresh[:cap]
            del fresh[:cap]
            need = cap - len(taken)
            if need <= 0:
                return taken
        else:
            taken, need = [], cap
        taken += queue[head : head + need]
        head += need
        if head >= len(queue):
            queue.clear()
            head = 0
        elif head > _CUT and 2 * head > len(queue):
            del queue[:head]  # the examined front: cut off once in a while
            head = 0
        self.head = head
        return taken

    def _take_unpaused(
        self, dags: dict[str, DagState], cap: int, paused: Collection[str] | None
    ) -> list[_Entry]:
        """The first ``cap`` entries of unpaused DAGs; those of paused DAGs keep their
        place (RND-4)."""
        taken: list[_Entry] = []
        self.fresh = _take_from(self.fresh, taken, dags, cap, paused)
        self.queue = _take_from(self.queue[self.head :], taken, dags, cap, paused)
        self.head = 0
        return taken

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
        in between.
        """
        if not wanted:
            return None
        self._check()
        entries = self.entries()  # the order the next examination takes them in
        if paused is not None and not paused:
            first = _first_place(map(id, map(_RUN, entries)), wanted)
            return None if first is None else first // cap + 1
        place = 0
        for entry in entries:
            run = entry[1]
            if _is_paused(run, dags, paused):
                continue  # RND-4: keeps its place, never taken
            if id(run) in wanted:
                return place // cap + 1
            place += 1
        return None

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
        runs of paused DAGs (the usual case) that is a rotation of one list
        (:meth:`_rotate`); with them, each loop is replayed as :meth:`examine` does it.
        """
        if count <= 0:
            return
        self._check()
        if not len(self):
            return
        if paused is None:
            some_paused = any(dags[e[1].dag_id].is_paused for e in self.entries())
        else:
            some_paused = bool(paused) and any(e[1].dag_id in paused for e in self.entries())
        if some_paused:
            self._replay(dags, count, last, cap, paused)
            return
        none: frozenset[str] = frozenset()
        while self.fresh and count > 0:  # the fresh runs go first, a loop at a time
            self.examine(dags, last, cap, none)
            count -= 1
        if count > 0:
            self._rotate(count, last, cap)

    def _rotate(self, count: int, last: datetime, cap: int) -> None:
        """``count`` examinations when every entry is examinable and none is fresh: the
        front ``cap`` entries, sorted by run_after, go to the back, ``count`` times.
        The rotation is deterministic, so it is periodic: Brent's cycle search (one saved
        state, compared in C) finds the period and whole periods are jumped over.

        The groups are appended to the queue list itself, no copy of it made (most
        skips replay a few loops of a queue of hundreds); the runs the loops take
        are the first ``count * cap`` (at most all), stamped before the replay."""
        queue = self.queue
        if self.head:
            del queue[: self.head]
            self.head = 0
        size = len(queue)
        for entry in islice(queue, min(count * cap, size)):
            entry[1].last_scheduling_decision = last
        if size <= cap:  # every run examined at once; later loops keep that order
            queue.sort(key=_RUN_AFTER)
            return
        # Until every entry has been taken once no state repeats (the stamps differ):
        # those loops look for no period.
        done = min(count, -(-size // cap))
        head = done * cap
        for at in range(0, head, cap):
            _append_group(queue, at, at + cap)
        saved: list[_Entry] | None = None
        power = steps = 1
        limit = 4 * size
        while done < count:
            if count - done > 1:
                # The front entries differ unless the states may be equal: the whole
                # state is read only when Brent saves one (at powers of two), not every
                # loop; it is compared entry by entry by identity, in C. Nine in ten
                # states with the saved front entry differ within the first group (d3:
                # 17,015 of 17,951), so that group is compared before the whole queue is
                # copied for the rest.
                if (
                    saved is not None
                    and queue[head] is saved[0]
                    and all(map(is_, queue[head : head + cap], saved))
                    and all(map(is_, queue[head:], saved))
                ):
                    done += (count - done) // steps * steps
                    saved = None  # the remainder is shorter than a period
                    continue
                if saved is None or steps == power:
                    saved, power, steps = queue[head:], power * 2, 0
                steps += 1
            _append_group(queue, head, head + cap)
            head += cap
            done += 1
            if head >= limit:  # keep the list short: drop what was rotated away
                del queue[:head]
                head = 0
        del queue[:head]

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
            queued = len(self.queue) - self.head
            if count < 4 * (queued // cap + 2) or count - done < 2:
                continue
            if len(seen) * (queued + 1) > _MEMO_LIMIT:
                continue
            key = (
                tuple(id(e[1]) for e in self.fresh),
                tuple(id(e[1]) for e in islice(self.queue, self.head, None)),
            )
            first = seen.get(key)
            if first is None:
                seen[key] = done
                continue
            period = done - first
            done += (count - done) // period * period
            seen.clear()


def _append_group(queue: list[_Entry], start: int, end: int) -> None:
    """One replayed loop: ``queue[start:end]`` (a whole group: the queue is longer than
    the cap) appended in examination order (:func:`sort_key`)."""
    group = queue[start:end]
    group.sort(key=_RUN_AFTER)
    queue += group


def _take_from(
    source: list[_Entry],
    taken: list[_Entry],
    dags: dict[str, DagState],
    cap: int,
    paused: Collection[str] | None,
) -> list[_Entry]:
    """Move entries of unpaused DAGs from the front of ``source`` to ``taken`` up to
    ``cap``; returns what is left, the entries of paused DAGs passed over in front."""
    kept: list[_Entry] = []
    passed = 0
    for entry in source:
        if len(taken) >= cap:
            break
        passed += 1
        (kept if _is_paused(entry[1], dags, paused) else taken).append(entry)
    return kept + source[passed:] if passed else source


def _first_place(ids: Iterable[int], wanted: Collection[int]) -> int | None:
    """The first place in ``ids`` holding one of ``wanted`` (None: none does).

    Read in C and lazily, up to the first found: a few runs wait in a rotation of
    hundreds, and a Python loop over the entries up to the first was most of a reason
    read."""
    return next(compress(places(), map(wanted.__contains__, ids)), None)


def _live(entry: _Entry) -> bool:
    """Does ``entry`` stand for a running run (not one ended, or started again since)?"""
    run = entry[1]
    return run.state == "running" and run.start_date == entry[2]


def _is_paused(run: DagRun, dags: dict[str, DagState], paused: Collection[str] | None) -> bool:
    """Is ``run``'s DAG paused (RND-4)? ``paused``: the paused ids when the caller keeps
    them (``SimState.paused_ids``), None: read from the DAG's state."""
    return run.dag_id in paused if paused is not None else dags[run.dag_id].is_paused


#: The examined front of the queue is cut off once it is this long and half the list.
_CUT = 256

#: Ids kept while looking for the rotation's period (memory bound).
_MEMO_LIMIT = 2_000_000
