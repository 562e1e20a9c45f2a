"""From a scenario model to the values the engine runs on.

This is the only place where the file's vocabulary meets the engine's types:
schedules become timetables (through the engine's factory, TT-1), tasks
become ``TaskSpec``, script actions become the engine's action dataclasses,
instants become aware UTC datetimes. The model is checked first (schema and
rules), so a scenario edited in code fails here exactly as a file would fail
on load; any refusal of an engine constructor comes out as a located
:class:`ScenarioError`.

What the engine does not simulate yet (asset-driven schedules, external asset
events) is kept, never dropped: such schedules run as Airflow's
``AssetTriggeredTimetable``, such actions go to ``EngineInputs.unsupported``,
and both are named in ``warnings``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from explorer.engine.actions import (
    Action,
    Backfill,
    Deploy,
    Override,
    Pause,
    RunOutcome,
    RunSelector,
    TaskFinish,
    Trigger,
    Unpause,
)
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.errors import EngineError
from explorer.engine.tz import get_zone
from explorer.scenario.checks import check_scenario
from explorer.scenario.errors import JsonPath, ScenarioError, raise_problems, render_path
from explorer.scenario.model import (
    AssetDecl,
    AssetEventAction,
    BackfillAction,
    Dag,
    OverrideAction,
    ParseAction,
    PauseAction,
    RunOutcomeAction,
    RunSelectorModel,
    Scenario,
    ScriptAction,
    Task,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
)
from explorer.scenario.schedules import ScheduleReading
from explorer.scenario.validate import schema_problems
from explorer.scenario.values import Instant, JsonValue
from explorer.scenario.write import write_scenario

__all__ = ["EngineInputs", "UnsupportedAction", "build_engine_inputs"]


@dataclass(frozen=True, slots=True)
class UnsupportedAction:
    """A script action kept in the file that this engine version does not simulate."""

    path: str
    action: ScriptAction
    reason: str


@dataclass(frozen=True, slots=True)
class EngineInputs:
    """Everything the simulation needs, in engine types (instants aware, in UTC)."""

    dags: tuple[DagSpec, ...]
    script: tuple[Action, ...]
    start: datetime
    until: datetime | None
    loop_interval: timedelta
    parse_interval: timedelta | None
    warnings: list[str] = field(default_factory=list)
    unsupported: tuple[UnsupportedAction, ...] = ()


def build_engine_inputs(scenario: Scenario, *, source: str = "<scenario>") -> EngineInputs:
    """Check ``scenario`` and convert it; refusals are located :class:`ScenarioError`."""
    raise_problems(schema_problems(write_scenario(scenario), source=source))
    readings: dict[int, ScheduleReading] = {}
    raise_problems(check_scenario(scenario, source=source, readings=readings))
    warnings: list[str] = []
    declared = {asset.name: asset for asset in scenario.assets}
    dags = tuple(
        _dag_spec(dag, ("dags", i), readings[i], declared, source, warnings)
        for i, dag in enumerate(scenario.dags)
    )
    if any(task.outlets for dag in scenario.dags for task in dag.tasks):
        warnings.append("$.dags: task outlets are kept, but asset events are not simulated yet")
    script: list[Action] = []
    unsupported: list[UnsupportedAction] = []
    until = scenario.clock.until
    for index, action in enumerate(scenario.script):
        where = render_path(("script", index))
        if until is not None and action.at.value > until.value:
            warnings.append(f"{where}: at {action.at.text} is after clock.until: it never happens")
        converted = _action(action)
        if converted is None:
            reason = "external asset events are not simulated yet; the action is kept in the file"
            unsupported.append(UnsupportedAction(where, action, reason))
            warnings.append(f"{where}: {reason}")
        else:
            script.append(converted)
    settings = scenario.scheduler
    return EngineInputs(
        dags=dags,
        script=tuple(script),
        start=scenario.clock.start.value,
        until=None if until is None else until.value,
        loop_interval=settings.loop_interval.value,
        parse_interval=None if settings.parse_interval is None else settings.parse_interval.value,
        warnings=warnings,
        unsupported=tuple(unsupported),
    )


def _dag_spec(
    dag: Dag,
    path: JsonPath,
    reading: ScheduleReading,
    declared: dict[str, AssetDecl],
    source: str,
    warnings: list[str],
) -> DagSpec:
    warnings.extend(f"{render_path((*path, 'schedule'))}: {note}" for note in reading.notes)
    warnings.extend(_zone_mismatch(dag, path))
    try:
        return DagSpec(
            dag_id=dag.dag_id,
            timetable=reading.timetable,
            start_date=_utc(dag.start_date),
            end_date=_utc(dag.end_date),
            timezone=dag.timezone,
            catchup=dag.catchup,
            max_active_runs=dag.max_active_runs,
            is_paused_upon_creation=dag.is_paused_upon_creation,
            tasks=tuple(_task_spec(task, declared) for task in dag.tasks),
        )
    except EngineError as exc:
        raise ScenarioError(source, path, str(exc)) from exc


def _task_spec(task: Task, declared: dict[str, AssetDecl]) -> TaskSpec:
    return TaskSpec(
        task_id=task.task_id,
        duration=task.duration.value,
        outcome=task.outcome,
        outlets=tuple(_resolve_asset(node, declared) for node in task.outlets),
    )


def _resolve_asset(node: JsonValue, declared: dict[str, AssetDecl]) -> JsonValue:
    """``{"asset": "<name>"}`` -> ``{"asset": {name, uri, ...}}`` from the declaration."""
    if not isinstance(node, dict) or not isinstance(node.get("asset"), str):
        return node
    decl = declared[str(node["asset"])]
    fields: dict[str, JsonValue] = {"name": decl.name}
    for key, value in (("uri", decl.uri), ("group", decl.group), ("extra", decl.extra)):
        if value is not None:
            fields[key] = value
    return {**node, "asset": fields}


def _zone_mismatch(dag: Dag, path: JsonPath) -> list[str]:
    """Warn when start_date is written in a local offset that is not the DAG's zone's.

    Airflow takes a DAG's zone from a zone-aware start_date (TT-1); a file that
    writes ``-05:00`` but leaves ``timezone`` at UTC probably meant New York.
    """
    if dag.start_date is None:
        return []
    written = _written_offset(dag.start_date)
    actual = dag.start_date.value.astimezone(get_zone(dag.timezone)).utcoffset()
    if written in (None, timedelta(0)) or written == actual:
        return []
    return [
        f"{render_path((*path, 'start_date'))}: written with offset {_offset(written)} but "
        f"timezone is {dag.timezone!r}: cron schedules are read in {dag.timezone}"
    ]


def _offset(value: timedelta) -> str:
    sign = "-" if value < timedelta(0) else "+"
    minutes = abs(int(value.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _written_offset(instant: Instant) -> timedelta | None:
    """The UTC offset the instant's text was written with (``fromisoformat`` keeps it)."""
    return datetime.fromisoformat(instant.text.replace("Z", "+00:00")).utcoffset()


def _utc(instant: Instant | None) -> datetime | None:
    return None if instant is None else instant.value


def _selector(run: RunSelectorModel) -> RunSelector:
    return RunSelector(
        dag_id=run.dag_id,
        nth=run.nth,
        logical_date=_utc(run.logical_date),
        partition_key=run.partition_key,
        next=run.next,
    )


def _action(action: ScriptAction) -> Action | None:
    """The engine's action for ``action``; None for kinds not simulated yet."""
    at = action.at.value
    match action:
        case ParseAction():
            return Deploy(at, action.dag_ids)
        case PauseAction():
            return Pause(at, action.dag_id)
        case UnpauseAction():
            return Unpause(at, action.dag_id)
        case TriggerAction():
            return Trigger(at, action.dag_id, _utc(action.logical_date), action.partition_key)
        case TaskOutcomeAction():
            return TaskFinish(at, _selector(action.run), action.task_id, action.outcome)
        case RunOutcomeAction():
            return RunOutcome(at, _selector(action.run), action.outcome)
        case OverrideAction():
            delay = timedelta(0) if action.delay is None else action.delay.value
            return Override(
                at, _selector(action.run), action.task_id, action.outcome, delay, action.hold
            )
        case BackfillAction():
            return Backfill(
                at,
                action.dag_id,
                action.from_date.value,
                action.to_date.value,
                action.reprocess_behavior,
                action.max_active_runs,
                action.run_backwards,
            )
        case AssetEventAction():
            return None
