"""Airflow 3.3.2's partition mappers, windows and wait policies (SEMANTICS section 6).

One class per Airflow class and the same names, so a scenario's
``{"mapper": "RollupMapper", "args": {...}}`` reads like the DAG file it
stands for. Pure: no clock, no I/O; every refusal is a :class:`PartitionError`.
"""

from explorer.engine.partitions.allowed_key import AllowedKeyMapper
from explorer.engine.partitions.base import (
    DEFAULT_MAX_DOWNSTREAM_KEYS,
    Decoded,
    PartitionError,
    PartitionMapper,
    QueuePlan,
    plan_queue,
)
from explorer.engine.partitions.chain import ChainMapper
from explorer.engine.partitions.fan_out import FanOutMapper
from explorer.engine.partitions.fixed_key import FixedKeyMapper
from explorer.engine.partitions.identity import IdentityMapper
from explorer.engine.partitions.product import ProductMapper
from explorer.engine.partitions.rollup import RollupMapper
from explorer.engine.partitions.spec import (
    build_mapper,
    build_wait_policy,
    build_window,
    mapper_to_spec,
    wait_policy_to_spec,
    window_to_spec,
)
from explorer.engine.partitions.temporal import (
    StartOfDayMapper,
    StartOfHourMapper,
    StartOfMonthMapper,
    StartOfQuarterMapper,
    StartOfWeekMapper,
    StartOfYearMapper,
    TemporalMapper,
)
from explorer.engine.partitions.wait_policy import (
    MinimumCount,
    Satisfaction,
    WaitForAll,
    WaitPolicy,
)
from explorer.engine.partitions.window import (
    DayWindow,
    Direction,
    HourWindow,
    MonthWindow,
    QuarterWindow,
    SegmentWindow,
    TemporalWindow,
    WeekWindow,
    Window,
    YearWindow,
)

__all__ = [
    "DEFAULT_MAX_DOWNSTREAM_KEYS",
    "AllowedKeyMapper",
    "ChainMapper",
    "DayWindow",
    "Decoded",
    "Direction",
    "FanOutMapper",
    "FixedKeyMapper",
    "HourWindow",
    "IdentityMapper",
    "MinimumCount",
    "MonthWindow",
    "PartitionError",
    "PartitionMapper",
    "ProductMapper",
    "QuarterWindow",
    "QueuePlan",
    "RollupMapper",
    "Satisfaction",
    "SegmentWindow",
    "StartOfDayMapper",
    "StartOfHourMapper",
    "StartOfMonthMapper",
    "StartOfQuarterMapper",
    "StartOfWeekMapper",
    "StartOfYearMapper",
    "TemporalMapper",
    "TemporalWindow",
    "WaitForAll",
    "WaitPolicy",
    "WeekWindow",
    "Window",
    "YearWindow",
    "build_mapper",
    "build_wait_policy",
    "build_window",
    "mapper_to_spec",
    "plan_queue",
    "wait_policy_to_spec",
    "window_to_spec",
]
