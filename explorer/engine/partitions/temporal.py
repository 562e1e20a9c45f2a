"""The six ``StartOf*Mapper`` classes of ``airflow/partition_mappers/temporal.py`` (PT-6).

They share everything but the period, so they live together as in Airflow.
A key is parsed with ``input_format`` (Python's ``strptime``), read as wall
time in ``timezone`` (or, with an offset, converted to it), moved to the start
of its period and written with ``output_format``. The consumer key's
partition_date is that period start, decoded back from the key (PT-13).
"""

from __future__ import annotations

import re
from abc import abstractmethod
from datetime import datetime, timedelta
from typing import Any, ClassVar

from explorer.engine.partitions._local import (
    in_zone,
    instant,
    localize,
    parse_key,
    render,
    resolve_zone,
)
from explorer.engine.partitions.base import Decoded, PartitionError, PartitionMapper
from explorer.engine.partitions.keyformat import QUARTER_PATTERNS, compile_key_pattern

__all__ = [
    "DEFAULT_INPUT_FORMAT",
    "StartOfDayMapper",
    "StartOfHourMapper",
    "StartOfMonthMapper",
    "StartOfQuarterMapper",
    "StartOfWeekMapper",
    "StartOfYearMapper",
    "TemporalMapper",
]

DEFAULT_INPUT_FORMAT = "%Y-%m-%dT%H:%M:%S"


class TemporalMapper(PartitionMapper):
    """Airflow's ``_BaseTemporalMapper``: key → start of its period in a zone (PT-6)."""

    decodes_to: ClassVar[type] = datetime
    default_output_format: ClassVar[str]

    def __init__(
        self,
        *,
        timezone: str = "UTC",
        input_format: str = DEFAULT_INPUT_FORMAT,
        output_format: str | None = None,
        max_downstream_keys: int | None = None,
    ) -> None:
        super().__init__(max_downstream_keys=max_downstream_keys)
        self.timezone, self.zone = resolve_zone(timezone)
        if not isinstance(input_format, str):
            raise PartitionError(f"{self.name} input_format must be a string, got {input_format!r}")
        if output_format is not None and not isinstance(output_format, str):
            raise PartitionError(
                f"{self.name} output_format must be a string or None, got {output_format!r}"
            )
        self.input_format = input_format
        # Airflow: ``output_format or default`` - an empty format means the default too.
        self.output_format = output_format or self.default_output_format

    def to_downstream(self, key: str) -> str:
        """Parse, read in the zone, move to the period start, format (PT-6)."""
        parsed = parse_key(key, self.input_format)
        # A naive key is a wall reading in the zone; a key with an offset is an instant.
        local = localize(parsed, self.zone) if parsed.tzinfo is None else in_zone(parsed, self.zone)
        return self.format(self.normalize(local))

    @abstractmethod
    def normalize(self, value: datetime) -> datetime:
        """The start of the period holding ``value`` (same zone, same fold)."""

    def format(self, value: datetime) -> str:
        """``value`` written with ``output_format`` (FanOutMapper uses this too, PT-11)."""
        return render(value, self.output_format)

    def decode_downstream(self, downstream_key: str) -> datetime:
        """Read a consumer key back with ``output_format`` (a naive reading unless ``%z``)."""
        return parse_key(downstream_key, self.output_format)

    def to_partition_date(self, downstream_key: str) -> datetime:
        """The period start the key names, as an instant (PT-13).

        A naive decoded reading is localized in the mapper's zone like any key
        (DST-1: gap forward, repeated reading → later instant).
        """
        anchor = self.normalize(self.decode_downstream(downstream_key))
        if anchor.tzinfo is None:
            anchor = localize(anchor, self.zone)
        return instant(anchor)

    def encode_upstream(self, decoded: Decoded) -> str:
        """A window member as the upstream producer would write it (PT-8).

        Written with ``input_format`` after localizing in the zone, so a member
        inside a DST gap comes out moved forward (PT-14).
        """
        if not isinstance(decoded, datetime):
            raise PartitionError(
                f"{self.name} cannot encode {decoded!r} as an upstream key (it is not a time)"
            )
        if decoded.tzinfo is not None:
            decoded = in_zone(decoded, self.zone).replace(tzinfo=None)
        return render(localize(decoded, self.zone), self.input_format)

    def spec_args(self) -> dict[str, Any]:
        return self._with_cap(
            {
                "timezone": self.timezone,
                "input_format": self.input_format,
                "output_format": self.output_format,
            }
        )


class StartOfHourMapper(TemporalMapper):
    """``2026-03-10T09:37:51`` → ``2026-03-10T09`` (PT-6)."""

    default_output_format = "%Y-%m-%dT%H"

    def normalize(self, value: datetime) -> datetime:
        return value.replace(minute=0, second=0, microsecond=0)


class StartOfDayMapper(TemporalMapper):
    """``2026-03-10T09:37:51`` → ``2026-03-10`` (PT-6)."""

    default_output_format = "%Y-%m-%d"

    def normalize(self, value: datetime) -> datetime:
        return value.replace(hour=0, minute=0, second=0, microsecond=0)


class StartOfWeekMapper(TemporalMapper):
    """``2026-03-10T09:37:51`` → ``2026-03-09 (W11)``, the ISO week's Monday (PT-6).

    The key is read back with a regex built from ``output_format`` (which must
    hold ``%Y``, ``%m`` and ``%d``); a malformed format is refused at once.
    """

    default_output_format = "%Y-%m-%d (W%V)"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._key_pattern = compile_key_pattern(self.output_format)

    def normalize(self, value: datetime) -> datetime:
        monday = value - timedelta(days=value.weekday())
        return monday.replace(hour=0, minute=0, second=0, microsecond=0)

    def decode_downstream(self, downstream_key: str) -> datetime:
        groups = _match(self._key_pattern, downstream_key, ("Y", "m", "d"))
        if groups is None:
            raise PartitionError(
                f"StartOfWeekMapper cannot read {downstream_key!r} with output_format "
                f"{self.output_format!r}; the format must hold %Y, %m and %d."
            )
        return _date(groups["Y"], groups["m"], groups["d"], downstream_key)


class StartOfMonthMapper(TemporalMapper):
    """``2026-03-10T09:37:51`` → ``2026-03`` (PT-6)."""

    default_output_format = "%Y-%m"

    def normalize(self, value: datetime) -> datetime:
        return value.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


class StartOfQuarterMapper(TemporalMapper):
    """``2026-03-10T09:37:51`` → ``2026-Q1``; ``{quarter}`` in the output is 1-4 (PT-6).

    ``{quarter}`` is filled with ``str.format`` after ``strftime``, so any other
    ``{name}`` in the format fails each key (Airflow: KeyError). The key is read
    back with a regex that needs ``%Y`` and ``{quarter}``.
    """

    default_output_format = "%Y-Q{quarter}"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._key_pattern = compile_key_pattern(self.output_format, QUARTER_PATTERNS)

    def normalize(self, value: datetime) -> datetime:
        first_month = (value.month - 1) // 3 * 3 + 1
        return value.replace(month=first_month, day=1, hour=0, minute=0, second=0, microsecond=0)

    def format(self, value: datetime) -> str:
        text = render(value, self.output_format)
        try:
            return text.format(quarter=(value.month - 1) // 3 + 1)
        except KeyError as exc:
            raise PartitionError(
                f"output_format {self.output_format!r} has a placeholder other than "
                f"{{quarter}}: {exc}"
            ) from exc
        except (ValueError, IndexError, AttributeError) as exc:
            raise PartitionError(
                f"output_format {self.output_format!r} is not a valid format string: {exc}"
            ) from exc

    def decode_downstream(self, downstream_key: str) -> datetime:
        groups = _match(self._key_pattern, downstream_key, ("Y", "quarter"))
        if groups is None:
            raise PartitionError(
                f"StartOfQuarterMapper cannot read {downstream_key!r} with output_format "
                f"{self.output_format!r}; the format must hold %Y and {{quarter}}."
            )
        first_month = (int(groups["quarter"]) - 1) * 3 + 1
        return _date(groups["Y"], str(first_month), "1", downstream_key)


class StartOfYearMapper(TemporalMapper):
    """``2026-03-10T09:37:51`` → ``2026`` (PT-6)."""

    default_output_format = "%Y"

    def normalize(self, value: datetime) -> datetime:
        return value.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)


def _match(pattern: re.Pattern[str], key: str, needed: tuple[str, ...]) -> dict[str, str] | None:
    """The named groups of ``key``, or None if it does not match or a group is missing."""
    found = pattern.search(key)
    if found is None or not set(needed) <= set(pattern.groupindex):
        return None
    return {name: found[name] for name in needed}


def _date(year: str, month: str, day: str, key: str) -> datetime:
    """A naive midnight from regex groups (``int`` reads any Unicode digits, as in Airflow)."""
    try:
        return datetime(int(year), int(month), int(day))  # noqa: DTZ001 (a wall reading)
    except ValueError as exc:
        raise PartitionError(f"partition key {key!r} names no real date: {exc}") from exc
