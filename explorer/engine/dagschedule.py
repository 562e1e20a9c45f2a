"""DAG state and the next-run cache: parses (SCH-4b), the next run (TT-3), when a DAG
next needs a loop (SCH-2).

Part of the simulation (adr/0011-engine-parts.md). Owns, per DAG, ``parsed_at``,
``next_run`` and its memo, ``stalled_on``/``wake_at``, ``exceeds_max_active_runs``,
``due_version`` and ``due_entry``, and the ``due`` heap of ``SimState``. Parses are applied
lazily (adr/0003): :func:`sync_parse` applies the latest one at or before the
instant a DAG is touched.
"""

from __future__ import annotations

import heapq
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from explorer.engine import deployment
from explorer.engine.dag import DagError
from explorer.engine.dagstate import DagState
from explorer.engine.errors import EngineError
from explorer.engine.max_active_flag import parse_flag
from explorer.engine.timetables import (
    CronDataIntervalTimetable,
    CronPartitionTimetable,
    CronTriggerTimetable,
    DeltaDataIntervalTimetable,
    DeltaTriggerTimetable,
    MultipleCronTriggerTimetable,
)
from explorer.engine.timetables.interval import has_calendar_units
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction
from explorer.engine.tz import ONE_US

if TYPE_CHECKING:
    from explorer.engine.host import Host

__all__ = [
    "collect_due",
    "compute_next_run",
    "due_at",
    "exceeds",
    "note_changed",
    "parse",
    "peek_due",
    "reschedule",
    "stable_until",
    "sync_parse",
    "take_due",
]


def reschedule(sim: Host, dag: DagState) -> None:
    """Record when ``dag`` next needs a loop; older heap entries become stale.

    A DAG whose live due entry already says the same instant keeps it: the entry
    would be pushed again at the same place of the heap (instant, DAG order), and
    the old one left stale for a later pop (a run's creation, its end and every
    parse in between reschedule a DAG, most of them to the instant it had).
    """
    if dag.due_entry is _COLLECTING:
        return  # collect_due files it itself once its parse is applied
    due = due_at(sim, dag)
    if dag.dag_id in sim.state.waiting_ids:
        _leave_waiting(sim, dag)  # its waiting entry is stale now
    elif due is not None and due == dag.due_entry:
        return
    dag.due_version += 1
    dag.due_entry = due
    if due is not None:
        heapq.heappush(sim.state.due, (due, dag.order, dag.due_version, dag.dag_id))


def collect_due(sim: Host, now: datetime) -> list[DagState]:
    """The DAGs due at loop ``now``, parsed at the latest parse (SCH-4b), waiting in
    ``SimState.waiting`` for :func:`take_due`; returned: the DAGs it made wait, whose
    recheck instant :func:`take_due` files for those it leaves waiting.

    The due DAGs a loop leaves over wait there already parsed, so a loop looks at
    the DAGs newly due and at the ones it takes, not at every DAG still waiting:
    with 10,000 DAGs due at once and 10 taken per loop, re-parsing and re-sorting
    them all each loop was O(DAGs) a loop. They are looked at again (the same
    ``sync_parse`` as before, in the heap's order) only once a newer parse instant
    has passed.
    """
    st = sim.state
    p = sim.parses.at_or_before(now)
    due = st.due
    if p == st.waiting_parse and (not due or due[0][0] > now):
        return _NO_DAGS  # no parse since and nothing due: most loops
    popped: list[tuple[datetime, int, DagState]] = []
    if p != st.waiting_parse:  # a parse since: the waiting DAGs it may change are looked at
        for dag in _recheck(sim, p):
            at = due_at(sim, dag)
            popped.append((now if at is None else at, dag.order, dag))
        st.waiting_parse = p
    while st.due and st.due[0][0] <= now:
        at, order, version, dag_id = heapq.heappop(st.due)
        dag = st.dags[dag_id]
        if dag.due_version == version:
            dag.due_entry = None  # its live entry is out of the heap
            popped.append((at, order, dag))
    popped.sort(key=lambda e: (e[0], e[1]))  # the due heap's order
    made_wait: list[DagState] = []
    for _, _, dag in popped:
        # The parse's own reschedule would push an entry that _wait makes stale at once.
        dag.due_entry = _COLLECTING
        sync_parse(sim, dag, now)
        dag.due_entry = None
        at = due_at(sim, dag)
        if at is not None and at <= now and dag.next_run is not None:
            _wait(sim, dag)
            made_wait.append(dag)
        else:
            reschedule(sim, dag)
    return made_wait


#: collect_due's answer when it made no DAG wait (never mutated).
_NO_DAGS: list[DagState] = []


def _recheck(sim: Host, p: datetime | None) -> list[DagState]:
    """The waiting DAGs a parse at ``p`` may change, taken out of the waiting heap.

    A waiting DAG's parse changes nothing (SCH-4b: same file, same next-run answer,
    same max_active_runs flag) until its next-run memo expires, its runs change
    (:func:`note_changed`) or the options change; :func:`_file_recheck` files it in
    ``SimState.waiting_recheck`` under that instant, and only the entries due by
    ``p`` come out. The others keep their place: the parse at ``p`` counts as
    applied to them (:func:`_leave_waiting`, :func:`sync_parse`), as if made.
    """
    st = sim.state
    out: list[DagState] = []
    if st.deployment.options is not st.waiting_options:  # DEP-7: every parse may change
        st.waiting_options = st.deployment.options
        for _, _, version, dag_id in st.waiting:
            dag = st.dags[dag_id]
            if dag.due_version == version and dag_id in st.waiting_ids:
                out.append(dag)
        st.waiting.clear()
        st.waiting_recheck.clear()
        for dag in out:
            _settle(sim, dag)
        st.waiting_ids.clear()
        return out
    else:
        heap = st.waiting_recheck
        while heap and (p is None or heap[0][0] <= p):
            _, _, version, dag_id = heapq.heappop(heap)
            dag = st.dags[dag_id]
            if dag.due_version == version and dag_id in st.waiting_ids:
                _leave_waiting(sim, dag)  # its waiting entry is stale now
                out.append(dag)
    return out


def note_changed(sim: Host, dag: DagState) -> None:
    """``dag``'s runs changed (a run made active, a run cleared): if it waits, the next
    parse looks at it again (its reference run or max_active_runs flag may differ)."""
    st = sim.state
    if dag.dag_id in st.waiting_ids:
        heapq.heappush(st.waiting_recheck, (_ALWAYS, dag.order, dag.due_version, dag.dag_id))


def _parse_holds_until(sim: Host, dag: DagState, p: datetime | None) -> datetime | None:
    """Until which parse instant a parse of waiting ``dag`` would change nothing
    (``None``: for ever, as far as the DAG itself goes)."""
    st = sim.state
    file = st.deployment.files.get(dag.dag_id)
    if not dag.deployed or file is None:
        return None  # no file, no parse (DEP-6): a deploy parses it itself
    volatile = p if p is not None else _ALWAYS
    try:
        if file.resolve(st.deployment.options) is not dag.spec:
            return volatile
    except DagError:
        return volatile  # each parse warns again
    memo = dag.next_run_memo
    reference = _reference(dag)
    if memo is None or not _same_reference(memo[0], reference):
        return volatile  # the timetable is asked again at each parse
    if parse_flag(dag, exceeds(sim, dag)) != dag.exceeds_max_active_runs:
        return volatile
    until: datetime | None = memo[2]
    return until


def _settle(sim: Host, dag: DagState) -> None:
    """A DAG leaving the waiting DAGs was parsed at ``waiting_parse`` (or shown to be
    unchanged by it, :func:`_recheck`): its ``parsed_at`` says so."""
    p = sim.state.waiting_parse
    if p is not None and _parse_applies(sim, dag, p):
        dag.parsed_at = p


def _leave_waiting(sim: Host, dag: DagState) -> None:
    st = sim.state
    if dag.dag_id in st.waiting_ids:
        _settle(sim, dag)
        st.waiting_ids.discard(dag.dag_id)


def take_due(
    sim: Host,
    now: datetime,
    skip: set[str],
    asset_ready: list[DagState],
    limit: int,
    made_wait: list[DagState] = _NO_DAGS,
) -> tuple[list[DagState], list[DagState]]:
    """SCH-2's pick of loop ``now`` after :func:`collect_due`: the ``limit`` first of
    the waiting DAGs and ``asset_ready`` together, in ``dags_needing_dagruns``' order;
    and the asset-ready DAGs left over. ``skip``: DAGs
    that got a partition run this loop (SCH-1) get nothing else. ``made_wait``:
    collect_due's answer, the DAGs it made wait (:func:`_file_recheck`)."""
    picked = _take_due(sim, now, skip, asset_ready, limit)
    _file_rechecks(sim, made_wait)
    return picked


def _file_rechecks(sim: Host, made_wait: list[DagState]) -> None:
    """When a parse must look again at each DAG collect_due made wait that is still
    waiting after the pick (:func:`_parse_holds_until`).

    Filed after the pick, not when the DAG starts waiting: almost every due DAG is
    taken by the same loop (SCH-2's cap is rarely reached), and its entry would only
    have been left stale (a second look at the parse just applied, once a
    run). A DAG still waiting is as it was when it started to (nothing in between
    changes its file, runs or flag), so the instant filed is the same; the heap's
    order is its entries' own, whatever the order of the pushes."""
    if not made_wait:
        return
    waiting_ids = sim.state.waiting_ids
    for dag in made_wait:
        if dag.dag_id in waiting_ids:
            _file_recheck(sim, dag)


def _take_due(
    sim: Host, now: datetime, skip: set[str], asset_ready: list[DagState], limit: int
) -> tuple[list[DagState], list[DagState]]:
    """:func:`take_due`'s pick."""
    st = sim.state
    if not st.waiting_ids and not asset_ready:  # nothing waits: most loops
        if st.waiting:
            _drop_stale_waiting(sim)
        return [], []
    ready = [d for d in asset_ready if d.dag_id not in skip]
    # dags_needing_dagruns: ORDER BY next_dagrun_create_after (NULL first, as SQLite
    # sorts it: asset-only DAGs), LIMIT max_dagruns_to_create_per_loop.
    ready.sort(key=lambda d: _order_key(d, now))
    taken: list[DagState] = []
    index = 0
    heap = st.waiting
    while len(taken) < limit:
        while heap and (
            heap[0][3] not in st.waiting_ids or st.dags[heap[0][3]].due_version != heap[0][2]
        ):
            heapq.heappop(heap)  # stale
        if heap and heap[0][3] in skip:
            reschedule(sim, st.dags[heapq.heappop(heap)[3]])
            continue
        head = st.dags[heap[0][3]] if heap else None
        other = ready[index] if index < len(ready) else None
        if head is None and other is None:
            break
        if other is None or (
            head is not None and (True, heap[0][0], heap[0][1]) <= _order_key(other, now)
        ):
            assert head is not None
            heapq.heappop(heap)
            _leave_waiting(sim, head)
            if other is head:
                index += 1
            taken.append(head)
        else:
            index += 1
            _leave_waiting(sim, other)  # if also due, its waiting entry goes too
            taken.append(other)
    left = [d for d in ready[index:] if d.dag_id not in st.waiting_ids]
    if not st.waiting_ids:
        _drop_stale_waiting(sim)
    return taken, left


def _drop_stale_waiting(sim: Host) -> None:
    """No DAG waits: every entry of the waiting heaps is stale (an entry is current only
    while its DAG waits, and a DAG that waits again gets a new version, :func:`_wait`),
    so they are dropped at once, not popped one by one by later loops and parses."""
    sim.state.waiting.clear()
    sim.state.waiting_recheck.clear()


def _order_key(dag: DagState, now: datetime) -> tuple[bool, datetime, int]:
    info = dag.next_run
    return (info is not None, info.run_after if info is not None else now, dag.order)


def _wait(sim: Host, dag: DagState) -> None:
    """``dag`` is due and parsed: it waits among ``SimState.waiting`` for its turn."""
    st = sim.state
    dag.due_version += 1
    dag.due_entry = None  # a waiting DAG has no live entry in the due heap
    info = dag.next_run
    assert info is not None
    heapq.heappush(st.waiting, (info.run_after, dag.order, dag.due_version, dag.dag_id))
    st.waiting_ids.add(dag.dag_id)


def _file_recheck(sim: Host, dag: DagState) -> None:
    """File waiting ``dag`` in ``waiting_recheck`` under the parse instant that may
    change it (:func:`_parse_holds_until`)."""
    st = sim.state
    if st.waiting_options is not st.deployment.options:
        return  # the next parse looks at every waiting DAG (_recheck)
    until = _parse_holds_until(sim, dag, st.waiting_parse)
    if until is not None:
        heapq.heappush(st.waiting_recheck, (until, dag.order, dag.due_version, dag.dag_id))


#: ``DagState.due_entry`` while collect_due applies a DAG's parse (compared by identity;
#: no due instant equals it): the DAG is filed by collect_due right after.
_COLLECTING = datetime.max.replace(tzinfo=UTC)
#: An instant before any parse: an entry filed under it is looked at by the next parse.
_ALWAYS = datetime.min.replace(tzinfo=UTC)


def peek_due(sim: Host) -> datetime | None:
    if sim.state.waiting_ids:  # due DAGs left by the latest loop: the next loop looks
        return sim.state.last_tick or sim.state.now
    heap = sim.state.due
    while heap:
        due, _, version, dag_id = heap[0]
        if sim.state.dags[dag_id].due_version == version:
            return due
        heapq.heappop(heap)
    return None


def due_at(sim: Host, dag: DagState) -> datetime | None:
    """When this DAG next needs a loop to create a scheduled run (SCH-2)."""
    if not dag.deployed or dag.is_paused or dag.exceeds_max_active_runs or dag.is_stale:
        return None
    if dag.stalled_on is not None:
        return dag.wake_at
    if dag.next_run is None:
        return None
    return dag.next_run.run_after


def sync_parse(sim: Host, dag: DagState, t: datetime) -> None:
    """Apply the latest periodic parse at or before ``t`` if it was not applied yet."""
    p = sim.parses.at_or_before(t)
    if p is None:
        return
    # _parse_applies, inline: asked at every run's creation and end
    st = sim.state
    if not dag.deployed or dag.dag_id not in st.deployment.files:
        return  # no file, no parse (DEP-6)
    parsed = dag.parsed_at
    if (parsed is not None and p <= parsed) or (
        dag.deployed_at is not None and p < dag.deployed_at
    ):
        return
    if p == st.waiting_parse and dag.dag_id in st.waiting_ids:
        dag.parsed_at = p  # applied already, or shown to change nothing (_recheck)
        return
    parse(sim, dag, p)


def _parse_applies(sim: Host, dag: DagState, p: datetime) -> bool:
    """Does the parse at ``p`` still have to be applied to ``dag``?"""
    if not dag.deployed or dag.dag_id not in sim.state.deployment.files:
        return False  # no file, no parse (DEP-6)
    if dag.parsed_at is not None and p <= dag.parsed_at:
        return False
    return dag.deployed_at is None or p >= dag.deployed_at


def parse(sim: Host, dag: DagState, at: datetime) -> None:
    """A parse recomputes the next-run cache from TT-3's reference and refreshes the flag."""
    dag.parsed_at = at
    deployment.reparse(sim, dag)  # the file as it is now, under today's options (DEP-7)
    reference = _reference(dag)
    memo = dag.next_run_memo
    if (
        memo is None
        or memo[0] is not reference
        or memo[1] > at
        or (memo[2] is not None and at >= memo[2])
    ):
        # compute_next_run's own memo test, which most parses pass (the answer holds
        # from the run's creation on): the call is made only when it may ask again.
        compute_next_run(sim, dag, reference, at)
    dag.exceeds_max_active_runs = parse_flag(dag, exceeds(sim, dag))
    reschedule(sim, dag)


def _reference(dag: DagState) -> ReferenceRun | None:
    """TT-3's reference at a parse: the latest scheduled or backfill run.

    The memo's own reference object when it is that run's (the run was created
    from the answer the memo holds: ``ReferenceRun.of`` shares the answer's
    interval and run_after), so the memo's check is one identity test instead of
    a new object and a field-by-field comparison at every parse.
    """
    latest = dag.latest_automated
    if latest is None:
        return None
    memo = dag.next_run_memo
    if memo is not None:
        kept = memo[0]
        if (
            kept is not None
            and kept.data_interval is latest.data_interval
            and kept.run_after is latest.run_after
        ):
            return kept  # type: ignore[no-any-return]
    return ReferenceRun(latest.data_interval, latest.run_after)


def compute_next_run(
    sim: Host, dag: DagState, reference: ReferenceRun | None, now: datetime
) -> None:
    memo = dag.next_run_memo
    if (
        memo is not None
        and memo[1] <= now
        and (memo[2] is None or now < memo[2])
        and _same_reference(memo[0], reference)
    ):
        return  # the timetable would answer the same (see stable_until)
    previous = dag.next_run
    dag.next_run_memo = None
    try:
        restriction = dag.spec.restriction
        dag.next_run = dag.spec.timetable.next_dagrun_info(
            last=reference, restriction=restriction, now=now
        )
        dag.next_run_error = None
        dag.next_run_memo = stable_until(dag, reference, now, restriction)
    except EngineError as exc:
        # Airflow logs the exception and the DAG has no next run (README 1.6).
        dag.next_run = None
        if dag.next_run_error != str(exc):
            sim.warn(f"DAG {dag.dag_id!r} stops being scheduled at {now.isoformat()}: {exc}")
        dag.next_run_error = str(exc)
    if dag.next_run != previous:
        dag.stalled_on = None
        dag.wake_at = None


def _same_reference(kept: ReferenceRun | None, reference: ReferenceRun | None) -> bool:
    """``kept == reference``, run_after first: a run just created asks with a new
    reference, never its predecessor's, and the dataclass comparison built two tuples
    of intervals to find it out (once a run)."""
    if kept is reference:
        return True
    if kept is None or reference is None:
        return False
    return kept.run_after == reference.run_after and kept.data_interval == reference.data_interval


def stable_until(
    dag: DagState,
    reference: ReferenceRun | None,
    now: datetime,
    restriction: TimeRestriction | None = None,
) -> tuple[Any, datetime, datetime | None] | None:
    """For which clocks the answer just computed holds, for the timetables where that
    is certain.

    catchup=True (:data:`CLOCK_FREE_WITH_CATCHUP`): with a reference run or a start
    date the answer never reads the clock (TT-4 step 2, TT-5's first branch, TT-7,
    TT-8, TT-9's earliest logical date, TT-16 continuing from run_after), so it holds
    for ever. catchup=False (:data:`CLOCK_BY_CRON_PERIOD`): the cron timetables read
    the clock only through the cron period holding it; TT-9's pick among crons
    (:data:`CLOCK_BY_PICK`) and the delta timetables (:data:`CLOCK_BY_DELTA`) have
    their own stretches. None holds for a first run without start date
    (CronTriggerTimetable's run_immediately buffer, a delta trigger's "now")."""
    table = dag.spec.timetable
    if restriction is None:
        restriction = dag.spec.restriction
    if restriction.catchup:
        if type(table) not in CLOCK_FREE_WITH_CATCHUP:
            return None
    elif (
        type(table) not in CLOCK_BY_CRON_PERIOD
        and type(table) not in CLOCK_BY_PICK
        and type(table) not in CLOCK_BY_DELTA
    ):
        return None
    if reference is None and restriction.earliest is None:
        return None
    if restriction.catchup:
        return (reference, now, None)
    if type(table) in CLOCK_BY_PICK:
        # TT-9: each cron's answer by TT-5's rule, and the pick among them (holds_until).
        assert isinstance(table, MultipleCronTriggerTimetable)
        return (reference, now, table.holds_until(reference, restriction, now))
    if type(table) in CLOCK_BY_DELTA:
        return _delta_stable_until(table, dag.next_run, reference, now)
    # catchup=False: the latest-tick candidate only overtakes the answer once the clock
    # passes the tick after it (TT-4, TT-5, TT-16), so the answer holds until then;
    # ended early near a DST transition (DST-3, ZonedCron.before_shifts).
    answer = dag.next_run
    # The answer's own run_after object when it is not before now: the cron run hands
    # out the tick after it without a search (cron.ZonedCron.next).
    horizon = now if answer is None or answer.run_after < now else answer.run_after
    assert isinstance(table, CronTriggerTimetable | CronDataIntervalTimetable)
    tick = table.next_changes_after(horizon)
    return (reference, now, None if tick is None else table.cron.before_shifts(tick))


#: Timetables whose catchup=False answer changes only when the clock passes a cron tick:
#: TT-4 (the latest complete period), TT-5 and TT-16 (``align_prev(now)`` among the
#: candidates). A CronPartitionTimetable's tick is a CronTriggerTimetable's; its
#: partition key and date are functions of the tick alone.
CLOCK_BY_CRON_PERIOD: frozenset[type] = frozenset(
    {CronTriggerTimetable, CronDataIntervalTimetable, CronPartitionTimetable}
)
#: Timetables whose catchup=False answer is a pick among cron answers (TT-9): it holds
#: while each cron's answer holds and no logical date still ahead is reached
#: (``MultipleCronTriggerTimetable.holds_until``).
CLOCK_BY_PICK: frozenset[type] = frozenset({MultipleCronTriggerTimetable})
#: Delta timetables whose catchup=False answer holds for a stretch of clock
#: (:func:`_delta_stable_until`).
CLOCK_BY_DELTA: frozenset[type] = frozenset({DeltaDataIntervalTimetable, DeltaTriggerTimetable})


def _delta_stable_until(
    table: Any, answer: DagRunInfo | None, reference: ReferenceRun | None, now: datetime
) -> tuple[Any, datetime, datetime | None] | None:
    """catchup=False, with a reference run or a start date.

    DeltaTriggerTimetable (TT-8): the tick is ``max(now, X)`` with X the reference's
    next tick and the start date, both fixed (``align_prev(now)`` is ``now`` for a
    delta), so the answer holds while the clock is not past it. An answer None (past
    the end date) stays None as the tick only grows, but is asked again all the same.
    DeltaDataIntervalTimetable (TT-7): the start is ``max(reference end, start date,
    epoch floor of now - delta)``: it moves only when the clock reaches the epoch
    multiple after the answer's run_after (``next_changes_after``, the same float
    floor as ``_skip_to_latest``), as a cron data interval's does at its next tick.
    Calendar deltas (months, years) floor from the start date instead: not memoised.
    """
    if answer is None:
        return None
    if isinstance(table, DeltaTriggerTimetable):
        if answer.run_after < now:
            return None
        return (reference, now, answer.run_after + ONE_US)
    assert isinstance(table, DeltaDataIntervalTimetable)
    if has_calendar_units(table.delta):
        return None
    horizon = now if answer.run_after < now else answer.run_after
    return (reference, now, table.next_changes_after(horizon))


#: Timetables whose catchup=True answer, given a reference run or a start date, does not
#: read the clock at all (delta steps are exact; TT-9's min over its crons is by logical
#: date only under catchup).
CLOCK_FREE_WITH_CATCHUP: frozenset[type] = CLOCK_BY_CRON_PERIOD | {
    DeltaDataIntervalTimetable,
    DeltaTriggerTimetable,
    MultipleCronTriggerTimetable,
}


def exceeds(sim: Host, dag: DagState) -> bool:
    return dag.active_runs(include_backfill=False) >= dag.spec.max_active_runs
