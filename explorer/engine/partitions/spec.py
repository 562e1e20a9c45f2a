"""Mappers, windows and wait policies from and to their JSON spelling (conformance README 4.1).

A spec names Airflow's class and its arguments, nested where Airflow nests
them::

    {"mapper": "RollupMapper", "args": {
        "upstream_mapper": {"mapper": "StartOfWeekMapper", "args": {"timezone": "UTC"}},
        "window": {"window": "WeekWindow", "args": {"direction": "backward"}},
        "wait_policy": {"policy": "MinimumCount", "args": {"n": -2}}}}

Building refuses (PartitionError) an unknown class or argument, a missing or
ill-typed argument, and everything the classes themselves refuse. The
``*_to_spec`` functions give the resolved form: every default filled in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from explorer.engine.partitions.allowed_key import AllowedKeyMapper
from explorer.engine.partitions.base import PartitionError, PartitionMapper
from explorer.engine.partitions.chain import ChainMapper
from explorer.engine.partitions.fan_out import FanOutMapper
from explorer.engine.partitions.fixed_key import FixedKeyMapper
from explorer.engine.partitions.identity import IdentityMapper
from explorer.engine.partitions.product import ProductMapper
from explorer.engine.partitions.rollup import RollupMapper
from explorer.engine.partitions.temporal import (
    DEFAULT_INPUT_FORMAT,
    StartOfDayMapper,
    StartOfHourMapper,
    StartOfMonthMapper,
    StartOfQuarterMapper,
    StartOfWeekMapper,
    StartOfYearMapper,
    TemporalMapper,
)
from explorer.engine.partitions.wait_policy import MinimumCount, WaitForAll, WaitPolicy
from explorer.engine.partitions.window import (
    DayWindow,
    HourWindow,
    MonthWindow,
    QuarterWindow,
    SegmentWindow,
    TemporalWindow,
    WeekWindow,
    Window,
    YearWindow,
)

__all__ = [
    "MAPPER_NAMES",
    "POLICY_NAMES",
    "WINDOW_NAMES",
    "build_mapper",
    "build_wait_policy",
    "build_window",
    "mapper_to_spec",
    "wait_policy_to_spec",
    "window_to_spec",
]

_ABSENT: Any = object()


class _Args:
    """The ``args`` of one spec: typed reads, and a complaint about anything left unread."""

    def __init__(self, owner: str, raw: object) -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise PartitionError(f"{owner} args must be an object, got {raw!r}")
        self.owner = owner
        self.raw: Mapping[str, Any] = raw
        self.read: list[str] = []

    def get(self, name: str, default: Any = _ABSENT) -> Any:
        self.read.append(name)
        if name in self.raw:
            return self.raw[name]
        if default is _ABSENT:
            raise PartitionError(f"{self.owner} needs the argument {name!r}")
        return default

    def string(self, name: str, default: Any = _ABSENT) -> Any:
        value = self.get(name, default)
        if value is not None and not isinstance(value, str):
            raise PartitionError(f"{self.owner} {name} must be a string, got {value!r}")
        return value

    def integer(self, name: str, default: Any = _ABSENT) -> Any:
        value = self.get(name, default)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise PartitionError(f"{self.owner} {name} must be an integer, got {value!r}")
        return value

    def strings(self, name: str) -> list[str]:
        value = self.get(name)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise PartitionError(f"{self.owner} {name} must be a list of strings, got {value!r}")
        return value

    def mappers(self, name: str) -> list[PartitionMapper]:
        value = self.get(name)
        if not isinstance(value, list) or len(value) < 2:
            raise PartitionError(
                f"{self.owner} {name} must be a list of two or more mapper specs, got {value!r}"
            )
        return [build_mapper(item) for item in value]

    def cap(self) -> Any:
        return self.integer("max_downstream_keys", None)

    def done(self) -> None:
        unknown = sorted(set(self.raw) - set(self.read))
        if unknown:
            raise PartitionError(
                f"{self.owner} has no argument {', '.join(map(repr, unknown))} "
                f"(it takes {', '.join(map(repr, self.read))})"
            )


def _temporal(cls: type[TemporalMapper]) -> Callable[[_Args], PartitionMapper]:
    def build(args: _Args) -> PartitionMapper:
        return cls(
            timezone=args.string("timezone", "UTC"),
            input_format=args.string("input_format", DEFAULT_INPUT_FORMAT),
            output_format=args.string("output_format", None),
            max_downstream_keys=args.cap(),
        )

    return build


def _identity(args: _Args) -> PartitionMapper:
    return IdentityMapper(max_downstream_keys=args.cap())


def _allowed_key(args: _Args) -> PartitionMapper:
    return AllowedKeyMapper(args.strings("allowed_keys"), max_downstream_keys=args.cap())


def _fixed_key(args: _Args) -> PartitionMapper:
    return FixedKeyMapper(args.string("downstream_key"), max_downstream_keys=args.cap())


def _chain(args: _Args) -> PartitionMapper:
    first, second, *more = args.mappers("mappers")
    return ChainMapper(first, second, *more, max_downstream_keys=args.cap())


def _product(args: _Args) -> PartitionMapper:
    first, second, *more = args.mappers("mappers")
    delimiter = args.string("delimiter", "|")
    return ProductMapper(first, second, *more, delimiter=delimiter, max_downstream_keys=args.cap())


def _rollup(args: _Args) -> PartitionMapper:
    policy = args.get("wait_policy", None)
    return RollupMapper(
        upstream_mapper=build_mapper(args.get("upstream_mapper")),
        window=build_window(args.get("window")),
        wait_policy=None if policy is None else build_wait_policy(policy),
        max_downstream_keys=args.cap(),
    )


def _fan_out(args: _Args) -> PartitionMapper:
    downstream = args.get("downstream_mapper", None)
    return FanOutMapper(
        upstream_mapper=build_mapper(args.get("upstream_mapper")),
        window=build_window(args.get("window")),
        downstream_mapper=None if downstream is None else build_mapper(downstream),
        max_downstream_keys=args.cap(),
    )


_MAPPERS: dict[str, Callable[[_Args], PartitionMapper]] = {
    "IdentityMapper": _identity,
    "AllowedKeyMapper": _allowed_key,
    "FixedKeyMapper": _fixed_key,
    "StartOfHourMapper": _temporal(StartOfHourMapper),
    "StartOfDayMapper": _temporal(StartOfDayMapper),
    "StartOfWeekMapper": _temporal(StartOfWeekMapper),
    "StartOfMonthMapper": _temporal(StartOfMonthMapper),
    "StartOfQuarterMapper": _temporal(StartOfQuarterMapper),
    "StartOfYearMapper": _temporal(StartOfYearMapper),
    "ChainMapper": _chain,
    "ProductMapper": _product,
    "RollupMapper": _rollup,
    "FanOutMapper": _fan_out,
}

_TEMPORAL_WINDOWS: dict[str, type[TemporalWindow]] = {
    cls.__name__: cls
    for cls in (HourWindow, DayWindow, WeekWindow, MonthWindow, QuarterWindow, YearWindow)
}

MAPPER_NAMES: tuple[str, ...] = tuple(_MAPPERS)
WINDOW_NAMES: tuple[str, ...] = (*_TEMPORAL_WINDOWS, "SegmentWindow")
POLICY_NAMES: tuple[str, ...] = ("WaitForAll", "MinimumCount")


def _split(spec: object, kind: str, names: tuple[str, ...]) -> tuple[str, _Args]:
    """The class name and args of a spec ``{kind: name, "args": {...}}``."""
    if not isinstance(spec, Mapping):
        raise PartitionError(
            f"a {kind} spec must be an object like {{{kind!r}: ...}}, got {spec!r}"
        )
    extra = sorted(set(spec) - {kind, "args"})
    if extra:
        raise PartitionError(f"a {kind} spec has only {kind!r} and 'args', not {extra}")
    name = spec.get(kind)
    if name not in names:
        raise PartitionError(f"unknown {kind} {name!r}; known: {', '.join(names)}")
    return name, _Args(name, spec.get("args"))


def build_mapper(spec: Mapping[str, Any]) -> PartitionMapper:
    """The mapper a ``{"mapper": ..., "args": ...}`` spec describes (README 4.1)."""
    name, args = _split(spec, "mapper", MAPPER_NAMES)
    mapper = _MAPPERS[name](args)
    args.done()
    return mapper


def build_window(spec: Mapping[str, Any]) -> Window:
    """The window a ``{"window": ..., "args": ...}`` spec describes (README 4.1)."""
    name, args = _split(spec, "window", WINDOW_NAMES)
    window: Window
    if name == "SegmentWindow":
        window = SegmentWindow(args.strings("segments"))
    else:
        window = _TEMPORAL_WINDOWS[name](direction=args.string("direction", "forward"))
    args.done()
    return window


def build_wait_policy(spec: Mapping[str, Any]) -> WaitPolicy:
    """The policy a ``{"policy": ..., "args": ...}`` spec describes (README 4.1)."""
    name, args = _split(spec, "policy", POLICY_NAMES)
    policy: WaitPolicy = MinimumCount(args.integer("n")) if name == "MinimumCount" else WaitForAll()
    args.done()
    return policy


def mapper_to_spec(mapper: PartitionMapper) -> dict[str, Any]:
    """``mapper`` resolved: every default filled in (the vectors' ``resolved_mapper``)."""
    return mapper.to_spec()


def window_to_spec(window: Window) -> dict[str, Any]:
    return window.to_spec()


def wait_policy_to_spec(policy: WaitPolicy) -> dict[str, Any]:
    return policy.to_spec()
