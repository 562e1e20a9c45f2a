"""The rules a scenario must follow beyond its shape, each problem located.

The schema checks one value at a time; these rules relate values: dates in
order, ids unique and known, the script in time order, the DAG settings
Airflow itself refuses (``@continuous`` with ``max_active_runs > 1``,
``catchup=True`` without a ``start_date``). All problems are collected, not
just the first, so ``explorer validate`` can explain every one.
"""

from __future__ import annotations

from collections.abc import Iterator

from explorer.scenario.errors import JsonPath, ScenarioError
from explorer.scenario.model import (
    AssetEventAction,
    BackfillAction,
    Dag,
    OverrideAction,
    ParseAction,
    PauseAction,
    RunOutcomeAction,
    Scenario,
    ScriptAction,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
)
from explorer.scenario.schedules import ScheduleReading, read_schedule
from explorer.scenario.validate import schema_problems
from explorer.scenario.values import Instant, JsonValue
from explorer.scenario.write import write_scenario

__all__ = ["asset_names_used", "check_scenario", "validate_scenario"]

#: (where, what is wrong), in the order found.
Problems = Iterator[tuple[JsonPath, str]]


def validate_scenario(scenario: Scenario, *, source: str = "<scenario>") -> list[ScenarioError]:
    """Every problem of a model (made in code or edited): its file form first, then the rules.

    Paths point into the file ``dumps_scenario`` would write.
    """
    problems = schema_problems(write_scenario(scenario), source=source)
    return problems or check_scenario(scenario, source=source)


def check_scenario(
    scenario: Scenario, *, source: str, readings: dict[int, ScheduleReading] | None = None
) -> list[ScenarioError]:
    """Every rule violation in a schema-valid scenario, in file order.

    Reading a schedule builds its timetable; pass ``readings`` to keep them
    (by DAG index) rather than build them again.
    """
    kept: dict[int, ScheduleReading] = {} if readings is None else readings
    declared = {asset.name for asset in scenario.assets}
    found = [
        *_check_clock(scenario),
        *_check_assets(scenario),
        *_check_dags(scenario, declared, kept),
        *_check_script(scenario, declared),
    ]
    return [ScenarioError(source, path, message) for path, message in found]


def _check_clock(scenario: Scenario) -> Problems:
    start, until = scenario.clock.start, scenario.clock.until
    if until is not None and until.value < start.value:
        yield ("clock", "until"), f"{until.text} is before clock.start {start.text}"


def _check_assets(scenario: Scenario) -> Problems:
    seen: set[str] = set()
    for index, asset in enumerate(scenario.assets):
        if asset.name in seen:
            yield ("assets", index, "name"), f"asset {asset.name!r} is declared twice"
        seen.add(asset.name)


def _check_dags(
    scenario: Scenario, declared: set[str], readings: dict[int, ScheduleReading]
) -> Problems:
    first_seen: dict[str, int] = {}
    for index, dag in enumerate(scenario.dags):
        path: JsonPath = ("dags", index)
        if dag.dag_id in first_seen:
            first = first_seen[dag.dag_id]
            yield (*path, "dag_id"), f"duplicate dag_id {dag.dag_id!r} (first at $.dags[{first}])"
        first_seen.setdefault(dag.dag_id, index)
        yield from _check_dag(dag, path, declared)
        try:
            readings[index] = read_schedule(
                dag.schedule,
                source="",
                path=(*path, "schedule"),
                dag_timezone=dag.timezone,
                create_cron_data_intervals=scenario.airflow_config.create_cron_data_intervals,
            )
        except ScenarioError as exc:
            yield exc.steps, exc.message
        else:
            yield from _check_timetable(dag, path, readings[index])


def _check_dag(dag: Dag, path: JsonPath, declared: set[str]) -> Problems:
    start, end = dag.start_date, dag.end_date
    if start is not None and end is not None and end.value < start.value:
        yield (*path, "end_date"), f"{end.text} is before start_date {start.text}"
    task_ids: set[str] = set()
    for t, task in enumerate(dag.tasks):
        if task.task_id in task_ids:
            yield (*path, "tasks", t, "task_id"), f"duplicate task_id {task.task_id!r} in this DAG"
        task_ids.add(task.task_id)
        for o, outlet in enumerate(task.outlets):
            yield from _undeclared(outlet, (*path, "tasks", t, "outlets", o), declared)
    yield from _undeclared(dag.schedule, (*path, "schedule"), declared)


def _check_timetable(dag: Dag, path: JsonPath, reading: ScheduleReading) -> Problems:
    """The DAG-level refusals of ``sdk/definitions/dag.py`` (TT-1)."""
    timetable = reading.timetable
    limit = timetable.active_runs_limit
    if limit is not None and dag.max_active_runs > limit:
        default = " (the default is 16)" if dag.max_active_runs == 16 else ""
        message = f"Invalid max_active_runs: {timetable.name} requires max_active_runs <= {limit}"
        yield (*path, "max_active_runs"), f"{message}{default}; set it to {limit}"
    if dag.catchup and timetable.can_be_scheduled and dag.start_date is None:
        message = "start_date is required when catchup=True (Airflow refuses this DAG)"
        yield (*path, "catchup"), f"{message}: add a start_date or set catchup to false"


def _check_script(scenario: Scenario, declared: set[str]) -> Problems:
    dags: dict[str, Dag] = {}
    for dag in scenario.dags:
        dags.setdefault(dag.dag_id, dag)  # a duplicate is reported; the first one counts
    start = scenario.clock.start
    latest: tuple[int, Instant] | None = None  # the latest action so far, by time
    for index, action in enumerate(scenario.script):
        path: JsonPath = ("script", index)
        at = action.at
        if at.value < start.value:
            yield (*path, "at"), f"{at.text} is before clock.start {start.text}"
        elif latest is not None and at.value < latest[1].value:
            before = f"{latest[1].text} ($.script[{latest[0]}])"
            yield (
                (*path, "at"),
                f"script actions must be in time order: {at.text} comes after {before}",
            )
        if latest is None or at.value >= latest[1].value:
            latest = (index, at)
        yield from _check_action(action, path, dags, declared)


def _check_action(
    action: ScriptAction, path: JsonPath, dags: dict[str, Dag], declared: set[str]
) -> Problems:
    match action:
        case ParseAction():
            for i, dag_id in enumerate(action.dag_ids or ()):
                yield from _known_dag(dag_id, (*path, "dag_ids", i), dags)
        case PauseAction() | UnpauseAction() | TriggerAction():
            yield from _known_dag(action.dag_id, (*path, "dag_id"), dags)
        case BackfillAction():
            yield from _known_dag(action.dag_id, (*path, "dag_id"), dags)
            if action.to_date.value < action.from_date.value:
                to, since = action.to_date.text, action.from_date.text
                yield (*path, "to_date"), f"{to} is before from_date {since}"
        case TaskOutcomeAction() | OverrideAction():
            yield from _known_dag(action.run.dag_id, (*path, "run", "dag_id"), dags)
            yield from _known_task(action.task_id, action.run.dag_id, (*path, "task_id"), dags)
            if isinstance(action, OverrideAction) and not (
                action.outcome or action.delay or action.hold
            ):
                yield path, "an override must change something: give outcome, delay or hold: true"
        case RunOutcomeAction():
            yield from _known_dag(action.run.dag_id, (*path, "run", "dag_id"), dags)
        case AssetEventAction():
            yield from _undeclared(action.asset, (*path, "asset"), declared)


def _known_dag(dag_id: str, path: JsonPath, dags: dict[str, Dag]) -> Problems:
    if dag_id not in dags:
        known = f"the DAGs are: {', '.join(dags)}" if dags else "the scenario has no DAGs"
        yield path, f"no DAG with dag_id {dag_id!r}; {known}"


def _known_task(task_id: str | None, dag_id: str, path: JsonPath, dags: dict[str, Dag]) -> Problems:
    dag = dags.get(dag_id)
    if task_id is None or dag is None:
        return
    ids = [t.task_id for t in dag.tasks]
    if task_id not in ids:
        yield (
            path,
            f"DAG {dag_id!r} has no task {task_id!r} (its tasks: {', '.join(ids) or 'none'})",
        )


def _undeclared(node: JsonValue, path: JsonPath, declared: set[str]) -> Problems:
    hint = 'add it to the top-level \'assets\' list or write it out as {"asset": {"name": ...}}'
    for where, name in asset_names_used(node, path):
        if name not in declared:
            yield where, f"asset {name!r} is not declared; {hint}"


def asset_names_used(node: JsonValue, path: JsonPath = ()) -> Iterator[tuple[JsonPath, str]]:
    """Every ``{"asset": "<name>"}`` reference to a declared asset inside ``node``."""
    if isinstance(node, dict):
        target = node.get("asset")
        if isinstance(target, str):
            yield (*path, "asset"), target
        for key, child in node.items():
            if not key.startswith("x-"):
                yield from asset_names_used(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from asset_names_used(child, (*path, index))
