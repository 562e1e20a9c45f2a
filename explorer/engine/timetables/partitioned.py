"""``PartitionedAssetTimetable``: runs per partition key, fired by the PT rules (TT-17)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from explorer.engine.assets.condition import AliasNode, AssetNode, Condition, RefNode, walk
from explorer.engine.partitions import IdentityMapper, PartitionError, PartitionMapper
from explorer.engine.partitions.spec import mapper_to_spec
from explorer.engine.timetables.base import TimetableError
from explorer.engine.timetables.simple import AssetTriggeredTimetable

__all__ = ["PartitionedAssetTimetable"]

#: A ``partition_mapper_config`` entry: an asset node (asset or Asset.ref) and its mapper.
MapperEntry = tuple[AssetNode | RefNode | AliasNode, PartitionMapper]


class PartitionedAssetTimetable(AssetTriggeredTimetable):
    """``PartitionedAssetTimetable(*, assets, partition_mapper_config,
    default_partition_mapper)``."""

    partitioned = True

    def __init__(
        self,
        *,
        assets: Condition,
        partition_mapper_config: Sequence[MapperEntry] = (),
        default_partition_mapper: PartitionMapper | None = None,
    ) -> None:
        super().__init__(assets)
        self.partition_mapper_config = tuple(partition_mapper_config)
        self.default_partition_mapper = default_partition_mapper or IdentityMapper()
        self._by_name: dict[str, PartitionMapper] = {}
        self._by_uri: dict[str, PartitionMapper] = {}
        for node, mapper in self.partition_mapper_config:
            if isinstance(node, AssetNode):
                self._by_name[node.key.name] = mapper
                self._by_uri[node.key.uri] = mapper
            elif isinstance(node, RefNode):
                if node.name is not None:
                    self._by_name[node.name] = mapper
                if node.uri is not None:
                    self._by_uri[node.uri] = mapper
            # aliases cannot be partition-config keys (PT-16): Airflow only warns

    @property
    def summary(self) -> str:
        return "Partitioned Asset"

    @property
    def description(self) -> str:
        return "Triggered by partitioned assets"

    def get_partition_mapper(self, *, name: str = "", uri: str = "") -> PartitionMapper:
        """``get_partition_mapper`` exactly as 3.3.2 writes it: a non-empty ``name`` is looked
        up by name only, and a miss falls back to the default mapper without trying the uri
        (the ``KeyError`` leaves the whole lookup); the uri is consulted only without a name."""
        if name:
            return self._by_name.get(name, self.default_partition_mapper)
        if uri:
            return self._by_uri.get(uri, self.default_partition_mapper)
        return self.default_partition_mapper

    def fingerprint(self) -> list[dict[str, Any]]:
        """``compute_rollup_fingerprint``: mappers by asset; a change discards pending waits."""
        out: list[dict[str, Any]] = [{"default": mapper_to_spec(self.default_partition_mapper)}]
        for node, mapper in self.partition_mapper_config:
            out.append({"node": repr(node), "mapper": mapper_to_spec(mapper)})
        return out

    def resolve_partition_date(self, partition_key: str) -> datetime | None:
        """PT-17: the anchors of the condition's assets' mappers must agree (no carry)."""
        anchors = set()
        for node in walk(self.asset_condition) if self.asset_condition else ():
            if isinstance(node, AssetNode):
                mapper = self.get_partition_mapper(name=node.key.name, uri=node.key.uri)
            elif isinstance(node, RefNode):
                mapper = self.get_partition_mapper(name=node.name or "", uri=node.uri or "")
            else:
                continue
            try:
                anchor = mapper.to_partition_date(partition_key)
            except PartitionError as exc:
                raise TimetableError(f"partition key {partition_key!r}: {exc}") from exc
            if anchor is not None:
                anchors.add(anchor)
        return anchors.pop() if len(anchors) == 1 else None
