"""When a rollup fires, as ``airflow/partition_mappers/wait_policy.py`` (PT-10).

A policy compares the upstream keys that arrived for one consumer key with
the keys its window expects; only arrived keys that are expected count.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from explorer.engine.partitions.base import PartitionError

__all__ = ["MinimumCount", "Satisfaction", "WaitForAll", "WaitPolicy"]


@dataclass(frozen=True)
class Satisfaction:
    """Airflow's ``PartitionSatisfaction`` (PT-10).

    ``unreachable``: the policy can never be met for a window this size (the
    scheduler warns once and the request waits forever); ``unreachable_reason``
    is set exactly when it is.
    """

    satisfied: bool
    unreachable: bool = False
    unreachable_reason: str | None = None


class WaitPolicy(ABC):
    """Decides whether a rollup's consumer run may be created (PT-4, PT-10)."""

    @property
    def name(self) -> str:
        return type(self).__name__

    @abstractmethod
    def is_satisfied_by_keys(self, *, matched: Set[str], expected: Set[str]) -> Satisfaction:
        """The verdict for the keys ``matched`` so far against the window's ``expected`` keys."""

    @abstractmethod
    def spec_args(self) -> dict[str, Any]:
        """Every argument in the scenario file's spelling."""

    def to_spec(self) -> dict[str, Any]:
        return {"policy": self.name, "args": self.spec_args()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WaitPolicy):
            return NotImplemented
        return self.to_spec() == other.to_spec()

    def __hash__(self) -> int:
        return hash((self.name, repr(self.spec_args())))

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.spec_args().items())
        return f"{self.name}({args})"


class WaitForAll(WaitPolicy):
    """Every expected key has arrived; an empty window is satisfied at once (PT-10)."""

    def is_satisfied_by_keys(self, *, matched: Set[str], expected: Set[str]) -> Satisfaction:
        return Satisfaction(satisfied=expected <= matched)

    def spec_args(self) -> dict[str, Any]:
        return {}


class MinimumCount(WaitPolicy):
    """At least ``n`` expected keys (n > 0), or at most ``-n`` missing (n < 0) (PT-10).

    ``MinimumCount(-1)`` over three keys fires on two; when ``-n`` reaches the
    window size it fires on the first event (the threshold clamps at 0).
    ``n`` larger than the window is unreachable. ``MinimumCount(0)`` is refused.
    """

    def __init__(self, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, int):
            raise PartitionError(f"MinimumCount n must be a non-zero integer, got {n!r}")
        if n == 0:
            raise PartitionError(
                "MinimumCount(0) is degenerate: it would always fire, even on empty windows. "
                "Use WaitForAll() to require every key, or MinimumCount(n) with n != 0."
            )
        self.n = n

    def threshold(self, expected_count: int) -> int:
        """How many expected keys must have arrived."""
        return self.n if self.n > 0 else max(0, expected_count + self.n)

    def is_unreachable(self, expected_count: int) -> bool:
        return self.n > expected_count

    def is_satisfied_by_keys(self, *, matched: Set[str], expected: Set[str]) -> Satisfaction:
        size = len(expected)
        satisfied = len(matched & expected) >= self.threshold(size)
        if not self.is_unreachable(size):
            return Satisfaction(satisfied=satisfied)
        reason = (
            f"wait policy {self!r} can never be satisfied given the window's cardinality {size}"
        )
        return Satisfaction(satisfied=satisfied, unreachable=True, unreachable_reason=reason)

    def spec_args(self) -> dict[str, Any]:
        return {"n": self.n}
