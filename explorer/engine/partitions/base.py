"""The partition-mapper protocol, shaped like ``airflow/partition_mappers/base.py``.

A mapper turns the partition key of an upstream asset event into the key(s) of
the consumer runs it queues (PT-3), tells which instant a consumer key stands
for (its anchor, PT-13) and, for rollups, which upstream keys one consumer key
waits for (PT-8). Every refusal is a :class:`PartitionError`: at construction
it means Airflow would not load the DAG; from ``to_downstream`` it means the
scheduler logs ``failed to map partition_key`` and queues nothing (PT-3).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, TypeAlias

from explorer.engine.errors import EngineError

__all__ = [
    "DEFAULT_MAX_DOWNSTREAM_KEYS",
    "Decoded",
    "PartitionError",
    "PartitionMapper",
    "QueuePlan",
    "check_max_downstream_keys",
    "plan_queue",
]

#: ``[scheduler] partition_mapper_max_downstream_keys`` in Airflow's default configuration.
DEFAULT_MAX_DOWNSTREAM_KEYS = 1000

#: What ``decode_downstream`` yields and a window iterates over: a naive (or, with
#: ``%z`` in the output format, fixed-offset) wall-clock reading for temporal
#: mappers, the key itself for the others.
Decoded: TypeAlias = datetime | str


class PartitionError(EngineError):
    """A partition mapper, window or wait policy refused (Airflow raises)."""


def check_max_downstream_keys(value: int | None) -> int | None:
    """``None`` or a positive integer, as every Airflow mapper demands (PT-7)."""
    if value is not None and (not isinstance(value, int) or value < 1):
        raise PartitionError(
            f"max_downstream_keys must be a positive integer or None, got {value!r}"
        )
    return value


class PartitionMapper(ABC):
    """Maps the key of an upstream asset event to consumer partition keys (PT-3, PT-7)."""

    #: True only for :class:`~explorer.engine.partitions.rollup.RollupMapper` (PT-4).
    is_rollup: ClassVar[bool] = False
    #: True when the consumer run takes the producer run's partition_date (PT-13).
    carries_partition_date: ClassVar[bool] = False
    #: Airflow's ``expected_decoded_type``: what :meth:`decode_downstream` returns.
    #: A rollup refuses a window that iterates over something else (PT-8).
    decodes_to: ClassVar[type] = str

    def __init__(self, *, max_downstream_keys: int | None = None) -> None:
        self.max_downstream_keys = check_max_downstream_keys(max_downstream_keys)

    @property
    def name(self) -> str:
        return type(self).__name__

    @abstractmethod
    def to_downstream(self, key: str) -> str | list[str]:
        """The consumer key (or keys, in order) an upstream ``key`` maps to."""

    def downstream_keys(self, key: str) -> list[str]:
        """:meth:`to_downstream` as a list, the way the scheduler reads it (PT-3)."""
        mapped = self.to_downstream(key)
        return [mapped] if isinstance(mapped, str) else list(mapped)

    def decode_downstream(self, downstream_key: str) -> Decoded:
        """The form a window iterates over; the key itself unless temporal (PT-8)."""
        return downstream_key

    def encode_upstream(self, decoded: Decoded) -> str:
        """Inverse of :meth:`decode_downstream` for one window member (PT-8)."""
        if not isinstance(decoded, str):
            raise PartitionError(
                f"{self.name} cannot encode {decoded!r} as an upstream key (it is not a string)"
            )
        return decoded

    def to_partition_date(self, downstream_key: str) -> datetime | None:
        """The instant (UTC) ``downstream_key`` stands for, or None (PT-13)."""
        return None

    def carry_partition_date(self, source_partition_date: datetime | None) -> datetime | None:
        """The producer's partition_date to keep on the queued request (PT-13): none."""
        return None

    def effective_max_downstream_keys(self, global_cap: int = DEFAULT_MAX_DOWNSTREAM_KEYS) -> int:
        """The fan-out cap: the mapper's own ``max_downstream_keys``, else the global one (PT-3)."""
        return global_cap if self.max_downstream_keys is None else self.max_downstream_keys

    def spec_args(self) -> dict[str, Any]:
        """Every argument, defaults filled in, in the scenario file's spelling."""
        return self._with_cap({})

    def to_spec(self) -> dict[str, Any]:
        return {"mapper": self.name, "args": self.spec_args()}

    def _with_cap(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.max_downstream_keys is not None:
            args["max_downstream_keys"] = self.max_downstream_keys
        return args

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartitionMapper):
            return NotImplemented
        return self.to_spec() == other.to_spec()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_spec(), sort_keys=True))

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.spec_args().items())
        return f"{self.name}({args})"


@dataclass(frozen=True)
class QueuePlan:
    """What the scheduler does with one upstream key for one partitioned consumer (PT-3).

    ``produced`` are the mapper's keys in its order (duplicates kept: each gets
    its own log line and the same pending request). When there are more than
    ``cap`` of them, nothing is queued and Airflow logs ``partition fan-out
    exceeded``.
    """

    source_key: str
    produced: tuple[str, ...]
    cap: int

    @property
    def cap_exceeded(self) -> bool:
        return len(self.produced) > self.cap

    @property
    def queued(self) -> tuple[str, ...]:
        return () if self.cap_exceeded else self.produced


def plan_queue(
    mapper: PartitionMapper, key: str, *, global_cap: int = DEFAULT_MAX_DOWNSTREAM_KEYS
) -> QueuePlan:
    """Map ``key`` and apply the fan-out cap (PT-3); a mapping failure raises PartitionError."""
    produced = tuple(mapper.downstream_keys(key))
    return QueuePlan(key, produced, mapper.effective_max_downstream_keys(global_cap))
