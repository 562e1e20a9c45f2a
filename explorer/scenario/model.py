"""The scenario file as plain, immutable values (format ``schedule-explorer/2``, ADR 0007).

These mirror the file one to one: no Qt, no engine objects, nothing computed.
``explorer.scenario.build`` turns them into engine values. They are frozen so
that an edit is a new value (``dataclasses.replace``): an undo stack keeps the
old one, and the engine can never see a half-edited scenario.

Defaults are the file format's defaults: a field left out of the file and a
field written with its default value load to the same model (``write.py``
says which defaults a save still writes out). ``extras`` holds an object's ``x-...`` keys verbatim,
in the order they were read, so that saving never loses them.

Schedules, asset nodes and mapper specs stay JSON values: their vocabulary is
Airflow's (contract section 1) and ``build`` reads them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import timedelta
from typing import ClassVar, Literal

from explorer.scenario.values import Duration, Instant, JsonObject, JsonValue

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "AirflowConfig",
    "AlertSettings",
    "AliasEvent",
    "AssetDag",
    "AssetDecl",
    "AssetEventAction",
    "AssetNode",
    "BackfillAction",
    "Clock",
    "CountExpectation",
    "Dag",
    "DagSource",
    "DeployAction",
    "Expectation",
    "FiresWithinExpectation",
    "ImportInfo",
    "MultiAsset",
    "NoAlertExpectation",
    "NoRunExpectation",
    "OverrideAction",
    "ParseAction",
    "PauseAction",
    "RemoveDagAction",
    "RunOutcomeAction",
    "RunSelectorModel",
    "RunsBetweenExpectation",
    "SameAsExpectation",
    "Scenario",
    "ScheduleValue",
    "SchedulerSettings",
    "ScriptAction",
    "SetOptionAction",
    "SourceItem",
    "Task",
    "TaskOutcome",
    "TaskOutcomeAction",
    "TriggerAction",
    "UnpauseAction",
    "Unresolved",
    "Watcher",
]

FORMAT_VERSION = 2
FORMAT = f"schedule-explorer/{FORMAT_VERSION}"

#: A DAG's ``schedule``: a cron/preset string, null, a delta, a condition or a timetable object.
ScheduleValue = JsonValue
#: ``{"asset": {...}}``, ``{"asset": "<declared name>"}``, ``{"asset_ref": {...}}``,
#: ``{"alias": {...}}``.
AssetNode = JsonValue

TaskOutcome = Literal["success", "failed", "success_no_data"]

DEFAULT_LOOP_INTERVAL = Duration(timedelta(seconds=1), "PT1S")
DEFAULT_PARSE_INTERVAL = Duration(timedelta(seconds=30), "PT30S")
#: ``consumer_silent`` fires past this many times a consumer's expected cadence.
DEFAULT_SILENCE_FACTOR = 1.5


def _extras() -> JsonObject:
    return {}


@dataclass(frozen=True, slots=True)
class Clock:
    """The deployment moment (every DAG is first parsed then) and the horizon."""

    start: Instant
    until: Instant | None = None
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class SchedulerSettings:
    """The loop grid and the DAG-file parse period (``None``: parsed once, never again)."""

    loop_interval: Duration = DEFAULT_LOOP_INTERVAL
    parse_interval: Duration | None = DEFAULT_PARSE_INTERVAL
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class AirflowConfig:
    """The ``airflow.cfg`` options that change how a DAG file is read (DEP-7).

    Written by section and key in the file (``explorer.scenario.options``
    maps each field to its section); defaults are Airflow 3.3.2's.
    ``section_extras`` keeps the ``x-...`` keys found inside each section.
    """

    create_cron_data_intervals: bool = False
    catchup_by_default: bool = False
    create_delta_data_intervals: bool = False
    max_active_runs_per_dag: int = 16
    #: ``[dag_processor] refresh_interval`` in seconds: the bundle refresh grid (DEP-6).
    refresh_interval: int = 300
    extras: JsonObject = field(default_factory=_extras)
    section_extras: dict[str, JsonObject] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AlertSettings:
    """How the record's alerts are tuned (``explorer simulate``, the GUI's alert list)."""

    #: A consumer is ``consumer_silent`` past this many times its expected cadence (> 1).
    silence_factor: float = DEFAULT_SILENCE_FACTOR
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class SourceItem:
    """Something lands in a watched source at ``at``: a file, a row update (WA-3)."""

    at: Instant
    item: str
    payload: JsonObject | None = None
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class Watcher:
    """``AssetWatcher(name, trigger)`` on a declared asset, and what lands in its source.

    ``trigger`` is the trigger's class path, shown and kept, never imported;
    the simulated trigger polls every ``poll_interval`` and keeps its
    watermark in the asset's state store (WA-4).
    """

    name: str
    poll_interval: Duration
    trigger: str | None = None
    source: tuple[SourceItem, ...] = ()
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class AssetDecl:
    """An asset declared once, referred to elsewhere as ``{"asset": "<name>"}``."""

    name: str
    uri: str | None = None
    group: str | None = None
    extra: JsonObject | None = None
    extras: JsonObject = field(default_factory=_extras)
    watchers: tuple[Watcher, ...] = ()


@dataclass(frozen=True, slots=True)
class AliasEvent:
    """An asset a task adds through one of its alias outlets on success (AS-9):
    ``outlet_events[AssetAlias(alias)].add(asset, extra=extra)``."""

    alias: str
    #: ``{"asset": "<declared name>"}`` or ``{"asset": {"name": ..., "uri": ...}}``.
    asset: AssetNode
    extra: JsonObject | None = None
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class Task:
    """A task: how long it runs, how it ends, what it writes (tasks of a DAG run side by side).

    ``partition_keys`` are the keys its success emits (``add_partitions``, PT-1;
    None or empty: the run's own key); ``alias_events`` what it adds through
    its alias outlets (AS-9); ``failure_rate`` the chance that a run of it
    fails instead of ending with ``outcome``.
    """

    task_id: str
    duration: Duration
    outcome: TaskOutcome = "success"
    outlets: tuple[AssetNode, ...] = ()
    partition_keys: tuple[str, ...] | None = None
    alias_events: tuple[AliasEvent, ...] = ()
    extras: JsonObject = field(default_factory=_extras)
    #: Probability (0..1) that a run of this task fails instead, drawn from the scenario's seed.
    failure_rate: float = 0.0
    #: Assets the task reads (``inlets``); the record lists the latest event of each at start.
    inlets: tuple[AssetNode, ...] = ()


@dataclass(frozen=True, slots=True)
class DagSource:
    """Where an imported DAG was defined: a file relative to its import root, 1-based line."""

    file: str
    line: int | None = None
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A value the import could not read statically, and why (never guessed silently)."""

    field: str
    reason: str
    line: int | None = None
    #: None: the DAG's own source file.
    file: str | None = None
    extras: JsonObject = dataclasses.field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class Dag:
    """A DAG in Airflow's words; ``timezone`` is the zone cron strings are read in."""

    dag_id: str
    schedule: ScheduleValue = None
    start_date: Instant | None = None
    end_date: Instant | None = None
    timezone: str = "UTC"
    #: None: unset, ``[scheduler] catchup_by_default`` decides at each parse (DEP-7).
    catchup: bool | None = None
    #: None: unset, ``[core] max_active_runs_per_dag`` decides at each parse (DEP-7).
    max_active_runs: int | None = None
    is_paused_upon_creation: bool = False
    tasks: tuple[Task, ...] = ()
    extras: JsonObject = field(default_factory=_extras)
    #: Airflow's ``tags=``: shown and filtered on, never simulated.
    tags: tuple[str, ...] = ()
    #: Where an imported DAG came from (None: written by hand).
    source: DagSource | None = None
    #: What the import could not read statically.
    unresolved: tuple[Unresolved, ...] = ()
    #: Fields whose value the user supplied; a re-import keeps them.
    supplied: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MultiAsset:
    """``@asset.multi(outlets=[...])`` on a function named ``dag_id``."""

    dag_id: str
    outlets: tuple[AssetNode, ...]
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class AssetDag:
    """Airflow's ``@asset`` / ``@asset.multi`` shorthand, kept as written.

    ``@asset(name=..., uri=..., schedule=...)``: a DAG and a task both named
    ``name``, whose outlet is ``Asset(name, uri)`` (``uri`` defaults to the
    name); with ``multi``: a DAG and a task named ``multi.dag_id`` writing
    ``multi.outlets``. ``build`` expands it into an ordinary DAG (AS-1).
    """

    duration: Duration
    schedule: ScheduleValue = None
    name: str | None = None
    uri: str | None = None
    multi: MultiAsset | None = None
    start_date: Instant | None = None
    timezone: str = "UTC"
    catchup: bool = False
    is_paused_upon_creation: bool = False
    extras: JsonObject = field(default_factory=_extras)
    #: The task's inlets: ``Asset.ref(name=p)`` for each parameter ``p`` of the function
    #: without a default (Airflow's ``_AssetMainOperator``); read, never waited for.
    inlets: tuple[AssetNode, ...] = ()

    @property
    def dag_id(self) -> str:
        """The DAG's and the task's id: the asset name, or the multi function's name."""
        if self.multi is not None:
            return self.multi.dag_id
        assert self.name is not None
        return self.name


@dataclass(frozen=True, slots=True)
class RunSelectorModel:
    """Which run of ``dag_id`` an action acts on; exactly one criterion is set."""

    dag_id: str
    nth: int | None = None
    logical_date: Instant | None = None
    partition_key: str | None = None
    next: bool = False
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class ParseAction:
    """``parse``: (re)parse DAG files as they are (format 1's ``deploy`` migrates here)."""

    at: Instant
    dag_ids: tuple[str, ...] | None = None  # None: every DAG
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class DeployAction:
    """``deploy``: ``dag.dag_id``'s file is replaced (or created) and parsed at once (DEP-1)."""

    at: Instant
    dag: Dag
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class RemoveDagAction:
    """``remove_dag``: the DAG file is deleted; the next bundle refresh notices (DEP-6)."""

    at: Instant
    dag_id: str
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class SetOptionAction:
    """``set_option``: ``[section] key`` has ``value`` for every later parse (DEP-7)."""

    at: Instant
    section: str
    key: str
    value: bool | int
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class PauseAction:
    at: Instant
    dag_id: str
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class UnpauseAction:
    at: Instant
    dag_id: str
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class TriggerAction:
    """A manual run; ``logical_date`` None is Airflow's null logical date (TT-19)."""

    at: Instant
    dag_id: str
    logical_date: Instant | None = None
    partition_key: str | None = None
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class TaskOutcomeAction:
    """``task_success`` / ``task_failed`` / ``task_success_no_data``: a task ends now.

    A success may say which partition keys and alias events this finish
    emits; None keeps what the task declares (a failure emits nothing, AS-1).
    """

    at: Instant
    run: RunSelectorModel
    task_id: str
    outcome: TaskOutcome = "success"
    partition_keys: tuple[str, ...] | None = None
    alias_events: tuple[AliasEvent, ...] | None = None
    extras: JsonObject = field(default_factory=_extras)

    @property
    def do(self) -> str:
        return f"task_{self.outcome}"


@dataclass(frozen=True, slots=True)
class RunOutcomeAction:
    """``run_success`` / ``run_failed``: every unfinished task of the run ends now."""

    at: Instant
    run: RunSelectorModel
    outcome: Literal["success", "failed"] = "success"
    extras: JsonObject = field(default_factory=_extras)

    @property
    def do(self) -> str:
        return f"run_{self.outcome}"


@dataclass(frozen=True, slots=True)
class OverrideAction:
    """From ``at`` on, the selected run's task(s) end differently, later, or when told."""

    at: Instant
    run: RunSelectorModel
    task_id: str | None = None
    outcome: TaskOutcome | None = None
    delay: Duration | None = None
    hold: bool = False
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class BackfillAction:
    """A scheduler-managed backfill over [from_date, to_date]."""

    at: Instant
    dag_id: str
    from_date: Instant
    to_date: Instant
    reprocess_behavior: Literal["none", "failed", "completed"] = "none"
    max_active_runs: int = 10
    run_backwards: bool = False
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True)
class AssetEventAction:
    """An external asset event (``POST /assets/events``, AS-1b) on an asset the deployment knows."""

    at: Instant
    asset: AssetNode
    partition_key: str | None = None
    extra: JsonObject | None = None
    extras: JsonObject = field(default_factory=_extras)


ScriptAction = (
    ParseAction
    | DeployAction
    | RemoveDagAction
    | SetOptionAction
    | PauseAction
    | UnpauseAction
    | TriggerAction
    | TaskOutcomeAction
    | RunOutcomeAction
    | OverrideAction
    | BackfillAction
    | AssetEventAction
)


@dataclass(frozen=True, slots=True)
class RunsBetweenExpectation:
    """Every (week)day, the DAG has a run whose ``run_after`` (or end) falls in [after, before)."""

    dag_id: str
    after: str
    before: str
    timezone: str | None = None  # None: the DAG's
    days: Literal["every_day", "weekdays"] = "every_day"
    #: The file's ``field``: which instant of a run must fall in the window.
    time_field: Literal["run_after", "end_date"] = "run_after"
    from_: Instant | None = None
    to: Instant | None = None
    name: str | None = None
    extras: JsonObject = field(default_factory=_extras)
    expect: ClassVar[str] = "runs_between"


@dataclass(frozen=True, slots=True)
class NoRunExpectation:
    """The DAG has no run in [from, to): a freeze window, a holiday."""

    dag_id: str
    from_: Instant
    to: Instant
    name: str | None = None
    extras: JsonObject = field(default_factory=_extras)
    expect: ClassVar[str] = "no_run"


@dataclass(frozen=True, slots=True)
class CountExpectation:
    """The DAG has exactly / at least / at most N runs in the range (one bound is set)."""

    dag_id: str
    exactly: int | None = None
    at_least: int | None = None
    at_most: int | None = None
    from_: Instant | None = None
    to: Instant | None = None
    name: str | None = None
    extras: JsonObject = field(default_factory=_extras)
    expect: ClassVar[str] = "count"


@dataclass(frozen=True, slots=True)
class FiresWithinExpectation:
    """The consumer runs within ``within`` after each run of ``producer`` (None: the last one)."""

    dag_id: str
    within: Duration
    producer: str | None = None
    name: str | None = None
    extras: JsonObject = field(default_factory=_extras)
    expect: ClassVar[str] = "fires_within"


@dataclass(frozen=True, slots=True)
class NoAlertExpectation:
    """No alert of ``alert``'s kind (None: of any kind) in the range."""

    alert: str | None = None
    from_: Instant | None = None
    to: Instant | None = None
    name: str | None = None
    extras: JsonObject = field(default_factory=_extras)
    expect: ClassVar[str] = "no_alert"


@dataclass(frozen=True, slots=True)
class SameAsExpectation:
    """The DAG's runs equal an accepted golden list (regression checks); runs stay JSON."""

    dag_id: str
    runs: tuple[JsonObject, ...] = ()
    name: str | None = None
    extras: JsonObject = field(default_factory=_extras)
    expect: ClassVar[str] = "same_as"


Expectation = (
    RunsBetweenExpectation
    | NoRunExpectation
    | CountExpectation
    | FiresWithinExpectation
    | NoAlertExpectation
    | SameAsExpectation
)


@dataclass(frozen=True, slots=True)
class ImportInfo:
    """How an imported scenario was made, so Re-import can repeat it (ADR 0007 section 4)."""

    roots: tuple[str, ...] = ()
    task_duration: Duration | None = None
    parsed_at: Instant | None = None
    extras: JsonObject = field(default_factory=_extras)


@dataclass(frozen=True, slots=True, weakref_slot=True)  # weakref: scenario.checked
class Scenario:
    """A whole scenario file: the DAGs, the simulated deployment, its script, the GUI layout."""

    name: str
    clock: Clock
    description: str | None = None
    scheduler: SchedulerSettings = field(default_factory=SchedulerSettings)
    airflow_config: AirflowConfig = field(default_factory=AirflowConfig)
    assets: tuple[AssetDecl, ...] = ()
    dags: tuple[Dag, ...] = ()
    script: tuple[ScriptAction, ...] = ()
    #: Node positions for the GUI's graph, by node id.
    layout: dict[str, tuple[float, float]] = field(default_factory=dict)
    extras: JsonObject = field(default_factory=_extras)
    #: Seed of the random task failures (``failure_rate``): same seed, same record.
    seed: int = 0
    alerts: AlertSettings = field(default_factory=AlertSettings)
    #: ``@asset`` / ``@asset.multi`` definitions, expanded into DAGs at build.
    asset_dags: tuple[AssetDag, ...] = ()
    #: What must (not) happen, checked by ``explorer check`` (ADR 0007 section 5).
    expectations: tuple[Expectation, ...] = ()
    #: Set on scenarios made by ``explorer import``.
    import_info: ImportInfo | None = None
