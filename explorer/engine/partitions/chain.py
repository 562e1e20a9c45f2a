"""``ChainMapper``, as ``airflow/partition_mappers/chain.py`` (PT-7)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from explorer.engine.partitions.base import PartitionError, PartitionMapper

__all__ = ["ChainMapper"]


class ChainMapper(PartitionMapper):
    """Applies two or more mappers in turn, each to every key the previous one gave (PT-7).

    A mapper that returns several keys fans the chain out; nothing is
    de-duplicated. One final key comes back as a string, any other count as a
    list. The last mapper writes the final keys, so it owns their anchor (PT-13).
    """

    def __init__(
        self,
        mapper0: PartitionMapper,
        mapper1: PartitionMapper,
        /,
        *mappers: PartitionMapper,
        max_downstream_keys: int | None = None,
    ) -> None:
        super().__init__(max_downstream_keys=max_downstream_keys)
        self.mappers = (mapper0, mapper1, *mappers)
        for mapper in self.mappers:
            if not isinstance(mapper, PartitionMapper):
                raise PartitionError(
                    f"ChainMapper mappers must be partition mappers, got {mapper!r}"
                )

    def to_downstream(self, key: str) -> str | list[str]:
        keys = [key]
        for mapper in self.mappers:
            keys = [mapped for current in keys for mapped in mapper.downstream_keys(current)]
        return keys[0] if len(keys) == 1 else keys

    def to_partition_date(self, downstream_key: str) -> datetime | None:
        return self.mappers[-1].to_partition_date(downstream_key)

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap({"mappers": [mapper.to_spec() for mapper in self.mappers]})
