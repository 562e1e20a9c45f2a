"""Airflow 3.3.2's names as a DAG file spells them, and the Airflow 2 forms 3.3 refuses.

Airflow classes are recognised by their own name wherever they are imported
from inside ``airflow`` (``airflow.sdk``, ``airflow.timetables.trigger``,
``airflow.providers.standard...``): the reader never imports them, it only
needs to know which record a call makes.
"""

from __future__ import annotations

__all__ = [
    "ASSET_KINDS",
    "DAG_ARGUMENTS",
    "PARTITION_KINDS",
    "REMOVED_DAG_ARGUMENTS",
    "REMOVED_MODULES",
    "TIMETABLE_KINDS",
    "removed_module_reason",
    "removed_name_reason",
]

#: Asset constructors -> the kind the converter reads (``Dataset`` is 3.x's alias of ``Asset``).
ASSET_KINDS: dict[str, str] = {
    "Asset": "Asset",
    "Dataset": "Asset",
    "Model": "Asset",
    "AssetAlias": "AssetAlias",
    "DatasetAlias": "AssetAlias",
    "AssetAll": "AssetAll",
    "DatasetAll": "AssetAll",
    "AssetAny": "AssetAny",
    "DatasetAny": "AssetAny",
    "AssetOrTimeSchedule": "AssetOrTimeSchedule",
    "DatasetOrTimeSchedule": "AssetOrTimeSchedule",
    "AssetWatcher": "AssetWatcher",
}

#: Timetable classes of Airflow 3.3 the scenario format spells (contract section 1).
TIMETABLE_KINDS = frozenset(
    {
        "CronDataIntervalTimetable",
        "CronTriggerTimetable",
        "MultipleCronTriggerTimetable",
        "CronPartitionTimetable",
        "DeltaDataIntervalTimetable",
        "DeltaTriggerTimetable",
        "EventsTimetable",
        "OnceTimetable",
        "ContinuousTimetable",
        "NullTimetable",
        "PartitionedAtRuntime",
        "PartitionedAssetTimetable",
    }
)

#: Partition mappers, windows and wait policies (conformance README 4.1).
PARTITION_KINDS = frozenset(
    {
        "IdentityMapper",
        "AllowedKeyMapper",
        "FixedKeyMapper",
        "StartOfHourMapper",
        "StartOfDayMapper",
        "StartOfWeekMapper",
        "StartOfMonthMapper",
        "StartOfQuarterMapper",
        "StartOfYearMapper",
        "ChainMapper",
        "ProductMapper",
        "RollupMapper",
        "FanOutMapper",
        "HourWindow",
        "DayWindow",
        "WeekWindow",
        "MonthWindow",
        "QuarterWindow",
        "YearWindow",
        "SegmentWindow",
        "WaitForAll",
        "MinimumCount",
    }
)

#: ``DAG(...)``'s keyword arguments in Airflow 3.3.2 (``airflow.sdk.DAG``): any other one is
#: a TypeError that fails the file (``schedule_interval``, ``concurrency``, ``timetable``...).
DAG_ARGUMENTS = frozenset(
    (
        "access_control",
        "allowed_run_types",
        "auto_register",
        "catchup",
        "dag_display_name",
        "dag_id",
        "dagrun_timeout",
        "deadline",
        "default_args",
        "description",
        "disable_bundle_versioning",
        "doc_md",
        "end_date",
        "fail_fast",
        "is_paused_upon_creation",
        "jinja_environment_kwargs",
        "max_active_runs",
        "max_active_tasks",
        "max_consecutive_failed_dag_runs",
        "on_failure_callback",
        "on_success_callback",
        "owner_links",
        "params",
        "render_template_as_native_obj",
        "rerun_with_latest_version",
        "schedule",
        "sla_miss_callback",
        "start_date",
        "tags",
        "task_group",
        "template_searchpath",
        "template_undefined",
        "user_defined_filters",
        "user_defined_macros",
    )
)

#: What Airflow 3 says instead of the arguments it removed.
REMOVED_DAG_ARGUMENTS = {
    "schedule_interval": "Airflow 3 removed schedule_interval; use schedule=",
    "timetable": "Airflow 3 removed timetable=; pass the timetable as schedule=",
    "concurrency": "Airflow 3 removed concurrency; use max_active_tasks=",
}

_NO_MODULE = "ModuleNotFoundError: No module named '{module}' (removed in Airflow 3)"

#: The submodules Airflow 3.3.2 still answers for (real modules or deprecation shims that
#: forward to the standard provider); any other ``airflow.operators.X`` & co. fails to import.
KEPT_SUBMODULES: dict[str, frozenset[str]] = {
    "airflow.operators": frozenset(
        (
            "python",
            "bash",
            "datetime",
            "generic_transfer",
            "weekday",
            "trigger_dagrun",
            "latest_only",
            "empty",
            "email",
            "smooth",
            "branch",
        )
    ),
    "airflow.sensors": frozenset(
        (
            "base",
            "python",
            "bash",
            "date_time",
            "time_sensor",
            "weekday",
            "time_delta",
            "filesystem",
            "external_task",
        )
    ),
    "airflow.hooks": frozenset(["base", "filesystem", "package_index", "subprocess"]),
}

#: Airflow 2 modules that no longer exist in 3.3.2: importing one fails the whole file.
REMOVED_MODULES: dict[str, str] = {
    "airflow.contrib": _NO_MODULE,
    "airflow.datasets": _NO_MODULE + "; use airflow.sdk.Asset",
    "airflow.operators.subdag": _NO_MODULE + "; SubDAGs are gone: use task groups",
}


def removed_module_reason(dotted: str) -> str | None:
    """Why ``import dotted`` fails in Airflow 3.3, if it does."""
    for removed, reason in REMOVED_MODULES.items():
        if dotted == removed or dotted.startswith(removed + "."):
            return reason.format(module=dotted)
    for package, kept in KEPT_SUBMODULES.items():
        if dotted.startswith(package + "."):
            sub = dotted[len(package) + 1 :].split(".")[0]
            if sub not in kept:
                return (
                    f"ModuleNotFoundError: No module named '{package}.{sub}' (moved in Airflow 3: "
                    "operators, sensors and hooks live in airflow.providers.*, e.g. "
                    "airflow.providers.standard.operators.bash)"
                )
    return None


def removed_name_reason(module: str, name: str) -> str | None:
    """Why ``from module import name`` fails in Airflow 3.3, if it does."""
    if name == "days_ago" and module.startswith("airflow"):
        return (
            f"ImportError: cannot import name {name!r} from {module!r} "
            "(days_ago was removed in Airflow 3: use a fixed start_date)"
        )
    return None
