"""``IdentityMapper``, as ``airflow/partition_mappers/identity.py`` (PT-7)."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from explorer.engine.partitions.base import PartitionMapper

__all__ = ["IdentityMapper"]


class IdentityMapper(PartitionMapper):
    """The consumer key is the upstream key (PT-7).

    The key has no temporal meaning to decode, so the consumer run takes the
    producer run's partition_date instead (PT-13): the only mapper that carries it.
    """

    carries_partition_date: ClassVar[bool] = True

    def to_downstream(self, key: str) -> str:
        return key

    def carry_partition_date(self, source_partition_date: datetime | None) -> datetime | None:
        return source_partition_date
