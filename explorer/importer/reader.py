"""A DAG file read with :mod:`ast` as Airflow's DagBag would load it, without running it.

The reader walks a module's statements the way Python would execute them,
but only ever *evaluates* a safe subset: literals, names, arithmetic,
comparisons, f-strings, comprehensions, subscripts, calls of the project's
own functions (their bodies read the same way, to a bounded depth) and calls
of a short list of pure library functions (``datetime``, ``timedelta``,
``pendulum.datetime``, ``relativedelta``...). Airflow's constructors become
records (:mod:`explorer.importer.symbols`); anything else becomes an
:class:`Unknown` with its line and reason. No code object is ever made, no
module of the project is imported: nothing a DAG file says can run.

What DagBag keeps is followed exactly: DAGs used as context managers (and
``@dag`` calls) register themselves; otherwise a DAG is kept only if a
module-level name holds it when the file ends (Airflow scans the module's
globals), so ``dag = DAG(...)`` in a loop keeps only the last one, as Airflow
does.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import operator
import posixpath
import re
import string
import zoneinfo
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePosixPath
from typing import Any, cast

import pendulum
from dateutil.relativedelta import relativedelta

from explorer.engine.templating.limits import str_method_length
from explorer.engine.tz import get_zone
from explorer.importer.airflow_names import (
    ASSET_KINDS,
    DAG_ARGUMENTS,
    PARTITION_KINDS,
    REMOVED_DAG_ARGUMENTS,
    TIMETABLE_KINDS,
)
from explorer.importer.airflow_table import from_import, import_module, outside_need
from explorer.importer.symbols import (
    AfCall,
    DagObj,
    Decorator,
    Flagged,
    FuncObj,
    GroupObj,
    Known,
    ModuleObj,
    TaskFunc,
    TaskObj,
    Unknown,
    UserClass,
    unflag,
)

__all__ = ["AirflowRefusal", "AssetDef", "FileReading", "ModuleLoader", "read_module"]

#: How deep the project's own functions may call one another (a factory, a helper, ...).
MAX_CALL_DEPTH = 6
#: Evaluation steps per file before the reader gives up (a loop over a huge range...).
MAX_STEPS = 400_000
#: Longest string or list a DAG file may build while being read.
MAX_SIZE = 1_000_000
#: Largest integer a DAG file may build while being read (about 30,000 digits).
MAX_INT_BITS = 100_000
#: ``__name__`` of a DAG file when DagBag loads it: never ``"__main__"``.
DAGBAG_MODULE_NAME = "unusual_prefix_dagbag_module"


class AirflowRefusal(Exception):
    """Airflow 3.3 itself fails on this file (``schedule_interval=``, a removed module...)."""

    def __init__(self, line: int, reason: str, dag_id: str | None = None) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason
        #: The DAG whose constructor Airflow refuses, when it is one.
        self.dag_id = dag_id


class _Raised(AirflowRefusal):
    """A ``raise`` statement read: a handler around it may catch it."""


class _ImportFailed(_Raised):
    """An ``import`` Airflow 3.3.2 would fail: ``kind`` is the exception it raises, so an
    ``except ImportError:`` around it takes over as it would at parse."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(line, reason)
        self.kind = reason.split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class _ModuleFailure:
    """A project module whose import raises: every file importing it fails the same way."""

    reason: str
    display: str
    line: int


#: ``Variable.get``'s and ``os.getenv``'s "no default given".
_NO_DEFAULT = object()


class _TooMuch(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass(slots=True)
class AssetDef:
    """An ``@asset`` / ``@asset.multi`` function: a DAG and a task named after it (AS-1)."""

    name: str
    kwargs: dict[str, Any]
    line: int
    multi: bool
    caveats: list[tuple[int, str]] = field(default_factory=list)
    #: Parameters without a default: each is an inlet ``Asset.ref(name=...)``.
    inlet_names: tuple[str, ...] = ()


@dataclass(slots=True)
class FileReading:
    """What one DAG file defines, as DagBag would keep it."""

    dags: list[DagObj]
    assets: list[AssetDef]
    #: (line, what) of blocks not read (a loop over an unknown list...) that may make DAGs.
    missed: list[tuple[int, str]]
    refusal: AirflowRefusal | None = None
    #: Modules the file (or a project module it imports) needs beyond Airflow and Python.
    needs: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- safe calls
_SAFE_TYPES: tuple[type, ...] = (
    str,
    int,
    float,
    bool,
    list,
    tuple,
    dict,
    set,
    frozenset,
    bytes,
    dt.datetime,
    dt.date,
    dt.time,
    dt.timedelta,
    dt.tzinfo,
    PurePosixPath,
    type({}.keys()),
    type({}.values()),
    type({}.items()),
    relativedelta,
    pendulum.Duration,
    type(None),
)

#: Builtins a DAG file may call; each runs for real on plain values.
_BUILTINS: dict[str, Callable[..., Any]] = {
    "range": range,
    "len": len,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "set": set,
    "frozenset": frozenset,
    "sorted": sorted,
    "reversed": reversed,
    "enumerate": enumerate,
    "zip": zip,
    "min": min,
    "max": max,
    "sum": sum,
    "abs": abs,
    "round": round,
    "any": any,
    "all": all,
    "isinstance": isinstance,
    "repr": repr,
    "divmod": divmod,
    "map": map,
    "filter": filter,
}

_DICT_VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))

_BIN_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}

_CMP_OPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _is_plain(value: Any) -> bool:
    """A value made only of safe Python types (no record of the reader inside)."""
    if isinstance(value, list | tuple | set | frozenset):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return isinstance(value, _SAFE_TYPES)


def _sized(value: Any) -> Any:
    """``value``, or :class:`_TooMuch` when it is larger than a DAG file may build."""
    if isinstance(value, str | list | tuple | bytes | dict | set | frozenset):
        if len(value) > MAX_SIZE:
            raise _TooMuch
    elif isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _TooMuch
    return value


def _work(value: Any) -> int:
    """The steps a C-level operation on ``value`` is charged: one per 100 items, or
    per 6,400 bits of an integer, so a loop of large builtin calls runs out of steps."""
    if isinstance(value, str | list | tuple | bytes | dict | set | frozenset):
        return len(value) // 100
    if isinstance(value, int):
        return value.bit_length() // 6400
    return 0


def _expected_size(func: Any, values: list[Any]) -> int:
    """What a string or list builder would build, computed before it runs (``sum`` of
    lists, ``str.join``, ``str.replace``): the result is refused before it is allocated."""
    name = getattr(func, "__name__", "")
    owner = getattr(func, "__self__", None)
    if func is sum and len(values) == 2 and isinstance(values[1], list | tuple | str):
        items: list[Any] | tuple[Any, ...] = (
            values[0] if isinstance(values[0], list | tuple) else ()
        )
        start: list[Any] | tuple[Any, ...] | str = values[1]
        sizes = [len(i) for i in items if isinstance(i, list | tuple | str)]
        return len(start) + int(sum(sizes))
    if isinstance(owner, str):
        return str_method_length(owner, name, values) or 0
    return 0


# ---------------------------------------------------------------------------- module loading
class ModuleLoader:
    """Finds the project's own modules for ``import`` statements and reads each once.

    ``find(dotted)`` returns the source text and display name of a module of
    the imported root (a ``.py`` file or a package ``__init__.py``), or None
    for a module from outside (Airflow, pendulum, a library), which is never
    read. Modules are read with the same rules as DAG files.
    """

    def __init__(
        self,
        find: Callable[[str], tuple[str, str] | None],
        parsed_at: dt.datetime,
    ) -> None:
        self.find = find
        self.parsed_at = parsed_at
        self.cache: dict[str, ModuleObj | Unknown | _ModuleFailure] = {}
        #: What the project's modules need beyond Airflow and Python, by module.
        self.needs: dict[str, tuple[str, ...]] = {}

    def load(self, dotted: str, line: int) -> ModuleObj | Unknown | _ModuleFailure | None:
        if dotted in self.cache:
            return self.cache[dotted]
        found = self.find(dotted)
        if found is None:
            return None
        source, display = found
        self.cache[dotted] = Unknown(line, f"module {dotted} imports itself in a cycle")
        try:
            tree = ast.parse(source, filename=display)
        except (SyntaxError, ValueError) as exc:
            result: ModuleObj | Unknown | _ModuleFailure = Unknown(
                line, f"module {dotted} ({display}): {exc}"
            )
        else:
            reader = _Reader(self, display, dotted)
            try:
                reader.run_module(tree)
                failure = reader.import_failure
                result = (
                    ModuleObj(dotted, reader.env)
                    if failure is None
                    else _ModuleFailure(failure.reason, display, failure.line)
                )
            except AirflowRefusal as exc:
                # the module raises when imported: so does every file importing it
                result = _ModuleFailure(exc.reason, display, exc.line)
            self.needs[dotted] = tuple(sorted(reader.needs))
        self.cache[dotted] = result
        return result


def read_module(
    tree: ast.Module, display: str, loader: ModuleLoader, path: str | None = None
) -> FileReading:
    """Read one parsed DAG file as DagBag would load it (``__file__`` is ``path``)."""
    reader = _Reader(loader, display, DAGBAG_MODULE_NAME)
    if path is not None:
        reader.env["__file__"] = path
    refusal: AirflowRefusal | None = None
    try:
        reader.run_module(tree)
    except AirflowRefusal as exc:
        refusal = exc
    if reader.import_failure is not None and (
        refusal is None or reader.import_failure.line < refusal.line
    ):
        refusal = reader.import_failure  # the first failing import fails the file
    kept: list[DagObj] = list(reader.registered)
    for value in reader.env.values():
        if isinstance(value, DagObj) and value not in kept:
            kept.append(value)
    kept.sort(key=lambda d: d.line)
    return FileReading(kept, reader.assets, reader.missed, refusal, tuple(sorted(reader.needs)))


# ---------------------------------------------------------------------------- the reader
class _Reader:
    def __init__(self, loader: ModuleLoader, display: str, module_name: str) -> None:
        self.loader = loader
        self.file = display
        self.module_name = module_name
        self.env: dict[str, Any] = {"__name__": module_name, "__file__": display}
        self.registered: list[DagObj] = []
        self.assets: list[AssetDef] = []
        self.missed: list[tuple[int, str]] = []
        self.dag_stack: list[DagObj] = []
        self.group_stack: list[GroupObj] = []
        #: Doubts about the code around (an `if` not read...): they attach to DAGs made inside.
        self.doubts: list[tuple[int, str]] = []
        #: Defaults the code around depends on (a loop over ``Variable.get``'s default):
        #: they flag the DAGs made inside.
        self.flags: list[tuple[int, str]] = []
        self.depth = 0
        self.steps = 0
        #: The line of the statement being read (where a budget runs out).
        self.line = 0
        #: The first import Airflow 3.3.2 would fail outside any ``try``: the file fails
        #: there, but reading goes on so that its DAGs can be listed with the reason.
        self.import_failure: AirflowRefusal | None = None
        #: How many ``try`` bodies enclose the statement being read.
        self.try_depth = 0
        #: Modules this file needs beyond Airflow and Python (``pandas``).
        self.needs: set[str] = set()

    # ------------------------------------------------------------------ statements
    def run_module(self, tree: ast.Module) -> None:
        try:
            self.block(tree.body, None)
        except _TooMuch:
            self.missed.append(
                (
                    self.line,
                    f"too much work to read statically: over {MAX_STEPS:,} steps or a value "
                    f"over {MAX_SIZE:,} items (an import gives the same answer on every machine)",
                )
            )
        except (_Return, _Break, _Continue):
            pass

    def block(self, body: list[ast.stmt], scope: dict[str, Any] | None) -> None:
        for stmt in body:
            self.stmt(stmt, scope)

    def tick(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > MAX_STEPS:
            raise _TooMuch

    def stmt(self, node: ast.stmt, scope: dict[str, Any] | None) -> None:
        self.tick()
        self.line = node.lineno
        if isinstance(node, ast.Expr):
            self.eval(node.value, scope)
        elif isinstance(node, ast.Assign):
            value = self.eval(node.value, scope)
            for target in node.targets:
                self.assign(target, value, scope)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.eval(node.value, scope), scope)
        elif isinstance(node, ast.AugAssign):
            current = self.eval(_as_load(node.target), scope)
            value = self.binop(node.op, current, self.eval(node.value, scope), node)
            self.assign(node.target, value, scope)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.do_import(node, scope)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.define_function(node, scope)
        elif isinstance(node, ast.ClassDef):
            bases = [unflag(self.eval(b, scope))[0] for b in node.bases]
            is_dag = any(
                (isinstance(b, Known) and b.path.startswith("airflow") and b.last == "DAG")
                or (isinstance(b, UserClass) and b.dag)
                for b in bases
            )
            self.bind(node.name, UserClass(node.name, node.lineno, is_dag), scope)
        elif isinstance(node, ast.With | ast.AsyncWith):
            self.do_with(node, scope)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.do_for(node, scope)
        elif isinstance(node, ast.If):
            self.do_if(node, scope)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.do_try(node, scope)
        elif isinstance(node, ast.Return):
            raise _Return(None if node.value is None else self.eval(node.value, scope))
        elif isinstance(node, ast.Break):
            raise _Break
        elif isinstance(node, ast.Continue):
            raise _Continue
        elif isinstance(node, ast.While):
            self.skip_block(node, "a while loop is not read statically")
        elif isinstance(node, ast.Match):
            self.skip_block(node, "a match statement is not read statically")
        elif isinstance(node, ast.Raise):
            self.skip_rest(node)
        # pass, global, nonlocal, delete, assert, type aliases: nothing a DAG needs

    def do_try(self, node: ast.Try | ast.TryStar, scope: dict[str, Any] | None) -> None:
        """The body; a failing import in it goes to the handler that catches its exception
        (``except ImportError``, ``except Exception``, a bare ``except``), and a ``raise``
        to the first handler, as they would at parse."""
        try:
            try:
                self.try_depth += 1
                try:
                    self.block(node.body, scope)
                finally:
                    self.try_depth -= 1
            except _Raised as raised:
                handler = _handler_for(node.handlers, raised)
                if handler is None:
                    if isinstance(raised, _ImportFailed) and not self.try_depth:
                        self.fail_import(raised.line, raised.reason)  # fails the file;
                        return  # what follows is still read, to list its DAGs
                    raise
                self.block(handler.body, scope)
            else:
                self.block(node.orelse, scope)
        finally:
            self.block(node.finalbody, scope)

    def skip_rest(self, node: ast.Raise) -> None:
        """A ``raise`` reached while reading: Airflow would fail the file here."""
        raise _Raised(
            node.lineno, "the file raises an exception at this line when Airflow parses it"
        )

    def skip_block(self, node: ast.stmt, why: str) -> None:
        if _makes_dags(node):
            self.missed.append((node.lineno, why))

    def do_if(self, node: ast.If, scope: dict[str, Any] | None) -> None:
        test = self.eval(node.test, scope)
        value, _ = unflag(test)
        if isinstance(value, Unknown) or not _is_plain(value):
            why = value.reason if isinstance(value, Unknown) else "not a plain value"
            reason = (
                f"made under an `if` at line {node.lineno} whose condition cannot be read "
                f"statically ({why})"
            )
            self.doubts.append((node.lineno, reason))
            try:
                for branch in (node.body, node.orelse):
                    # a raise here happens only if the unknown condition says so
                    with contextlib.suppress(_Raised):
                        self.block(branch, scope)
            finally:
                self.doubts.pop()
            return
        self.block(node.body if value else node.orelse, scope)

    def do_for(self, node: ast.For | ast.AsyncFor, scope: dict[str, Any] | None) -> None:
        over = self.eval(node.iter, scope)
        iterable = self.iterate(over, node.lineno)
        if isinstance(iterable, Unknown):
            if _makes_dags(node):
                self.missed.append(
                    (node.lineno, f"a loop over a value not read statically: {iterable.reason}")
                )
            return
        # a loop over a default (Variable.get's, the environment's): the DAGs it makes
        # exist as long as nothing else is set, and say so
        flags = [(node.lineno, f"made by a loop over a value {why}") for _, why in unflag(over)[1]]
        self.flags.extend(flags)
        try:
            self.loop(node, iterable, scope)
        finally:
            del self.flags[len(self.flags) - len(flags) :]

    def loop(
        self, node: ast.For | ast.AsyncFor, iterable: list[Any], scope: dict[str, Any] | None
    ) -> None:
        broke = False
        for item in iterable:
            self.tick()
            self.assign(node.target, item, scope)
            try:
                self.block(node.body, scope)
            except _Break:
                broke = True
                break
            except _Continue:
                continue
        if not broke:
            self.block(node.orelse, scope)

    def iterate(self, value: Any, line: int) -> list[Any] | Unknown:
        raw, notes = unflag(value)
        if isinstance(raw, Unknown):
            return raw
        if isinstance(raw, dict):
            raw = list(raw)
        if isinstance(raw, range) and len(raw) > MAX_SIZE:
            raise _TooMuch
        if isinstance(raw, (list, tuple, set, frozenset, str, range, Iterator, *_DICT_VIEWS)):
            items: list[Any] = list(cast(Iterable[Any], raw))
            return [Flagged(i, notes) for i in items] if notes else items
        return Unknown(line, f"cannot iterate over {type(raw).__name__} statically")

    def do_with(self, node: ast.With | ast.AsyncWith, scope: dict[str, Any] | None) -> None:
        entered: list[DagObj | GroupObj] = []
        for item in node.items:
            value = self.eval(item.context_expr, scope)
            if isinstance(value, DagObj):
                self.dag_stack.append(value)
                entered.append(value)
            elif isinstance(value, GroupObj):
                self.group_stack.append(value)
                entered.append(value)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, scope)
        try:
            self.block(node.body, scope)
        finally:
            for value in reversed(entered):
                if isinstance(value, DagObj):
                    self.dag_stack.pop()
                    self.register(value)
                else:
                    self.group_stack.pop()

    def register(self, dag: DagObj) -> None:
        """A DAG leaving its context registers itself (DagContext.autoregistered_dags)."""
        if not dag.registered:
            dag.registered = True
            self.registered.append(dag)

    def define_function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: dict[str, Any] | None
    ) -> None:
        decorators = [self.eval(d, scope) for d in node.decorator_list]
        func = self.make_function(node, scope)
        value: Any = func
        for decorator in reversed(decorators):
            value = self.decorate(decorator, value, node)
        self.bind(node.name, value, scope)

    def make_function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        scope: dict[str, Any] | None,
    ) -> FuncObj:
        args = node.args
        defaults = [self.eval(d, scope) for d in args.defaults]
        kw_defaults = {
            a.arg: self.eval(d, scope)
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            if d is not None
        }
        return FuncObj(node, self.env, scope, defaults, kw_defaults, self.module_name)

    def decorate(
        self, decorator: Any, value: Any, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Any:
        if not isinstance(value, FuncObj):
            return Unknown(node.lineno, "a function under several Airflow decorators")
        if isinstance(decorator, Known):
            decorator = self.decorator_of(decorator, {}, node.lineno)
        if isinstance(decorator, Decorator):
            if decorator.kind in ("asset", "asset.multi"):
                return self.define_asset(decorator, value, node)
            return TaskFunc(decorator.kind, value, dict(decorator.kwargs), node.lineno)
        if isinstance(decorator, Unknown):
            return Unknown(
                node.lineno, f"decorated by a value not read statically: {decorator.reason}"
            )
        return Unknown(node.lineno, "decorated by a function the import does not follow")

    def decorator_of(self, known: Known, kwargs: dict[str, Any], line: int) -> Decorator | Unknown:
        kind = _decorator_kind(known)
        if kind is None:
            return Unknown(line, f"{known.path} is not an Airflow decorator the import knows")
        return Decorator(kind, kwargs, line)

    def define_asset(
        self, decorator: Decorator, func: FuncObj, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Any:
        multi = decorator.kind == "asset.multi"
        kwargs = dict(decorator.kwargs)
        name = func.name if multi else kwargs.get("name", func.name)
        definition = AssetDef(
            name if isinstance(name, str) else func.name,
            kwargs,
            node.lineno,
            multi,
            list(self.doubts),
            _inlet_names(node.args),
        )
        self.assets.append(definition)
        if multi:
            return AfCall("MultiAssetDefinition", (), {"name": func.name}, node.lineno)
        asset_kwargs = {"name": name}
        if "uri" in kwargs:
            asset_kwargs["uri"] = kwargs["uri"]
        return AfCall("Asset", (), asset_kwargs, node.lineno)

    # ------------------------------------------------------------------ binding
    def bind(self, name: str, value: Any, scope: dict[str, Any] | None) -> None:
        (self.env if scope is None else scope)[name] = value

    def assign(self, target: ast.expr, value: Any, scope: dict[str, Any] | None) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, scope)
        elif isinstance(target, ast.Tuple | ast.List):
            items = self.iterate(value, target.lineno)
            if isinstance(items, Unknown) or len(items) != len(target.elts):
                for element in target.elts:
                    self.assign(
                        element,
                        items
                        if isinstance(items, Unknown)
                        else Unknown(target.lineno, "unpacking"),
                        scope,
                    )
                return
            for element, item in zip(target.elts, items, strict=True):
                self.assign(element, item, scope)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, scope)
        elif isinstance(target, ast.Subscript):
            self.assign_item(target, value, scope)
        # attributes (``dag.doc_md = ...``): nothing the scenario reads

    def assign_item(self, target: ast.Subscript, value: Any, scope: dict[str, Any] | None) -> None:
        container = target.value
        key, _ = unflag(self.eval(target.slice, scope))
        if (
            isinstance(container, ast.Call)
            and isinstance(container.func, ast.Name)
            and container.func.id in ("globals", "vars")
            and not container.args
        ):
            if isinstance(key, str):
                self.env[key] = value
            elif isinstance(value, DagObj):
                value.caveats.append(
                    (target.lineno, "kept under a global name not read statically")
                )
                self.env[f"<global {target.lineno}:{id(value)}>"] = value
            return
        holder, _ = unflag(self.eval(container, scope))
        if isinstance(holder, dict) and not isinstance(key, Unknown):
            with contextlib.suppress(TypeError):
                holder[key] = value
        elif isinstance(holder, list) and isinstance(key, int):
            with contextlib.suppress(IndexError):
                holder[key] = value

    def lookup(self, name: str, scope: dict[str, Any] | None, line: int) -> Any:
        if scope is not None and name in scope:
            return scope[name]
        if scope is not None:
            closure = scope.get("<closure>")
            while isinstance(closure, dict):
                if name in closure:
                    return closure[name]
                closure = closure.get("<closure>")
        if name in self.env:
            return self.env[name]
        if name in _BUILTINS:
            return _BUILTINS[name]
        if name in ("globals", "vars"):
            return Known(f"builtins.{name}")
        return Unknown(line, f"name {name!r} is not defined where the import can see it")

    # ------------------------------------------------------------------ imports
    def do_import(self, node: ast.Import | ast.ImportFrom, scope: dict[str, Any] | None) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.check_import(alias.name, node.lineno)
                module = self.module(alias.name, node.lineno)
                if alias.asname is not None:
                    self.bind(alias.asname, module, scope)
                else:
                    top = alias.name.split(".")[0]
                    self.bind(top, self.module(top, node.lineno), scope)
            return
        base = self.resolve_relative(node)
        if base is None:
            raise AirflowRefusal(
                node.lineno,
                "ImportError: attempted relative import with no known parent package "
                "(Airflow loads each DAG file as a top-level module)",
            )
        self.check_import(base, node.lineno)
        module = self.module(base, node.lineno)
        for alias in node.names:
            if alias.name == "*":
                if isinstance(module, ModuleObj):
                    for key, value in module.env.items():
                        if not key.startswith("_"):
                            self.bind(key, value, scope)
                continue
            verdict = from_import(base, alias.name)
            if verdict.error is not None:
                self.fail_import(node.lineno, verdict.error)
                self.bind(alias.asname or alias.name, Unknown(node.lineno, verdict.error), scope)
                continue
            value = self.member(module, alias.name, node.lineno)
            if isinstance(value, Unknown) and isinstance(module, ModuleObj):
                submodule = self.module(f"{base}.{alias.name}", node.lineno)
                if isinstance(submodule, ModuleObj):
                    value = submodule
            self.bind(alias.asname or alias.name, value, scope)

    def resolve_relative(self, node: ast.ImportFrom) -> str | None:
        if not node.level:
            return node.module or ""
        if self.module_name == DAGBAG_MODULE_NAME:
            return None
        parts = self.module_name.split(".")
        if len(parts) < node.level:
            return None
        base = ".".join(parts[: len(parts) - node.level])
        if node.module:
            base = f"{base}.{node.module}" if base else node.module
        return base

    def check_import(self, dotted: str, line: int) -> None:
        """Airflow 3.3.2's verdict on importing ``dotted`` (airflow_table); a module of
        neither Airflow, Python nor the project is noted as a need of the file."""
        verdict = import_module(dotted)
        if verdict.error is not None:
            self.fail_import(line, verdict.error)
        elif verdict.needs is not None:
            self.needs.add(verdict.needs)

    def fail_import(self, line: int, reason: str) -> None:
        """An import Airflow would fail: raised inside a ``try`` (a handler may take it),
        recorded outside one (the file fails; reading goes on to list its DAGs)."""
        if self.try_depth:
            raise _ImportFailed(line, reason)
        if self.import_failure is None:
            self.import_failure = _ImportFailed(line, reason)

    def module(self, dotted: str, line: int) -> Any:
        if dotted.startswith("airflow"):
            return Known(dotted)
        if dotted.split(".")[0] not in _LIBRARIES:
            loaded = self.loader.load(dotted, line)
            if isinstance(loaded, _ModuleFailure):
                self.fail_import(line, f"{loaded.reason} (in {loaded.display}, line {loaded.line})")
                return Unknown(line, loaded.reason)
            if loaded is not None:
                self.needs.update(self.loader.needs.get(dotted, ()))
                return loaded
        need = outside_need(dotted)
        if need is not None:
            self.needs.add(need)
        return Known(dotted)

    def member(self, module: Any, name: str, line: int) -> Any:
        if isinstance(module, ModuleObj):
            if name in module.env:
                return module.env[name]
            return Unknown(line, f"{module.name} defines no {name!r} the import can read")
        if isinstance(module, Known):
            return _known_value(Known(f"{module.path}.{name}"))
        if isinstance(module, Unknown):
            return module
        return Unknown(line, f"cannot import {name!r} from this value")

    # ------------------------------------------------------------------ expressions
    def eval(self, node: ast.expr, scope: dict[str, Any] | None) -> Any:
        self.tick()
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id, scope, line)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.eval(node.value, scope), node.attr, line)
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = self.spread(node.elts, scope, line)
            if isinstance(items, Unknown):
                return items
            if isinstance(node, ast.Tuple):
                return tuple(items)
            if isinstance(node, ast.Set):
                try:
                    return set(items)
                except TypeError:
                    return Unknown(line, "a set of values that cannot be hashed")
            return items
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for key_node, value_node in zip(node.keys, node.values, strict=True):
                if key_node is None:
                    spread_dict, _ = unflag(self.eval(value_node, scope))
                    if not isinstance(spread_dict, dict):
                        return Unknown(line, "a ** spread of a value not read statically")
                    out.update(spread_dict)
                    continue
                key, _ = unflag(self.eval(key_node, scope))
                if isinstance(key, Unknown):
                    return key
                try:
                    out[key] = self.eval(value_node, scope)
                except TypeError:
                    return Unknown(line, "a dict key that cannot be hashed")
            return out
        if isinstance(node, ast.BinOp):
            return self.binop(
                node.op, self.eval(node.left, scope), self.eval(node.right, scope), node
            )
        if isinstance(node, ast.UnaryOp):
            operand = self.eval(node.operand, scope)
            raw, notes = unflag(operand)
            if isinstance(raw, Unknown):
                return raw
            if isinstance(node.op, ast.Not):
                return Flagged(not raw, notes) if notes else (not raw)
            unary: dict[type[ast.unaryop], Callable[[Any], Any]] = {
                ast.USub: operator.neg,
                ast.UAdd: operator.pos,
                ast.Invert: operator.invert,
            }
            apply_unary = unary[type(node.op)]
            return self.real(lambda: apply_unary(raw), notes, line)
        if isinstance(node, ast.BoolOp):
            result: Any = None
            for value_node in node.values:
                result = self.eval(value_node, scope)
                raw, _ = unflag(result)
                if isinstance(raw, Unknown):
                    return raw
                if isinstance(node.op, ast.And) and not _truthy(raw):
                    return result
                if isinstance(node.op, ast.Or) and _truthy(raw):
                    return result
            return result
        if isinstance(node, ast.Compare):
            left = self.eval(node.left, scope)
            for cmp, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.eval(right_node, scope)
                (a, na), (b, nb) = unflag(left), unflag(right)
                for side in (a, b):
                    if isinstance(side, Unknown):
                        return side
                if not (_is_plain(a) and _is_plain(b)) and not isinstance(cmp, ast.Is | ast.IsNot):
                    return Unknown(line, "a comparison of values that are not plain data")
                compare = _CMP_OPS[type(cmp)]
                ok = self.real(partial(compare, a, b), na + nb, line)
                if isinstance(ok, Unknown) or not unflag(ok)[0]:
                    return ok
                left = right
            return True
        if isinstance(node, ast.IfExp):
            test, _ = unflag(self.eval(node.test, scope))
            if isinstance(test, Unknown):
                return test
            return self.eval(node.body if _truthy(test) else node.orelse, scope)
        if isinstance(node, ast.JoinedStr):
            return self.fstring(node, scope)
        if isinstance(node, ast.FormattedValue):
            return self.formatted(node, scope)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, scope)
        if isinstance(node, ast.Slice):
            parts = [
                None if p is None else unflag(self.eval(p, scope))[0]
                for p in (node.lower, node.upper, node.step)
            ]
            if any(isinstance(p, Unknown) for p in parts):
                return next(p for p in parts if isinstance(p, Unknown))
            return slice(*parts)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self.comprehension(node, scope)
        if isinstance(node, ast.Lambda):
            return self.make_function(node, scope)
        if isinstance(node, ast.Starred):
            return self.eval(node.value, scope)
        if isinstance(node, ast.NamedExpr):
            value = self.eval(node.value, scope)
            self.assign(node.target, value, scope)
            return value
        return Unknown(line, f"a {type(node).__name__} expression is not read statically")

    def real(
        self, compute: Callable[[], Any], notes: tuple[tuple[int, str], ...], line: int
    ) -> Any:
        """Run a pure computation on plain values; its failure is an Unknown, never a crash."""
        try:
            value = _sized(compute())
            self.tick(_work(value))
        except _TooMuch:
            raise
        except Exception as exc:  # the DAG file's own error: Airflow would fail too
            return Unknown(line, f"{type(exc).__name__}: {exc}")
        return Flagged(value, notes) if notes else value

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        line = getattr(node, "lineno", 0)
        (a, na), (b, nb) = unflag(left), unflag(right)
        for side in (a, b):
            if isinstance(side, Unknown):
                return side
        if isinstance(op, ast.RShift | ast.LShift) and not (_is_plain(a) and _is_plain(b)):
            return b if isinstance(op, ast.RShift) else a  # task dependencies: nothing to keep
        if isinstance(op, ast.BitAnd | ast.BitOr) and (
            isinstance(a, AfCall) or isinstance(b, AfCall)
        ):
            # BaseAsset.__and__ / __or__: AssetAll(a, b); AssetAll.__and__ flattens its own
            # kind on the left: (x & y) & z is AssetAll(x, y, z), x & (y & z) is not.
            kind = "AssetAll" if isinstance(op, ast.BitAnd) else "AssetAny"
            if isinstance(a, AfCall) and a.kind == kind:
                return AfCall(kind, (*a.args, b), {}, line)
            return AfCall(kind, (a, b), {}, line)
        if not (_is_plain(a) and _is_plain(b)):
            return Unknown(line, "arithmetic on values that are not plain data")
        if isinstance(op, ast.Pow) and isinstance(b, int) and abs(b) > 64:
            raise _TooMuch
        if isinstance(op, ast.Mult) and (
            (isinstance(a, str | list | tuple) and isinstance(b, int) and len(a) * b > MAX_SIZE)
            or (isinstance(b, str | list | tuple) and isinstance(a, int) and len(b) * a > MAX_SIZE)
        ):
            raise _TooMuch
        if isinstance(op, ast.LShift) and isinstance(b, int) and b > 64:
            raise _TooMuch
        if isinstance(op, ast.Mod) and isinstance(a, str) and not _format_ok(a):
            return Unknown(line, "a %-format too large to read")
        return self.real(lambda: _BIN_OPS[type(op)](a, b), na + nb, line)

    def fstring(self, node: ast.JoinedStr, scope: dict[str, Any] | None) -> Any:
        parts: list[str] = []
        notes: tuple[tuple[int, str], ...] = ()
        for value in node.values:
            piece = self.eval(value, scope)
            raw, more = unflag(piece)
            if isinstance(raw, Unknown):
                return raw
            notes += more
            parts.append(str(raw))
        text = _sized("".join(parts))
        return Flagged(text, notes) if notes else text

    def formatted(self, node: ast.FormattedValue, scope: dict[str, Any] | None) -> Any:
        value = self.eval(node.value, scope)
        raw, notes = unflag(value)
        if isinstance(raw, Unknown):
            return raw
        if not _is_plain(raw):
            return Unknown(node.lineno, "an f-string of a value that is not plain data")
        spec = ""
        if node.format_spec is not None:
            spec_value, more = unflag(self.eval(node.format_spec, scope))
            if isinstance(spec_value, Unknown):
                return spec_value
            spec = str(spec_value)
            notes += more
            if not _format_ok("{:" + spec + "}"):
                return Unknown(node.lineno, "a format spec too large to read")
        conversions: dict[int, Callable[[Any], str]] = {115: str, 114: repr, 97: ascii}
        conversion = conversions.get(node.conversion)

        def compute() -> str:
            shown = conversion(raw) if conversion is not None else raw
            return format(shown, spec)

        return self.real(compute, notes, node.lineno)

    def subscript(self, node: ast.Subscript, scope: dict[str, Any] | None) -> Any:
        container = self.eval(node.value, scope)
        key = self.eval(node.slice, scope)
        (c, nc), (k, nk) = unflag(container), unflag(key)
        for side in (c, k):
            if isinstance(side, Unknown):
                return side
        if isinstance(c, Known):
            if c.path == "os.environ":
                return Unknown(node.lineno, "read from the environment (os.environ) at parse time")
            return Unknown(node.lineno, f"{c.path}[...] is not read statically")
        if isinstance(c, list | tuple | dict | str | range):
            if not _is_plain(k) and not isinstance(k, slice):
                return Unknown(node.lineno, "an index that is not plain data")
            return self.real(lambda: c[k], nc + nk, node.lineno)
        return Unknown(node.lineno, "indexing a value that is not plain data")

    def comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        scope: dict[str, Any] | None,
    ) -> Any:
        line = node.lineno
        local: dict[str, Any] = {"<closure>": scope} if scope is not None else {}
        results: list[Any] = []

        def walk(generators: list[ast.comprehension]) -> Unknown | None:
            first, rest = generators[0], generators[1:]
            items = self.iterate(self.eval(first.iter, local), line)
            if isinstance(items, Unknown):
                return items
            for item in items:
                self.tick()
                self.assign(first.target, item, local)
                skip = False
                for condition in first.ifs:
                    test, _ = unflag(self.eval(condition, local))
                    if isinstance(test, Unknown):
                        return test
                    if not _truthy(test):
                        skip = True
                        break
                if skip:
                    continue
                if rest:
                    missing = walk(rest)
                    if missing is not None:
                        return missing
                elif isinstance(node, ast.DictComp):
                    results.append((self.eval(node.key, local), self.eval(node.value, local)))
                else:
                    results.append(self.eval(node.elt, local))
            return None

        missing = walk(node.generators)
        if missing is not None:
            return missing
        if isinstance(node, ast.DictComp):
            out: dict[Any, Any] = {}
            for key, value in results:
                raw, _ = unflag(key)
                if isinstance(raw, Unknown):
                    return raw
                out[raw] = value
            return out
        if isinstance(node, ast.SetComp):
            try:
                return set(results)
            except TypeError:
                return Unknown(line, "a set of values that cannot be hashed")
        return results

    def attribute(self, value: Any, name: str, line: int) -> Any:
        raw, notes = unflag(value)
        if isinstance(raw, Unknown):
            return raw
        if name.startswith("_"):
            return Unknown(line, f"attribute {name!r} is not read statically")
        if isinstance(raw, Known):
            return _known_value(Known(f"{raw.path}.{name}"))
        if isinstance(raw, ModuleObj):
            if name in raw.env:
                return raw.env[name]
            loaded = self.loader.load(f"{raw.name}.{name}", line)
            if loaded is not None:
                return loaded
            return Unknown(line, f"{raw.name} defines no {name!r} the import can read")
        if isinstance(raw, DagObj):
            if name == "dag_id":
                return raw.dag_id
            return Unknown(line, f"the DAG's attribute {name!r} is not read statically")
        if isinstance(raw, AfCall):
            if name in ("name", "uri") and name in raw.kwargs:
                return raw.kwargs[name]
            return Unknown(line, f"{raw.kind}.{name} is not read statically")
        if isinstance(raw, TaskFunc | TaskObj | Decorator | UserClass):
            return _Method(raw, name, line)
        if isinstance(raw, (_SAFE_TYPES, pendulum.DateTime | pendulum.Date)):
            try:
                attr = getattr(raw, name)
            except AttributeError as exc:
                return Unknown(line, f"AttributeError: {exc}")
            return Flagged(attr, notes) if notes else attr
        return Unknown(line, f"attribute {name!r} of this value is not read statically")

    def spread(
        self, elements: list[ast.expr], scope: dict[str, Any] | None, line: int
    ) -> list[Any] | Unknown:
        """The values of ``elements``, each ``*x`` spread in place (a list literal, a call's
        arguments); an unreadable spread makes the whole list unreadable."""
        items: list[Any] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                spread = self.iterate(self.eval(element.value, scope), line)
                if isinstance(spread, Unknown):
                    return spread
                items.extend(spread)
            else:
                items.append(self.eval(element, scope))
        return items

    # ------------------------------------------------------------------ calls
    def call(self, node: ast.Call, scope: dict[str, Any] | None) -> Any:
        line = node.lineno
        func = self.eval(node.func, scope)
        args = self.spread(node.args, scope, line)
        if isinstance(args, Unknown):
            return args
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                spread_dict, _ = unflag(self.eval(keyword.value, scope))
                if not isinstance(spread_dict, dict) or not all(
                    isinstance(k, str) for k in spread_dict
                ):
                    return Unknown(line, "a ** argument not read statically")
                kwargs.update(spread_dict)
            else:
                kwargs[keyword.arg] = self.eval(keyword.value, scope)
        result = self.apply(func, args, kwargs, line)
        if isinstance(result, Unknown) and not self.dag_stack and _may_make_dags(node.func):
            # A call that may make DAGs (create_dag(...), a factory from outside the project)
            # and could not be followed: say so rather than miss its DAGs silently.
            self.missed.append(
                (line, f"{ast.unparse(node.func)}(...) may make DAGs: {result.reason}")
            )
        return result

    def apply(self, func: Any, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        raw, notes = unflag(func)
        if isinstance(raw, Unknown):
            return raw
        if isinstance(raw, Known):
            return self.call_known(raw, args, kwargs, line)
        if isinstance(raw, FuncObj):
            return self.call_function(raw, args, kwargs, line)
        if isinstance(raw, TaskFunc):
            return self.call_task_func(raw, args, kwargs, line)
        if isinstance(raw, Decorator):
            return Decorator(raw.kind, {**raw.kwargs, **kwargs}, line)
        if isinstance(raw, _Method):
            return self.call_method(raw, args, kwargs, line)
        if isinstance(raw, UserClass) and raw.dag:
            dag = self.make_dag(args, kwargs, line)
            dag.caveats.append(
                (raw.line, f"made by {raw.name}, a subclass of DAG whose own code is not read")
            )
            return dag
        if isinstance(raw, UserClass):
            return self.make_task(f"{raw.name}", args, kwargs, line)
        if any(f is raw for f in _BUILTINS.values()):
            return self.call_builtin(raw, args, kwargs, line)
        if callable(raw) and _bound_to_safe(raw):
            plain_args = [unflag(a) for a in args]
            plain_kwargs = {k: unflag(v) for k, v in kwargs.items()}
            values = [a for a, _ in plain_args]
            kvalues = {k: v for k, (v, _) in plain_kwargs.items()}
            for value in [*values, *kvalues.values()]:
                if isinstance(value, Unknown):
                    return value
            every = (
                notes
                + sum((n for _, n in plain_args), ())
                + sum((n for _, n in plain_kwargs.values()), ())
            )
            if getattr(raw, "__name__", "") in ("format", "format_map"):
                if not all(_is_plain(v) for v in [*values, *kvalues.values()]):
                    return Unknown(line, "str.format of values that are not plain data")
                refusal = _format_fields_refusal(str(raw.__self__))
                if refusal is not None:
                    return Unknown(line, refusal)
            if any(
                isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_SIZE for v in values
            ):
                raise _TooMuch
            self.tick(sum(_work(v) for v in values) + _work(getattr(raw, "__self__", None)))
            if _expected_size(raw, values) > MAX_SIZE:
                raise _TooMuch
            return self.real(lambda: raw(*values, **kvalues), every, line)
        return Unknown(line, "a call of a value the import does not follow")

    def call_builtin(
        self, func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], line: int
    ) -> Any:
        values: list[Any] = []
        notes: tuple[tuple[int, str], ...] = ()
        for arg in args:
            raw, more = unflag(arg)
            if isinstance(raw, Unknown):
                return raw
            notes += more
            values.append(raw)
        kvalues = {}
        for key, arg in kwargs.items():
            raw, more = unflag(arg)
            if isinstance(raw, Unknown):
                return raw
            notes += more
            kvalues[key] = raw
        if func in (map, filter):
            return Unknown(line, f"{func.__name__}() is not read statically; use a comprehension")
        if func is isinstance:
            return Unknown(line, "isinstance() is not read statically")
        if func is range and any(abs(v) > MAX_SIZE for v in values if isinstance(v, int)):
            raise _TooMuch
        if func in (
            len,
            list,
            tuple,
            dict,
            sorted,
            reversed,
            enumerate,
            zip,
            min,
            max,
            sum,
            any,
            all,
            set,
            frozenset,
        ):
            # containers may hold the reader's records (tasks, DAGs): that is fine here
            pass
        elif not all(_is_plain(v) for v in [*values, *kvalues.values()]):
            return Unknown(
                line, f"{getattr(func, '__name__', 'builtin')}() of values that are not plain data"
            )

        self.tick(sum(_work(v) for v in values))
        if _expected_size(func, values) > MAX_SIZE:
            raise _TooMuch

        def compute() -> Any:
            result = func(*values, **kvalues)
            if isinstance(result, Iterator):
                result = list(result)
            return result

        return self.real(compute, notes, line)

    def call_function(
        self, func: FuncObj, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> Any:
        if self.depth >= MAX_CALL_DEPTH:
            return Unknown(line, f"{func.name}() calls too deep to be read statically")
        local = self.bind_arguments(func, args, kwargs, line)
        if isinstance(local, Unknown):
            return local
        self.depth += 1
        try:
            if isinstance(func.node, ast.Lambda):
                return self.eval(func.node.body, local)
            try:
                self.block(func.node.body, local)
            except _Return as ret:
                return ret.value
            return None
        finally:
            self.depth -= 1

    def bind_arguments(
        self, func: FuncObj, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> dict[str, Any] | Unknown:
        spec = func.node.args
        local: dict[str, Any] = {"<closure>": func.closure} if func.closure is not None else {}
        positional = [*spec.posonlyargs, *spec.args]
        defaults = dict(
            zip(
                [a.arg for a in positional][len(positional) - len(func.defaults) :],
                func.defaults,
                strict=True,
            )
        )
        rest = list(args)
        for param in positional:
            if rest:
                local[param.arg] = rest.pop(0)
            elif param.arg in kwargs:
                local[param.arg] = kwargs.pop(param.arg)
            elif param.arg in defaults:
                local[param.arg] = defaults[param.arg]
            else:
                local[param.arg] = Unknown(
                    line, f"argument {param.arg!r} of {func.name}() not given"
                )
        if spec.vararg is not None:
            local[spec.vararg.arg] = tuple(rest)
        elif rest:
            return Unknown(line, f"{func.name}() called with too many arguments")
        for param in spec.kwonlyargs:
            if param.arg in kwargs:
                local[param.arg] = kwargs.pop(param.arg)
            elif param.arg in func.kw_defaults:
                local[param.arg] = func.kw_defaults[param.arg]
            else:
                local[param.arg] = Unknown(
                    line, f"argument {param.arg!r} of {func.name}() not given"
                )
        if spec.kwarg is not None:
            local[spec.kwarg.arg] = dict(kwargs)
        elif kwargs:
            return Unknown(line, f"{func.name}() has no argument {next(iter(kwargs))!r}")
        if func.env is not self.env:
            # A function from a sibling module reads that module's globals.
            local = {**func.env, **{k: v for k, v in local.items()}}
        return local

    # ------------------------------------------------------------------ Airflow and libraries
    def variable_default(
        self, path: str, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> Any:
        """``Variable.get(key, default)``: with nothing set, Airflow takes the default.

        The task SDK's ``Variable.get`` (``airflow.sdk``) names it ``default``; the
        ``airflow.models`` one ``default_var``; each raises TypeError for the other's
        keyword (Airflow 3.3.2), which fails the file."""
        own, other = (
            ("default", "default_var")
            if path.startswith("airflow.sdk")
            else (
                "default_var",
                "default",
            )
        )
        if other in kwargs:
            raise AirflowRefusal(
                line, f"TypeError: Variable.get() got an unexpected keyword argument '{other}'"
            )
        key = unflag(args[0] if args else kwargs.get("key"))[0]
        name = key if isinstance(key, str) else "?"
        default = args[1] if len(args) > 1 else kwargs.get(own, _NO_DEFAULT)
        if default is _NO_DEFAULT:
            return Unknown(
                line,
                f"read from an Airflow Variable at parse time (Variable.get `{name}`, no "
                "default: Airflow fails the file while it is not set)",
            )
        return self.default_of(default, f"from the default of Variable `{name}`", line)

    def environment_default(
        self, path: str, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> Any:
        """``os.environ.get(name, default)`` / ``os.getenv(name, default)``: the default,
        as Airflow reads it where the variable is not set."""
        key = unflag(args[0] if args else kwargs.get("key"))[0]
        name = key if isinstance(key, str) else "?"
        default = args[1] if len(args) > 1 else kwargs.get("default", _NO_DEFAULT)
        if default is _NO_DEFAULT:
            return Unknown(line, f"read from the environment at parse time (`{name}`, no default)")
        return self.default_of(default, f"from the default of environment variable `{name}`", line)

    def default_of(self, default: Any, note: str, line: int) -> Any:
        """``default`` flagged with where it comes from (shown in the report, the inspector
        and on the canvas; supplying another value is one undo step)."""
        raw, notes = unflag(default)
        if isinstance(raw, Unknown):
            return raw
        return Flagged(raw, (*notes, (line, note)))

    def call_known(self, known: Known, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        path = known.path
        if path.startswith("airflow") and ".timezone." in path:
            path = (
                "airflow.utils.timezone." + known.last
            )  # sdk, compat and utils spell the same helpers
        handler = _LIBRARY_CALLS.get(path)
        if handler is not None:
            return handler(self, args, kwargs, line)
        if path in _PARSE_TIME:
            return self.parse_time(path, args, kwargs, line)
        if path.endswith(".Variable.get") and path.startswith("airflow"):
            return self.variable_default(path, args, kwargs, line)
        if path in ("os.environ.get", "os.getenv"):
            return self.environment_default(path, args, kwargs, line)
        reason = _unreadable_reason(path)
        if reason is not None:
            return Unknown(line, reason)
        if path == "builtins.globals" or path == "builtins.vars":
            return Known("builtins.globals()")
        if path == "builtins.globals().update":
            if args and isinstance(unflag(args[0])[0], dict):
                self.env.update({k: v for k, v in unflag(args[0])[0].items() if isinstance(k, str)})
            self.env.update(kwargs)
            return None
        if not path.startswith("airflow"):
            return Unknown(line, f"{path}(...) is not read statically")
        name = known.last
        if name in ("DAG",):
            return self.make_dag(args, kwargs, line)
        if path.endswith((".Asset.ref", ".Dataset.ref")):
            return AfCall("AssetRef", tuple(args), kwargs, line)
        if name in ASSET_KINDS or name in TIMETABLE_KINDS or name in PARTITION_KINDS:
            return AfCall(ASSET_KINDS.get(name, name), tuple(args), kwargs, line)
        if name in ("TaskGroup",):
            group_id = kwargs.get("group_id", args[0] if args else None)
            prefix = kwargs.get("prefix_group_id", True)
            return GroupObj(
                group_id if isinstance(group_id, str) else None, prefix is not False, line
            )
        kind = _decorator_kind(known)
        if kind is not None:
            if args and isinstance(
                unflag(args[0])[0], FuncObj
            ):  # @dag without parentheses, used as a call
                return self.decorate(
                    Decorator(kind, kwargs, line), unflag(args[0])[0], _fake_def(line)
                )
            # dag(dag_id, ...) and task_group(group_id, ...) take their id first.
            first = {"dag": "dag_id", "task_group": "group_id"}.get(kind)
            if args and first is not None:
                kwargs = {first: args[0], **kwargs}
            return Decorator(kind, kwargs, line)
        if name in ("chain", "chain_linear", "cross_downstream", "Label", "Param"):
            return None
        if name.endswith(".partial") or name == "partial":
            return self.make_task(path, args, kwargs, line)
        if "task_id" in kwargs:
            return self.make_task(path, args, kwargs, line)
        return Unknown(line, f"{path}(...) is not read statically")

    def parse_time(self, path: str, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        zone_arg = unflag(args[0] if args else kwargs.get("tz", kwargs.get("tzinfo")))[0]
        if isinstance(zone_arg, Unknown):
            return zone_arg
        at = self.loader.parsed_at
        try:
            _check_zone(zone_arg)
            value = _PARSE_TIME[path](at, zone_arg)
        except Exception as exc:
            return Unknown(line, f"{path}(): {type(exc).__name__}: {exc}")
        short = path.replace("datetime.datetime.", "datetime.").replace("datetime.date.", "date.")
        note = f"{short}() is the parse time: read as the deployment instant"
        return Flagged(value, ((line, note),))

    def make_dag(self, args: list[Any], kwargs: dict[str, Any], line: int) -> DagObj:
        dag_id = unflag(kwargs.get("dag_id", args[0] if args else None))[0]
        named = dag_id if isinstance(dag_id, str) else None
        for name in kwargs:
            if name not in DAG_ARGUMENTS:
                hint = REMOVED_DAG_ARGUMENTS.get(name)
                raise AirflowRefusal(
                    line,
                    f"TypeError: DAG.__init__() got an unexpected keyword argument {name!r}"
                    + (f" ({hint})" if hint else ""),
                    named,
                )
        merged = dict(kwargs)
        if args:
            merged.setdefault("dag_id", args[0])
        dag = DagObj(merged, self.file, line)
        dag.caveats.extend(self.doubts)
        dag.flags.extend(self.flags)
        return dag

    def current_dag(self, kwargs: dict[str, Any]) -> DagObj | None:
        explicit = unflag(kwargs.get("dag"))[0]
        if isinstance(explicit, DagObj):
            return explicit
        return self.dag_stack[-1] if self.dag_stack else None

    def prefixed(self, task_id: str) -> str:
        """TaskGroup.child_id: only the innermost group prefixes, with its own full id."""
        if not self.group_stack:
            return task_id
        inner = self.group_stack[-1]
        full = self.group_prefix()
        return f"{full}.{task_id}" if inner.prefix and full else task_id

    def group_prefix(self) -> str:
        """The innermost group's full id: each group's id as its parent's child_id made it."""
        full = ""
        parent: GroupObj | None = None
        for group in self.group_stack:
            local = group.group_id or ""
            full = f"{full}.{local}" if parent is not None and parent.prefix and full else local
            parent = group
        return full

    def make_task(self, path: str, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        task_id = unflag(kwargs.get("task_id"))[0]
        dag = self.current_dag(kwargs)
        if not isinstance(task_id, str):
            reason = task_id.reason if isinstance(task_id, Unknown) else "no task_id"
            if dag is not None:
                dag.caveats.append(
                    (line, f"a task made at this line has an id not read statically: {reason}")
                )
            return Unknown(line, f"{path}(...) without a task_id read statically")
        task = TaskObj(
            self.prefixed(task_id),
            line,
            kwargs.get("outlets"),
            kwargs.get("inlets"),
            kwargs.get("start_date"),
            kwargs.get("end_date"),
        )
        if dag is not None:
            self.add_task(dag, task, unique=False)
        return task

    def add_task(self, dag: DagObj, task: TaskObj, *, unique: bool) -> None:
        defaults = unflag(dag.kwargs.get("default_args"))[0]
        if isinstance(defaults, dict):
            if task.outlets is None and "outlets" in defaults:
                task.outlets = defaults["outlets"]
            if task.inlets is None and "inlets" in defaults:
                task.inlets = defaults["inlets"]
        if task.task_id in dag.task_ids:
            if not unique:
                dag.caveats.append(
                    (task.line, f"task id {task.task_id!r} is used twice (Airflow refuses it)")
                )
                return
            task.task_id = _unique_task_id(task.task_id, dag.task_ids)
        dag.task_ids[task.task_id] = task.line
        dag.tasks.append(task)

    def call_task_func(
        self, func: TaskFunc, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> Any:
        if func.kind == "dag":
            return self.call_dag_func(func, args, kwargs, line)
        if func.kind == "task_group":
            group_id = unflag(func.kwargs.get("group_id", func.func.name))[0]
            group = GroupObj(
                group_id if isinstance(group_id, str) else func.func.name,
                func.kwargs.get("prefix_group_id", True) is not False,
                line,
            )
            dag = self.current_dag(func.kwargs)
            if dag is not None and group.group_id is not None:
                # @task_group adds a suffix on collision (TaskGroup(add_suffix_on_collision=True)).
                inner = self.group_stack[-1] if self.group_stack else None
                parent = self.group_prefix() if inner is not None and inner.prefix else ""
                full = f"{parent}.{group.group_id}" if parent else group.group_id
                if full in dag.group_ids:
                    unique = _unique_task_id(full, dag.group_ids)
                    group.group_id = unique.rsplit(".", 1)[-1]
                    full = unique
                dag.group_ids[full] = line
            self.group_stack.append(group)
            try:
                self.call_function(func.func, args, kwargs, line)
            finally:
                self.group_stack.pop()
            return group
        # @task...: the body runs when the task runs, never at parse time.
        task_id = unflag(func.kwargs.get("task_id", func.func.name))[0]
        if not isinstance(task_id, str):
            return Unknown(line, "a @task whose task_id is not read statically")
        dag = self.current_dag(func.kwargs)
        given = func.kwargs
        task = TaskObj(
            self.prefixed(task_id),
            line,
            given.get("outlets"),
            given.get("inlets"),
            given.get("start_date"),
            given.get("end_date"),
        )
        if dag is not None:
            self.add_task(dag, task, unique=True)
        return task

    def call_dag_func(
        self, func: TaskFunc, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> DagObj:
        dag_kwargs = dict(func.kwargs)
        dag_kwargs.setdefault("dag_id", func.func.name)
        dag = self.make_dag([], dag_kwargs, func.line)
        dag.line = func.line
        self.dag_stack.append(dag)
        try:
            self.call_function(func.func, args, kwargs, line)
        finally:
            self.dag_stack.pop()
        self.register(dag)
        return dag

    def call_method(
        self, method: _Method, args: list[Any], kwargs: dict[str, Any], line: int
    ) -> Any:
        owner, name = method.owner, method.name
        if isinstance(owner, TaskFunc) and name in ("override", "partial"):
            return TaskFunc(owner.kind, owner.func, {**owner.kwargs, **kwargs}, owner.line)
        if isinstance(owner, TaskFunc) and name in ("expand", "expand_kwargs"):
            return self.call_task_func(owner, [], {}, line)
        if isinstance(owner, TaskObj):
            return owner
        if isinstance(owner, UserClass) and name == "partial":
            return self.make_task(f"{owner.name}.partial", args, kwargs, line)
        if isinstance(owner, Decorator):
            return Decorator(
                f"{owner.kind}.{name}" if owner.kind == "asset" else owner.kind, kwargs, line
            )
        return Unknown(line, f".{name}(...) is not read statically")


@dataclass(frozen=True, slots=True)
class _Method:
    """``x.name`` of a reader record, waiting for its call (``.override(...)``...)."""

    owner: Any
    name: str
    line: int


# ---------------------------------------------------------------------------- helpers
_LIBRARIES = frozenset(
    {
        "pendulum",
        "datetime",
        "dateutil",
        "zoneinfo",
        "os",
        "sys",
        "json",
        "random",
        "time",
        "typing",
        "pathlib",
        "logging",
        "functools",
        "itertools",
        "collections",
        "textwrap",
        "re",
        "__future__",
        "pytz",
        "requests",
        "pandas",
        "numpy",
        "yaml",
        "uuid",
        "math",
        "dataclasses",
        "enum",
    }
)


#: The exception names an ``except`` clause may catch an import failure with.
_CATCHES = {
    "ModuleNotFoundError": {"ModuleNotFoundError", "ImportError", "Exception", "BaseException"},
    "ImportError": {"ImportError", "Exception", "BaseException"},
}


def _handler_for(handlers: list[ast.ExceptHandler], raised: _Raised) -> ast.ExceptHandler | None:
    """The handler that takes ``raised``: for a failed import, the first whose exception
    names catch its kind (or a bare ``except``); for a ``raise``, the first one."""
    if not isinstance(raised, _ImportFailed):
        return handlers[0] if handlers else None
    catches = _CATCHES.get(raised.kind, {raised.kind, "Exception", "BaseException"})
    for handler in handlers:
        if handler.type is None:
            return handler
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for named in types:
            name = named.id if isinstance(named, ast.Name) else getattr(named, "attr", None)
            if name in catches:
                return handler
    return None


def _truthy(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:
        return True


def _format_ok(text: str) -> bool:
    """No width or precision in a format string large enough to build a huge string."""
    return not re.search(r"\d{7,}", text)


def _format_fields_refusal(template: str) -> str | None:
    """Why ``template.format(...)`` is not evaluated, or None when it may be.

    A replacement field may name an attribute (``{0.__init__.__globals__}``) or
    an index, and ``str.format`` follows it on the real object: the way from a
    value to a module's globals, the environment and ``sys.path``. The reader
    formats only fields that name an argument, or index into one.
    """
    pending = [template]
    while pending:
        text = pending.pop()
        try:
            fields = list(string.Formatter().parse(text))
        except ValueError:
            return None  # the real call raises the same error, reported as such
        for _, name, spec, _ in fields:
            if name is None:
                continue
            if "." in name or "__" in name:
                return "str.format with an attribute in a replacement field is not read statically"
            if spec:
                if not _format_ok(spec):
                    return "a format spec too large to read"
                pending.append(spec)
    return None


def _bound_to_safe(func: Any) -> bool:
    owner = getattr(func, "__self__", None)
    if owner is None:
        return False
    if isinstance(owner, type):
        return owner in (dt.datetime, dt.date, dt.timedelta, str, dict, int, float)
    return isinstance(owner, (_SAFE_TYPES, pendulum.DateTime | pendulum.Date))


def _as_load(target: ast.expr) -> ast.expr:
    return target


def _fake_def(line: int) -> ast.FunctionDef:
    node = ast.FunctionDef(
        name="<decorated>",
        args=ast.arguments([], [], None, [], [], None, []),
        body=[],
        decorator_list=[],
    )
    node.lineno = line
    return node


def _unique_task_id(task_id: str, used: dict[str, int]) -> str:
    """Airflow's ``get_unique_task_id``: ``name``, then ``name__1``, ``name__2``..."""
    core = re.split(r"__\d+$", task_id)[0]
    suffixes = sorted(
        int(re.split(r"^.+__", tid)[1])
        for tid in used
        if re.match(rf"^{re.escape(core)}__\d+$", tid)
    )
    if not suffixes:
        return f"{core}__1"
    return f"{core}__{suffixes[-1] + 1}"


def _may_make_dags(func: ast.expr) -> bool:
    """A callee whose name says it makes DAGs: ``create_dag``, ``build_dags``, ``DagFactory``."""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return "dag" in name.lower() and name not in ("days_ago",)


def _makes_dags(node: ast.AST) -> bool:
    """Whether a block not read may define DAGs (a ``DAG(`` call or a ``dag``-ish decorator)."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("DAG", "dag") or "dag" in name.lower():
                return True
    return False


def _decorator_kind(known: Known) -> str | None:
    if not known.path.startswith("airflow"):
        return None
    parts = known.path.split(".")
    if parts[-1] in ("dag", "task_group", "setup", "teardown"):
        return {"setup": "task", "teardown": "task"}.get(parts[-1], parts[-1])
    if parts[-1] == "asset":
        return "asset"
    if len(parts) >= 2 and parts[-2] == "asset" and parts[-1] == "multi":
        return "asset.multi"
    if "task" in parts[-2:] and parts[-1] != "TaskGroup":
        return "task"
    return None


def _inlet_names(args: ast.arguments) -> tuple[str, ...]:
    """``_AssetMainOperator.from_definition``: parameters without a default, but for
    ``self``, ``context`` and ``outlet_events``, are inlets read by name."""
    positional = [*args.posonlyargs, *args.args]
    without = positional[: len(positional) - len(args.defaults)]
    without += [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    skip = ("self", "context", "outlet_events")
    return tuple(a.arg for a in without if a.arg not in skip)


def _utc(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _airflow_datetime(*args: Any, **kwargs: Any) -> dt.datetime:
    """``airflow.utils.timezone.datetime``: a naive datetime gets the default zone (UTC)."""
    kwargs.setdefault("tzinfo", dt.UTC)
    return dt.datetime(*args, **kwargs)  # noqa: DTZ001 - tzinfo is always set above


def _check_zone(value: Any) -> None:
    """Refuse a zone name tzdata does not list, as every other place does.

    pendulum and zoneinfo open a file named after the zone, so a folder such as
    ``America`` raised ``IsADirectoryError`` with a path of this machine in it.
    """
    if isinstance(value, str):
        get_zone(value)  # ZoneError: "unknown time zone 'America'"


def _zone(name: Any) -> Any:
    _check_zone(name)
    return pendulum.timezone(name)


def _zone_info(name: Any) -> Any:
    _check_zone(name)
    return zoneinfo.ZoneInfo(name)


def _zoned(func: Callable[..., Any], position: int) -> Callable[..., Any]:
    """``func`` with its zone argument (``tz``/``tzinfo`` or the ``position``-th) checked."""

    def call(*args: Any, **kwargs: Any) -> Any:
        _check_zone(kwargs.get("tz", kwargs.get("tzinfo")))
        if len(args) > position:
            _check_zone(args[position])
        return func(*args, **kwargs)

    return call


def _pure(func: Callable[..., Any]) -> Callable[[Any, list[Any], dict[str, Any], int], Any]:
    def handler(reader: Any, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        return (
            reader.apply(func, args, kwargs, line)
            if _bound_to_safe(func)
            else _run_pure(reader, func, args, kwargs, line)
        )

    return handler


def _run_pure(
    reader: Any, func: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], line: int
) -> Any:
    values: list[Any] = []
    notes: tuple[tuple[int, str], ...] = ()
    for arg in args:
        raw, more = unflag(arg)
        if isinstance(raw, Unknown):
            return raw
        if not _is_plain(raw) and not isinstance(raw, pendulum.DateTime):
            return Unknown(line, "a date or duration built from values that are not plain data")
        values.append(raw)
        notes += more
    kvalues: dict[str, Any] = {}
    for key, arg in kwargs.items():
        raw, more = unflag(arg)
        if isinstance(raw, Unknown):
            return raw
        if not _is_plain(raw):
            return Unknown(line, "a date or duration built from values that are not plain data")
        kvalues[key] = raw
        notes += more
    return reader.real(lambda: func(*values, **kvalues), notes, line)


_LIBRARY_CALLS: dict[str, Callable[[Any, list[Any], dict[str, Any], int], Any]] = {
    "datetime.datetime": _pure(dt.datetime),
    "datetime.date": _pure(dt.date),
    "datetime.time": _pure(dt.time),
    "datetime.timedelta": _pure(dt.timedelta),
    "datetime.timezone": _pure(dt.timezone),
    "datetime.datetime.strptime": _pure(dt.datetime.strptime),
    "datetime.datetime.fromisoformat": _pure(dt.datetime.fromisoformat),
    "datetime.datetime.combine": _pure(dt.datetime.combine),
    "datetime.date.fromisoformat": _pure(dt.date.fromisoformat),
    "dateutil.relativedelta.relativedelta": _pure(relativedelta),
    "zoneinfo.ZoneInfo": _pure(_zone_info),
    "pendulum.datetime": _pure(_zoned(pendulum.datetime, 7)),
    "pendulum.DateTime": _pure(_zoned(pendulum.DateTime, 7)),
    "pendulum.date": _pure(pendulum.date),
    "pendulum.duration": _pure(pendulum.duration),
    "pendulum.Duration": _pure(pendulum.Duration),
    "pendulum.timezone": _pure(_zone),
    "pendulum.Timezone": _pure(_zone),
    "pendulum.tz.timezone": _pure(_zone),
    "pendulum.parse": _pure(_zoned(pendulum.parse, 99)),
    "pendulum.from_format": _pure(pendulum.from_format),
    "pendulum.instance": _pure(pendulum.instance),
    "os.path.basename": _pure(posixpath.basename),
    "os.path.splitext": _pure(posixpath.splitext),
    "os.path.join": _pure(posixpath.join),
    "os.path.dirname": _pure(posixpath.dirname),
    "pathlib.Path": _pure(PurePosixPath),
    "pathlib.PurePath": _pure(PurePosixPath),
    "pathlib.PurePosixPath": _pure(PurePosixPath),
    "airflow.utils.timezone.datetime": _pure(_airflow_datetime),
    "airflow.sdk.timezone.datetime": _pure(_airflow_datetime),
    "airflow.utils.timezone.parse": _pure(pendulum.parse),
    "airflow.sdk.timezone.parse": _pure(pendulum.parse),
}

_PARSE_TIME: dict[str, Callable[[dt.datetime, Any], Any]] = {
    "datetime.datetime.now": lambda at, tz: (
        at.astimezone(tz).replace(tzinfo=None) if tz is None else at.astimezone(tz)
    ),
    "datetime.datetime.today": lambda at, tz: at.replace(tzinfo=None),
    "datetime.datetime.utcnow": lambda at, tz: at.astimezone(dt.UTC).replace(tzinfo=None),
    "datetime.date.today": lambda at, tz: at.date(),
    "pendulum.now": lambda at, tz: pendulum.instance(at).in_timezone(tz or "UTC"),
    "pendulum.today": lambda at, tz: pendulum.instance(at).in_timezone(tz or "UTC").start_of("day"),
    "pendulum.yesterday": lambda at, tz: (
        pendulum.instance(at).in_timezone(tz or "UTC").start_of("day").subtract(days=1)
    ),
    "pendulum.tomorrow": lambda at, tz: (
        pendulum.instance(at).in_timezone(tz or "UTC").start_of("day").add(days=1)
    ),
    "airflow.utils.timezone.utcnow": lambda at, tz: pendulum.instance(at).in_timezone("UTC"),
    "airflow.sdk.timezone.utcnow": lambda at, tz: pendulum.instance(at).in_timezone("UTC"),
    "time.time": lambda at, tz: at.timestamp(),
}
# datetime.now() without a zone is the machine's local time: read as UTC (Airflow's
# containers run in UTC); the note says the value is the parse time either way.
_PARSE_TIME["datetime.datetime.now"] = lambda at, tz: (
    at.astimezone(dt.UTC).replace(tzinfo=None) if tz is None else at.astimezone(tz)
)


_KNOWN_VALUES: dict[str, Any] = {
    "datetime.timezone.utc": dt.UTC,
    "datetime.UTC": dt.UTC,
    "pendulum.UTC": pendulum.UTC,
    "pendulum.tz.UTC": pendulum.UTC,
    "airflow.utils.timezone.utc": pendulum.UTC,
    "airflow.sdk.timezone.utc": pendulum.UTC,
}


def _known_value(known: Known) -> Any:
    """A library constant as its value: ``timezone.utc``, ``TriggerRule.ALL_SUCCESS`` (str enum)."""
    if known.path in _KNOWN_VALUES:
        return _KNOWN_VALUES[known.path]
    parts = known.path.split(".")
    enums = ("TriggerRule", "Direction", "WeightRule", "DagRunType")
    if (
        known.path.startswith("airflow")
        and len(parts) >= 2
        and parts[-1].isupper()
        and (parts[-2] in enums)
    ):
        return parts[-1].lower()
    return known


def _unreadable_reason(path: str) -> str | None:
    """Why a call reads the world at parse time, in the user's terms."""
    if path.endswith("Variable.get") or path.endswith("Variable.get_variable"):
        return "read from an Airflow Variable at parse time (Variable.get)"
    if "get_connection" in path or path.endswith("Connection"):
        return "read from an Airflow connection at parse time"
    if path.startswith("os.environ") or path in ("os.getenv",):
        return "read from the environment at parse time"
    if path.startswith(("builtins.open", "json.load", "yaml.", "os.path.", "os.listdir")):
        return "read from a file at parse time"
    if path.startswith("random."):
        return "a random value drawn at parse time"
    if path.startswith(("requests.", "urllib.", "socket.", "subprocess.")):
        return "read over the network or from a process at parse time"
    return None


def iter_dag_kwargs(dag: DagObj) -> Iterable[tuple[str, Any]]:
    return dag.kwargs.items()
