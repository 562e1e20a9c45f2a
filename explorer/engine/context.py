"""What a run's task reads: Airflow 3.3.2's template context per run (adr/0008).

The task SDK 1.3.2's ``RuntimeTaskInstance.get_template_context`` builds it
from the run the execution API sends. What is here is checked against that
code (``benchmarks/check_template_context.py`` runs both side by side):

- keys every run has: ``run_id``, ``dag_run``, ``partition_key``,
  ``partition_date``, ``triggering_asset_events``, ``task_instance_key_str``,
  ``prev_start_date_success``, ``prev_end_date_success`` (None without a
  previous success, and always None for a run without logical date);
- keys only a run with a logical date has (they are **absent**, not None,
  for asset-triggered runs and manual runs triggered without one, so a
  template reading them fails with "'ds' is undefined"): ``logical_date``,
  ``ds``, ``ds_nodash``, ``ts``, ``ts_nodash``, ``ts_nodash_with_tz``,
  ``data_interval_start``, ``data_interval_end``,
  ``prev_data_interval_start_success``, ``prev_data_interval_end_success``;
- dates at the top level are pendulum ``DateTime`` in UTC; the ``dag_run``
  fields are plain aware ``datetime`` (the SDK does not coerce them) and
  ``dag_run.run_type`` is a ``str`` enum that prints as ``DagRunType.SCHEDULED``;
- the previous-success values are those of the run with the greatest
  logical date below this run's whose state is success **when the task
  runs** (the execution API reads the database then): any run type counts.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

import pendulum

from explorer.engine.assets.condition import AssetKey
from explorer.engine.runs import DagRun

if TYPE_CHECKING:
    from explorer.engine.simulation import Simulation

__all__ = [
    "LOGICAL_DATE_KEYS",
    "AssetEventReference",
    "ContextBuilder",
    "DagRunContext",
    "DagRunType",
    "TriggeringAssetEvents",
    "run_contexts",
    "template_context",
]

#: Keys present only when the run has a logical date (task_runner.py, 3.3.2).
LOGICAL_DATE_KEYS = (
    "logical_date",
    "ds",
    "ds_nodash",
    "ts",
    "ts_nodash",
    "ts_nodash_with_tz",
    "data_interval_start",
    "data_interval_end",
    "prev_data_interval_start_success",
    "prev_data_interval_end_success",
)


class DagRunType(str, Enum):  # noqa: UP042 -- a StrEnum would print its value; the SDK's does not
    """The SDK's ``DagRunType``: compares equal to its value, prints as ``DagRunType.X``."""

    BACKFILL = "backfill"
    SCHEDULED = "scheduled"
    MANUAL = "manual"
    ASSET_TRIGGERED = "asset_triggered"


@dataclass(frozen=True, slots=True)
class AssetEventReference:
    """One consumed event as a task sees it (``AssetEventDagRunReferenceResult``)."""

    asset: AssetKey
    extra: Mapping[str, Any]
    source_dag_id: str | None
    source_task_id: str | None
    source_run_id: str | None
    source_map_index: int | None
    source_aliases: tuple[str, ...]
    timestamp: datetime
    partition_key: str | None


class TriggeringAssetEvents(Mapping[Any, Sequence[AssetEventReference]]):
    """``triggering_asset_events``: consumed events by asset (and by alias name)."""

    def __init__(self, events: Sequence[AssetEventReference]) -> None:
        grouped: dict[Any, list[AssetEventReference]] = {}
        for event in events:
            grouped.setdefault(event.asset, []).append(event)
            for alias in event.source_aliases:
                grouped.setdefault(("alias", alias), []).append(event)
        self._events = grouped

    def __getitem__(self, key: Any) -> Sequence[AssetEventReference]:
        if isinstance(key, str):
            # Airflow takes only Asset / AssetAlias / AssetRef objects here.
            raise TypeError(f"Key should be either an asset or an asset alias, not {type(key)}")
        return self._events[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def __str__(self) -> str:
        return f"TriggeringAssetEventAccessor(_events={self._events})"


@dataclass(frozen=True, slots=True)
class DagRunContext:
    """``dag_run`` in the context: the execution API's DagRun (datetimes not coerced)."""

    dag_id: str
    run_id: str
    logical_date: datetime | None
    data_interval_start: datetime | None
    data_interval_end: datetime | None
    run_after: datetime
    start_date: datetime | None
    end_date: datetime | None
    run_type: DagRunType
    state: str
    partition_key: str | None
    partition_date: datetime | None
    conf: Mapping[str, Any] = field(default_factory=dict)
    clear_number: int = 0
    consumed_asset_events: tuple[AssetEventReference, ...] = ()


def _pendulum(value: datetime | None) -> pendulum.DateTime | None:
    """``coerce_datetime``: an aware pendulum DateTime keeping the value's zone."""
    return None if value is None else pendulum.instance(value)


def _state_at(run: DagRun, at: datetime) -> str | None:
    state = None
    for name, when in run.states:
        if when > at:
            break
        state = name
    return state


def _event_reference(sim: Simulation, event_id: int) -> AssetEventReference:
    event = sim.state.assets.events[event_id]
    source = event.source
    task = source.kind == "task"
    return AssetEventReference(
        asset=event.asset,
        extra=dict(event.extra),
        source_dag_id=source.dag_id if task else None,
        source_task_id=source.task_id if task else None,
        source_run_id=source.run_id if task else None,
        source_map_index=-1 if task else None,
        source_aliases=event.via_aliases,
        timestamp=event.timestamp,
        partition_key=event.partition_key,
    )


@dataclass(slots=True)
class _DagIndex:
    """One DAG's runs with a logical date, by logical date, for the previous-success lookup."""

    dates: list[datetime]
    runs: list[DagRun]


def _index(runs: Sequence[DagRun]) -> _DagIndex:
    dated = sorted(
        (r for r in runs if r.logical_date is not None),
        key=lambda r: r.logical_date,  # type: ignore[arg-type, return-value]
    )
    return _DagIndex([r.logical_date for r in dated], dated)  # type: ignore[misc]


def _previous_success(index: _DagIndex, run: DagRun, at: datetime) -> DagRun | None:
    """The run with the greatest logical date below ``run``'s whose state at ``at`` is
    success (``get_previous_successful_dagrun``, execution API)."""
    assert run.logical_date is not None
    position = bisect_left(index.dates, run.logical_date)
    for candidate in reversed(index.runs[:position]):
        if _state_at(candidate, at) == "success":
            return candidate
    return None


def template_context(
    sim: Simulation,
    run: DagRun,
    *,
    task_id: str | None = None,
    at: datetime | None = None,
    index: _DagIndex | None = None,
) -> dict[str, Any]:
    """The context of ``run``'s task ``task_id`` (default: the first task) when it runs.

    ``at``: when the task renders its templates (default: when the task started,
    else the run's start, else the simulation clock): the previous-success values
    are read then.
    """
    tasks = run.tasks
    task = next((t for t in tasks if task_id is None or t.task_id == task_id), None)
    name = task.task_id if task is not None else (task_id or "task")
    when = at or (task.start_date if task is not None else None) or run.start_date or sim.now
    consumed = tuple(_event_reference(sim, i) for i in run.consumed_asset_events)
    interval = run.data_interval
    dag_run = DagRunContext(
        dag_id=run.dag_id,
        run_id=run.run_id,
        logical_date=run.logical_date,
        data_interval_start=interval.start if interval else None,
        data_interval_end=interval.end if interval else None,
        run_after=run.run_after,
        start_date=run.start_date,
        end_date=run.end_date,
        run_type=DagRunType(run.run_type),
        state=run.state,
        partition_key=run.partition_key,
        partition_date=run.partition_date,
        consumed_asset_events=consumed,
    )
    index = index or _index(sim.dags[run.dag_id].runs)
    previous = None if run.logical_date is None else _previous_success(index, run, when)
    context: dict[str, Any] = {
        "run_id": run.run_id,
        "dag_run": dag_run,
        "partition_key": run.partition_key,
        "partition_date": _pendulum(run.partition_date),
        "triggering_asset_events": TriggeringAssetEvents(consumed),
        "task_instance_key_str": f"{run.dag_id}__{name}__{run.run_id}",
        "task_reschedule_count": 0,
        "prev_start_date_success": _pendulum(previous.start_date if previous else None),
        "prev_end_date_success": _pendulum(previous.end_date if previous else None),
        "params": {},
    }
    logical = _pendulum(run.logical_date)
    if logical is not None:
        ds = logical.strftime("%Y-%m-%d")
        ts = logical.isoformat()
        prev_interval = previous.data_interval if previous else None
        context.update(
            {
                "logical_date": logical,
                "ds": ds,
                "ds_nodash": ds.replace("-", ""),
                "task_instance_key_str": f"{run.dag_id}__{name}__{ds.replace('-', '')}",
                "ts": ts,
                "ts_nodash": logical.strftime("%Y%m%dT%H%M%S"),
                "ts_nodash_with_tz": ts.replace("-", "").replace(":", ""),
                "data_interval_start": _pendulum(interval.start if interval else None),
                "data_interval_end": _pendulum(interval.end if interval else None),
                "prev_data_interval_start_success": _pendulum(
                    prev_interval.start if prev_interval else None
                ),
                "prev_data_interval_end_success": _pendulum(
                    prev_interval.end if prev_interval else None
                ),
            }
        )
    return context


class ContextBuilder:
    """Contexts of many runs of one simulation state, sharing one index per DAG.

    Build a new one after the simulation moves (runs end, new runs appear).
    """

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self._indexes: dict[str, _DagIndex] = {}

    def context(self, run: DagRun) -> dict[str, Any]:
        index = self._indexes.get(run.dag_id)
        if index is None:
            index = self._indexes[run.dag_id] = _index(self.sim.dags[run.dag_id].runs)
        return template_context(self.sim, run, index=index)


def run_contexts(sim: Simulation, runs: Sequence[DagRun]) -> list[dict[str, Any]]:
    """:func:`template_context` of each run, sharing one index per DAG."""
    builder = ContextBuilder(sim)
    return [builder.context(run) for run in runs]
