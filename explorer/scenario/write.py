"""From the model to a JSON document in canonical key order (the mirror of ``read.py``).

Keys come in the schema's order, then the object's ``x-...`` keys in the
order they were read. Fields equal to their default are left out, so a saved
file shows what the user chose, except those that say what the object is or
how the simulation runs: ids, a DAG's schedule and tasks, the clock, the
scheduler's loop and parse intervals, the lists of DAGs and actions.
Datetimes and durations are written as the text they were read from.
"""

from __future__ import annotations

from explorer.scenario.model import (
    DEFAULT_SILENCE_FACTOR,
    FORMAT,
    AirflowConfig,
    AlertSettings,
    AliasEvent,
    AssetDag,
    AssetDecl,
    AssetEventAction,
    BackfillAction,
    Clock,
    CountExpectation,
    Dag,
    DeployAction,
    Expectation,
    FiresWithinExpectation,
    ImportInfo,
    NoAlertExpectation,
    NoRunExpectation,
    OverrideAction,
    ParseAction,
    PauseAction,
    RemoveDagAction,
    RunOutcomeAction,
    RunsBetweenExpectation,
    RunSelectorModel,
    SameAsExpectation,
    Scenario,
    SchedulerSettings,
    ScriptAction,
    SetOptionAction,
    SourceItem,
    Task,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
    Unresolved,
    Watcher,
)
from explorer.scenario.options import OPTIONS, SECTIONS
from explorer.scenario.values import JsonObject, JsonValue

__all__ = ["write_scenario"]


def write_scenario(scenario: Scenario) -> JsonObject:
    out: JsonObject = {"format": FORMAT, "name": scenario.name}
    _put(out, "description", scenario.description, None)
    out["clock"] = _clock(scenario.clock)
    out["scheduler"] = _scheduler(scenario.scheduler)
    _put_section(out, "airflow_config", _airflow_config(scenario.airflow_config))
    _put(out, "seed", scenario.seed, 0)
    _put_section(out, "alerts", _alerts(scenario.alerts))
    if scenario.assets:
        out["assets"] = [_asset(a) for a in scenario.assets]
    out["dags"] = [_dag(d) for d in scenario.dags]
    if scenario.asset_dags:
        out["asset_dags"] = [_asset_dag(d) for d in scenario.asset_dags]
    out["script"] = [_action(a) for a in scenario.script]
    if scenario.expectations:
        out["expectations"] = [_expectation(e) for e in scenario.expectations]
    if scenario.import_info is not None:
        out["import"] = _import_info(scenario.import_info)
    if scenario.layout:
        out["layout"] = {node: [x, y] for node, (x, y) in scenario.layout.items()}
    return _with_extras(out, scenario.extras)


def _put(out: JsonObject, key: str, value: JsonValue, default: JsonValue) -> None:
    if value != default:
        out[key] = value


def _put_section(out: JsonObject, key: str, section: JsonObject) -> None:
    if section:
        out[key] = section


def _with_extras(out: JsonObject, extras: JsonObject) -> JsonObject:
    out.update(extras)
    return out


def _clock(clock: Clock) -> JsonObject:
    out: JsonObject = {"start": clock.start.text}
    if clock.until is not None:
        out["until"] = clock.until.text
    return _with_extras(out, clock.extras)


def _scheduler(settings: SchedulerSettings) -> JsonObject:
    parse = settings.parse_interval
    out: JsonObject = {
        "loop_interval": settings.loop_interval.text,
        "parse_interval": None if parse is None else parse.text,
    }
    return _with_extras(out, settings.extras)


def _airflow_config(config: AirflowConfig) -> JsonObject:
    out: JsonObject = {}
    for section in SECTIONS:
        body: JsonObject = {}
        for option in OPTIONS:
            if option.section == section:
                _put(body, option.key, getattr(config, option.key), option.default)
        body.update(config.section_extras.get(section, {}))
        _put_section(out, section, body)
    return _with_extras(out, config.extras)


def _alerts(settings: AlertSettings) -> JsonObject:
    out: JsonObject = {}
    _put(out, "silence_factor", settings.silence_factor, DEFAULT_SILENCE_FACTOR)
    return _with_extras(out, settings.extras)


def _asset(asset: AssetDecl) -> JsonObject:
    out: JsonObject = {"name": asset.name}
    _put(out, "uri", asset.uri, None)
    _put(out, "group", asset.group, None)
    _put(out, "extra", asset.extra, None)
    if asset.watchers:
        out["watchers"] = [_watcher(w) for w in asset.watchers]
    return _with_extras(out, asset.extras)


def _watcher(watcher: Watcher) -> JsonObject:
    out: JsonObject = {"name": watcher.name, "poll_interval": watcher.poll_interval.text}
    _put(out, "trigger", watcher.trigger, None)
    out["source"] = [_source_item(i) for i in watcher.source]
    return _with_extras(out, watcher.extras)


def _source_item(item: SourceItem) -> JsonObject:
    out: JsonObject = {"at": item.at.text, "item": item.item}
    _put(out, "payload", item.payload, None)
    return _with_extras(out, item.extras)


def _task(task: Task) -> JsonObject:
    out: JsonObject = {"task_id": task.task_id, "duration": task.duration.text}
    _put(out, "outcome", task.outcome, "success")
    _put(out, "failure_rate", task.failure_rate, 0.0)
    if task.inlets:
        out["inlets"] = list(task.inlets)
    if task.outlets:
        out["outlets"] = list(task.outlets)
    if task.partition_keys is not None:
        out["partition_keys"] = list(task.partition_keys)
    if task.alias_events:
        out["alias_events"] = [_alias_event(e) for e in task.alias_events]
    return _with_extras(out, task.extras)


def _alias_event(event: AliasEvent) -> JsonObject:
    out: JsonObject = {"alias": event.alias, "asset": event.asset}
    _put(out, "extra", event.extra, None)
    return _with_extras(out, event.extras)


def _dag(dag: Dag) -> JsonObject:
    out: JsonObject = {"dag_id": dag.dag_id, "schedule": dag.schedule}
    if dag.start_date is not None:
        out["start_date"] = dag.start_date.text
    if dag.end_date is not None:
        out["end_date"] = dag.end_date.text
    _put(out, "timezone", dag.timezone, "UTC")
    # None is "unset" (the options decide); a value equal to the default is still
    # a statement the user made, so it is written (ADR 0007 section 2).
    _put(out, "catchup", dag.catchup, None)
    _put(out, "max_active_runs", dag.max_active_runs, None)
    _put(out, "is_paused_upon_creation", dag.is_paused_upon_creation, False)
    if dag.tags:
        out["tags"] = list(dag.tags)
    out["tasks"] = [_task(t) for t in dag.tasks]
    if dag.source is not None:
        source: JsonObject = {"file": dag.source.file}
        _put(source, "line", dag.source.line, None)
        out["source"] = _with_extras(source, dag.source.extras)
    if dag.unresolved:
        out["unresolved"] = [_unresolved(u) for u in dag.unresolved]
    if dag.supplied:
        out["supplied"] = list(dag.supplied)
    return _with_extras(out, dag.extras)


def _unresolved(item: Unresolved) -> JsonObject:
    out: JsonObject = {"field": item.field}
    _put(out, "file", item.file, None)
    _put(out, "line", item.line, None)
    out["reason"] = item.reason
    return _with_extras(out, item.extras)


def _import_info(info: ImportInfo) -> JsonObject:
    out: JsonObject = {"roots": list(info.roots)}
    if info.task_duration is not None:
        out["task_duration"] = info.task_duration.text
    if info.parsed_at is not None:
        out["parsed_at"] = info.parsed_at.text
    return _with_extras(out, info.extras)


def _span(out: JsonObject, expectation: Expectation) -> None:
    for key, attr in (("from", "from_"), ("to", "to")):
        value = getattr(expectation, attr, None)
        if value is not None:
            out[key] = value.text


def _expectation(expectation: Expectation) -> JsonObject:
    out: JsonObject = {"expect": expectation.expect}
    _put(out, "name", expectation.name, None)
    match expectation:
        case RunsBetweenExpectation():
            out.update(dag_id=expectation.dag_id, after=expectation.after)
            out["before"] = expectation.before
            _put(out, "timezone", expectation.timezone, None)
            _put(out, "days", expectation.days, "every_day")
            _put(out, "field", expectation.time_field, "run_after")
            _span(out, expectation)
        case NoRunExpectation():
            out["dag_id"] = expectation.dag_id
            _span(out, expectation)
        case CountExpectation():
            out["dag_id"] = expectation.dag_id
            _span(out, expectation)
            _put(out, "exactly", expectation.exactly, None)
            _put(out, "at_least", expectation.at_least, None)
            _put(out, "at_most", expectation.at_most, None)
        case FiresWithinExpectation():
            out["dag_id"] = expectation.dag_id
            _put(out, "producer", expectation.producer, None)
            out["within"] = expectation.within.text
        case NoAlertExpectation():
            _put(out, "alert", expectation.alert, None)
            _span(out, expectation)
        case SameAsExpectation():
            out.update(dag_id=expectation.dag_id, runs=list(expectation.runs))
    return _with_extras(out, expectation.extras)


def _asset_dag(dag: AssetDag) -> JsonObject:
    out: JsonObject = {}
    if dag.multi is None:
        out["name"] = dag.name
        _put(out, "uri", dag.uri, None)
    else:
        multi: JsonObject = {"dag_id": dag.multi.dag_id, "outlets": list(dag.multi.outlets)}
        out["multi"] = _with_extras(multi, dag.multi.extras)
    out["schedule"] = dag.schedule
    out["duration"] = dag.duration.text
    if dag.start_date is not None:
        out["start_date"] = dag.start_date.text
    _put(out, "timezone", dag.timezone, "UTC")
    _put(out, "catchup", dag.catchup, False)
    _put(out, "is_paused_upon_creation", dag.is_paused_upon_creation, False)
    if dag.inlets:
        out["inlets"] = list(dag.inlets)
    return _with_extras(out, dag.extras)


def _selector(run: RunSelectorModel) -> JsonObject:
    out: JsonObject = {"dag_id": run.dag_id}
    if run.nth is not None:
        out["nth"] = run.nth
    if run.logical_date is not None:
        out["logical_date"] = run.logical_date.text
    _put(out, "partition_key", run.partition_key, None)
    _put(out, "next", run.next, False)
    return _with_extras(out, run.extras)


def _action(action: ScriptAction) -> JsonObject:
    out: JsonObject = {"at": action.at.text}
    match action:
        case ParseAction():
            out["do"] = "parse"
            if action.dag_ids is not None:
                out["dag_ids"] = list(action.dag_ids)
        case DeployAction():
            out.update(do="deploy", dag=_dag(action.dag))
        case RemoveDagAction():
            out.update(do="remove_dag", dag_id=action.dag_id)
        case SetOptionAction():
            out.update(do="set_option", section=action.section, key=action.key)
            out["value"] = action.value
        case PauseAction() | UnpauseAction():
            out["do"] = "pause" if isinstance(action, PauseAction) else "unpause"
            out["dag_id"] = action.dag_id
        case TriggerAction():
            out.update(do="trigger", dag_id=action.dag_id)
            if action.logical_date is not None:
                out["logical_date"] = action.logical_date.text
            _put(out, "partition_key", action.partition_key, None)
        case TaskOutcomeAction():
            out.update(do=action.do, run=_selector(action.run), task_id=action.task_id)
            if action.partition_keys is not None:
                out["partition_keys"] = list(action.partition_keys)
            if action.alias_events is not None:
                out["alias_events"] = [_alias_event(e) for e in action.alias_events]
        case RunOutcomeAction():
            out.update(do=action.do, run=_selector(action.run))
        case OverrideAction():
            out.update(do="override", run=_selector(action.run))
            _put(out, "task_id", action.task_id, None)
            _put(out, "outcome", action.outcome, None)
            if action.delay is not None:
                out["delay"] = action.delay.text
            _put(out, "hold", action.hold, False)
        case BackfillAction():
            out.update(do="backfill", dag_id=action.dag_id)
            out.update(from_date=action.from_date.text, to_date=action.to_date.text)
            _put(out, "reprocess_behavior", action.reprocess_behavior, "none")
            _put(out, "max_active_runs", action.max_active_runs, 10)
            _put(out, "run_backwards", action.run_backwards, False)
        case AssetEventAction():
            out.update(do="asset_event", asset=action.asset)
            _put(out, "partition_key", action.partition_key, None)
            _put(out, "extra", action.extra, None)
    return _with_extras(out, action.extras)
