"""Chains of ``next_dagrun_info`` answers computed by Airflow 3.3.2's own timetables.

Run with the interpreter of a virtualenv holding ``apache-airflow-core==3.3.2``:
it reads a JSON list of cases on stdin and writes a JSON object on stdout::

    {"cases": [{"id": ..., "runs": [[logical_date, interval_start, interval_end,
                run_after], ...], "stopped_by": "max_runs" | "none_returned" | "error",
                "error": str | null, "calls": int, "elapsed_s": float}, ...]}

Each case follows the conformance README's section 2.3: ask the timetable for
the next run with the previous answer as the reference, the wall clock frozen
at ``now`` (or ``now_per_call[i]`` for call i). ``elapsed_s`` is the best of
``repeat`` passes over the whole chain (timetable construction included, the
imports of Airflow excluded).

The wall clock is frozen by replacing the names the timetable modules read it
through: ``utcnow`` in ``airflow.timetables.interval`` / ``.trigger`` /
``.simple`` and ``time`` (``time.time()``, MultipleCronTriggerTimetable with
catchup=False) in ``airflow.timetables.trigger``.

The module also holds the case format shared with the benchmarks (it imports
nothing from Airflow at module level, so the explorer side can import it).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any, NotRequired, TypedDict


class Case(TypedDict):
    """One chain to compute. Durations (``delta``, ``interval``) are in seconds."""

    id: str
    timetable: str
    args: dict[str, Any]
    start_date: str | None
    end_date: str | None
    catchup: bool
    now: str | None
    now_per_call: NotRequired[list[str] | None]
    max_runs: int
    repeat: NotRequired[int]


class Result(TypedDict):
    id: str
    runs: list[list[str | None]]
    stopped_by: str
    error: str | None
    calls: int
    elapsed_s: float


DURATION_ARGS = ("delta", "interval")


def fmt(value: datetime | None) -> str | None:
    """``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` in UTC (pendulum or stdlib datetimes)."""
    if value is None:
        return None
    u = value.astimezone(UTC)
    text = u.strftime("%Y-%m-%dT%H:%M:%S")
    if u.microsecond:
        text += f".{u.microsecond:06d}"
    return text + "Z"


def parse_instant(text: str) -> datetime:
    """The inverse of :func:`fmt` (any ISO instant with an offset or ``Z``)."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"naive instant {text!r}")
    return value.astimezone(UTC)


def decode_args(args: dict[str, Any]) -> dict[str, Any]:
    """Case arguments as Python values: durations in seconds become ``timedelta``."""
    out = dict(args)
    for key in DURATION_ARGS:
        if key in out:
            out[key] = timedelta(seconds=out[key])
    if isinstance(out.get("run_immediately"), int | float) and not isinstance(
        out.get("run_immediately"), bool
    ):
        out["run_immediately"] = timedelta(seconds=out["run_immediately"])
    return out


def clocks_of(case: Case) -> list[str]:
    """The wall clock of each call (``now_per_call``, else ``now`` max_runs times)."""
    per_call = case.get("now_per_call")
    if per_call:
        return list(per_call)
    if case["now"] is None:
        raise ValueError(f"case {case['id']}: 'now' or 'now_per_call' is required")
    return [case["now"]] * case["max_runs"]


# --------------------------------------------------------------------------- Airflow side
class _FrozenClock:
    """What the patched ``utcnow`` / ``time.time`` return."""

    def __init__(self) -> None:
        self.now: Any = None  # a pendulum DateTime (UTC)
        self.stamp: float = 0.0

    def set(self, instant: Any) -> None:
        self.now = instant
        self.stamp = instant.timestamp()

    def utcnow(self) -> Any:
        return self.now

    def time(self) -> float:
        return self.stamp


class _TimeModule:
    """Stands in for the ``time`` module inside ``airflow.timetables.trigger``."""

    def __init__(self, clock: _FrozenClock) -> None:
        self._clock = clock

    def time(self) -> float:
        return self._clock.time()

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def _freeze(clock: _FrozenClock) -> None:
    import airflow.timetables.interval as interval_mod
    import airflow.timetables.simple as simple_mod
    import airflow.timetables.trigger as trigger_mod

    for module in (interval_mod, trigger_mod, simple_mod):
        if hasattr(module, "utcnow"):
            module.__dict__["utcnow"] = clock.utcnow
    trigger_mod.__dict__["time"] = _TimeModule(clock)


def _build(case: Case) -> Any:
    import airflow.timetables.interval as interval_mod
    import airflow.timetables.trigger as trigger_mod

    args = decode_args(case["args"])
    name = case["timetable"]
    if name == "CronDataIntervalTimetable":
        return interval_mod.CronDataIntervalTimetable(args["cron"], args.get("timezone", "UTC"))
    if name == "DeltaDataIntervalTimetable":
        return interval_mod.DeltaDataIntervalTimetable(args["delta"])
    if name == "CronTriggerTimetable":
        return trigger_mod.CronTriggerTimetable(
            args["cron"],
            timezone=args.get("timezone", "UTC"),
            interval=args.get("interval", timedelta(0)),
            run_immediately=args.get("run_immediately", False),
        )
    if name == "MultipleCronTriggerTimetable":
        return trigger_mod.MultipleCronTriggerTimetable(
            *args["crons"],
            timezone=args.get("timezone", "UTC"),
            interval=args.get("interval", timedelta(0)),
            run_immediately=args.get("run_immediately", False),
        )
    if name == "DeltaTriggerTimetable":
        return trigger_mod.DeltaTriggerTimetable(
            args["delta"], interval=args.get("interval", timedelta(0))
        )
    raise ValueError(f"unsupported timetable {name!r}")


def _run_case(case: Case, clock: _FrozenClock) -> Result:
    import pendulum
    from airflow.timetables.base import DataInterval, TimeRestriction

    def instant(text: str | None) -> Any:
        return None if text is None else pendulum.instance(parse_instant(text), tz="UTC")

    restriction = TimeRestriction(
        instant(case["start_date"]), instant(case["end_date"]), case["catchup"]
    )
    parsed: dict[str, Any] = {}
    clocks = [parsed.get(c) or parsed.setdefault(c, instant(c)) for c in clocks_of(case)]
    best = float("inf")
    runs: list[list[str | None]] = []
    stopped_by = "max_runs"
    error: str | None = None
    for _ in range(max(1, case.get("repeat", 1))):
        infos: list[Any] = []
        stopped_by = "max_runs"
        error = None
        begin = time.perf_counter()
        table = _build(case)
        last = None
        for now in clocks:
            clock.set(now)
            try:
                info = table.next_dagrun_info(
                    last_automated_data_interval=last, restriction=restriction
                )
            except Exception as exc:  # Airflow logs it; the DAG stops being scheduled
                stopped_by = "error"
                error = f"{type(exc).__name__}: {exc}"
                break
            if info is None:
                stopped_by = "none_returned"
                break
            infos.append(info)
            last = DataInterval(info.data_interval.start, info.data_interval.end)
        best = min(best, time.perf_counter() - begin)
        runs = [
            [
                fmt(i.logical_date),
                fmt(i.data_interval.start),
                fmt(i.data_interval.end),
                fmt(i.run_after),
            ]
            for i in infos
        ]
    return Result(
        id=case["id"],
        runs=runs,
        stopped_by=stopped_by,
        error=error,
        calls=len(runs) + (0 if stopped_by == "max_runs" else 1),
        elapsed_s=best,
    )


def main() -> int:
    cases: list[Case] = json.load(sys.stdin)
    out = sys.stdout
    # Whatever Airflow prints (config warnings, logs) must not corrupt the JSON answer.
    with contextlib.redirect_stdout(sys.stderr):
        import airflow.timetables.interval
        import airflow.timetables.trigger  # noqa: F401  (imports are not timed)

        clock = _FrozenClock()
        _freeze(clock)
        results = [_run_case(case, clock) for case in cases]
    json.dump({"cases": results}, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
