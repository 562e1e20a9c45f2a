"""An ended run as the run log packs it: the checks and the numbers (adr/0006, adr/0013).

Part of the run log (``runlog.py`` stores the rows, this module makes them): on the
path of every run that ends, it reads every field of the run and of its task
instances, checks that the run fits the packed form, and turns its instants into
epoch microseconds. The run log itself stays interpreted (a ``Sequence``, a spill
file), but this module compiles with mypyc beside the native ``DagRun`` and
``TaskInstance``, so those reads are struct reads, not attribute lookups by name.
It knows nothing of the log's columns: it returns a :class:`PackedRun`.
"""

from __future__ import annotations

from array import array
from datetime import UTC, datetime
from typing import Any

from explorer.engine.runs import DagRun, RunState, RunType, TriggeredBy
from explorer.engine.tz import epoch_us

__all__ = [
    "END_CODE",
    "HELD",
    "NONE",
    "OUTCOMES",
    "RUN_STATES",
    "RUN_STATE_CODE",
    "RUN_TYPES",
    "RUN_TYPE_CODE",
    "TASK_CODE",
    "TASK_STATES",
    "InstantMemo",
    "PackedRun",
    "pack",
]

#: A null instant in an ``array('q')`` column.
NONE = -(2**63)

RUN_TYPES: tuple[RunType, ...] = ("scheduled", "manual", "asset_triggered", "backfill")
RUN_TYPE_CODE = {name: code for code, name in enumerate(RUN_TYPES)}
RUN_STATES: tuple[RunState, ...] = ("queued", "running", "success", "failed")
RUN_STATE_CODE = {name: code for code, name in enumerate(RUN_STATES)}
TASK_STATES: tuple[str, ...] = ("none", "running", "success", "failed")
_TASK_STATE_CODE = {name: code for code, name in enumerate(TASK_STATES)}
OUTCOMES: tuple[str, ...] = ("success", "failed", "success_no_data")
_OUTCOME_CODE = {name: code for code, name in enumerate(OUTCOMES)}
#: Flag bit in a task's byte: the task was held for the script.
HELD = 0x80

#: Who triggers each run type when this simulator makes it (the creation sites pass
#: these; the log restores them when it unpacks a run).
TRIGGERED_BY: dict[str, TriggeredBy] = {
    "scheduled": "timetable",
    "manual": "rest_api",
    "asset_triggered": "asset",
    "backfill": "backfill",
}

#: Run codes (``run_type << 4 | state``) of the runs the log packs, by (run type,
#: state, triggered_by): ended, and triggered as this simulator triggers them.
END_CODE: dict[tuple[str, str, str], int] = {
    (run_type, state, TRIGGERED_BY[run_type]): RUN_TYPE_CODE[run_type] << 4 | RUN_STATE_CODE[state]
    for run_type in RUN_TYPES
    for state in ("success", "failed")
}
#: A finished task's (state, outcome, held) → its byte in the task codes column.
TASK_CODE: dict[tuple[str, str, bool], int] = {
    (state, outcome, held): _TASK_STATE_CODE[state] << 4
    | _OUTCOME_CODE[outcome]
    | (HELD if held else 0)
    for state in ("success", "failed")
    for outcome in OUTCOMES
    for held in (False, True)
}


class InstantMemo:
    """Recent UTC instants → their epoch microseconds: the runs ending near one another
    share most instants (the loop's ticks, one cron minute across DAGs), a datetime
    caches its hash, while :func:`~explorer.engine.tz.epoch_us` builds a timedelta. A
    bounded cache: it starts afresh once ``size`` instants are kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.values: dict[datetime, int] = {}
        #: instants converted so far (tests count the work)
        self.computed = 0

    def epoch_us(self, value: datetime) -> int:
        found = self.values.get(value)
        if found is not None:
            return found
        if len(self.values) >= self.size:
            self.values.clear()
        found = epoch_us(value)
        self.values[value] = found
        self.computed += 1
        return found


class PackedRun:
    """What the log stores of an ended run besides its identity (dag, nth, ids)."""

    def __init__(
        self,
        code: int,
        times: list[int],
        task_codes: bytearray,
        task_times: list[int],
        inlets: bool,
    ) -> None:
        #: ``run_type << 4 | state``
        self.code = code
        #: logical_date, data interval start and end, run_after, created_at,
        #: start_date, end_date
        self.times = times
        #: per task: state << 4 | outcome, plus :data:`HELD`
        self.task_codes = task_codes
        #: per task: start_date, end_date
        self.task_times = task_times
        #: some task keeps the ids of its inlets' latest events
        self.inlets = inlets


def pack(run: DagRun, memo: InstantMemo) -> PackedRun | None:
    """``run`` packed, or None when it does not fit the packed form: not ended, not
    triggered as this simulator triggers it, a state history kept, a task not finished
    or still owed a timer, an instant that is not a UTC, fold-0 one (no other would
    come back identical; checked before the memo is read, so an equal zoned instant
    never finds a UTC one's entry). Everything is checked before anything is kept."""
    if run.history is not None:
        return None
    code = END_CODE.get((run.run_type, run.state, run.triggered_by))
    if code is None:
        return None
    interval = run.data_interval
    values: list[datetime | None] = [
        run.logical_date,
        None if interval is None else interval.start,
        None if interval is None else interval.end,
        run.run_after,
        run.created_at,
        run.start_date,
        run.end_date,
        run.partition_date,  # checked, not packed: it lives in a side table
    ]
    task_codes = bytearray()
    inlets = False
    for task in run.tasks:
        end_date = task.end_date
        task_code = TASK_CODE.get((task.state, task.outcome, task.held))
        finish_at = task.finish_at
        if task_code is None or (finish_at is not end_date and finish_at != end_date):
            return None  # not finished, or a timer still owed
        task_codes.append(task_code)
        values.append(task.start_date)
        values.append(end_date)
        if task.inlet_events:
            inlets = True
    packed: list[int] = []
    for value in values:
        if value is None:
            packed.append(NONE)
        elif value.tzinfo is UTC and not value.fold:
            packed.append(memo.epoch_us(value))
        else:
            return None
    return PackedRun(code, packed[:7], task_codes, packed[8:], inlets)


class RowSink:
    """Where an ended run's row goes: the run log's resident columns, side tables and
    interning tables, the very objects the log holds.

    Compiled code appends the row (the appends of ``RunLog.freeze`` were
    the largest interpreted part of a run's end). The log makes a new sink whenever
    it binds one of these names to another object (a checkpoint's copy, Back's
    restore); spilling cuts the columns in place, so the sink stays valid."""

    def __init__(self, log: Any) -> None:
        self.dag: array[int] = log._dag
        self.nth: array[int] = log._nth
        self.codes: bytearray = log._codes
        self.times: array[int] = log._times
        self.consumed_end: array[int] = log._consumed_end
        self.consumed: array[int] = log._consumed
        self.task_end: array[int] = log._task_end
        self.task_ids: array[int] = log._task_ids
        self.task_codes: bytearray = log._task_codes
        self.task_times: array[int] = log._task_times
        self.run_ids: dict[int, str] = log._run_ids
        self.own_run_ids: set[int] = log._own_run_ids
        self.partitions: dict[int, tuple[str | None, datetime | None]] = log._partitions
        self.backfills: dict[int, tuple[int | None, int | None]] = log._backfills
        self.inlets: dict[int, tuple[int | None, ...]] = log._inlets
        self.row: array[int] = log._row
        self.row_over: dict[int, int] = log._row_over
        self.live: dict[int, DagRun] = log._live
        self.dag_names: list[str] = log._dag_names
        self.dag_codes: dict[str, int] = log._dag_codes
        self.id_tuples: list[tuple[str, ...]] = log._id_tuples
        self.id_tuple_codes: dict[tuple[str, ...], int] = log._id_tuple_codes

    def put(
        self, run: DagRun, packed: PackedRun, row: int, flat0: int, consumed0: int, id0: int
    ) -> None:
        """Append ``run``'s row (``row``, absolute) packed as ``packed``; the log's first
        resident task instance, consumed id and id are ``flat0``, ``consumed0``, ``id0``.
        The run leaves the live runs."""
        run_id = run.id
        self.dag.append(self.dag_code(run.dag_id))
        self.nth.append(run.nth)
        self.codes.append(packed.code)
        self.times.extend(packed.times)
        consumed = run.consumed_asset_events
        if consumed:
            self.consumed.extend(consumed)
        self.consumed_end.append(consumed0 + len(self.consumed))
        tasks = run.tasks
        first_task = flat0 + len(self.task_codes)
        task_codes = packed.task_codes
        self.task_codes.extend(task_codes)
        if packed.inlets:
            for offset, task in enumerate(tasks):
                if task.inlet_events:
                    self.inlets[first_task + offset] = task.inlet_events
        self.task_times.extend(packed.task_times)
        self.task_end.append(first_task + len(task_codes))
        self.task_ids.append(self.id_tuple_code(tuple([t.task_id for t in tasks])))
        if run_id in self.own_run_ids:
            self.own_run_ids.discard(run_id)
            self.run_ids[row] = run.run_id
        if run.partition_key is not None or run.partition_date is not None:
            self.partitions[row] = (run.partition_key, run.partition_date)
        if run.backfill_id is not None or run.backfill_sort_ordinal is not None:
            self.backfills[row] = (run.backfill_id, run.backfill_sort_ordinal)
        index = run_id - id0
        if index >= 0:
            self.row[index] = row
        else:
            self.row_over[run_id] = row
        del self.live[run_id]

    def dag_code(self, dag_id: str) -> int:
        """``dag_id``'s number in the log (interned: the column keeps numbers)."""
        code = self.dag_codes.get(dag_id)
        if code is None:
            code = self.dag_codes[dag_id] = len(self.dag_names)
            self.dag_names.append(dag_id)
        return code

    def id_tuple_code(self, ids: tuple[str, ...]) -> int:
        """The number of a run's task ids, in order (interned: most DAGs keep theirs)."""
        code = self.id_tuple_codes.get(ids)
        if code is None:
            code = self.id_tuple_codes[ids] = len(self.id_tuples)
            self.id_tuples.append(ids)
        return code
