"""Airflow 3.3.2's names as a DAG file spells them, and the Airflow 2 arguments 3.3 refuses.

Whether an ``import`` succeeds is :mod:`explorer.importer.airflow_table`'s answer.

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
    "TIMETABLE_KINDS",
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
