"""Cron expressions stepped on a zone's wall clock, as Airflow 3.3.2 steps them.

Airflow (``timetables/_cron.py``) converts an instant to the naive wall-clock
reading of the timetable's zone, asks croniter for the next/previous matching
reading, and makes the result aware again (DST-1). Crons whose hour field is
``*`` instead add the wall-clock step to the instant as an exact duration, so
every real hour is covered once (DST-2). Everything else (coarser crons)
shifts gap readings forward and resolves repeated readings to the later
instant (DST-3).

croniter is the authority on what an expression means and on its error
messages; it is used here for parsing and validation. Stepping is done by
:class:`explorer.engine.cronfast.WallClockCron`, which expands the expression
once and then steps through precomputed readings (croniter costs about
150 us a call; the engine needs a few microseconds a tick).
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from functools import lru_cache

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterError, croniter

from explorer.engine.errors import ScheduleError
from explorer.engine.tz import local, make_aware

__all__ = ["CRON_PRESETS", "CronError", "ZonedCron", "resolve_preset", "validate_cron"]

# utils/dates.py::cron_presets (TT-1). ``@annually`` and ``@midnight`` are not in
# Airflow's table: they are kept as written and croniter reads them itself.
CRON_PRESETS: dict[str, str] = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
}


class CronError(ScheduleError):
    """An expression croniter refuses; the message is croniter's own."""


def resolve_preset(expression: str) -> str:
    return CRON_PRESETS.get(expression, expression)


def validate_cron(expression: str) -> None:
    """Raise :class:`CronError` with croniter's message if ``expression`` is invalid."""
    _parse(resolve_preset(expression))


@lru_cache(maxsize=4096)
def _parse(expression: str) -> croniter:
    try:
        return croniter(expression)
    except (CroniterBadCronError, CroniterBadDateError, CroniterError) as exc:
        raise CronError(str(exc)) from exc
    except (
        ValueError,
        TypeError,
        KeyError,
        IndexError,
    ) as exc:  # croniter leaks these on odd input
        raise CronError(f"[{expression}] is not acceptable: {exc}") from exc


class ZonedCron:
    """One cron expression in one time zone, with Airflow's four primitives.

    All instants in and out are aware UTC datetimes.
    """

    __slots__ = ("_align_next_memo", "_next_memo", "_wall", "every_hour", "expression", "zone")

    def __init__(self, expression: str, zone: tzinfo) -> None:
        from explorer.engine.cronfast import WallClockCron

        self.expression = resolve_preset(expression)
        self.zone = zone
        parsed = _parse(self.expression)
        # _cron.py::_covers_every_hour: croniter normalises an all-hours field to "*".
        self.every_hour: bool = parsed.expanded[1] == ["*"]
        self._wall = WallClockCron(self.expression)
        # align_next is asked again and again for the same start date (TT-2's earliest).
        self._align_next_memo: tuple[datetime, datetime] | None = None
        # The scheduler's chain of calls asks next() of the same tick twice: a run's
        # interval end is next(start), and the following call aligns that end back
        # (align_prev: prev, then next of the tick found, which is that start again).
        self._next_memo: tuple[datetime, datetime] | None = None

    def next(self, current: datetime) -> datetime:
        """The first tick strictly after ``current`` (CronMixin._get_next)."""
        memo = self._next_memo
        if (
            memo is not None
            and memo[0] == current
            and memo[0].tzinfo is current.tzinfo
            and memo[0].fold == current.fold
        ):
            return memo[1]
        found = self._next(current)
        self._next_memo = (current, found)
        return found

    def _next(self, current: datetime) -> datetime:
        if self.zone is UTC and current.tzinfo is UTC:
            # In UTC the wall reading is the instant (no gap, no fold: DST-1 to DST-3
            # coincide), so the tables step the aware instant itself.
            try:
                return self._wall.next_after(current, UTC)
            except (CroniterError, ValueError, OverflowError) as exc:
                raise CronError(f"[{self.expression}] failed to find next date: {exc}") from exc
        naive = local(current, self.zone)
        try:
            scheduled = self._wall.next_after(naive)
        except (CroniterError, ValueError, OverflowError) as exc:
            raise CronError(f"[{self.expression}] failed to find next date: {exc}") from exc
        if self.every_hour:
            return current + (scheduled - naive)
        return make_aware(scheduled, self.zone)

    def prev(self, current: datetime) -> datetime:
        """The last tick strictly before ``current`` (CronMixin._get_prev)."""
        if self.zone is UTC and current.tzinfo is UTC:  # see _next
            try:
                return self._wall.prev_before(current, UTC)
            except (CroniterError, ValueError, OverflowError) as exc:
                raise CronError(f"[{self.expression}] failed to find previous date: {exc}") from exc
        naive = local(current, self.zone)
        try:
            scheduled = self._wall.prev_before(naive)
        except (CroniterError, ValueError, OverflowError) as exc:
            raise CronError(f"[{self.expression}] failed to find previous date: {exc}") from exc
        if self.every_hour:
            return current - (naive - scheduled)
        return make_aware(scheduled, self.zone)

    def align_next(self, current: datetime) -> datetime:
        """``current`` if it is a tick, else the next tick (CronMixin._align_to_next)."""
        memo = self._align_next_memo
        if memo is not None and memo[0] == current:
            return memo[1]
        nxt = self.next(current)
        aligned = current if self.prev(nxt) == current else nxt
        self._align_next_memo = (current, aligned)
        return aligned

    def align_prev(self, current: datetime) -> datetime:
        """``current`` if it is a tick, else the previous tick (CronMixin._align_to_prev)."""
        prv = self.prev(current)
        return current if self.next(prv) == current else prv
