"""A DAG file as written, and the script actions that change which files are deployed.

A :class:`~explorer.engine.dag.DagSpec` is what the scheduler reads after a
parse. Some of it is decided only *at* the parse, by Airflow options (DEP-7):
a plain cron string or ``timedelta`` schedule becomes a trigger or a
data-interval timetable by ``[scheduler] create_cron_data_intervals``, and a
file that does not set ``catchup`` / ``max_active_runs`` gets
``[scheduler] catchup_by_default`` / ``[core] max_active_runs_per_dag``.
:class:`DagFile` keeps those choices open; :meth:`DagFile.resolve` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from dateutil.relativedelta import relativedelta

from explorer.engine.dag import DagSpec
from explorer.engine.options import AirflowOptions
from explorer.engine.timetables.factory import timetable_from_schedule

__all__ = ["BundleRefresh", "DagFile", "DeployDag", "PlainSchedule", "RemoveDag", "SetOption"]

#: A ``schedule=`` value whose timetable class the options pick (TT-1, DEP-7).
PlainSchedule = str | timedelta | relativedelta


@dataclass(frozen=True, slots=True, eq=False)
class DagFile:
    """One DAG file: ``spec`` as written, with the parse-time choices left open.

    ``schedule``: the plain ``schedule=`` value when the file wrote one (then
    ``spec.timetable`` is replaced at every parse); ``None`` when the file
    wrote a timetable object, an asset condition or ``schedule=None`` (kept as
    is). ``catchup`` / ``max_active_runs``: ``None`` = not set in the file (the
    options decide); ``spec``'s own values are then ignored.
    """

    spec: DagSpec
    schedule: PlainSchedule | None = None
    catchup: bool | None = None
    max_active_runs: int | None = None
    #: The ``create_cron_data_intervals`` value ``spec.timetable`` was built with: a parse
    #: under the same value keeps that timetable object.
    built_with_cron_data_intervals: bool = False
    _cache: dict[tuple[object, ...], DagSpec] = field(
        default_factory=dict, repr=False, compare=False
    )
    #: The options object of the latest resolve and its answer: a parse under the same
    #: options (every parse but the first after an option changes, DEP-7) reads it back
    #: without building ``_cache``'s key (a parse per run created and ended).
    _last: list[object] = field(default_factory=lambda: [None, None], repr=False, compare=False)

    @classmethod
    def of(cls, spec: DagSpec) -> DagFile:
        """A file that sets everything ``spec`` says (nothing left to the options)."""
        return cls(spec, None, spec.catchup, spec.max_active_runs)

    @property
    def dag_id(self) -> str:
        return self.spec.dag_id

    def resolve(self, options: AirflowOptions) -> DagSpec:
        """The DagSpec a parse under ``options`` gives (the same object for the same
        answers, so a parse that changes nothing is seen to change nothing)."""
        last = self._last
        if last[0] is options:  # options are immutable: the same object, the same answer
            return last[1]  # type: ignore[return-value]
        spec = self._resolve(options)
        last[0], last[1] = options, spec
        return spec

    def _resolve(self, options: AirflowOptions) -> DagSpec:
        """:meth:`resolve` by ``_cache``'s key (the options' values the file leaves open)."""
        key = (
            None if self.schedule is None else options.create_cron_data_intervals,
            options.catchup_by_default if self.catchup is None else None,
            options.max_active_runs_per_dag if self.max_active_runs is None else None,
        )
        found = self._cache.get(key)
        if found is not None:
            return found
        spec = self.spec
        changes: dict[str, object] = {}
        rebuild = options.create_cron_data_intervals != self.built_with_cron_data_intervals
        if self.schedule is not None and rebuild:
            changes["timetable"] = timetable_from_schedule(
                self.schedule,
                dag_timezone=spec.timezone,
                create_cron_data_intervals=options.create_cron_data_intervals,
            )
        catchup = options.catchup_by_default if self.catchup is None else self.catchup
        if catchup != spec.catchup:
            changes["catchup"] = catchup
        limit = (
            options.max_active_runs_per_dag
            if self.max_active_runs is None
            else self.max_active_runs
        )
        if limit != spec.max_active_runs:
            changes["max_active_runs"] = limit
        resolved = replace(spec, **changes) if changes else spec  # type: ignore[arg-type]
        self._cache[key] = resolved
        return resolved


@dataclass(frozen=True, slots=True)
class DeployDag:
    """``file`` replaces the DAG file of its dag_id (or adds it) and is parsed at once (DEP-1)."""

    at: datetime
    file: DagFile

    @property
    def dag_id(self) -> str:
        return self.file.dag_id


@dataclass(frozen=True, slots=True)
class RemoveDag:
    """The DAG file is deleted; the next bundle refresh makes the DAG stale (DEP-6)."""

    at: datetime
    dag_id: str


@dataclass(frozen=True, slots=True)
class SetOption:
    """``[section] key = value`` for every later parse (DEP-7)."""

    at: datetime
    section: str
    key: str
    value: object


@dataclass(frozen=True, slots=True)
class BundleRefresh:
    """A DAG processor bundle refresh at ``at`` (the traces drive them; scenarios use the
    ``refresh_interval`` grid)."""

    at: datetime
