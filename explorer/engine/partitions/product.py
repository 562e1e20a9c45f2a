"""``ProductMapper``, as ``airflow/partition_mappers/product.py`` (PT-7)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from explorer.engine.partitions.base import PartitionError, PartitionMapper

__all__ = ["ProductMapper"]


class ProductMapper(PartitionMapper):
    """A multi-part key: split on ``delimiter``, map each part with its own mapper, rejoin (PT-7).

    ``us|2026-03-10T09:00:00`` with (Identity, StartOfDay) → ``us|2026-03-10``.
    The part count must equal the mapper count and each mapper must give one
    key. The anchor is the single temporal part's; none or several → None (PT-13).
    """

    def __init__(
        self,
        mapper0: PartitionMapper,
        mapper1: PartitionMapper,
        /,
        *mappers: PartitionMapper,
        delimiter: str = "|",
        max_downstream_keys: int | None = None,
    ) -> None:
        super().__init__(max_downstream_keys=max_downstream_keys)
        self.mappers = (mapper0, mapper1, *mappers)
        for mapper in self.mappers:
            if not isinstance(mapper, PartitionMapper):
                raise PartitionError(
                    f"ProductMapper mappers must be partition mappers, got {mapper!r}"
                )
        if not isinstance(delimiter, str):
            raise PartitionError(f"ProductMapper delimiter must be a string, got {delimiter!r}")
        self.delimiter = delimiter

    def to_downstream(self, key: str) -> str:
        segments = self._split(key)
        if len(segments) != len(self.mappers):
            raise PartitionError(
                f"Expected {len(self.mappers)} segments in key {key!r} "
                f"(delimiter {self.delimiter!r}), got {len(segments)}"
            )
        results: list[str] = []
        for mapper, segment in zip(self.mappers, segments, strict=True):
            mapped = mapper.to_downstream(segment)
            if not isinstance(mapped, str):
                raise PartitionError(
                    f"ProductMapper child mappers must return a single key, "
                    f"but {mapper.name} returned multiple keys"
                )
            results.append(mapped)
        return self.delimiter.join(results)

    def to_partition_date(self, downstream_key: str) -> datetime | None:
        segments = self._split(downstream_key)
        if len(segments) != len(self.mappers):
            return None
        anchors = [
            anchor
            for mapper, segment in zip(self.mappers, segments, strict=True)
            if (anchor := mapper.to_partition_date(segment)) is not None
        ]
        return anchors[0] if len(anchors) == 1 else None

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap(
            {"delimiter": self.delimiter, "mappers": [m.to_spec() for m in self.mappers]}
        )

    def _split(self, key: str) -> list[str]:
        # Airflow calls str.split, which refuses an empty separator on every key.
        if not self.delimiter:
            raise PartitionError("ProductMapper cannot split keys on an empty delimiter")
        return key.split(self.delimiter)
