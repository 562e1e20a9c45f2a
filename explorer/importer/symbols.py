"""The values a statically read DAG file holds besides plain Python data.

The reader evaluates literals, arithmetic, f-strings and calls of a few pure
library functions (``datetime``, ``timedelta``, ``pendulum.datetime``...) to
real Python values. Everything Airflow makes (a DAG, a task, an asset, a
timetable) becomes one of the records here, holding the arguments as written;
everything it cannot know becomes an :class:`Unknown` that carries the line and
the reason, so that a DAG field left unknown is reported, never guessed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AfCall",
    "DagObj",
    "Decorator",
    "Flagged",
    "FuncObj",
    "GroupObj",
    "Known",
    "ModuleObj",
    "TaskFunc",
    "TaskObj",
    "Unknown",
    "UserClass",
    "unflag",
]


@dataclass(frozen=True, slots=True)
class Unknown:
    """A value that cannot be read statically: where, and why."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class Flagged:
    """A value resolved against the deployment instant (``datetime.now()``...): kept, flagged."""

    value: Any
    #: (line, what) of each parse-time read the value depends on.
    notes: tuple[tuple[int, str], ...]


def unflag(value: Any) -> tuple[Any, tuple[tuple[int, str], ...]]:
    """The plain value and the parse-time notes it carries."""
    if isinstance(value, Flagged):
        return value.value, value.notes
    return value, ()


@dataclass(frozen=True, slots=True)
class Known:
    """A name imported from outside the project: ``pendulum``, ``airflow.sdk.DAG``..."""

    path: str

    @property
    def last(self) -> str:
        return self.path.rsplit(".", 1)[-1]


@dataclass(slots=True)
class ModuleObj:
    """A module of the imported project, read statically: its top-level names."""

    name: str
    env: dict[str, Any]


@dataclass(frozen=True, slots=True, eq=False)
class AfCall:
    """An Airflow value made by a constructor: ``Asset(...)``, ``CronTriggerTimetable(...)``."""

    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    line: int

    def arg(self, index: int, name: str, default: Any = None) -> Any:
        """The argument given by position ``index`` or by ``name``."""
        if name in self.kwargs:
            return self.kwargs[name]
        if 0 <= index < len(self.args):
            return self.args[index]
        return default

    def has(self, index: int, name: str) -> bool:
        return name in self.kwargs or 0 <= index < len(self.args)

    # ``&`` and ``|`` build conditions as Airflow's BaseAsset does.
    def __and__(self, other: Any) -> AfCall:
        return AfCall("AssetAll", (self, other), {}, self.line)

    def __or__(self, other: Any) -> AfCall:
        return AfCall("AssetAny", (self, other), {}, self.line)


class _Chainable:
    """``a >> b`` / ``a << b`` between tasks and groups: the value read is the right side
    (as Airflow's ``set_downstream`` chains), dependencies themselves are not simulated."""

    __slots__ = ()

    def __rshift__(self, other: Any) -> Any:
        return other

    def __lshift__(self, other: Any) -> Any:
        return other

    def __rrshift__(self, other: Any) -> Any:
        return self

    def __rlshift__(self, other: Any) -> Any:
        return self


@dataclass(slots=True)
class TaskObj(_Chainable):
    """A task of a DAG (an operator, a ``@task`` call): what the scenario needs of it."""

    task_id: str
    line: int
    outlets: Any = None
    inlets: Any = None
    #: The operator's own start_date / end_date arguments, if given.
    start_date: Any = None
    end_date: Any = None


@dataclass(slots=True)
class DagObj:
    """A DAG being defined: its arguments as read, its tasks, and the caveats met."""

    kwargs: dict[str, Any]
    file: str
    line: int
    tasks: list[TaskObj] = field(default_factory=list)
    #: (line, reason) for doubts that hold for the whole DAG (a condition not read...).
    caveats: list[tuple[int, str]] = field(default_factory=list)
    #: (line, where from) for defaults the whole DAG depends on (a loop over a
    #: ``Variable.get`` default made it): flagged, as a parse-time value is, not unresolved.
    flags: list[tuple[int, str]] = field(default_factory=list)
    #: Task ids used so far, for ``@task`` ids made unique as Airflow does (``name__1``).
    task_ids: dict[str, int] = field(default_factory=dict)
    #: Full ids of the task groups made so far (``@task_group`` ids made unique the same way).
    group_ids: dict[str, int] = field(default_factory=dict)
    registered: bool = False

    @property
    def dag_id(self) -> Any:
        return self.kwargs.get("dag_id")

    def __rshift__(self, other: Any) -> Any:  # pragma: no cover - nonsense in a DAG file
        return other


@dataclass(slots=True)
class GroupObj(_Chainable):
    """A task group: its id prefixes the ids of the tasks made inside it."""

    group_id: str | None
    prefix: bool = True
    line: int = 0


@dataclass(slots=True)
class FuncObj:
    """A function defined in the project, called by the reader with its arguments bound."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    env: dict[str, Any]  # the globals it was defined in
    closure: dict[str, Any] | None
    defaults: list[Any]
    kw_defaults: dict[str, Any]
    module: str

    @property
    def name(self) -> str:
        return "<lambda>" if isinstance(self.node, ast.Lambda) else self.node.name


@dataclass(frozen=True, slots=True)
class Decorator:
    """``@dag(...)``, ``@task.bash(...)``, ``@task_group(...)``, ``@asset(...)``, ``@asset.multi``
    waiting for the function they decorate; ``kind`` says which."""

    kind: str
    kwargs: dict[str, Any]
    line: int


@dataclass(slots=True)
class TaskFunc:
    """A function under ``@dag``, ``@task`` or ``@task_group`` (``kind``); the decorator's args."""

    kind: str
    func: FuncObj
    kwargs: dict[str, Any]
    line: int


@dataclass(frozen=True, slots=True)
class UserClass:
    """A class defined in the project (an operator subclass, most often)."""

    name: str
    line: int
    #: A subclass of Airflow's DAG: instantiating it makes a DAG.
    dag: bool = False
