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
    Dag,
    OverrideAction,
    ParseAction,
    PauseAction,
    RunOutcomeAction,
    RunSelectorModel,
    Scenario,
    SchedulerSettings,
    ScriptAction,
    SourceItem,
    Task,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
    Watcher,
)
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
    _put(out, "create_cron_data_intervals", config.create_cron_data_intervals, False)
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
    _put(out, "catchup", dag.catchup, False)
    _put(out, "max_active_runs", dag.max_active_runs, 16)
    _put(out, "is_paused_upon_creation", dag.is_paused_upon_creation, False)
    out["tasks"] = [_task(t) for t in dag.tasks]
    return _with_extras(out, dag.extras)


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
            out["do"] = action.do
            if action.dag_ids is not None:
                out["dag_ids"] = list(action.dag_ids)
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
