"""Scenario files (format ``schedule-explorer/1``): load, check, save, build engine inputs.

A scenario is read into plain dataclasses (:mod:`explorer.scenario.model`),
saved as canonical JSON, and turned into engine values by
:func:`build_engine_inputs`. Every problem is a :class:`ScenarioError` naming
the file and a JSON path. No Qt here, and no wall clock.
"""

from explorer.scenario.build import EngineInputs, UnsupportedAction, build_engine_inputs
from explorer.scenario.checks import validate_scenario
from explorer.scenario.errors import ScenarioError, ScenarioErrors
from explorer.scenario.load import load_scenario, loads_scenario
from explorer.scenario.migrations import MIGRATIONS, Migration, migrate
from explorer.scenario.model import (
    FORMAT,
    FORMAT_VERSION,
    AirflowConfig,
    AlertSettings,
    AliasEvent,
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
from explorer.scenario.save import dumps_scenario, save_scenario
from explorer.scenario.validate import load_schema
from explorer.scenario.values import Duration, Instant

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MIGRATIONS",
    "AirflowConfig",
    "AlertSettings",
    "AliasEvent",
    "AssetDecl",
    "AssetEventAction",
    "BackfillAction",
    "Clock",
    "Dag",
    "Duration",
    "EngineInputs",
    "Instant",
    "Migration",
    "OverrideAction",
    "ParseAction",
    "PauseAction",
    "RunOutcomeAction",
    "RunSelectorModel",
    "Scenario",
    "ScenarioError",
    "ScenarioErrors",
    "SchedulerSettings",
    "ScriptAction",
    "SourceItem",
    "Task",
    "TaskOutcomeAction",
    "TriggerAction",
    "UnpauseAction",
    "UnsupportedAction",
    "Watcher",
    "build_engine_inputs",
    "dumps_scenario",
    "load_scenario",
    "load_schema",
    "loads_scenario",
    "migrate",
    "save_scenario",
    "validate_scenario",
]
