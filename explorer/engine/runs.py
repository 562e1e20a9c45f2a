"""DAG runs and their task instances as the simulation keeps them (``models/dagrun.py``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from datetime import datetime
from operator import attrgetter
from typing import Any, Literal

from explorer.engine.dag import TaskOutcome
from explorer.engine.types import DataInterval

__all__ = [
    "DagRun",
    "RunState",
    "RunType",
    "TaskInstance",
    "TriggeredBy",
    "random_suffix",
    "standard_run_id",
]

RunType = Literal["scheduled", "manual", "asset_triggered", "backfill"]
RunState = Literal["queued", "running", "success", "failed"]
TriggeredBy = Literal["timetable", "rest_api", "asset", "backfill"]

ACTIVE_STATES = ("queued", "running")


@dataclass(slots=True, init=False)
class TaskInstance:
    """One task of one run. ``finish_at`` None: not started, or held for the script.

    Its ``__init__`` is written out: a compiled dataclass otherwise keeps the generated
    one, interpreted, and every run makes one of these per task."""

    task_id: str
    outcome: TaskOutcome
    state: Literal["none", "running", "success", "failed"] = "none"
    start_date: datetime | None = None
    finish_at: datetime | None = None
    end_date: datetime | None = None
    held: bool = False
    #: Per inlet, the id of the latest event of that asset when the task started.
    inlet_events: tuple[int | None, ...] = ()

    def __init__(
        self,
        task_id: str,
        outcome: TaskOutcome,
        state: Literal["none", "running", "success", "failed"] = "none",
        start_date: datetime | None = None,
        finish_at: datetime | None = None,
        end_date: datetime | None = None,
        held: bool = False,
        inlet_events: tuple[int | None, ...] = (),
    ) -> None:
        self.task_id = task_id
        self.outcome = outcome
        self.state = state
        self.start_date = start_date
        self.finish_at = finish_at
        self.end_date = end_date
        self.held = held
        self.inlet_events = inlet_events

    @property
    def finished(self) -> bool:
        return self.state in ("success", "failed")


@dataclass(slots=True, init=False)
class DagRun:
    """A run with Airflow's field names; ``states`` lists every change with its instant.

    ``run_id`` may be given as ``None``: the standard id (TT-21,
    :func:`standard_run_id`) is then built the first time it is read. The scheduler
    never reads it (runs are keyed by DAG and ``nth``), so the loop does not pay for
    formatting an id per run; the record reads it once.
    """

    dag_id: str
    nth: int
    #: The run_id as given, or None until :attr:`run_id` derives the standard one.
    _run_id: str | None = field(compare=False, repr=False)
    run_type: RunType
    triggered_by: TriggeredBy
    logical_date: datetime | None
    data_interval: DataInterval | None
    run_after: datetime
    created_at: datetime
    partition_key: str | None = None
    partition_date: datetime | None = None
    state: RunState = "queued"
    start_date: datetime | None = None
    end_date: datetime | None = None
    tasks: list[TaskInstance] = field(default_factory=list)
    backfill_id: int | None = None
    backfill_sort_ordinal: int | None = None
    #: Ids of the asset events the run consumed (``triggering_asset_events``, AS-5).
    consumed_asset_events: tuple[int, ...] = ()
    #: Every state change, kept only once a run leaves the usual queued → running →
    #: success/failed path (a backfill re-queues it); otherwise derived from the dates,
    #: which keeps a year of a thousand DAGs in memory.
    history: list[tuple[RunState, datetime]] | None = None
    #: Position in the simulation's run log (Airflow's autoincrement ``dag_run.id``);
    #: -1 until the log takes the run.
    id: int = -1
    #: When a scheduler loop last examined the running run (step 5's rotation, RND-6).
    last_scheduling_decision: datetime | None = None

    def __init__(
        self,
        dag_id: str,
        nth: int,
        run_id: str | None,
        run_type: RunType,
        triggered_by: TriggeredBy,
        logical_date: datetime | None,
        data_interval: DataInterval | None,
        run_after: datetime,
        created_at: datetime,
        partition_key: str | None = None,
        partition_date: datetime | None = None,
        state: RunState = "queued",
        start_date: datetime | None = None,
        end_date: datetime | None = None,
        tasks: list[TaskInstance] | None = None,
        backfill_id: int | None = None,
        backfill_sort_ordinal: int | None = None,
        consumed_asset_events: tuple[int, ...] = (),
        history: list[tuple[RunState, datetime]] | None = None,
        id: int = -1,
        last_scheduling_decision: datetime | None = None,
    ) -> None:
        self.dag_id = dag_id
        self.nth = nth
        self._run_id = run_id
        self.run_type = run_type
        self.triggered_by = triggered_by
        self.logical_date = logical_date
        self.data_interval = data_interval
        self.run_after = run_after
        self.created_at = created_at
        self.partition_key = partition_key
        self.partition_date = partition_date
        self.state = state
        self.start_date = start_date
        self.end_date = end_date
        self.tasks = [] if tasks is None else tasks
        self.backfill_id = backfill_id
        self.backfill_sort_ordinal = backfill_sort_ordinal
        self.consumed_asset_events = consumed_asset_events
        self.history = history
        self.id = id
        self.last_scheduling_decision = last_scheduling_decision

    @property
    def run_id(self) -> str:
        """TT-21's id: as given, or the standard one (run_type and run_after never change)."""
        run_id = self._run_id
        if run_id is None:
            run_id = self._run_id = standard_run_id(
                self.run_type, self.run_after, self.dag_id, self.nth
            )
        return run_id

    @run_id.setter
    def run_id(self, value: str) -> None:
        self._run_id = value

    def __eq__(self, other: object) -> bool:
        """Field by field, the run_id as read (given or derived alike)."""
        if other.__class__ is not DagRun:
            return NotImplemented
        assert isinstance(other, DagRun)
        return self.run_id == other.run_id and _compared(self) == _compared(other)

    # No __hash__: mutable, compared by value (defining __eq__ makes a class unhashable;
    # an explicit ``__hash__ = None`` would be a field of the compiled class, adr/0013).

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _SHOWN)
        return f"DagRun({shown})"

    def __deepcopy__(self, memo: dict[int, Any]) -> DagRun:
        """A checkpoint's copy of a live run: its fields are immutable values (strings,
        instants, tuples) replaced, never changed in place, except the task instances and
        the state history, which are copied. The generic ``deepcopy`` rebuilt every
        instant: half a millisecond a run, paid for every live run at every checkpoint.
        Built by the constructor, every field named: a run compiled by mypyc (adr/0013)
        has no ``__new__`` that skips ``__init__``."""
        out = DagRun(
            self.dag_id,
            self.nth,
            self._run_id,
            self.run_type,
            self.triggered_by,
            self.logical_date,
            self.data_interval,
            self.run_after,
            self.created_at,
            self.partition_key,
            self.partition_date,
            self.state,
            self.start_date,
            self.end_date,
            [
                TaskInstance(
                    t.task_id,
                    t.outcome,
                    t.state,
                    t.start_date,
                    t.finish_at,
                    t.end_date,
                    t.held,
                    t.inlet_events,
                )
                for t in self.tasks
            ],
            self.backfill_id,
            self.backfill_sort_ordinal,
            self.consumed_asset_events,
            None if self.history is None else list(self.history),
            self.id,
            self.last_scheduling_decision,
        )
        memo[id(self)] = out
        return out

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def states(self) -> list[tuple[RunState, datetime]]:
        """Each change with its instant: queued at creation, running, the final state."""
        if self.history is not None:
            return list(self.history)
        out: list[tuple[RunState, datetime]] = [("queued", self.created_at)]
        if self.start_date is not None:
            out.append(("running", self.start_date))
        if self.end_date is not None and self.state in ("success", "failed"):
            out.append((self.state, self.end_date))
        return out

    def set_state(self, state: RunState, at: datetime) -> None:
        if self.history is not None:
            self.history.append((state, at))
        self.state = state
        if state == "running" and self.start_date is None:
            self.start_date = at
        if state in ("success", "failed"):
            self.end_date = at

    def requeue(self, at: datetime) -> None:
        """A finished run is cleared and queued again (a backfill's reprocess)."""
        self.history = self.states
        self.start_date = None
        self.end_date = None
        self.set_state("queued", at)


#: The fields two runs are compared by besides run_id, and the ones a repr shows.
_compared = attrgetter(*(f.name for f in fields(DagRun) if f.compare))
_SHOWN = ("dag_id", "nth", "run_id", *(f.name for f in fields(DagRun)[3:] if f.repr))


def random_suffix(*parts: object, length: int = 8) -> str:
    """Airflow's random run-id tail, made deterministic: same scenario, same ids.

    Airflow draws ``length`` random letters and digits (TT-21); the simulator
    derives them from the run's identity so that records are reproducible.
    """
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    # byte b -> _ALPHABET[b % 62], one C call instead of a generator step per letter
    return digest[:length].translate(_SUFFIX_LETTERS).decode("ascii")


_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#: The translation table of :func:`random_suffix`: every byte to its letter.
_SUFFIX_LETTERS = bytes(ord(_ALPHABET[b % len(_ALPHABET)]) for b in range(256))


def standard_run_id(run_type: str, run_after: datetime, dag_id: str, nth: int) -> str:
    """TT-21: ``{run_type}__{run_after}``; an asset-triggered run adds the random tail.

    The one formula both the scheduler (naming a new run) and the run log (naming a
    packed run again) use; a CronPartition DAG's ids differ and are kept as written.
    """
    stamp = run_after.isoformat()
    if run_type == "asset_triggered":
        return f"{run_type}__{stamp}_{random_suffix(dag_id, nth)}"
    return f"{run_type}__{stamp}"
