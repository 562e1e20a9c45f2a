"""One-off differential check: ZonedCron against Airflow 3.3.2's CronMixin.

Generates random (expression, zone, instant) cases in this venv, answers them
with :class:`explorer.engine.cron.ZonedCron`, then has Airflow answer the same
cases in a separate interpreter (a throwaway venv with apache-airflow-core
3.3.2; the product never imports Airflow) through
``CronTriggerTimetable._get_next/_get_prev/_align_to_next/_align_to_prev``.
Instants are concentrated around DST transitions 2018-2026.

Both sides read zones from the pinned ``tzdata`` package only (the Airflow
side empties zoneinfo's search path the way ``explorer.engine.tz`` does), so a
mismatch is a behaviour difference, not a tz database difference.

Usage::

    python benchmarks/diff_cron_vs_airflow.py [N] [--seed S] [--airflow-python PATH]

Prints a summary and up to 30 mismatches; exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.engine.cron import ZonedCron
from explorer.engine.tz import get_zone

ZONES = [
    "UTC",
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Pacific/Chatham",
    "America/Sao_Paulo",
    "Europe/Berlin",
]

EXPRESSIONS = [
    "@hourly",
    "@daily",
    "@weekly",
    "@monthly",
    "@yearly",
    "@midnight",
    "0 * * * *",
    "30 * * * *",
    "*/15 * * * *",
    "*/7 * * * *",
    "15,45 * * * *",
    "0 0 * * *",
    "0 1 * * *",
    "30 1 * * *",
    "0 2 * * *",
    "30 2 * * *",
    "45 2 * * *",
    "0 3 * * *",
    "15 2,3 * * *",
    "0 */2 * * *",
    "0 1-3 * * *",
    "*/30 1-3 * * *",
    "0 0 * * 0",
    "0 3 * * 1-5",
    "0 0 1 * *",
    "0 0 L * *",
    "0 2 * * L0",
    "0 2 * * 0#1",
    "0 0 1 * 1",
    "0 0 * * * 30",
    "*/20 * * * * *",
    "0 2 * * * 15",
    "59 23 * * *",
    "0 23 * * *",
    "*/5 * * * *",
    "0,30 2 * * *",
    "50 2 * * *",
    "45 3 * * *",
    "15 3 * * *",
    "0 0-3 * * *",
    "30 0 * * 6",
    "0 *,3 * * *",
    "0 0 L * 1",
    "30 2 * 3,10 0",
]

AIRFLOW_SIDE = r"""
import json, sys, zoneinfo
zoneinfo.reset_tzpath(to=[])  # the pinned tzdata package only, as explorer.engine.tz does
import pendulum
from airflow.timetables.trigger import CronTriggerTimetable

tables = {}
out = []
for expr, zone, op, instant in json.load(sys.stdin):
    key = (expr, zone)
    if key not in tables:
        tables[key] = CronTriggerTimetable(expr, timezone=zone)
    table = tables[key]
    current = pendulum.parse(instant).in_timezone("UTC")
    method = {"next": table._get_next, "prev": table._get_prev,
              "align_next": table._align_to_next, "align_prev": table._align_to_prev}[op]
    try:
        value = method(current)
        out.append(value.in_timezone("UTC").isoformat())
    except Exception as exc:
        out.append("error: " + type(exc).__name__)
json.dump(out, sys.stdout)
"""


def transitions(zone_name: str) -> list[datetime]:
    """UTC instants (to the minute) at which the zone's offset changes, 2018-2026."""
    zone = get_zone(zone_name)
    found: list[datetime] = []
    step = timedelta(hours=1)
    t = datetime(2018, 1, 1, tzinfo=UTC)
    offset = t.astimezone(zone).utcoffset()
    while t < datetime(2027, 1, 1, tzinfo=UTC):
        nxt = t + step
        new = nxt.astimezone(zone).utcoffset()
        if new != offset:
            lo = t  # bisect to the minute
            hi = nxt
            while hi - lo > timedelta(minutes=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(second=0, microsecond=0)
                if mid.astimezone(zone).utcoffset() == offset:
                    lo = mid
                else:
                    hi = mid
            found.append(hi)
            offset = new
        t = nxt
    return found


def make_cases(n: int, rnd: random.Random) -> list[tuple[str, str, str, str]]:
    per_zone = {zone: transitions(zone) for zone in ZONES}
    cases = []
    for _ in range(n):
        expr = rnd.choice(EXPRESSIONS)
        zone = rnd.choice(ZONES)
        marks = per_zone[zone]
        where = rnd.random()
        if marks and where < 0.5:  # within the hours around a transition
            instant = rnd.choice(marks) + timedelta(minutes=rnd.randint(-4 * 60, 4 * 60))
        elif marks and where < 0.85:  # within the days around one
            instant = rnd.choice(marks) + timedelta(minutes=rnd.randint(-36 * 60, 36 * 60))
        else:
            instant = datetime(2018, 1, 1, tzinfo=UTC) + timedelta(
                minutes=rnd.randint(0, 9 * 365 * 24 * 60)
            )
        shape = rnd.random()
        if shape < 0.15:
            instant += timedelta(seconds=rnd.randint(0, 59))
        elif shape < 0.25:
            instant += timedelta(seconds=rnd.randint(0, 59), microseconds=rnd.randint(0, 999999))
        elif shape < 0.45:
            # on a tick (in local time) or a wall-clock quarter hour
            local = instant.astimezone(get_zone(zone))
            instant = local.replace(minute=rnd.choice([0, 15, 30, 45]), second=0).astimezone(UTC)
        op = rnd.choice(["next", "prev", "align_next", "align_prev"])
        cases.append((expr, zone, op, instant.isoformat()))
    return cases


def ours(case: tuple[str, str, str, str], crons: dict[tuple[str, str], ZonedCron]) -> str:
    expr, zone, op, instant = case
    key = (expr, zone)
    if key not in crons:
        crons[key] = ZonedCron(expr, get_zone(zone))
    cron = crons[key]
    current = datetime.fromisoformat(instant).astimezone(UTC)
    method = {
        "next": cron.next,
        "prev": cron.prev,
        "align_next": cron.align_next,
        "align_prev": cron.align_prev,
    }[op]
    try:
        return method(current).astimezone(UTC).isoformat()
    except Exception as exc:
        return "error: " + type(exc).__name__


def airflow(cases: list[tuple[str, str, str, str]], python: str) -> list[str]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, AIRFLOW_HOME=home, AIRFLOW__CORE__LOAD_EXAMPLES="False")
        done = subprocess.run(
            [python, "-c", AIRFLOW_SIDE],
            input=json.dumps(cases),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    answers: list[str] = json.loads(done.stdout)
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20260)
    parser.add_argument("--airflow-python", default="/tmp/airflow-venv/bin/python")
    args = parser.parse_args()

    rnd = random.Random(args.seed)
    cases = make_cases(args.n, rnd)
    crons: dict[tuple[str, str], ZonedCron] = {}
    mine = [ours(case, crons) for case in cases]
    theirs = airflow(cases, args.airflow_python)

    mismatches = [(c, a, b) for c, a, b in zip(cases, mine, theirs, strict=True) if a != b]
    print(f"cases: {len(cases)}  mismatches: {len(mismatches)}")
    for (expr, zone, op, instant), a, b in mismatches[:30]:
        print(f"  {op:10} {expr!r:18} {zone:20} {instant}  ours={a}  airflow={b}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
