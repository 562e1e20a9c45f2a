"""Airflow 3.3.2's names as a DAG file spells them, and the Airflow 2 forms 3.3 refuses.

Airflow classes are recognised by their own name wherever they are imported
from inside ``airflow`` (``airflow.sdk``, ``airflow.timetables.trigger``,
``airflow.providers.standard...``): the reader never imports them, it only
needs to know which record a call makes.
"""

from __future__ import annotations

__all__ = [
    "ASSET_KINDS",
    "PARTITION_KINDS",
    "REMOVED_MODULES",
    "TIMETABLE_KINDS",
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

_NO_MODULE = "ModuleNotFoundError: No module named '{module}' (removed in Airflow 3)"

#: Airflow 2 modules that no longer exist in 3.3.2: importing one fails the whole file.
REMOVED_MODULES: dict[str, str] = {
    "airflow.utils.dates": _NO_MODULE + "; days_ago() is gone: use a fixed start_date",
    "airflow.contrib": _NO_MODULE,
    "airflow.operators.bash_operator": _NO_MODULE
    + "; use airflow.providers.standard.operators.bash",
    "airflow.operators.python_operator": _NO_MODULE
    + "; use airflow.providers.standard.operators.python",
    "airflow.operators.dummy_operator": _NO_MODULE
    + "; use airflow.providers.standard.operators.empty",
    "airflow.operators.dummy": _NO_MODULE + "; use airflow.providers.standard.operators.empty",
    "airflow.operators.subdag": _NO_MODULE + "; SubDAGs are gone: use task groups",
    "airflow.operators.subdag_operator": _NO_MODULE + "; SubDAGs are gone: use task groups",
    "airflow.sensors.base_sensor_operator": _NO_MODULE,
    "airflow.sensors.external_task_sensor": _NO_MODULE,
    "airflow.hooks.base_hook": _NO_MODULE,
}


def removed_name_reason(module: str, name: str) -> str | None:
    """Why ``from module import name`` fails in Airflow 3.3, if it does."""
    if module == "airflow.utils.dates" or name == "days_ago":
        return (
            f"ImportError: cannot import name {name!r} from {module!r} "
            "(days_ago was removed in Airflow 3: use a fixed start_date)"
        )
    return None
