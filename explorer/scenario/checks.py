"""The rules a scenario must follow beyond its shape, each problem located.

The schema checks one value at a time; these rules relate values: dates in
order, ids unique and known, the script in time order, the DAG settings
Airflow itself refuses (``@continuous`` with ``max_active_runs > 1``,
``catchup=True`` without a ``start_date``), assets: names that are not
declared, identities Airflow refuses (URI-4), an external event on an asset
the deployment does not have (Airflow's 404); partitions: keys Airflow
refuses (blank, longer than 250 characters), a manual run with a key for a
DAG that is not partitioned (``DagNotPartitionedError``, PT-17) or with a
key its timetable cannot read; watchers: names told apart, a positive poll
interval. All problems are collected, not just the first, so
``explorer validate`` can explain every one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta

from explorer.engine.assets.condition import AssetKey
from explorer.engine.errors import EngineError
from explorer.engine.timetables import Timetable
from explorer.scenario.asset_dags import asset_dag_problems, expand
from explorer.scenario.assets import (
    AssetCatalog,
    declared_names,
    known_assets,
    unknown_asset_message,
)
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean, render_path
from explorer.scenario.model import (
    AirflowConfig,
    AliasEvent,
    AssetEventAction,
    BackfillAction,
    Dag,
    DeployAction,
    OverrideAction,
    ParseAction,
    PauseAction,
    RemoveDagAction,
    RunOutcomeAction,
    Scenario,
    ScriptAction,
    SetOptionAction,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
)
from explorer.scenario.options import (
    effective_catchup,
    effective_max_active_runs,
    find_option,
)
from explorer.scenario.schedules import ScheduleReading, read_schedule
from explorer.scenario.validate import schema_problems
from explorer.scenario.values import Instant, JsonValue
from explorer.scenario.write import write_scenario

__all__ = [
    "MAX_PARTITION_KEY_LENGTH",
    "asset_names_used",
    "check_scenario",
    "partition_key_problems",
    "validate_scenario",
]

#: Airflow refuses longer partition keys (PT-1, PT-17).
MAX_PARTITION_KEY_LENGTH = 250

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
    written = scenario
    scenario, back = expand(written)
    catalog = AssetCatalog(scenario.assets)
    found = [
        *_check_clock(scenario),
        *_check_assets(scenario, catalog),
        *_check_dags(scenario, catalog, kept),
        *_check_script(scenario, catalog, _timetables(scenario, kept)),
    ]
    first_expanded = len(written.dags)
    found = [
        (back(path), message)
        for path, message in found
        # a repeated dag_id of an @asset DAG is reported by asset_dag_problems
        if not (
            path[0] == "dags"
            and isinstance(path[1], int)
            and path[1] >= first_expanded
            and path[2:] == ("dag_id",)
        )
    ]
    found.extend(asset_dag_problems(written))
    return [ScenarioError(source, path, message) for path, message in found]


#: The shortest loop or parse interval: the simulation steps its grid by it, and a
#: grid finer than a millisecond only fills memory.
SHORTEST_INTERVAL = timedelta(milliseconds=1)


def _check_clock(scenario: Scenario) -> Problems:
    start, until = scenario.clock.start, scenario.clock.until
    if until is not None and until.value < start.value:
        yield ("clock", "until"), f"{until.text} is before clock.start {start.text}"
    settings = scenario.scheduler
    for key, interval in (
        ("loop_interval", settings.loop_interval),
        ("parse_interval", settings.parse_interval),
    ):
        if interval is not None and interval.value < SHORTEST_INTERVAL:
            yield (
                ("scheduler", key),
                (f"{interval.text} is too short: a {key} of at least PT0.001S is allowed"),
            )


def _timetables(scenario: Scenario, readings: dict[int, ScheduleReading]) -> dict[str, Timetable]:
    """The timetable of each DAG whose schedule was read (the first of a dag_id counts)."""
    out: dict[str, Timetable] = {}
    for index, dag in enumerate(scenario.dags):
        if index in readings:
            out.setdefault(dag.dag_id, readings[index].timetable)
    return out


def partition_key_problems(key: str, path: JsonPath) -> Problems:
    """A key Airflow refuses: blank or longer than 250 characters (PT-1, PT-17)."""
    if not key.strip():
        yield path, "a partition key must not be empty or only whitespace (Airflow refuses it)"
    elif len(key) > MAX_PARTITION_KEY_LENGTH:
        yield (
            path,
            f"a partition key has at most {MAX_PARTITION_KEY_LENGTH} characters (Airflow refuses "
            f"longer ones); this one has {len(key)}",
        )


def _check_keys(keys: tuple[str, ...] | None, path: JsonPath) -> Problems:
    for index, key in enumerate(keys or ()):
        yield from partition_key_problems(key, (*path, index))


def _check_assets(scenario: Scenario, catalog: AssetCatalog) -> Problems:
    """Names declared once; identities Airflow accepts (two that clash are allowed: URI-6);
    watchers with names of their own and a positive poll interval."""
    seen: set[str] = set()
    watchers: dict[str, JsonPath] = {}
    for index, asset in enumerate(scenario.assets):
        if asset.name in seen:
            yield ("assets", index, "name"), f"asset {asset.name!r} is declared twice"
        seen.add(asset.name)
        if index in catalog.problems:
            yield catalog.problems[index]
        for w, watcher in enumerate(asset.watchers):
            path: JsonPath = ("assets", index, "watchers", w)
            if watcher.name in watchers:
                first = render_path(watchers[watcher.name])
                yield (
                    (*path, "name"),
                    f"watcher name {watcher.name!r} is used twice (first at {first}): the "
                    "simulation tells watchers apart by name, so give each its own",
                )
            watchers.setdefault(watcher.name, path)
            if watcher.poll_interval.value <= timedelta(0):
                yield (*path, "poll_interval"), "a watcher's poll_interval must be positive"


def _check_dags(
    scenario: Scenario, catalog: AssetCatalog, readings: dict[int, ScheduleReading]
) -> Problems:
    first_seen: dict[str, int] = {}
    for index, dag in enumerate(scenario.dags):
        path: JsonPath = ("dags", index)
        if dag.dag_id in first_seen:
            first = first_seen[dag.dag_id]
            yield (*path, "dag_id"), f"duplicate dag_id {dag.dag_id!r} (first at $.dags[{first}])"
        first_seen.setdefault(dag.dag_id, index)
        found, reading = _dag_findings(dag, index, scenario, catalog)
        yield from found
        if reading is not None:
            readings[index] = reading


#: The findings and schedule reading of each DAG checked lately, by the DAG's identity:
#: checked again only when the DAG, its place, the declared assets or the Airflow options
#: are other objects (the model is immutable, and an edit keeps every part it does not
#: change; findings and the reading's warnings name the DAG's place).
#: The GUI checks the whole scenario after each edit of one DAG; reading every schedule
#: again built every timetable again. Oldest entries go first beyond the limit.
_DAG_MEMO: dict[
    tuple[int, int], tuple[Dag, object, object, list[tuple[JsonPath, str]], ScheduleReading | None]
]
_DAG_MEMO = {}
_DAG_MEMO_LIMIT = 8192


def _dag_findings(
    dag: Dag, index: int, scenario: Scenario, catalog: AssetCatalog
) -> tuple[list[tuple[JsonPath, str]], ScheduleReading | None]:
    """The findings of the DAG at ``$.dags[index]`` and its schedule's reading."""
    known = _DAG_MEMO.get((id(dag), index))
    if (
        known is not None
        and known[0] is dag
        and known[1] is scenario.assets
        and known[2] is scenario.airflow_config
    ):
        return known[3], known[4]
    found: list[tuple[JsonPath, str]] = []
    reading = None
    here: JsonPath = ("dags", index)
    found.extend(_check_dag(dag, here, catalog))
    undeclared = list(_undeclared(dag.schedule, (*here, "schedule"), catalog))
    found.extend(undeclared)
    if not undeclared and not catalog.names_broken(dag.schedule):
        # otherwise reported here or at the declaration: reading would only repeat it
        try:
            reading = read_schedule(
                dag.schedule,
                source="",
                path=(*here, "schedule"),
                dag_timezone=dag.timezone,
                create_cron_data_intervals=scenario.airflow_config.create_cron_data_intervals,
                assets=catalog,
            )
        except ScenarioError as exc:
            found.append((exc.steps, exc.message))
        else:
            found.extend(_check_timetable(dag, here, reading, scenario.airflow_config))
    if len(_DAG_MEMO) >= _DAG_MEMO_LIMIT:
        for key in list(_DAG_MEMO)[: _DAG_MEMO_LIMIT // 2]:
            _DAG_MEMO.pop(key, None)  # (a file opening in the background checks too)
    _DAG_MEMO[(id(dag), index)] = (dag, scenario.assets, scenario.airflow_config, found, reading)
    return found, reading


def _check_dag(dag: Dag, path: JsonPath, catalog: AssetCatalog) -> Problems:
    start, end = dag.start_date, dag.end_date
    if start is not None and end is not None and end.value < start.value:
        yield (*path, "end_date"), f"{end.text} is before start_date {start.text}"
    task_ids: set[str] = set()
    for t, task in enumerate(dag.tasks):
        task_path: JsonPath = (*path, "tasks", t)
        if task.task_id in task_ids:
            yield (*task_path, "task_id"), f"duplicate task_id {task.task_id!r} in this DAG"
        task_ids.add(task.task_id)
        yield from _check_keys(task.partition_keys, (*task_path, "partition_keys"))
        for i, inlet in enumerate(task.inlets):
            yield from _check_node(inlet, (*task_path, "inlets", i), catalog)
        for o, outlet in enumerate(task.outlets):
            yield from _check_node(outlet, (*task_path, "outlets", o), catalog)
        yield from _check_alias_events(task.alias_events, (*task_path, "alias_events"), catalog)


def _check_node(node: JsonValue, path: JsonPath, catalog: AssetCatalog) -> Problems:
    """An outlet: declared names only, and an identity Airflow accepts (URI-4)."""
    undeclared = list(_undeclared(node, path, catalog))
    yield from undeclared
    if undeclared or catalog.names_broken(node):
        return
    try:
        catalog.outlet(node, path)
    except ScenarioError as exc:
        yield exc.steps, exc.message


def _check_alias_events(
    events: tuple[AliasEvent, ...], path: JsonPath, catalog: AssetCatalog
) -> Problems:
    for index, event in enumerate(events):
        where = (*path, index, "asset")
        undeclared = list(_undeclared(event.asset, where, catalog))
        yield from undeclared
        if undeclared or catalog.names_broken(event.asset):
            continue
        try:
            catalog.asset(event.asset, where, what="an alias event")
        except ScenarioError as exc:
            yield exc.steps, exc.message


def _check_timetable(
    dag: Dag, path: JsonPath, reading: ScheduleReading, config: AirflowConfig
) -> Problems:
    """The DAG-level refusals of ``sdk/definitions/dag.py`` (TT-1), on the values a parse
    with the scenario's options reads (an unset field takes the option, DEP-7)."""
    timetable = reading.timetable
    limit = timetable.active_runs_limit
    max_active_runs = effective_max_active_runs(dag.max_active_runs, config)
    if limit is not None and max_active_runs > limit:
        default = (
            "" if dag.max_active_runs is not None else (f" (the default is {max_active_runs})")
        )
        message = f"Invalid max_active_runs: {timetable.name} requires max_active_runs <= {limit}"
        yield (*path, "max_active_runs"), f"{message}{default}; set it to {limit}"
    catchup = effective_catchup(dag.catchup, config)
    if catchup and timetable.can_be_scheduled and dag.start_date is None:
        message = "start_date is required when catchup=True (Airflow refuses this DAG)"
        yield (*path, "catchup"), f"{message}: add a start_date or set catchup to false"


def _check_script(
    scenario: Scenario, catalog: AssetCatalog, tables: dict[str, Timetable]
) -> Problems:
    dags: dict[str, Dag] = {}
    for dag in scenario.dags:
        dags.setdefault(dag.dag_id, dag)  # a duplicate is reported; the first one counts
    start = scenario.clock.start
    has_events = any(isinstance(a, AssetEventAction) for a in scenario.script)
    known = known_assets(scenario, catalog) if has_events else {}
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
        if isinstance(action, AssetEventAction):
            yield from _check_asset_event(action, path, catalog, known)
        elif isinstance(action, DeployAction | SetOptionAction):
            yield from _check_deployment(action, path, scenario.airflow_config, catalog)
            if isinstance(action, DeployAction):
                # later actions name the DAG as this file defines it (README 7.9); runs
                # made before keep their tasks, so the earlier task ids stay known too
                dags[action.dag.dag_id] = _with_earlier_tasks(action.dag, dags)
        else:
            yield from _check_action(action, path, dags, catalog)
        if isinstance(action, TriggerAction) and action.partition_key is not None:
            yield from _check_trigger_key(action, (*path, "partition_key"), tables)


def _check_action(
    action: ScriptAction, path: JsonPath, dags: dict[str, Dag], catalog: AssetCatalog
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
            if isinstance(action, TaskOutcomeAction):
                yield from _check_keys(action.partition_keys, (*path, "partition_keys"))
            if isinstance(action, TaskOutcomeAction) and action.alias_events:
                where = (*path, "alias_events")
                yield from _check_alias_events(action.alias_events, where, catalog)
        case RunOutcomeAction():
            yield from _known_dag(action.run.dag_id, (*path, "run", "dag_id"), dags)
        case RemoveDagAction():
            yield from _known_dag(action.dag_id, (*path, "dag_id"), dags)


def _with_earlier_tasks(dag: Dag, dags: dict[str, Dag]) -> Dag:
    earlier = dags.get(dag.dag_id)
    if earlier is None:
        return dag
    ids = {t.task_id for t in dag.tasks}
    kept = tuple(t for t in earlier.tasks if t.task_id not in ids)
    return dataclasses.replace(dag, tasks=(*dag.tasks, *kept))


def _check_deployment(
    action: DeployAction | SetOptionAction,
    path: JsonPath,
    config: AirflowConfig,
    catalog: AssetCatalog,
) -> Problems:
    """A deployed DAG is checked as a DAG of ``dags`` is (DEP-1); an option's value as
    ``airflow.cfg`` takes it (DEP-7)."""
    if isinstance(action, SetOptionAction):
        try:
            option = find_option(action.section, action.key)
        except KeyError as exc:
            yield (*path, "key"), str(exc.args[0])
            return
        value = action.value
        if option.type is bool and not isinstance(value, bool):
            yield (*path, "value"), f"[{option.section}] {option.key} takes true or false"
        elif option.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            yield (*path, "value"), f"[{option.section}] {option.key} takes a whole number"
        elif option.minimum is not None and isinstance(value, int) and value < option.minimum:
            yield (
                (*path, "value"),
                (f"[{option.section}] {option.key} must be at least {option.minimum}"),
            )
        return
    dag = action.dag
    where: JsonPath = (*path, "dag")
    yield from _check_dag(dag, where, catalog)
    undeclared = list(_undeclared(dag.schedule, (*where, "schedule"), catalog))
    yield from undeclared
    if undeclared or catalog.names_broken(dag.schedule):
        return
    try:
        reading = read_schedule(
            dag.schedule,
            source="",
            path=(*where, "schedule"),
            dag_timezone=dag.timezone,
            create_cron_data_intervals=config.create_cron_data_intervals,
            assets=catalog,
        )
    except ScenarioError as exc:
        yield exc.steps, exc.message
    else:
        yield from _check_timetable(dag, where, reading, config)


def _check_asset_event(
    action: AssetEventAction,
    path: JsonPath,
    catalog: AssetCatalog,
    known: dict[AssetKey, None],
) -> Problems:
    """``POST /assets/events`` names an asset the deployment has (else Airflow's 404)."""
    if action.partition_key is not None:
        yield from partition_key_problems(action.partition_key, (*path, "partition_key"))
    where = (*path, "asset")
    undeclared = list(_undeclared(action.asset, where, catalog))
    yield from undeclared
    if undeclared or catalog.names_broken(action.asset):
        return
    try:
        key = catalog.asset(action.asset, where, what="an external asset event")
    except ScenarioError as exc:
        yield exc.steps, exc.message
        return
    if key not in known:
        yield where, unknown_asset_message(key, known)


def _check_trigger_key(
    action: TriggerAction, path: JsonPath, tables: dict[str, Timetable]
) -> Problems:
    """``POST /dagRuns`` with a partition key: a key Airflow accepts, for a partitioned DAG,
    that its timetable can read a partition date from (PT-17)."""
    key = action.partition_key
    assert key is not None
    problems = list(partition_key_problems(key, path))
    yield from problems
    table = tables.get(action.dag_id)
    if problems or table is None:
        return  # an unknown DAG or an unreadable schedule is reported where it is
    if not (table.partitioned or table.partitioned_at_runtime):
        yield (
            path,
            f"DagNotPartitionedError: DAG {action.dag_id!r} is not partitioned ({table.name} is "
            "neither partitioned nor partitioned at runtime), so Airflow refuses a manual run "
            "with a partition key (PT-17); drop partition_key, or schedule the DAG with "
            "CronPartitionTimetable, PartitionedAssetTimetable or PartitionedAtRuntime",
        )
        return
    try:
        table.resolve_partition_date(key)
    except EngineError as exc:
        yield path, f"Airflow refuses this manual run: {exc}"


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


def _undeclared(node: JsonValue, path: JsonPath, catalog: AssetCatalog) -> Problems:
    hint = 'add it to the top-level \'assets\' list or write it out as {"asset": {"name": ...}}'
    declared = [*catalog.keys, *catalog.broken]
    for where, name in declared_names(node, path):
        if name not in declared:
            close = did_you_mean(name, declared)
            yield where, f"asset {name!r} is not declared{close}; {hint}"


#: Every ``{"asset": "<name>"}`` reference to a declared asset inside a value.
asset_names_used = declared_names
