"""Which DAGs an event on an asset can reach (AS-2): an index built from the DAGs.

Built once, and again whenever a deployment changes what a DAG listens to
(DEP-5, DEP-6) or a checkpoint is restored. Derived from ``SimState.dags``, never
checkpointed itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from explorer.engine.assets.condition import AssetKey
from explorer.engine.dagstate import DagState

__all__ = ["ListenerIndex"]


@dataclass(slots=True)
class ListenerIndex:
    """DAG ids by the assets their conditions name, by ``Asset.ref`` name and uri, and
    by alias, in DAG order."""

    by_asset: dict[AssetKey, list[str]] = field(default_factory=dict)
    by_ref_name: dict[str, list[str]] = field(default_factory=dict)
    by_ref_uri: dict[str, list[str]] = field(default_factory=dict)
    by_alias: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, dags: Iterable[DagState]) -> ListenerIndex:
        dags = list(dags)
        index = cls()
        for dag in dags:
            for key in dag.direct_assets:
                index.by_asset.setdefault(key, []).append(dag.dag_id)
            for ref in dag.schedule_refs:
                if ref.name is not None:
                    index.by_ref_name.setdefault(ref.name, []).append(dag.dag_id)
                if ref.uri is not None:
                    index.by_ref_uri.setdefault(ref.uri, []).append(dag.dag_id)
            for alias in dag.schedule_aliases:
                index.by_alias.setdefault(alias, []).append(dag.dag_id)
        order = {dag.dag_id: dag.order for dag in dags}
        for lists in (index.by_asset, index.by_ref_name, index.by_ref_uri, index.by_alias):
            for ids in lists.values():
                ids.sort(key=order.__getitem__)  # declaration order, whatever the input's
        return index

    def listeners(
        self,
        key: AssetKey,
        via_aliases: tuple[str, ...],
        dags: Mapping[str, DagState],
        activates_at: Mapping[AssetKey, datetime],
    ) -> list[str]:
        """The DAGs scheduled on ``key`` directly, by reference (once the asset is
        active, orphanage), or through one of ``via_aliases``, in declaration order."""
        direct = self.by_asset.get(key, ())
        if not via_aliases and (
            key in activates_at
            or (key.name not in self.by_ref_name and key.uri not in self.by_ref_uri)
        ):
            return list(direct)  # the usual event: its direct consumers, already in order
        found = set(direct)
        if key not in activates_at:
            found.update(self.by_ref_name.get(key.name, ()))
            found.update(self.by_ref_uri.get(key.uri, ()))
        for alias in via_aliases:
            found.update(self.by_alias.get(alias, ()))
        return sorted(found, key=lambda d: dags[d].order)
