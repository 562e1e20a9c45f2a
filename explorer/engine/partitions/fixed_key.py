"""``FixedKeyMapper``, as ``airflow/partition_mappers/fixed_key.py`` (PT-7)."""

from __future__ import annotations

from typing import Any

from explorer.engine.partitions.base import PartitionError, PartitionMapper

__all__ = ["FixedKeyMapper"]


class FixedKeyMapper(PartitionMapper):
    """Every upstream key maps to one constant, non-empty key (PT-7).

    Its usual place is a categorical rollup: ``RollupMapper(upstream_mapper=
    FixedKeyMapper("all"), window=SegmentWindow(["us", "eu", "apac"]))`` (PT-8).
    """

    def __init__(self, downstream_key: str, *, max_downstream_keys: int | None = None) -> None:
        if not isinstance(downstream_key, str) or not downstream_key:
            raise PartitionError(
                f"FixedKeyMapper downstream_key must be a non-empty string; got {downstream_key!r}."
            )
        super().__init__(max_downstream_keys=max_downstream_keys)
        self.downstream_key = downstream_key

    def to_downstream(self, key: str) -> str:
        return self.downstream_key

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap({"downstream_key": self.downstream_key})
