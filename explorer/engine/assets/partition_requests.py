"""Partition requests (``AssetPartitionDagRun``) and their key logs: the data alone.

The rules that open, join and fire them are in :mod:`explorer.engine.assets.partitioned`;
the records live here so that the simulation's state can hold them without
importing those rules (adr/0011-engine-parts.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from explorer.engine.assets.condition import AssetKey
from explorer.engine.runs import DagRun

__all__ = ["KeyLog", "PartitionRequest"]


@dataclass(slots=True)
class KeyLog:
    """``PartitionedAssetKeyLog``: one event logged to one request."""

    asset: AssetKey
    source_partition_key: str
    event_id: int


@dataclass(slots=True)
class PartitionRequest:
    """``AssetPartitionDagRun``: a consumer's wait for one downstream key."""

    id: int
    dag_id: str
    partition_key: str
    created_at: datetime
    carried_partition_date: datetime | None
    fingerprint: list[dict[str, Any]]
    run: DagRun | None = None
    logs: list[KeyLog] = field(default_factory=list)
    #: Readiness depends only on the logs: re-evaluated only after a new one (PT-4).
    evaluated: bool = False
    #: Its place in creation order (``partition_requests`` keeps that order; ``id`` does
    #: not stay unique once a request is dropped).
    opened: int = 0
