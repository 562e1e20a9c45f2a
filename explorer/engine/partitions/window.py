"""Rollup and fan-out windows, as ``airflow/partition_mappers/window.py`` (PT-9).

A window lists the members of one period from its anchor (the decoded consumer
key). Temporal windows step on the anchor's *wall-clock reading*: a DayWindow
is 24 one-hour steps of naive time whatever DST does; the upstream mapper
re-encodes each member in its zone afterwards (PT-8, PT-14). They are kept in
one module, as in Airflow, because they differ only by step and count.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar

from explorer.engine.partitions.base import Decoded, PartitionError

__all__ = [
    "DayWindow",
    "Direction",
    "HourWindow",
    "MonthWindow",
    "QuarterWindow",
    "SegmentWindow",
    "TemporalWindow",
    "WeekWindow",
    "Window",
    "YearWindow",
]

Step = Callable[[datetime, int], datetime]


class Direction(StrEnum):
    """Airflow's ``Window.Direction`` (PT-9)."""

    #: The period starting at the anchor (the default).
    FORWARD = "forward"
    #: The same number of members, ending at the anchor.
    BACKWARD = "backward"


class Window(ABC):
    """Which decoded upstream members make up one decoded consumer period (PT-8, PT-9)."""

    #: Airflow's ``expected_decoded_type``; must equal the rollup mapper's ``decodes_to``.
    decodes_to: ClassVar[type] = str

    @property
    def name(self) -> str:
        return type(self).__name__

    @abstractmethod
    def to_upstream(self, anchor: Decoded) -> list[Decoded]:
        """The members of the period ``anchor`` names, in order."""

    @abstractmethod
    def spec_args(self) -> dict[str, Any]:
        """Every argument, defaults filled in, in the scenario file's spelling."""

    def to_spec(self) -> dict[str, Any]:
        return {"window": self.name, "args": self.spec_args()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Window):
            return NotImplemented
        return self.to_spec() == other.to_spec()

    def __hash__(self) -> int:
        return hash((self.name, repr(self.spec_args())))

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.spec_args().items())
        return f"{self.name}({args})"


class TemporalWindow(Window):
    """A window over wall-clock readings, FORWARD from or BACKWARD to its anchor (PT-9)."""

    decodes_to: ClassVar[type] = datetime

    def __init__(self, *, direction: Direction | str = Direction.FORWARD) -> None:
        try:
            self.direction = Direction(direction)
        except ValueError as exc:
            raise PartitionError(
                f"{self.name} direction must be 'forward' or 'backward', got {direction!r}"
            ) from exc

    def to_upstream(self, anchor: Decoded) -> list[Decoded]:
        if not isinstance(anchor, datetime):
            raise PartitionError(
                f"{self.name} steps through times, but its mapper decoded the key to {anchor!r}"
            )
        try:
            return list(self.members(anchor))
        except PartitionError:
            raise
        except (ValueError, OverflowError) as exc:
            raise PartitionError(f"{self.name} cannot expand {anchor.isoformat()}: {exc}") from exc

    @abstractmethod
    def members(self, anchor: datetime) -> Iterable[datetime]:
        """The members as readings in ``anchor``'s own tzinfo (usually naive)."""

    def spec_args(self) -> dict[str, Any]:
        return {"direction": self.direction.value}

    def _steps(self, anchor: datetime, count: int, step: Step) -> list[datetime]:
        """``count`` steps from the anchor, or the ``count`` steps ending at it (BACKWARD)."""
        first = step(anchor, -(count - 1)) if self.direction is Direction.BACKWARD else anchor
        return [step(first, i) for i in range(count)]


class HourWindow(TemporalWindow):
    """Sixty one-minute steps (PT-9)."""

    def members(self, anchor: datetime) -> list[datetime]:
        return self._steps(anchor, 60, lambda start, i: start + timedelta(minutes=i))


class DayWindow(TemporalWindow):
    """Twenty-four one-hour steps of naive time, whatever the local day's length (PT-9, PT-14)."""

    def members(self, anchor: datetime) -> list[datetime]:
        return self._steps(anchor, 24, lambda start, i: start + timedelta(hours=i))


class WeekWindow(TemporalWindow):
    """Seven one-day steps (PT-9)."""

    def members(self, anchor: datetime) -> list[datetime]:
        return self._steps(anchor, 7, lambda start, i: start + timedelta(days=i))


class MonthWindow(TemporalWindow):
    """Every day of the anchor's month; BACKWARD: (previous 1st, anchor] (PT-9).

    The anchor must be a 1st. Backward from ``2024-03-01`` gives 02-02 … 03-01
    (29 days), not the calendar February.
    """

    def members(self, anchor: datetime) -> list[datetime]:
        _require_first_of_month(anchor, self)
        if self.direction is Direction.BACKWARD:
            previous = _shift_months(anchor, -1)
            days = (anchor - previous).days
            return [previous + timedelta(days=i + 1) for i in range(days)]
        days = (_shift_months(anchor, 1) - anchor).days
        return [anchor + timedelta(days=i) for i in range(days)]


class QuarterWindow(TemporalWindow):
    """Three month starts; the anchor must be a 1st (PT-9)."""

    def members(self, anchor: datetime) -> list[datetime]:
        _require_first_of_month(anchor, self)
        return self._steps(anchor, 3, _shift_months)


class YearWindow(TemporalWindow):
    """Twelve month starts; the anchor must be a 1st (PT-9)."""

    def members(self, anchor: datetime) -> list[datetime]:
        _require_first_of_month(anchor, self)
        return self._steps(anchor, 12, _shift_months)


class SegmentWindow(Window):
    """A fixed set of string keys; the anchor is ignored (PT-9).

    Segments must be non-empty strings and there must be at least one;
    duplicates collapse. Airflow keeps a set and iterates it in arbitrary
    order; members here come out sorted so a simulation is repeatable.
    """

    def __init__(self, segments: Iterable[str]) -> None:
        checked: list[str] = []
        for index, item in enumerate(segments):
            if not isinstance(item, str):
                raise PartitionError(
                    f"SegmentWindow segment keys must be strings; got "
                    f"{type(item).__name__} at index {index}: {item!r}"
                )
            if not item:
                raise PartitionError(
                    f"SegmentWindow segment keys must be non-empty; got an empty string "
                    f"at index {index}."
                )
            checked.append(item)
        if not checked:
            raise PartitionError("SegmentWindow needs at least one segment key.")
        self.segments = frozenset(checked)

    def to_upstream(self, anchor: Decoded) -> list[Decoded]:
        return sorted(self.segments)

    def spec_args(self) -> dict[str, Any]:
        return {"segments": sorted(self.segments)}


def _require_first_of_month(anchor: datetime, window: Window) -> None:
    if anchor.day != 1:
        raise PartitionError(
            f"{window.name} expects a period start on day 1 of the month, got "
            f"{anchor.isoformat()}; its mapper must decode keys to the 1st."
        )


def _shift_months(value: datetime, months: int) -> datetime:
    """``value`` (a 1st) moved by whole months, across years."""
    total = value.month - 1 + months
    return value.replace(year=value.year + total // 12, month=total % 12 + 1)
