"""From a schema-valid JSON document to the model (the mirror of ``write.py``).

The schema has already checked shapes and leaf formats, so this module only
converts: it never decides whether a file is valid. Each object's ``x-...``
keys are kept in ``extras`` in the order they were read.
"""

from __future__ import annotations

from typing import Any, cast

from explorer.scenario.model import (
    DEFAULT_LOOP_INTERVAL,
    DEFAULT_PARSE_INTERVAL,
    DEFAULT_SILENCE_FACTOR,
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
    DagSource,
    DeployAction,
    Expectation,
    FiresWithinExpectation,
    ImportInfo,
    MultiAsset,
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
    TaskOutcome,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
    Unresolved,
    Watcher,
)
from explorer.scenario.options import SECTIONS
from explorer.scenario.values import Duration, Instant, JsonObject

__all__ = ["read_scenario"]


def read_scenario(doc: JsonObject) -> Scenario:
    raw: dict[str, Any] = doc
    return Scenario(
        name=raw["name"],
        description=raw.get("description"),
        clock=_clock(raw["clock"]),
        scheduler=_scheduler(raw.get("scheduler", {})),
        airflow_config=_airflow_config(raw.get("airflow_config", {})),
        seed=raw.get("seed", 0),
        alerts=_alerts(raw.get("alerts", {})),
        assets=tuple(_asset(a) for a in raw.get("assets", [])),
        dags=tuple(_dag(d) for d in raw.get("dags", [])),
        asset_dags=tuple(_asset_dag(d) for d in raw.get("asset_dags", [])),
        script=tuple(_action(a) for a in raw.get("script", [])),
        layout={node: (xy[0], xy[1]) for node, xy in raw.get("layout", {}).items()},
        extras=_extras(raw),
        expectations=tuple(_expectation(e) for e in raw.get("expectations", [])),
        import_info=None if "import" not in raw else _import_info(raw["import"]),
    )


def _extras(raw: dict[str, Any]) -> JsonObject:
    return {k: v for k, v in raw.items() if k.startswith("x-")}


def _instant(value: str | None) -> Instant | None:
    return None if value is None else Instant.parse(value)


def _clock(raw: dict[str, Any]) -> Clock:
    return Clock(Instant.parse(raw["start"]), _instant(raw.get("until")), _extras(raw))


def _scheduler(raw: dict[str, Any]) -> SchedulerSettings:
    loop = raw.get("loop_interval")
    parse: Duration | None = DEFAULT_PARSE_INTERVAL
    if "parse_interval" in raw:
        text = raw["parse_interval"]
        parse = None if text is None else Duration.parse(text)
    return SchedulerSettings(
        loop_interval=DEFAULT_LOOP_INTERVAL if loop is None else Duration.parse(loop),
        parse_interval=parse,
        extras=_extras(raw),
    )


def _airflow_config(raw: dict[str, Any]) -> AirflowConfig:
    values: dict[str, Any] = {}
    section_extras: dict[str, JsonObject] = {}
    for section in SECTIONS:
        body: dict[str, Any] = raw.get(section, {})
        values.update((k, v) for k, v in body.items() if not k.startswith("x-"))
        if _extras(body):
            section_extras[section] = _extras(body)
    return AirflowConfig(**values, extras=_extras(raw), section_extras=section_extras)


def _alerts(raw: dict[str, Any]) -> AlertSettings:
    return AlertSettings(raw.get("silence_factor", DEFAULT_SILENCE_FACTOR), _extras(raw))


def _asset(raw: dict[str, Any]) -> AssetDecl:
    return AssetDecl(
        raw["name"],
        raw.get("uri"),
        raw.get("group"),
        raw.get("extra"),
        _extras(raw),
        watchers=tuple(_watcher(w) for w in raw.get("watchers", [])),
    )


def _watcher(raw: dict[str, Any]) -> Watcher:
    return Watcher(
        name=raw["name"],
        poll_interval=Duration.parse(raw["poll_interval"]),
        trigger=raw.get("trigger"),
        source=tuple(_source_item(i) for i in raw.get("source", [])),
        extras=_extras(raw),
    )


def _source_item(raw: dict[str, Any]) -> SourceItem:
    return SourceItem(Instant.parse(raw["at"]), raw["item"], raw.get("payload"), _extras(raw))


def _alias_event(raw: dict[str, Any]) -> AliasEvent:
    return AliasEvent(raw["alias"], raw["asset"], raw.get("extra"), _extras(raw))


def _keys(raw: dict[str, Any]) -> tuple[str, ...] | None:
    keys = raw.get("partition_keys")
    return None if keys is None else tuple(keys)


def _alias_events(raw: dict[str, Any]) -> tuple[AliasEvent, ...] | None:
    events = raw.get("alias_events")
    return None if events is None else tuple(_alias_event(e) for e in events)


def _task(raw: dict[str, Any]) -> Task:
    return Task(
        task_id=raw["task_id"],
        duration=Duration.parse(raw["duration"]),
        outcome=raw.get("outcome", "success"),
        outlets=tuple(raw.get("outlets", [])),
        partition_keys=_keys(raw),
        alias_events=_alias_events(raw) or (),
        extras=_extras(raw),
        failure_rate=raw.get("failure_rate", 0.0),
        inlets=tuple(raw.get("inlets", [])),
    )


def _asset_dag(raw: dict[str, Any]) -> AssetDag:
    multi = raw.get("multi")
    return AssetDag(
        duration=Duration.parse(raw["duration"]),
        schedule=raw.get("schedule"),
        name=raw.get("name"),
        uri=raw.get("uri"),
        multi=None
        if multi is None
        else MultiAsset(multi["dag_id"], tuple(multi["outlets"]), _extras(multi)),
        start_date=_instant(raw.get("start_date")),
        timezone=raw.get("timezone", "UTC"),
        catchup=raw.get("catchup", False),
        is_paused_upon_creation=raw.get("is_paused_upon_creation", False),
        extras=_extras(raw),
        inlets=tuple(raw.get("inlets", [])),
    )


def _dag(raw: dict[str, Any]) -> Dag:
    source = raw.get("source")
    return Dag(
        dag_id=raw["dag_id"],
        schedule=raw.get("schedule"),
        start_date=_instant(raw.get("start_date")),
        end_date=_instant(raw.get("end_date")),
        timezone=raw.get("timezone", "UTC"),
        catchup=raw.get("catchup"),
        max_active_runs=raw.get("max_active_runs"),
        is_paused_upon_creation=raw.get("is_paused_upon_creation", False),
        tasks=tuple(_task(t) for t in raw.get("tasks", [])),
        extras=_extras(raw),
        tags=tuple(raw.get("tags", [])),
        source=None
        if source is None
        else DagSource(source["file"], source.get("line"), _extras(source)),
        unresolved=tuple(_unresolved(u) for u in raw.get("unresolved", [])),
        supplied=tuple(raw.get("supplied", [])),
    )


def _unresolved(raw: dict[str, Any]) -> Unresolved:
    return Unresolved(raw["field"], raw["reason"], raw.get("line"), raw.get("file"), _extras(raw))


def _import_info(raw: dict[str, Any]) -> ImportInfo:
    duration = raw.get("task_duration")
    return ImportInfo(
        roots=tuple(raw.get("roots", [])),
        task_duration=None if duration is None else Duration.parse(duration),
        parsed_at=_instant(raw.get("parsed_at")),
        extras=_extras(raw),
    )


def _expectation(raw: dict[str, Any]) -> Expectation:
    kind: str = raw["expect"]
    common: dict[str, Any] = {"name": raw.get("name"), "extras": _extras(raw)}
    span: dict[str, Any] = {
        "from_": _instant(raw.get("from")),
        "to": _instant(raw.get("to")),
    }
    if kind == "runs_between":
        return RunsBetweenExpectation(
            dag_id=raw["dag_id"],
            after=raw["after"],
            before=raw["before"],
            timezone=raw.get("timezone"),
            days=raw.get("days", "every_day"),
            time_field=raw.get("field", "run_after"),
            **span,
            **common,
        )
    if kind == "no_run":
        return NoRunExpectation(
            raw["dag_id"], Instant.parse(raw["from"]), Instant.parse(raw["to"]), **common
        )
    if kind == "count":
        return CountExpectation(
            dag_id=raw["dag_id"],
            exactly=raw.get("exactly"),
            at_least=raw.get("at_least"),
            at_most=raw.get("at_most"),
            **span,
            **common,
        )
    if kind == "fires_within":
        return FiresWithinExpectation(
            raw["dag_id"], Duration.parse(raw["within"]), raw.get("producer"), **common
        )
    if kind == "no_alert":
        return NoAlertExpectation(raw.get("alert"), **span, **common)
    if kind == "same_as":
        return SameAsExpectation(raw["dag_id"], tuple(raw["runs"]), **common)
    raise AssertionError(f"the schema let an unknown expectation through: {kind!r}")


def _selector(raw: dict[str, Any]) -> RunSelectorModel:
    return RunSelectorModel(
        dag_id=raw["dag_id"],
        nth=raw.get("nth"),
        logical_date=_instant(raw.get("logical_date")),
        partition_key=raw.get("partition_key"),
        next=raw.get("next", False),
        extras=_extras(raw),
    )


def _action(raw: dict[str, Any]) -> ScriptAction:
    at = Instant.parse(raw["at"])
    do: str = raw["do"]
    extras = _extras(raw)
    if do == "parse":
        ids = raw.get("dag_ids")
        return ParseAction(at, None if ids is None else tuple(ids), extras)
    if do == "deploy":
        return DeployAction(at, _dag(raw["dag"]), extras)
    if do == "remove_dag":
        return RemoveDagAction(at, raw["dag_id"], extras)
    if do == "set_option":
        return SetOptionAction(at, raw["section"], raw["key"], raw["value"], extras)
    if do == "pause":
        return PauseAction(at, raw["dag_id"], extras)
    if do == "unpause":
        return UnpauseAction(at, raw["dag_id"], extras)
    if do == "trigger":
        return TriggerAction(
            at, raw["dag_id"], _instant(raw.get("logical_date")), raw.get("partition_key"), extras
        )
    if do.startswith("task_"):
        outcome = cast(TaskOutcome, do.removeprefix("task_"))
        return TaskOutcomeAction(
            at,
            _selector(raw["run"]),
            raw["task_id"],
            outcome,
            partition_keys=_keys(raw),
            alias_events=_alias_events(raw),
            extras=extras,
        )
    if do in ("run_success", "run_failed"):
        return RunOutcomeAction(
            at, _selector(raw["run"]), "success" if do == "run_success" else "failed", extras
        )
    if do == "override":
        delay = raw.get("delay")
        return OverrideAction(
            at=at,
            run=_selector(raw["run"]),
            task_id=raw.get("task_id"),
            outcome=raw.get("outcome"),
            delay=None if delay is None else Duration.parse(delay),
            hold=raw.get("hold", False),
            extras=extras,
        )
    if do == "backfill":
        return BackfillAction(
            at=at,
            dag_id=raw["dag_id"],
            from_date=Instant.parse(raw["from_date"]),
            to_date=Instant.parse(raw["to_date"]),
            reprocess_behavior=raw.get("reprocess_behavior", "none"),
            max_active_runs=raw.get("max_active_runs", 10),
            run_backwards=raw.get("run_backwards", False),
            extras=extras,
        )
    if do == "asset_event":
        key, extra = raw.get("partition_key"), raw.get("extra")
        return AssetEventAction(at, raw["asset"], key, extra, extras)
    raise AssertionError(f"the schema let an unknown action through: {do!r}")
