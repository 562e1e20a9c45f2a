"""``AllowedKeyMapper``, as ``airflow/partition_mappers/allowed_key.py`` (PT-7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.engine.partitions.base import PartitionError, PartitionMapper

__all__ = ["AllowedKeyMapper"]


class AllowedKeyMapper(PartitionMapper):
    """Passes a key through only if it is one of ``allowed_keys``, exactly (PT-7).

    The comparison is exact and case-sensitive: with ``["us", "eu", "apac"]``,
    ``US`` and ``"us "`` fail to map (the scheduler logs it and queues nothing).
    """

    def __init__(
        self, allowed_keys: Sequence[str], *, max_downstream_keys: int | None = None
    ) -> None:
        super().__init__(max_downstream_keys=max_downstream_keys)
        if isinstance(allowed_keys, str) or not all(isinstance(k, str) for k in allowed_keys):
            raise PartitionError(
                f"AllowedKeyMapper allowed_keys must be a list of strings, got {allowed_keys!r}"
            )
        self.allowed_keys = tuple(allowed_keys)

    def to_downstream(self, key: str) -> str:
        if key not in self.allowed_keys:
            raise PartitionError(f"Key {key!r} not in allowed keys {list(self.allowed_keys)}")
        return key

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap({"allowed_keys": list(self.allowed_keys)})
