"""Write a generated deployment of N DAGs as a scenario file (issue 14's 1,000-DAG figure).

Usage::

    python benchmarks/gen_deployment.py --dags 1000 --days 30 -o deployment.json [--seed S]

Unlike ``bench_scale.py``, which builds engine inputs directly, this writes a
scenario file the CLI reads (``explorer simulate deployment.json --format csv``),
so a benchmark times the whole headless path a user runs and two versions of the
program can be compared on the same file. The mix, drawn from ``--seed``:

* time-driven DAGs of every kind: cron strings (CronTriggerTimetable under 3.3's
  defaults), ``CronDataIntervalTimetable``, ``CronTriggerTimetable`` with an
  ``interval``, ``MultipleCronTriggerTimetable``, ``DeltaDataIntervalTimetable``,
  ``DeltaTriggerTimetable``, presets (``@hourly``, ``@daily``, ``@weekly``) and
  ``@once``, in six zones (UTC, New York, Los Angeles, London, Kolkata, Sydney);
  each writes one asset;
* 25% asset consumers: conditions over one to three of those assets (all, any,
  or one asset), so events coalesce and some consumers wait on slow producers;
* hourly partitioned producers (``CronPartitionTimetable``) each with a daily
  rollup consumer (``RollupMapper(StartOfDayMapper, DayWindow)``), one pair per
  50 DAGs;
* catchup on for about 10% of the time-driven DAGs; start dates 1-20 days before
  the clock start (2024-03-01 UTC, so the March DST changes fall in the span).

The file is written as format 2 and is valid (``explorer validate``).
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ZONES = (
    "UTC",
    "America/New_York",
    "America/Los_Angeles",
    "Europe/London",
    "Asia/Kolkata",
    "Australia/Sydney",
)
CLOCK_START = datetime(2024, 3, 1, tzinfo=UTC)


def _iso(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def _cron(rng: random.Random) -> str:
    minute = rng.randrange(60)
    kind = rng.random()
    if kind < 0.15:
        return f"{minute} * * * *"
    if kind < 0.75:
        return f"{minute} {rng.randrange(24)} * * *"
    if kind < 0.9:
        return f"{minute} {rng.randrange(24)} * * {rng.randrange(7)}"
    return f"{minute} {rng.randrange(24)} {rng.randrange(1, 29)} * *"


def _time_schedule(rng: random.Random, zone: str) -> Any:
    kind = rng.random()
    if kind < 0.45:
        return _cron(rng)
    if kind < 0.60:
        return {
            "timetable": "CronDataIntervalTimetable",
            "args": {"cron": _cron(rng), "timezone": zone},
        }
    if kind < 0.68:
        return {
            "timetable": "CronTriggerTimetable",
            "args": {"cron": _cron(rng), "timezone": zone, "interval": "PT1H"},
        }
    if kind < 0.74:
        crons = [_cron(rng), _cron(rng)]
        return {
            "timetable": "MultipleCronTriggerTimetable",
            "args": {"crons": crons, "timezone": zone},
        }
    if kind < 0.80:
        hours = rng.choice((1, 2, 6, 12, 24))
        return {"timetable": "DeltaDataIntervalTimetable", "args": {"delta": f"PT{hours}H"}}
    if kind < 0.85:
        hours = rng.choice((3, 8, 24))
        return {"timetable": "DeltaTriggerTimetable", "args": {"delta": f"PT{hours}H"}}
    if kind < 0.99:
        return rng.choice(("@hourly", "@daily", "@daily", "@weekly"))
    return "@once"


def _tasks(rng: random.Random, outlet: str | None) -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = []
    for index in range(rng.randint(1, 3)):
        task: dict[str, Any] = {
            "task_id": f"t{index}",
            "duration": f"PT{rng.randint(1, 30)}M",
        }
        tasks.append(task)
    if outlet is not None:
        tasks[-1]["outlets"] = [{"asset": outlet}]
    return tasks


def _consumer_schedule(rng: random.Random, produced: list[str]) -> Any:
    picked = rng.sample(produced, k=min(len(produced), rng.randint(1, 3)))
    refs = [{"asset": name} for name in picked]
    if len(refs) == 1:
        return refs[0]
    return {"all": refs} if rng.random() < 0.7 else {"any": refs}


def generate(dags: int, days: int, seed: int) -> dict[str, Any]:
    """The scenario as a JSON object; same arguments, same file."""
    rng = random.Random(seed)
    pairs = max(1, dags // 50)
    consumers = dags // 4
    time_driven = max(1, dags - consumers - 2 * pairs)
    assets: list[dict[str, str]] = []
    scenario_dags: list[dict[str, Any]] = []
    produced: list[str] = []
    for index in range(time_driven):
        zone = rng.choice(ZONES)
        asset = f"table_{index:05d}"
        assets.append({"name": asset, "uri": f"s3://warehouse/{asset}"})
        produced.append(asset)
        start = CLOCK_START - timedelta(days=rng.randint(1, 20), hours=rng.randrange(24))
        dag: dict[str, Any] = {
            "dag_id": f"producer_{index:05d}",
            "schedule": _time_schedule(rng, zone),
            "start_date": _iso(start),
            "timezone": zone,
            "catchup": rng.random() < 0.1,
            "tasks": _tasks(rng, asset),
        }
        scenario_dags.append(dag)
    for index in range(pairs):
        asset = f"hourly_{index:03d}"
        assets.append({"name": asset, "uri": f"s3://events/{asset}"})
        scenario_dags.append(
            {
                "dag_id": f"partitioned_{index:03d}",
                "schedule": {
                    "timetable": "CronPartitionTimetable",
                    "args": {"cron": f"{rng.randrange(60)} * * * *", "timezone": rng.choice(ZONES)},
                },
                "start_date": _iso(CLOCK_START),
                "tasks": _tasks(rng, asset),
            }
        )
        scenario_dags.append(
            {
                "dag_id": f"rollup_{index:03d}",
                "schedule": {
                    "timetable": "PartitionedAssetTimetable",
                    "args": {
                        "assets": {"asset": asset},
                        "default_partition_mapper": {
                            "mapper": "RollupMapper",
                            "args": {
                                "upstream_mapper": {"mapper": "StartOfDayMapper"},
                                "window": {"window": "DayWindow"},
                            },
                        },
                    },
                },
                "tasks": _tasks(rng, None),
            }
        )
    for index in range(consumers):
        scenario_dags.append(
            {
                "dag_id": f"consumer_{index:05d}",
                "schedule": _consumer_schedule(rng, produced),
                "tasks": _tasks(rng, None),
            }
        )
    return {
        "format": "schedule-explorer/2",
        "name": f"Generated deployment: {len(scenario_dags)} DAGs, {days} days (seed {seed})",
        "description": "Written by benchmarks/gen_deployment.py for the headless speed figures.",
        "clock": {"start": _iso(CLOCK_START), "until": _iso(CLOCK_START + timedelta(days=days))},
        "scheduler": {"loop_interval": "PT1S", "parse_interval": "PT30S"},
        "assets": assets,
        "dags": scenario_dags,
        "script": [],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dags", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20240301)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    scenario = generate(args.dags, args.days, args.seed)
    args.output.write_text(json.dumps(scenario, indent=1) + "\n", encoding="utf-8")
    print(f"dags={len(scenario['dags'])} assets={len(scenario['assets'])} file={args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
