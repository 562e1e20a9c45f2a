"""One simulated year of runs per schedule: our timetables' speed, and Airflow's.

Usage::

    python benchmarks/bench_timetables.py [--repeat 3] [--airflow-python PATH]
                                          [--only ID ...]

Every case is a chain of ``next_dagrun_info`` calls made the way Airflow's
scheduler makes them (conformance README section 2.3): the previous answer is
the next call's reference, the wall clock is frozen at ``now``, the DAG has
``start_date`` 2024-01-01 and ``end_date`` 2025-01-01 (UTC), and the chain runs
until the timetable answers "no next run". Most cases use catchup=True (the
clock does not matter); the ``*_nocatchup`` cases freeze the clock mid-year.

For each case the script prints the runs, our time (best of ``--repeat``
passes, construction of the timetable included) and the time per run. With
``--airflow-python`` the same cases are computed by Airflow 3.3.2's own
timetable classes in a subprocess (``benchmarks/_airflow_side.py``, timed
inside the subprocess without its imports, best of the same ``--repeat``
passes: both sides are timed the same way), the sequences are compared run by
run and the ratio Airflow time / our time is printed per case and overall.

The last line is ``ratio_vs_airflow=<total Airflow s / total our s, 1 decimal>
identical=<true|false>`` (``n/a`` for both without ``--airflow-python``).
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._airflow_side import (
    Case,
    Result,
    clocks_of,
    decode_args,
    fmt,
    parse_instant,
)
from explorer.engine.errors import EngineError
from explorer.engine.timetables import Timetable, timetable_from_spec
from explorer.engine.types import DagRunInfo, ReferenceRun, TimeRestriction

AIRFLOW_SIDE = Path(__file__).resolve().parent / "_airflow_side.py"

YEAR_START = "2024-01-01T00:00:00Z"
YEAR_END = "2025-01-01T00:00:00Z"
MID_YEAR = "2024-07-01T16:34:56Z"  # the frozen clock of the catchup=False cases
MAX_RUNS = 100_000  # a safety net: every chain below ends by itself at YEAR_END
HOUR = 3600
DAY = 86400


def _case(
    case_id: str,
    timetable: str,
    args: dict[str, Any],
    *,
    catchup: bool = True,
    start_date: str | None = YEAR_START,
    now: str = YEAR_END,
) -> Case:
    return Case(
        id=case_id,
        timetable=timetable,
        args=args,
        start_date=start_date,
        end_date=YEAR_END,
        catchup=catchup,
        now=now,
        max_runs=MAX_RUNS,
    )


NY = "America/New_York"
MULTI = {"crons": ["0 3 * * *", "30 12 * * 1-5"], "timezone": NY}

#: The fixed schedules. Durations are in seconds (see ``_airflow_side.Case``).
CASES: list[Case] = [
    _case(
        "hourly_cdi_new_york", "CronDataIntervalTimetable", {"cron": "0 * * * *", "timezone": NY}
    ),
    # 01:30 does not exist in London on 2024-03-31 and happens twice on 2024-10-27.
    _case(
        "daily_trigger_london",
        "CronTriggerTimetable",
        {"cron": "30 1 * * *", "timezone": "Europe/London"},
    ),
    _case(
        "every15_trigger_utc", "CronTriggerTimetable", {"cron": "*/15 * * * *", "timezone": "UTC"}
    ),
    _case("weekly_trigger_new_york", "CronTriggerTimetable", {"cron": "0 6 * * 1", "timezone": NY}),
    _case("monthly_cdi_utc", "CronDataIntervalTimetable", {"cron": "0 0 1 * *", "timezone": "UTC"}),
    _case("multi_cron_new_york", "MultipleCronTriggerTimetable", dict(MULTI)),
    _case("delta_trigger_6h", "DeltaTriggerTimetable", {"delta": 6 * HOUR}),
    # 02:00 New York falls in the spring-forward gap on 2024-03-10.
    _case(
        "daily_trigger_interval_1d",
        "CronTriggerTimetable",
        {"cron": "0 2 * * *", "timezone": NY, "interval": DAY},
    ),
    # catchup=False: the answers depend on the frozen clock.
    _case(
        "hourly_cdi_new_york_nocatchup",
        "CronDataIntervalTimetable",
        {"cron": "0 * * * *", "timezone": NY},
        catchup=False,
        now=MID_YEAR,
    ),
    _case(
        "multi_cron_new_york_nocatchup",
        "MultipleCronTriggerTimetable",
        dict(MULTI),
        catchup=False,
        now=MID_YEAR,
    ),
    _case(
        "daily_trigger_london_nostart",
        "CronTriggerTimetable",
        {"cron": "30 1 * * *", "timezone": "Europe/London"},
        catchup=False,
        start_date=None,
        now=MID_YEAR,
    ),
]


# --------------------------------------------------------------------------- our side
def build_timetable(case: Case) -> Timetable:
    return timetable_from_spec(case["timetable"], decode_args(case["args"]), dag_timezone="UTC")


def restriction_of(case: Case) -> TimeRestriction:
    start, end = case["start_date"], case["end_date"]
    return TimeRestriction(
        None if start is None else parse_instant(start),
        None if end is None else parse_instant(end),
        case["catchup"],
    )


def run_row(info: DagRunInfo) -> list[str | None]:
    interval = info.data_interval
    return [
        fmt(info.logical_date),
        fmt(None if interval is None else interval.start),
        fmt(None if interval is None else interval.end),
        fmt(info.run_after),
    ]


def our_chain(case: Case, repeat: int) -> Result:
    """The chain computed by our engine; ``elapsed_s`` is the best of ``repeat`` passes."""
    restriction = restriction_of(case)
    parsed: dict[str, datetime] = {}
    clocks = [parsed.get(c) or parsed.setdefault(c, parse_instant(c)) for c in clocks_of(case)]
    best = float("inf")
    infos: list[DagRunInfo] = []
    stopped_by = "max_runs"
    error: str | None = None
    for _ in range(max(1, repeat)):
        infos = []
        stopped_by = "max_runs"
        error = None
        begin = time.perf_counter()
        table = build_timetable(case)
        last: ReferenceRun | None = None
        for now in clocks:
            try:
                info = table.next_dagrun_info(last=last, restriction=restriction, now=now)
            except EngineError as exc:
                stopped_by = "error"
                error = f"{type(exc).__name__}: {exc}"
                break
            if info is None:
                stopped_by = "none_returned"
                break
            infos.append(info)
            last = ReferenceRun.of(info)
        best = min(best, time.perf_counter() - begin)
    runs = [run_row(i) for i in infos]
    return Result(
        id=case["id"],
        runs=runs,
        stopped_by=stopped_by,
        error=error,
        calls=len(runs) + (0 if stopped_by == "max_runs" else 1),
        elapsed_s=best,
    )


# --------------------------------------------------------------------------- Airflow side
def airflow_chains(python: str, cases: list[Case], repeat: int) -> dict[str, Result]:
    """Run ``cases`` through Airflow's timetables with ``python`` (see ``_airflow_side``)."""
    payload: list[dict[str, Any]] = [{**c, "repeat": repeat} for c in cases]
    env = dict(os.environ)
    env.setdefault("AIRFLOW_HOME", str(Path(os.environ.get("TMPDIR", "/tmp")) / "se-airflow-home"))
    proc = subprocess.run(
        [python, str(AIRFLOW_SIDE)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"the Airflow side failed (exit {proc.returncode})")
    answer: dict[str, list[Result]] = json.loads(proc.stdout)
    return {r["id"]: r for r in answer["cases"]}


@dataclass(frozen=True, slots=True)
class Mismatch:
    case_id: str
    detail: str


def compare(ours: Result, theirs: Result) -> Mismatch | None:
    """The first difference between two chains, or None when they are identical."""
    for index, (a, b) in enumerate(zip(ours["runs"], theirs["runs"], strict=False)):
        if a != b:
            return Mismatch(ours["id"], f"run #{index}: ours={a} airflow={b}")
    if len(ours["runs"]) != len(theirs["runs"]):
        index = min(len(ours["runs"]), len(theirs["runs"]))
        extra_ours = ours["runs"][index] if index < len(ours["runs"]) else None
        extra_theirs = theirs["runs"][index] if index < len(theirs["runs"]) else None
        return Mismatch(
            ours["id"],
            f"{len(ours['runs'])} runs vs {len(theirs['runs'])}; run #{index}: "
            f"ours={extra_ours} airflow={extra_theirs}",
        )
    if ours["stopped_by"] != theirs["stopped_by"]:
        return Mismatch(
            ours["id"],
            f"stopped_by ours={ours['stopped_by']} ({ours['error']}) "
            f"airflow={theirs['stopped_by']} ({theirs['error']})",
        )
    return None


# --------------------------------------------------------------------------- report
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=3, help="passes per case on both sides (best kept)"
    )
    parser.add_argument("--airflow-python", help="interpreter of a venv with Airflow 3.3.2")
    parser.add_argument("--only", nargs="*", help="case ids to run (default: all)")
    args = parser.parse_args(argv)

    cases = [c for c in CASES if not args.only or c["id"] in args.only]
    ours = {c["id"]: our_chain(c, args.repeat) for c in cases}
    theirs = (
        airflow_chains(args.airflow_python, cases, args.repeat) if (args.airflow_python) else {}
    )

    header = f"{'case':32} {'runs':>7} {'ours_ms':>10} {'us/run':>8}"
    if theirs:
        header += f" {'airflow_ms':>11} {'af_us/run':>10} {'ratio':>8}  same"
    print(header)
    mismatches: list[Mismatch] = []
    total_ours = total_theirs = 0.0
    total_runs = 0
    for case in cases:
        mine = ours[case["id"]]
        n = len(mine["runs"])
        total_runs += n
        total_ours += mine["elapsed_s"]
        line = (
            f"{case['id']:32} {n:>7} {mine['elapsed_s'] * 1e3:>10.2f} "
            f"{mine['elapsed_s'] * 1e6 / max(1, mine['calls']):>8.2f}"
        )
        if theirs:
            other = theirs[case["id"]]
            total_theirs += other["elapsed_s"]
            mismatch = compare(mine, other)
            if mismatch is not None:
                mismatches.append(mismatch)
            ratio = other["elapsed_s"] / mine["elapsed_s"] if mine["elapsed_s"] else float("inf")
            line += (
                f" {other['elapsed_s'] * 1e3:>11.1f} "
                f"{other['elapsed_s'] * 1e6 / max(1, other['calls']):>10.1f} "
                f"{ratio:>8.1f}  {'yes' if mismatch is None else 'NO'}"
            )
        print(line)
    print(
        f"{'total':32} {total_runs:>7} {total_ours * 1e3:>10.2f} "
        f"{total_ours * 1e6 / max(1, total_runs):>8.2f}"
        + (
            f" {total_theirs * 1e3:>11.1f} {total_theirs * 1e6 / max(1, total_runs):>10.1f}"
            if theirs
            else ""
        )
    )
    for m in mismatches:
        print(f"MISMATCH {m.case_id}: {m.detail}")
    if theirs:
        ratio = total_theirs / total_ours if total_ours else float("inf")
        print(f"ratio_vs_airflow={ratio:.1f} identical={'false' if mismatches else 'true'}")
    else:
        print("ratio_vs_airflow=n/a identical=n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main())
