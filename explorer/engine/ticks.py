"""When scheduler loops and DAG-file parses happen: on a grid, or at listed instants."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

__all__ = ["Cadence", "ExplicitCadence", "GridCadence", "NoCadence"]


_ZERO = timedelta(0)
_SECOND = timedelta(seconds=1)
_DAY_SECONDS = 86400


class Cadence:
    """A set of instants; the simulator asks for the next one and the latest one."""

    def at_or_after(self, t: datetime) -> datetime | None:
        raise NotImplementedError

    def at_or_before(self, t: datetime) -> datetime | None:
        raise NotImplementedError

    def after(self, t: datetime) -> datetime | None:
        nxt = self.at_or_after(t)
        if nxt is not None and nxt == t:
            nxt = self.at_or_after(t + timedelta(microseconds=1))
        return nxt

    def contains(self, t: datetime) -> bool:
        return self.at_or_after(t) == t

    def count_between(self, after: datetime | None, upto: datetime) -> int:
        """How many instants lie in (``after``, ``upto``] (``after`` None: from the first)."""
        n = 0
        t = self.first() if after is None else self.after(after)
        while t is not None and t <= upto:
            n += 1
            t = self.after(t)
        return n

    def first(self) -> datetime | None:
        return self.at_or_after(datetime.min.replace(tzinfo=UTC))


class GridCadence(Cadence):
    """``origin + k * step`` for every k >= 0 (``scheduler.loop_interval`` from ``clock.start``)."""

    def __init__(self, origin: datetime, step: timedelta) -> None:
        if step <= timedelta(0):
            raise ValueError("a cadence step must be positive")
        self.origin = origin
        self.step = step
        # A grid of whole seconds (the default loop_interval of one second, from a whole
        # second): its points are the whole seconds from the origin on, so an instant in
        # the origin's zone object is placed by its fields, not by timedelta divisions
        # (the loop asks at every instant).
        self._seconds = step == _SECOND and origin.microsecond == 0
        self._zone = origin.tzinfo
        # The last at_or_before question and answer: the parse instant is asked for the
        # same clock by every DAG touched at it (sync_parse, collect_due).
        self._before: tuple[datetime, datetime | None] | None = None
        # The last at_or_after question and answer: about half the questions repeat the
        # one before (the loop's reasons read at an instant and again at its step 4, the
        # parse instant of every DAG touched at one clock).
        self._after: tuple[datetime, datetime] | None = None

    def at_or_after(self, t: datetime) -> datetime | None:
        memo = self._after
        if memo is not None and memo[0] == t:  # the same instant: the same grid point
            return memo[1]
        if t <= self.origin:
            found = self.origin
        elif self._whole(t):
            found = t if t.microsecond == 0 else _floor(t) + _SECOND
        else:
            k = -((self.origin - t) // self.step)  # ceiling division on timedeltas
            found = self.origin + k * self.step
        self._after = (t, found)
        return found

    def at_or_before(self, t: datetime) -> datetime | None:
        memo = self._before
        if memo is not None and memo[0] == t:  # the same instant: the same grid point
            return memo[1]
        if t < self.origin:
            found = None
        elif self._whole(t):
            found = _floor(t)
        else:
            found = self.origin + ((t - self.origin) // self.step) * self.step
        self._before = (t, found)
        return found

    # The loop asks these at every instant: one division each, instead of the
    # generic versions' two ``at_or_after`` calls.
    def after(self, t: datetime) -> datetime | None:
        if t < self.origin:
            return self.origin
        if self._whole(t):
            return _floor(t) + _SECOND
        return self.origin + ((t - self.origin) // self.step + 1) * self.step

    def contains(self, t: datetime) -> bool:
        if t < self.origin:
            return False
        if self._whole(t):
            return t.microsecond == 0
        return (t - self.origin) % self.step == _ZERO

    def count_between(self, after: datetime | None, upto: datetime) -> int:
        if upto < self.origin:
            return 0
        below = 0 if after is None or after < self.origin else self._steps(after) + 1
        return max(0, self._steps(upto) + 1 - below)

    def _steps(self, t: datetime) -> int:
        """Whole steps from the origin to ``t`` (not before it)."""
        span = t - self.origin
        if self._seconds:
            return span.days * _DAY_SECONDS + span.seconds
        return span // self.step

    def _whole(self, t: datetime) -> bool:
        """Is ``t`` placed on the whole-second grid by its own fields? Only in the
        origin's zone object and fold, so that the grid point made from it is the one
        ``origin + k * step`` makes, object for object."""
        return self._seconds and t.tzinfo is self._zone and t.fold == 0


def _floor(t: datetime) -> datetime:
    """``t`` cut to its whole second (itself when it is one)."""
    return t if t.microsecond == 0 else t.replace(microsecond=0)


class ExplicitCadence(Cadence):
    """Listed instants only (the conformance traces' ``tick`` steps)."""

    def __init__(self, instants: Iterable[datetime]) -> None:
        self.instants = sorted(set(instants))

    def at_or_after(self, t: datetime) -> datetime | None:
        i = bisect_left(self.instants, t)
        return self.instants[i] if i < len(self.instants) else None

    def at_or_before(self, t: datetime) -> datetime | None:
        i = bisect_right(self.instants, t)
        return self.instants[i - 1] if i else None

    def count_between(self, after: datetime | None, upto: datetime) -> int:
        lo = 0 if after is None else bisect_right(self.instants, after)
        return max(0, bisect_right(self.instants, upto) - lo)


class NoCadence(Cadence):
    """Never (``parse_interval: null``)."""

    def at_or_after(self, t: datetime) -> datetime | None:
        return None

    def at_or_before(self, t: datetime) -> datetime | None:
        return None
