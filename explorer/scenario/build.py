"""From a scenario model to the values the engine runs on.

This is the only place where the file's vocabulary meets the engine's types:
schedules become timetables (through the engine's factory, TT-1), tasks
become ``TaskSpec``, script actions become the engine's action dataclasses,
instants become aware UTC datetimes. The model is checked first (schema and
rules), so a scenario edited in code fails here exactly as a file would fail
on load; any refusal of an engine constructor comes out as a located
:class:`ScenarioError`.

Asset nodes become the engine's condition nodes, outlets and keys through
:class:`~explorer.scenario.assets.AssetCatalog`. What Airflow accepts but
what silently does nothing (an alias nothing emits through, an ``Asset.ref``
that matches no asset, an alias event through an alias the task does not
declare, a partition_mapper_config entry that is never used, a watcher that
never runs) is named in ``warnings``, each at its JSON path.
``EngineInputs.unsupported`` holds the script actions of kinds the engine
cannot run (none in this version: format 2's deployment changes are DeployDag,
RemoveDag and SetOption actions, DEP-1..DEP-8).

Declared assets reach the engine in file order (the first declared wins a
URI-2 conflict), with their watchers as ``WatcherSpec``; the seed of random
task failures and the alerts' silence factor ride along.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from explorer.engine.actions import (
    Action,
    Backfill,
    Deploy,
    ExternalEvent,
    Override,
    Pause,
    RunOutcome,
    RunSelector,
    TaskFinish,
    Trigger,
    Unpause,
)
from explorer.engine.alerts import DEFAULT_SILENCE_FACTOR
from explorer.engine.assets.condition import AliasNode, AssetKey
from explorer.engine.assets.watchers import SourceChange, WatcherSpec
from explorer.engine.dag import AliasEmission, DagSpec, TaskSpec
from explorer.engine.dagfile import DagFile, DeployDag, RemoveDag, SetOption
from explorer.engine.errors import EngineError
from explorer.engine.options import AirflowOptions
from explorer.engine.tz import get_zone
from explorer.scenario.asset_dags import PathMap, expand
from explorer.scenario.assets import AssetCatalog, Finding, asset_notes, frozen_extra
from explorer.scenario.checked import take_checked
from explorer.scenario.checks import check_scenario
from explorer.scenario.errors import JsonPath, ScenarioError, raise_problems, render_path
from explorer.scenario.model import (
    AliasEvent,
    AssetDecl,
    AssetEventAction,
    BackfillAction,
    Dag,
    DeployAction,
    OverrideAction,
    ParseAction,
    PauseAction,
    RemoveDagAction,
    RunOutcomeAction,
    RunSelectorModel,
    Scenario,
    ScriptAction,
    SetOptionAction,
    Task,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
    Watcher,
)
from explorer.scenario.options import effective_catchup, effective_max_active_runs
from explorer.scenario.schedules import ScheduleReading, read_schedule
from explorer.scenario.validate import document_order, schema_problems
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
    #: The top-level asset declarations, in file order (first declared wins URI-2).
    declared_assets: tuple[AssetKey, ...] = ()
    watchers: tuple[WatcherSpec, ...] = ()
    #: Seed of the random task failures (``failure_rate``).
    seed: int = 0
    #: ``consumer_silent`` alerts past this many times a consumer's cadence.
    silence_factor: float = DEFAULT_SILENCE_FACTOR
    #: The DAG files behind ``dags`` (what a parse re-reads under ``options``, DEP-7).
    files: tuple[DagFile, ...] = ()
    #: The Airflow options at ``clock.start`` (``airflow_config``).
    options: AirflowOptions = field(default_factory=AirflowOptions)


@dataclass(frozen=True, slots=True)
class _BuiltDag:
    """One DAG's file as a build made it, with what it was made from."""

    dag: Dag
    reading: ScheduleReading
    assets: tuple[AssetDecl, ...]
    config: object
    options: AirflowOptions
    source: str
    file: DagFile
    notes: tuple[Finding, ...]


#: Each DAG's file from the latest builds, by the DAG's identity and place. The model is
#: immutable and an edit keeps every DAG it does not change, and the rules' check keeps
#: their schedule readings (``checks._DAG_MEMO``): after an edit of one DAG of 200 only
#: that one is converted again (the GUI builds the whole scenario after every edit).
#: A file is reused only when the DAG, its reading, the declared assets, the Airflow
#: options and the source are the objects (or values) it was made from; the engine's
#: specs and files are frozen, so two simulations may share them.
_FILE_MEMO: dict[tuple[int, int], _BuiltDag] = {}
_FILE_MEMO_LIMIT = 8192


def build_engine_inputs(scenario: Scenario, *, source: str = "<scenario>") -> EngineInputs:
    """Check ``scenario`` and convert it; refusals are located :class:`ScenarioError`."""
    document = write_scenario(scenario)
    readings = take_checked(scenario)  # loaded and checked just before: once is enough
    if readings is None:
        raise_problems(schema_problems(document, source=source))
        readings = {}
        raise_problems(check_scenario(scenario, source=source, readings=readings))
    expanded, back = expand(scenario)  # @asset DAGs as DAGs, reported at their own place
    try:
        return _Builder(expanded, source, back).build(readings, document)
    except ScenarioError as exc:  # the rules passed, so only a bug gets here: still located
        raise ScenarioError(
            source, back(exc.steps) if exc.steps else exc.path, exc.message
        ) from exc


class _Builder:
    def __init__(self, scenario: Scenario, source: str, back: PathMap) -> None:
        self.scenario = scenario
        self.source = source
        self.back = back
        self.assets = AssetCatalog(scenario.assets)
        #: (where, what) warnings, sorted into file order at the end.
        self.notes: list[Finding] = []

    def build(self, readings: dict[int, ScheduleReading], document: JsonValue) -> EngineInputs:
        scenario = self.scenario
        options = self.options()
        files = tuple(
            self.remembered_dag_file(dag, i, readings[i], options)
            for i, dag in enumerate(scenario.dags)
        )
        dags = tuple(file.spec for file in files)
        self.notes.extend(asset_notes(scenario, self.assets))
        watchers = tuple(self.watchers(dags))
        specs = {dag.dag_id: dag for dag in reversed(dags)}  # the first of a dag_id counts
        script: list[Action] = []
        until = scenario.clock.until
        for index, action in enumerate(scenario.script):
            path: JsonPath = ("script", index)
            if until is not None and action.at.value > until.value:
                self.notes.append(
                    (path, f"at {action.at.text} is after clock.until: it never happens")
                )
            if isinstance(action, DeployAction | RemoveDagAction | SetOptionAction):
                script.append(self.deployment(action, path, specs, options))
                continue
            script.append(self.action(action, path, specs))
        self.notes = [(self.back(path), message) for path, message in self.notes]
        self.notes.sort(key=lambda note: document_order(document, note[0]))
        settings = scenario.scheduler
        return EngineInputs(
            dags=dags,
            script=tuple(script),
            start=scenario.clock.start.value,
            until=None if until is None else until.value,
            loop_interval=settings.loop_interval.value,
            parse_interval=(
                None if settings.parse_interval is None else settings.parse_interval.value
            ),
            warnings=[f"{render_path(path)}: {message}" for path, message in self.notes],
            declared_assets=tuple(self.assets.keys.values()),
            watchers=watchers,
            seed=scenario.seed,
            silence_factor=scenario.alerts.silence_factor,
            files=files,
            options=options,
        )

    def deployment(
        self,
        action: DeployAction | RemoveDagAction | SetOptionAction,
        path: JsonPath,
        specs: dict[str, DagSpec],
        options: AirflowOptions,
    ) -> Action:
        """A change of the deployment (DEP-1, DEP-6, DEP-7) as the engine's action."""
        at = action.at.value
        if isinstance(action, RemoveDagAction):
            return RemoveDag(at, action.dag_id)
        if isinstance(action, SetOptionAction):
            return SetOption(at, action.section, action.key, action.value)
        where: JsonPath = (*path, "dag")
        reading = read_schedule(
            action.dag.schedule,
            source=self.source,
            path=(*where, "schedule"),
            dag_timezone=action.dag.timezone,
            create_cron_data_intervals=options.create_cron_data_intervals,
            assets=self.assets,
        )
        file = self.dag_file(action.dag, where, reading, options)
        specs[file.dag_id] = file.spec  # later task actions read this file's tasks
        return DeployDag(at, file)

    def options(self) -> AirflowOptions:
        """The scenario's ``airflow_config`` as the engine's options (DEP-7)."""
        config = self.scenario.airflow_config
        return AirflowOptions(
            create_cron_data_intervals=config.create_cron_data_intervals,
            catchup_by_default=config.catchup_by_default,
            create_delta_data_intervals=config.create_delta_data_intervals,
            max_active_runs_per_dag=config.max_active_runs_per_dag,
            refresh_interval=config.refresh_interval,
        )

    def remembered_dag_file(
        self, dag: Dag, index: int, reading: ScheduleReading, options: AirflowOptions
    ) -> DagFile:
        """:meth:`dag_file` of ``$.dags[index]``, and its warnings, from the last build
        that made them when nothing they read is another object (see :data:`_FILE_MEMO`)."""
        scenario = self.scenario
        known = _FILE_MEMO.get((id(dag), index))
        if (
            known is not None
            and known.dag is dag
            and known.reading is reading
            and known.assets is scenario.assets
            and known.config is scenario.airflow_config
            and known.options == options
            and known.source == self.source
        ):
            self.notes.extend(known.notes)
            return known.file
        first_note = len(self.notes)
        file = self.dag_file(dag, ("dags", index), reading, options)
        if len(_FILE_MEMO) >= _FILE_MEMO_LIMIT:
            for key in list(_FILE_MEMO)[: _FILE_MEMO_LIMIT // 2]:
                del _FILE_MEMO[key]
        _FILE_MEMO[(id(dag), index)] = _BuiltDag(
            dag,
            reading,
            scenario.assets,
            scenario.airflow_config,
            options,
            self.source,
            file,
            tuple(self.notes[first_note:]),
        )
        return file

    def dag_file(
        self, dag: Dag, path: JsonPath, reading: ScheduleReading, options: AirflowOptions
    ) -> DagFile:
        """The DAG as its file: a plain schedule is re-read at each parse (DEP-7)."""
        spec = self.dag_spec(dag, path, reading)
        return DagFile(
            spec,
            reading.plain,
            dag.catchup,  # None: unset, the options decide at each parse (DEP-7)
            dag.max_active_runs,
            built_with_cron_data_intervals=options.create_cron_data_intervals,
        )

    def watchers(self, dags: tuple[DagSpec, ...]) -> list[WatcherSpec]:
        """Each declared asset's watchers, with a warning where one never fires (WA-2, WA-3)."""
        out: list[WatcherSpec] = []
        seen: set[str] = set()
        for index, decl in enumerate(self.scenario.assets):
            key = self.assets.keys.get(decl.name)
            if key is None or decl.name in seen:
                continue  # a repeated name is reported by the rules: the first one counts
            seen.add(decl.name)
            if not decl.watchers:
                continue
            self.notes.extend(_watcher_notes(decl, key, ("assets", index), dags))
            for w, watcher in enumerate(decl.watchers):
                path: JsonPath = ("assets", index, "watchers", w)
                out.append(self.watcher_spec(watcher, key, path))
        return out

    def watcher_spec(self, watcher: Watcher, key: AssetKey, path: JsonPath) -> WatcherSpec:
        until = self.scenario.clock.until
        for i, item in enumerate(watcher.source):
            if until is not None and item.at.value > until.value:
                where = (*path, "source", i, "at")
                self.notes.append((where, f"{item.at.text} is after clock.until: it never lands"))
        changes = tuple(
            SourceChange(item.at.value, item.item, frozen_extra(item.payload))
            for item in watcher.source
        )
        try:
            if watcher.trigger is None:
                return WatcherSpec(watcher.name, key, watcher.poll_interval.value, changes)
            return WatcherSpec(
                watcher.name, key, watcher.poll_interval.value, changes, watcher.trigger
            )
        except EngineError as exc:
            raise ScenarioError(self.source, path, str(exc)) from exc

    def dag_spec(self, dag: Dag, path: JsonPath, reading: ScheduleReading) -> DagSpec:
        self.notes.extend(reading.notes)
        self.notes.extend(_zone_mismatch(dag, path))
        tasks = tuple(self.task_spec(task, (*path, "tasks", t)) for t, task in enumerate(dag.tasks))
        try:
            return DagSpec(
                dag_id=dag.dag_id,
                timetable=reading.timetable,
                start_date=_utc(dag.start_date),
                end_date=_utc(dag.end_date),
                timezone=dag.timezone,
                catchup=effective_catchup(dag.catchup, self.scenario.airflow_config),
                max_active_runs=effective_max_active_runs(
                    dag.max_active_runs, self.scenario.airflow_config
                ),
                is_paused_upon_creation=dag.is_paused_upon_creation,
                tasks=tasks,
            )
        except EngineError as exc:
            raise ScenarioError(self.source, path, str(exc)) from exc

    def task_spec(self, task: Task, path: JsonPath) -> TaskSpec:
        outlets = tuple(
            self.assets.outlet(node, (*path, "outlets", o)) for o, node in enumerate(task.outlets)
        )
        inlets = tuple(
            self.assets.outlet(node, (*path, "inlets", i)) for i, node in enumerate(task.inlets)
        )
        aliases = {o.name for o in outlets if isinstance(o, AliasNode)}
        emissions = self.emissions(
            task.alias_events, (*path, "alias_events"), task.task_id, aliases
        )
        if task.partition_keys and not any(not isinstance(o, AliasNode) for o in outlets):
            self.notes.append(((*path, "partition_keys"), _keys_without_outlets(task.task_id)))
        try:
            return TaskSpec(
                task_id=task.task_id,
                duration=task.duration.value,
                outcome=task.outcome,
                outlets=outlets,
                partition_keys=task.partition_keys or (),
                alias_events=emissions,
                failure_rate=task.failure_rate,
                inlets=inlets,
            )
        except EngineError as exc:
            raise ScenarioError(self.source, path, str(exc)) from exc

    def emissions(
        self, events: tuple[AliasEvent, ...], path: JsonPath, task_id: str, aliases: set[str]
    ) -> tuple[AliasEmission, ...]:
        """Alias events as the engine's emissions; those through an alias that is not an
        outlet of the task are left out with a warning, as Airflow ignores them (AS-9)."""
        out: list[AliasEmission] = []
        for index, event in enumerate(events):
            where = (*path, index)
            if event.alias not in aliases:
                self.notes.append(((*where, "alias"), _not_an_outlet(event.alias, task_id)))
                continue
            key = self.assets.asset(event.asset, (*where, "asset"), what="an alias event")
            extra = frozen_extra(event.extra, sort_keys=True)
            out.append(AliasEmission(event.alias, key, extra))
        return tuple(out)

    def action(self, action: ScriptAction, path: JsonPath, specs: dict[str, DagSpec]) -> Action:
        """The engine's action for ``action``."""
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
                return self.task_finish(action, path, specs)
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
                key = self.assets.asset(
                    action.asset, (*path, "asset"), what="an external asset event"
                )
                return ExternalEvent(at, key, action.partition_key, frozen_extra(action.extra))
            case DeployAction() | RemoveDagAction() | SetOptionAction():
                raise AssertionError("deployment changes are converted by deployment()")

    def task_finish(
        self, action: TaskOutcomeAction, path: JsonPath, specs: dict[str, DagSpec]
    ) -> TaskFinish:
        emissions = None
        if action.alias_events is not None:
            tasks = specs[action.run.dag_id].tasks
            spec = next((t for t in tasks if t.task_id == action.task_id), None)
            outlets = spec.outlets if spec is not None else ()  # a task a deploy removed
            aliases = {o.name for o in outlets if isinstance(o, AliasNode)}
            where = (*path, "alias_events")
            emissions = self.emissions(action.alias_events, where, action.task_id, aliases)
        return TaskFinish(
            action.at.value,
            _selector(action.run),
            action.task_id,
            action.outcome,
            partition_keys=action.partition_keys,
            alias_events=emissions,
        )


def _keys_without_outlets(task_id: str) -> str:
    return (
        f"task {task_id!r} has no asset outlets: add_partitions needs an outlet asset "
        "(outlet_events[asset].add_partitions), and alias emissions cannot carry keys (PT-16), "
        "so these keys are never emitted"
    )


def _watcher_notes(
    decl: AssetDecl, key: AssetKey, path: JsonPath, dags: tuple[DagSpec, ...]
) -> list[Finding]:
    """A watcher runs only while an unpaused DAG schedules on its asset directly (WA-2), and
    its events carry no partition key, so partitioned consumers never hear them (WA-3, PT-2)."""
    consumers = [d for d in dags if key in d.direct_assets]
    where = (*path, "watchers")
    if not consumers:
        return [
            (
                where,
                f"no DAG schedules on asset {decl.name!r} directly: Airflow registers an asset's "
                "watchers only while an unpaused DAG is scheduled on it (WA-2), so they never run",
            )
        ]
    if all(d.timetable.partitioned for d in consumers):
        return [
            (
                where,
                f"only partitioned DAGs schedule on asset {decl.name!r}: watcher events carry no "
                "partition key, so those DAGs never run from them (Airflow logs 'missing "
                "partition key': WA-3, PT-2)",
            )
        ]
    return []


def _not_an_outlet(alias: str, task_id: str) -> str:
    return (
        f"alias {alias!r} is not an outlet of task {task_id!r}: Airflow ignores what a task adds "
        "through an alias it does not declare in outlets, so this emits nothing; add "
        f'{{"alias": {{"name": "{alias}"}}}} to the task\'s outlets'
    )


def _zone_mismatch(dag: Dag, path: JsonPath) -> list[Finding]:
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
        (
            (*path, "start_date"),
            f"written with offset {_offset(written)} but timezone is {dag.timezone!r}: "
            f"cron schedules are read in {dag.timezone}",
        )
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
