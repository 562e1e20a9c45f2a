"""Counted bounds on one template render: work, value sizes and output size.

A render is bounded by what it does (statements executed, calls made, the size
of every value it builds and of its output), never by wall time, so the same
template gives the same answer, or the same error, on every machine.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from types import FrameType
from typing import Any

__all__ = [
    "MAX_INT_BITS",
    "MAX_OUTPUT",
    "MAX_STEPS",
    "MAX_VALUE_LEN",
    "MAX_WIDTH",
    "RenderBudget",
    "TemplateLimitError",
    "check_value",
    "check_widths",
    "str_method_length",
]

#: Statements executed plus calls made by one render.
MAX_STEPS = 1_000_000
#: Characters one render may produce.
MAX_OUTPUT = 1_000_000
#: Length of any string, list, tuple, dict or set a template builds.
MAX_VALUE_LEN = 1_000_000
#: Size of any integer a template builds (about 30,000 decimal digits).
MAX_INT_BITS = 100_000
#: A field width, precision or padding asked of a format or a string method.
MAX_WIDTH = 100_000

#: The file name jinja2 compiles a template's code under.
TEMPLATE_FILENAME = "<template>"

_DIGITS = re.compile(r"\d+")


class TemplateLimitError(Exception):
    """A render went over one of its counted bounds."""


def check_value(value: Any) -> Any:
    """``value`` unchanged, or :class:`TemplateLimitError` when it is too large."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise TemplateLimitError(
                f"an integer of {value.bit_length():,} bits is over the limit of {MAX_INT_BITS:,}"
            )
    elif (
        isinstance(value, str | bytes | list | tuple | dict | set | frozenset)
        and len(value) > MAX_VALUE_LEN
    ):
        raise TemplateLimitError(
            f"a value of {len(value):,} items is over the limit of {MAX_VALUE_LEN:,}"
        )
    return value


def check_width(width: int, what: str) -> None:
    """Refuse a padding or field width that would build an oversized string."""
    if width > MAX_WIDTH:
        raise TemplateLimitError(f"a {what} of {width:,} is over the limit of {MAX_WIDTH:,}")


def check_widths(spec: str, what: str = "format width or precision") -> None:
    """Refuse a format specification or %-format whose numbers exceed :data:`MAX_WIDTH`."""
    for digits in _DIGITS.findall(spec):
        if len(digits) > 7 or int(digits) > MAX_WIDTH:
            check_width(int(digits) if len(digits) <= 12 else 10**12, what)


def str_method_length(owner: str, name: str, args: Sequence[Any]) -> int | None:
    """The length ``owner.<name>(*args)`` would build, computed before it runs, for the
    methods that can multiply a string (``replace``, ``join``, ``expandtabs``); None for
    any other. Both the template sandbox and the DAG-file reader refuse by it."""
    if name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = owner.count(old) if old else len(owner) + 1
        return len(owner) + count * max(len(new) - len(old), 0)
    if name == "join" and args and isinstance(args[0], list | tuple):
        items = args[0]
        return sum(len(i) for i in items if isinstance(i, Sized)) + len(owner) * len(items)
    if name == "expandtabs":
        tab = args[0] if args and isinstance(args[0], int) else 8
        return len(owner) + owner.count("\t") * max(tab, 0)
    return None


@dataclass(slots=True)
class RenderBudget:
    """The work and output one render has used so far."""

    steps: int = 0
    output: int = 0

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > MAX_STEPS:
            raise TemplateLimitError(
                f"too much work: over {MAX_STEPS:,} steps (statements and calls) in one render"
            )

    def emit(self, chunk: str) -> str:
        self.output += len(chunk)
        if self.output > MAX_OUTPUT:
            raise TemplateLimitError(
                f"the output is over the limit of {MAX_OUTPUT:,} characters for one render"
            )
        return chunk

    def trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        """A ``sys.settrace`` hook that counts the template's own lines.

        Only frames of the compiled template are traced: a loop in the template
        executes its body's lines once per iteration, so a nested loop of
        10^5 x 10^5 runs out of steps long before it runs out of time.
        """
        if frame.f_code.co_filename != TEMPLATE_FILENAME:
            return None
        return self._count_line

    def _count_line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.step()
        return self._count_line


class traced:
    """Count a render's template lines against ``budget`` while the block runs."""

    def __init__(self, budget: RenderBudget) -> None:
        self.budget = budget
        self.previous: Any = None

    def __enter__(self) -> RenderBudget:
        self.previous = sys.gettrace()
        sys.settrace(self.budget.trace)
        return self.budget

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self.previous)
