"""The template sandbox: Airflow's jinja2 environment with every way out closed.

Airflow 3.3.2 renders task templates in jinja2's ``SandboxedEnvironment``
(``_private`` attributes readable, ``__dunder__`` ones not). That sandbox
stops attribute tricks on plain objects but not a module handed to the
template, whose imports lead to ``os``, ``sys`` and ``builtins``. This one
adds, on top of Airflow's rule:

- no attribute of a module, and no module as an attribute's value;
- only the listed names of a :class:`~explorer.engine.templating.macros.Namespace`;
- no reference to ``open``, ``exec``, ``eval``, ``compile``, ``__import__``,
  ``getattr`` and the other builtins that reach outside;
- no ``now()``/``utcnow()``/``today()`` (the wall clock);
- no jinja2 internals (the environment, a context, a template object);
- counted bounds (:mod:`~explorer.engine.templating.limits`) on every
  operator, call, filter and namespace assignment that can build a large value.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from functools import update_wrapper
from types import ModuleType
from typing import Any

import jinja2
import jinja2.exceptions
import jinja2.runtime
import jinja2.sandbox
import jinja2.utils

from explorer.engine.templating.limits import (
    MAX_VALUE_LEN,
    RenderBudget,
    TemplateLimitError,
    check_value,
    check_width,
    check_widths,
    str_method_length,
)
from explorer.engine.templating.macros import CLOCK_READERS, CLOCK_TYPES, Namespace

__all__ = ["TemplateSandbox"]

_FORBIDDEN_BUILTINS = frozenset(
    id(getattr(builtins, name))
    for name in (
        "open",
        "exec",
        "eval",
        "compile",
        "__import__",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "breakpoint",
        "input",
        "help",
        "exit",
        "quit",
        "memoryview",
        "type",
        "object",
        "super",
    )
    if hasattr(builtins, name)
)

#: jinja2 objects whose attributes lead to the environment and its globals.
_INTERNALS: tuple[type, ...] = (
    jinja2.Environment,
    jinja2.runtime.Context,
    jinja2.Template,
    jinja2.runtime.TemplateReference,
)

#: ``str`` methods whose integer argument is the length of the string they build.
_PADDING = frozenset({"ljust", "rjust", "center", "zfill"})


class BoundedNamespace(jinja2.utils.Namespace):
    """jinja2's ``namespace()`` whose assignments are size-checked (a loop that
    doubles a string in a namespace would otherwise fill memory)."""

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, check_value(value))


class _BoundedFormatter(jinja2.sandbox.SandboxedFormatter):
    """The sandbox's ``str.format`` with each resolved field's spec checked."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        check_widths(format_spec)
        return check_value(super().format_field(value, format_spec))


class TemplateSandbox(jinja2.sandbox.SandboxedEnvironment):
    """Airflow's sandboxed environment, closed to modules and bounded in work."""

    intercepted_binops = frozenset({"*", "**", "%", "+", "//"})

    def __init__(self, budget: RenderBudget, **options: Any) -> None:
        super().__init__(**options)
        self.budget = budget
        self.globals["namespace"] = BoundedNamespace
        self.globals["lipsum"] = _bounded_lipsum(jinja2.utils.generate_lorem_ipsum)
        self.filters = {name: _bounded_filter(f) for name, f in self.filters.items()}

    # -- attributes ---------------------------------------------------------------

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if attr.startswith("__") or jinja2.sandbox.is_internal_attribute(obj, attr):
            return False
        if isinstance(obj, Namespace):
            return obj.exposes(attr)
        if isinstance(obj, ModuleType) or isinstance(value, ModuleType):
            return False
        if isinstance(obj, _INTERNALS) or isinstance(value, _INTERNALS):
            return False
        if id(value) in _FORBIDDEN_BUILTINS:
            return False
        return not (attr in CLOCK_READERS and _is_clock_type(obj))

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, Namespace) and not obj.exposes(attribute):
            return self.unsafe_undefined(obj, attribute)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(obj, Namespace) and not (isinstance(argument, str) and obj.exposes(argument)):
            return self.unsafe_undefined(obj, str(argument))
        return super().getitem(obj, argument)

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        if attribute in CLOCK_READERS and _is_clock_type(obj):
            hint = (
                f"{attribute}() reads the wall clock and a simulation has none: use "
                "logical_date, data_interval_end or dag_run.run_after"
            )
        elif isinstance(obj, Namespace):
            hint = (
                f"{obj!r} offers no {attribute!r} in the sandbox (it exposes functions "
                "and classes, never a module)"
            )
        else:
            hint = f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe"
        return self.undefined(hint, name=attribute, obj=obj, exc=jinja2.exceptions.SecurityError)

    def is_safe_callable(self, obj: Any) -> bool:
        if isinstance(obj, ModuleType) or id(obj) in _FORBIDDEN_BUILTINS:
            return False
        return bool(super().is_safe_callable(obj))

    # -- calls and operators --------------------------------------------------------

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        __self.budget.step()
        _check_call(__obj, args)
        result = super().call(__context, __obj, *args, **kwargs)
        owner = getattr(__obj, "__self__", None)
        if owner is not None and not isinstance(owner, ModuleType):
            check_value(owner)  # list.extend and the like grow their owner
        return check_value(result)

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        self.budget.step()
        _check_binop(operator_, left, right)
        return check_value(self.binop_table[operator_](left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format``/``format_map`` through the sandbox's formatter, spec-checked."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text: str = value.__self__
        formatter = _BoundedFormatter(self)
        is_map = value.__name__ == "format_map"
        check_value_length(len(text))

        def bounded(*args: Any, **kwargs: Any) -> str:
            if is_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one argument")
                kwargs, args = args[0], ()
            result: str = check_value(type(text)(formatter.vformat(text, args, kwargs)))
            return result

        return update_wrapper(bounded, value)


def _is_clock_type(obj: Any) -> bool:
    return isinstance(obj, CLOCK_TYPES) or (isinstance(obj, type) and issubclass(obj, CLOCK_TYPES))


def _check_call(obj: Any, args: tuple[Any, ...]) -> None:
    """Refuse, before it runs, a string method call that would build an oversized value."""
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, str):
        return
    name = getattr(obj, "__name__", "")
    if name in _PADDING and args and isinstance(args[0], int):
        check_width(args[0], f"str.{name} width")
        return
    length = str_method_length(owner, name, args)
    if length is not None:
        check_value_length(length)


def check_value_length(length: int) -> None:
    if length > MAX_VALUE_LEN:
        raise TemplateLimitError(
            f"a value of {length:,} items would be over the limit of {MAX_VALUE_LEN:,}"
        )


def _check_binop(op: str, left: Any, right: Any) -> None:
    """Refuse, before it is computed, an operation whose result is over the bounds."""
    if op == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple | bytes) and isinstance(times, int):
                check_value_length(len(seq) * max(times, 0))
    elif op == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
        if abs(left) > 1:
            check_value(1 << min(left.bit_length() * right, 1 << 24))
    elif op == "%" and isinstance(left, str):
        check_widths(left)
        values = right if isinstance(right, tuple) else (right,)
        if "*" in left:
            for value in values:
                if isinstance(value, int):
                    check_width(abs(value), "%-format width")
    elif (
        op == "+" and isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple)
    ):
        check_value_length(len(left) + len(right))


def _bounded_lipsum(lipsum: Callable[..., Any]) -> Callable[..., Any]:
    def bounded(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> Any:
        if n * max > MAX_VALUE_LEN // 10:
            raise TemplateLimitError(f"lipsum({n}, max={max}) is over the size limit")
        return lipsum(n, html, min, max)

    return bounded


def _bounded_filter(function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose integer arguments (widths, counts) and result are size-checked."""

    skip = 2 if getattr(function, "jinja_pass_arg", None) is not None else 1

    def bounded(*args: Any, **kwargs: Any) -> Any:
        for value in (*args[skip:], *kwargs.values()):
            if isinstance(value, int) and not isinstance(value, bool):
                check_width(abs(value), "filter argument")
        return check_value(function(*args, **kwargs))

    return update_wrapper(bounded, function)  # keeps jinja_pass_arg with __dict__
