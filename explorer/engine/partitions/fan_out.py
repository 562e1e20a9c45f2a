"""``FanOutMapper``, as ``FanOutMapper`` in ``airflow/partition_mappers/temporal.py`` (PT-11).

The mirror of a rollup: one upstream key → one consumer key per window
member, each with its own request and run, all consuming the same event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from explorer.engine.partitions.base import Decoded, PartitionError, PartitionMapper
from explorer.engine.partitions.temporal import (
    StartOfDayMapper,
    StartOfHourMapper,
    StartOfMonthMapper,
    TemporalMapper,
)
from explorer.engine.partitions.window import Window

__all__ = ["DEFAULT_DOWNSTREAM_MAPPERS", "FanOutMapper"]

#: The downstream mapper Airflow picks when none is given, by window class name
#: (default arguments, so UTC). HourWindow, SegmentWindow and others have none.
DEFAULT_DOWNSTREAM_MAPPERS: dict[str, type[TemporalMapper]] = {
    "DayWindow": StartOfHourMapper,
    "WeekWindow": StartOfDayMapper,
    "MonthWindow": StartOfDayMapper,
    "QuarterWindow": StartOfMonthMapper,
    "YearWindow": StartOfMonthMapper,
}


class FanOutMapper(PartitionMapper):
    """Upstream key → period start → window members → one consumer key each (PT-11).

    A weekly key ``2026-03-09T00:00:00`` with ``WeekWindow`` gives
    ``2026-03-09`` … ``2026-03-15``. The downstream mapper writes each member
    (with its ``output_format``, without normalizing); a mapper without a
    format writes a time in ISO form and anything else as text. The upstream
    mapper must give a single key.
    """

    def __init__(
        self,
        *,
        upstream_mapper: PartitionMapper,
        window: Window,
        downstream_mapper: PartitionMapper | None = None,
        max_downstream_keys: int | None = None,
    ) -> None:
        super().__init__(max_downstream_keys=max_downstream_keys)
        if not isinstance(upstream_mapper, PartitionMapper):
            raise PartitionError(
                f"FanOutMapper upstream_mapper must be a partition mapper, got {upstream_mapper!r}"
            )
        if not isinstance(window, Window):
            raise PartitionError(f"FanOutMapper window must be a window, got {window!r}")
        self.upstream_mapper = upstream_mapper
        self.window = window
        self.downstream_mapper = downstream_mapper or _default_downstream_mapper(window)
        if not isinstance(self.downstream_mapper, PartitionMapper):
            raise PartitionError(
                "FanOutMapper downstream_mapper must be a partition mapper, "
                f"got {downstream_mapper!r}"
            )

    def to_downstream(self, key: str) -> list[str]:
        formatted = self.upstream_mapper.to_downstream(key)
        if not isinstance(formatted, str):
            raise PartitionError(
                "FanOutMapper.upstream_mapper must produce a single key; "
                f"{self.upstream_mapper.name} produced {len(formatted)}"
            )
        period = self.upstream_mapper.decode_downstream(formatted)
        return [_write(self.downstream_mapper, item) for item in self.window.to_upstream(period)]

    def to_partition_date(self, downstream_key: str) -> datetime | None:
        return self.downstream_mapper.to_partition_date(downstream_key)

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap(
            {
                "upstream_mapper": self.upstream_mapper.to_spec(),
                "window": self.window.to_spec(),
                "downstream_mapper": self.downstream_mapper.to_spec(),
            }
        )


def _default_downstream_mapper(window: Window) -> PartitionMapper:
    mapper_class = DEFAULT_DOWNSTREAM_MAPPERS.get(type(window).__name__)
    if mapper_class is None:
        raise PartitionError(
            f"FanOutMapper has no default downstream_mapper for {window.name}; "
            "pass downstream_mapper explicitly."
        )
    return mapper_class()


def _write(mapper: PartitionMapper, member: Decoded) -> str:
    """Airflow's ``_format_with``: the mapper's ``format``, else ISO text, else ``str``."""
    if isinstance(mapper, TemporalMapper):
        if not isinstance(member, datetime):
            raise PartitionError(f"{mapper.name} cannot format {member!r} (it is not a time)")
        return mapper.format(member)
    if isinstance(member, datetime):
        return member.isoformat()
    return str(member)
