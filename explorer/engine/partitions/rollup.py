"""``RollupMapper``, as ``RollupMapper`` in ``airflow/partition_mappers/base.py`` (PT-8).

Many upstream keys roll up into one consumer key: the upstream mapper names
the consumer key (so the consumer's grain is the *mapper's* output grain, not
the window's), the window lists the upstream keys that key waits for, and the
wait policy says when enough of them have arrived (PT-4, PT-10).
"""

from __future__ import annotations

from collections.abc import Set
from datetime import datetime
from typing import Any, ClassVar

from explorer.engine.partitions.base import PartitionError, PartitionMapper
from explorer.engine.partitions.wait_policy import Satisfaction, WaitForAll, WaitPolicy
from explorer.engine.partitions.window import Window

__all__ = ["RollupMapper"]


class RollupMapper(PartitionMapper):
    """N upstream keys → one consumer key, fired by a wait policy (PT-8).

    ``StartOfHourMapper`` + ``DayWindow`` is a sliding window: key
    ``2026-03-10T09`` waits for 09:00 that day … 08:00 the next (PT-8).
    Expected keys are the window members written with the upstream mapper's
    ``input_format`` in its zone, and must equal the raw upstream keys exactly.
    """

    is_rollup: ClassVar[bool] = True

    def __init__(
        self,
        *,
        upstream_mapper: PartitionMapper,
        window: Window,
        wait_policy: WaitPolicy | None = None,
        max_downstream_keys: int | None = None,
    ) -> None:
        if not isinstance(upstream_mapper, PartitionMapper):
            raise PartitionError(
                f"RollupMapper upstream_mapper must be a partition mapper, got {upstream_mapper!r}"
            )
        if not isinstance(window, Window):
            raise PartitionError(f"RollupMapper window must be a window, got {window!r}")
        if upstream_mapper.decodes_to is not window.decodes_to:
            raise PartitionError(
                f"RollupMapper cannot pair {upstream_mapper.name} with {window.name}: the window "
                f"steps through {window.decodes_to.__name__!r} values but the mapper decodes keys "
                f"to {upstream_mapper.decodes_to.__name__!r}. Temporal windows need a StartOf* "
                "mapper; SegmentWindow needs a string mapper such as FixedKeyMapper."
            )
        if wait_policy is not None and not isinstance(wait_policy, WaitPolicy):
            raise PartitionError(f"RollupMapper wait_policy must be a policy, got {wait_policy!r}")
        super().__init__(max_downstream_keys=max_downstream_keys)
        self.upstream_mapper = upstream_mapper
        self.window = window
        self.wait_policy: WaitPolicy = wait_policy if wait_policy is not None else WaitForAll()
        #: to_upstream's answers by downstream key: a pure function of the (immutable)
        #: mapper and window, asked again at every evaluation of a request (PT-4) and
        #: by ``status``, so each key's window is expanded once.
        self._upstream: dict[str, frozenset[str]] = {}

    def to_downstream(self, key: str) -> str | list[str]:
        return self.upstream_mapper.to_downstream(key)

    def to_upstream(self, downstream_key: str) -> frozenset[str]:
        """Every upstream key ``downstream_key`` waits for (PT-8), re-encoded by the mapper."""
        known = self._upstream.get(downstream_key)
        if known is not None:
            return known
        anchor = self.upstream_mapper.decode_downstream(downstream_key)
        expected = frozenset(
            self.upstream_mapper.encode_upstream(member)
            for member in self.window.to_upstream(anchor)
        )
        self._upstream[downstream_key] = expected
        return expected

    def status(self, downstream_key: str, matched: Set[str]) -> Satisfaction:
        """The wait policy's verdict on the upstream keys ``matched`` so far (PT-4, PT-10)."""
        expected = self.to_upstream(downstream_key)
        return self.wait_policy.is_satisfied_by_keys(matched=matched, expected=expected)

    def to_partition_date(self, downstream_key: str) -> datetime | None:
        return self.upstream_mapper.to_partition_date(downstream_key)

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap(
            {
                "upstream_mapper": self.upstream_mapper.to_spec(),
                "window": self.window.to_spec(),
                "wait_policy": self.wait_policy.to_spec(),
            }
        )
