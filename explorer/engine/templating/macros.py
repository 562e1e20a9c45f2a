"""``macros`` as a template sees it: Airflow's macros behind read-only proxies.

Task SDK 1.3.2's ``airflow.sdk.execution_time.macros`` hands templates whole
modules (``json``, ``time``, ``uuid``, ``dateutil``), and a module's own imports
lead to ``os``, ``sys``, ``builtins`` and ``open``. Here every name a template
uses to compute a value is kept, but each module is a :class:`Namespace` that
exposes only its listed functions and classes, never a module.

A simulation never reads the wall clock or an entropy source, so the macros
that would (``random``, ``uuid.uuid4``, ``datetime_diff_for_humans`` without
``since``) answer from the run itself: the draw is seeded by the run's id and
"now" is the run's simulated instant (when its task starts).
"""

from __future__ import annotations

import json
import random as _random
import time as _time
import uuid as _uuid
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from typing import Any

import pendulum
from dateutil import parser as _parser
from dateutil import relativedelta as _relativedelta
from dateutil import tz as _tz

from explorer.engine.templating.limits import check_width

__all__ = ["Namespace", "build_macros", "ds_add", "ds_format"]


class Namespace:
    """A read-only bag of named functions and classes (a module stand-in).

    The sandbox reads only :attr:`members` names from it (``is_safe_attribute``);
    nothing can be set on it.
    """

    __slots__ = ("_label", "_members")

    def __init__(self, label: str, members: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_label", label)
        object.__setattr__(self, "_members", dict(members))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._members[name]
        except KeyError:
            raise AttributeError(f"{self._label} has no {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._label} is read-only")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self._members.get("__call__")
        if call is None:
            raise TypeError(f"{self._label} is not callable")
        return call(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self._label}>"

    def exposes(self, name: str) -> bool:
        """True when the template may read ``name``."""
        return name in self._members and not name.startswith("_")


def ds_add(ds: str, days: int) -> str:
    """``macros.ds_add``: ``YYYY-MM-DD`` plus ``days``."""
    if not days:
        return str(ds)
    day = datetime.strptime(str(ds), "%Y-%m-%d")  # noqa: DTZ007 -- a calendar date, no instant
    return (day + timedelta(days=days)).strftime("%Y-%m-%d")


def ds_format(ds: str, input_format: str, output_format: str) -> str:
    """``macros.ds_format``: re-format a date string."""
    parsed = datetime.strptime(str(ds), input_format)  # noqa: DTZ007 -- text in, text out
    return parsed.strftime(output_format)


def _json_dumps(obj: Any, **kwargs: Any) -> str:
    indent = kwargs.get("indent")
    if isinstance(indent, int):
        check_width(indent, "JSON indent")
    elif isinstance(indent, str):
        check_width(len(indent), "JSON indent")
    return json.dumps(obj, **kwargs)


def _needs(name: str, count: int, hint: str) -> Callable[..., Any]:
    """A function that refuses to read the wall clock when called without its argument."""
    target = getattr(_time, name)

    def call(*args: Any) -> Any:
        if len(args) < count:
            raise ValueError(
                f"macros.time.{name}() without its argument reads the wall clock; "
                f"a simulation has none: {hint}"
            )
        return target(*args)

    call.__name__ = name
    return call


def build_macros(instant: datetime, seed: str) -> Namespace:
    """The ``macros`` of one run: ``instant`` is its "now", ``seed`` fixes its draws."""
    draws = _random.Random(seed)

    def random() -> float:
        return draws.random()

    def uuid4() -> _uuid.UUID:
        return _uuid.UUID(int=draws.getrandbits(128), version=4)

    def datetime_diff_for_humans(dt: Any, since: datetime | None = None) -> str:
        return str(pendulum.instance(dt).diff_for_humans(pendulum.instance(since or instant)))

    def simulated_time() -> float:
        return instant.timestamp()

    stamp = "use {{ logical_date }}, {{ data_interval_end }} or {{ dag_run.run_after }}"
    return Namespace(
        "macros",
        {
            "ds_add": ds_add,
            "ds_format": ds_format,
            "datetime_diff_for_humans": datetime_diff_for_humans,
            "datetime": datetime,
            "timedelta": timedelta,
            "random": random,
            "json": Namespace("macros.json", {"dumps": _json_dumps, "loads": json.loads}),
            "time": Namespace(
                "macros.time",
                {
                    "time": simulated_time,
                    "strftime": _needs("strftime", 2, stamp),
                    "gmtime": _needs("gmtime", 1, stamp),
                    "strptime": _time.strptime,
                },
            ),
            "uuid": Namespace(
                "macros.uuid",
                {
                    "uuid4": uuid4,
                    "uuid3": _uuid.uuid3,
                    "uuid5": _uuid.uuid5,
                    "UUID": _uuid.UUID,
                    "NAMESPACE_DNS": _uuid.NAMESPACE_DNS,
                    "NAMESPACE_URL": _uuid.NAMESPACE_URL,
                    "NAMESPACE_OID": _uuid.NAMESPACE_OID,
                    "NAMESPACE_X500": _uuid.NAMESPACE_X500,
                },
            ),
            "dateutil": Namespace(
                "macros.dateutil",
                {
                    "relativedelta": Namespace(
                        "macros.dateutil.relativedelta",
                        {
                            "relativedelta": _relativedelta.relativedelta,
                            **{d: getattr(_relativedelta, d) for d in _WEEKDAYS},
                        },
                    ),
                    "parser": Namespace(
                        "macros.dateutil.parser",
                        {"parse": _parser.parse, "isoparse": _parser.isoparse},
                    ),
                    "tz": Namespace(
                        "macros.dateutil.tz",
                        {
                            "gettz": _tz.gettz,
                            "UTC": _tz.UTC,
                            "tzutc": _tz.tzutc,
                            "tzoffset": _tz.tzoffset,
                        },
                    ),
                },
            ),
        },
    )


_WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")

#: Calls that read the wall clock, by the name a template reaches them under.
CLOCK_READERS = frozenset({"now", "utcnow", "today"})

#: Types whose ``now``/``today`` a template can reach (classes and instances).
CLOCK_TYPES: tuple[type, ...] = (date,)
