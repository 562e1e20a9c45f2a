"""A whole scheduler simulation at scale: N generated DAGs for D simulated days.

Usage::

    python benchmarks/bench_scale.py --dags N --days D [--seed S] [--sample K]
                                     [--airflow-python PATH] [--profile]

The scenario is generated from ``--seed`` (same seed, same scenario): 10% hourly
DAGs, 60% daily, the rest split between weekly, monthly,
MultipleCronTriggerTimetable (two crons) and CronTriggerTimetable with an
``interval``; zones drawn from UTC, America/New_York, Europe/London,
Asia/Kolkata and Australia/Sydney; cron strings resolved as Airflow does
(CronTriggerTimetable) for 70% of the single-cron DAGs, CronDataIntervalTimetable
for the others; start dates 1-60 days (and some hours) before the clock start
(2024-03-01 UTC, so DST changes fall inside the simulated span); catchup True
for about 10% of the DAGs; 1-3 tasks of 1-30 minutes each. DagSpecs are built
directly (``timetable_from_schedule`` / ``timetable_from_spec``) and the
simulation runs headless with ``loop_interval`` 1 s and ``parse_interval`` 30 s
(``Simulation(...).advance_to(start + D days)``).

Figures:

* ``runs``: runs created by the simulation;
* ``wall_s``: wall seconds of building the Simulation and ``advance_to``
  (generating the scenario is reported apart as ``generate_s``);
* ``peak_rss_mb``: ``ru_maxrss`` of this process (the Airflow subprocess is not
  counted), in MB;
* ``us_per_run``: ``wall_s`` / ``runs``, in microseconds;
* ``record_sha256``: SHA-256 of the runs of the record (each run's
  ``run_row`` as canonical JSON, in creation order), so two versions of the
  engine can be compared on the same generated deployment: equal digests,
  equal runs.
* with ``--airflow-python``, ``timetable_ratio``: Airflow 3.3.2's own
  timetables against ours on the same chains of ``next_dagrun_info`` calls
  (like for like). The chains come from a deterministic sample of ``--sample``
  DAGs (evenly spaced in the generated list): the first call at the clock
  start, then one after each scheduled run, with the wall clock frozen at that
  run's ``created_at``, computed by Airflow in a subprocess
  (``benchmarks/_airflow_side.py``, imports not timed); both sides are timed
  the same way (best of the same number of passes). The earlier
  ``ratio_vs_airflow`` divided Airflow's cost of one timetable call by our
  cost of a whole simulated run, which is different work; it is gone.

The same chains are compared run by run between our timetables and Airflow's
(``identical``), and against the runs the simulation actually created
(``sim_consistent``: an inconsistency there would come from the scheduler
model, not the timetables).

Automatic rewind checkpoints (``Simulation(checkpoint_every=...)``, a deep copy
of the whole state every K processed instants, kept for the UI's rewind) are
turned off by default: a headless run never rewinds, and each copy costs time
and memory proportional to the runs created so far. ``--checkpoint-every K``
turns them on (the engine's own default is 2000).

The run log moves ended runs to an anonymous scratch file ``--spill-rows`` at a
time, as ``explorer simulate`` does (adr/0006), and with them the old entries of
what else grows with the runs (the asset events, each DAG's run ids, logical
dates and asset run_afters), so memory does not grow with the runs;
``--spill-rows 0`` keeps them all in memory (the record is the same). The file
takes about 100 bytes a run on the temporary directory's disk (a year of 10,000
DAGs: ~18 GB). ``--progress H`` advances H simulated hours at a time and prints
a ``progress:`` line to stderr after each (wall and CPU seconds, runs, events,
current and peak RSS, rows spilled, blocks and chunks read back), so a run too
long to watch (a year of 10,000 DAGs takes hours) can be left in the background
and read later; past two simulated days it defaults to one line a simulated day.
The sample chains (``--airflow-python``) and the run counts are read in one pass
over the run log's columns, not DAG by DAG.

``--profile`` runs the simulation under cProfile and prints the top 25
functions by own time and by cumulative time (the wall time then includes the
profiler's overhead).

The last line is exactly ``runs=<n> wall_s=<s> peak_rss_mb=<mb> us_per_run=<us>
record_sha256=<hex>``. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import inspect
import io
import json
import pstats
import random
import resource
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._airflow_side import Case, Result, decode_args, fmt
from benchmarks._interpreter import describe
from benchmarks.bench_timetables import Mismatch, airflow_chains, compare, our_chain, run_row
from explorer.engine import runlog as _runlog
from explorer.engine.assets.condition import AllOf, AnyOf, AssetKey, AssetNode, Condition
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.partitions import build_mapper
from explorer.engine.perf import bulk_allocation
from explorer.engine.record import RUN_FIELDS
from explorer.engine.run_table import run_rows
from explorer.engine.simulation import SchedulerConfig, Simulation, SimulationLimitError
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    CronPartitionTimetable,
    Timetable,
    timetable_from_schedule,
    timetable_from_spec,
)
from explorer.engine.timetables.partitioned import PartitionedAssetTimetable
from explorer.engine.types import DagRunInfo

CLOCK_START = datetime(2024, 3, 1, tzinfo=UTC)

#: The engine stops past this many runs (``Simulation.run_limit``). A year of
#: 10,000 DAGs creates about 128 M, so a lower bound (50 M until stop 17) ended
#: ``--dags 10000 --days 365`` with SimulationLimitError on day 141.
RUN_LIMIT = 500_000_000
#: As ``explorer simulate`` spills (0 on revisions without a spilling run log).
SPILL_ROWS: int = getattr(_runlog, "SPILL_ROWS", 0)
ZONES = ("UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Sydney")
OTHER_KINDS = ("weekly", "monthly", "multi", "interval")
HOUR = 3600


@dataclass(frozen=True, slots=True)
class GeneratedDag:
    """A DagSpec and the same DAG as a case for the Airflow side (without its clocks)."""

    spec: DagSpec
    kind: str
    case: Case


def _kinds(n: int, rng: random.Random) -> list[str]:
    hourly = round(n * 0.10)
    daily = round(n * 0.60)
    kinds = ["hourly"] * hourly + ["daily"] * daily
    kinds += [OTHER_KINDS[i % len(OTHER_KINDS)] for i in range(n - hourly - daily)]
    rng.shuffle(kinds)
    return kinds


def _schedule(kind: str, zone: str, rng: random.Random) -> tuple[Timetable, str, dict[str, Any]]:
    """The timetable, and its class name and arguments as a case spells them."""
    minute, hour = rng.randrange(60), rng.randrange(24)
    if kind in ("hourly", "daily", "weekly", "monthly"):
        cron = {
            "hourly": f"{minute} * * * *",
            "daily": f"{minute} {hour} * * *",
            "weekly": f"{minute} {hour} * * {rng.randrange(7)}",
            "monthly": f"{minute} {hour} {rng.randint(1, 28)} * *",
        }[kind]
        if rng.random() < 0.3:
            name = "CronDataIntervalTimetable"
            table = timetable_from_spec(name, {"cron": cron}, dag_timezone=zone)
        else:  # a plain schedule string: CronTriggerTimetable in the DAG's zone
            name = "CronTriggerTimetable"
            table = timetable_from_schedule(cron, dag_timezone=zone)
        return table, name, {"cron": cron, "timezone": zone}
    if kind == "multi":
        crons = [f"{minute} {hour} * * *", f"{rng.randrange(60)} {rng.randrange(24)} * * 1-5"]
        name = "MultipleCronTriggerTimetable"
        table = timetable_from_spec(name, {"crons": crons}, dag_timezone=zone)
        return table, name, {"crons": crons, "timezone": zone}
    interval_s = rng.choice((HOUR, 6 * HOUR, 24 * HOUR))
    cron = f"{minute} {hour} * * *"
    name = "CronTriggerTimetable"
    args: dict[str, Any] = {"cron": cron, "interval": interval_s}
    table = timetable_from_spec(name, decode_args(args), dag_timezone=zone)
    return table, name, {**args, "timezone": zone}


ASSETS = 200


def _asset(i: int) -> AssetKey:
    return AssetKey(f"asset_{i:03d}", f"s3://lake/asset_{i:03d}")


def _condition(rng: random.Random) -> Condition:
    """1-4 of the 200 assets, combined with AND, OR or one nested level of each."""
    leaves: list[Condition] = [
        AssetNode(_asset(i)) for i in rng.sample(range(ASSETS), rng.randint(1, 4))
    ]
    if len(leaves) == 1:
        return leaves[0]
    shape = rng.random()
    if shape < 0.5:
        return AllOf(tuple(leaves))
    if shape < 0.8:
        return AnyOf(tuple(leaves))
    return (
        AllOf((AnyOf(tuple(leaves[:2])), *leaves[2:])) if len(leaves) > 2 else AnyOf(tuple(leaves))
    )


def generate(n: int, seed: int, *, assets: bool = True, rollups: int = 0) -> list[GeneratedDag]:
    """N DAGs, the same for the same ``seed``.

    With ``assets`` (the default) 30% of them are asset consumers of 1-4 of 200
    assets through AND/OR conditions, and every time-driven DAG's first task
    writes one of those assets. ``rollups`` adds that many pairs of an hourly
    CronPartitionTimetable producer and a daily RollupMapper(StartOfDayMapper,
    DayWindow) consumer (the rollup-heavy case).
    """
    rng = random.Random(seed)
    out: list[GeneratedDag] = []
    consumers = set(rng.sample(range(n), round(n * 0.3))) if assets else set()
    for index, kind in enumerate(_kinds(n, rng)):
        if index in consumers:
            out.append(_consumer(index, rng))
            continue
        zone = rng.choice(ZONES)
        table, name, args = _schedule(kind, zone, rng)
        start = CLOCK_START - timedelta(days=rng.randint(1, 60), hours=rng.randrange(24))
        catchup = rng.random() < 0.1
        tasks = tuple(
            TaskSpec(
                f"t{k}",
                duration=timedelta(minutes=rng.randint(1, 30)),
                outlets=(_asset(rng.randrange(ASSETS)),) if assets and k == 0 else (),
            )
            for k in range(rng.randint(1, 3))
        )
        dag_id = f"dag_{index:05d}_{kind}"
        spec = DagSpec(
            dag_id=dag_id,
            timetable=table,
            start_date=start,
            timezone=zone,
            catchup=catchup,
            tasks=tasks,
        )
        case = Case(
            id=dag_id,
            timetable=name,
            args=args,
            start_date=fmt(start),
            end_date=None,
            catchup=catchup,
            now=None,
            max_runs=0,
        )
        out.append(GeneratedDag(spec, kind, case))
    for pair in range(rollups):
        out.extend(_rollup_pair(pair))
    return out


def _consumer(index: int, rng: random.Random) -> GeneratedDag:
    dag_id = f"dag_{index:05d}_asset"
    spec = DagSpec(
        dag_id=dag_id,
        timetable=AssetTriggeredTimetable(_condition(rng)),
        start_date=CLOCK_START - timedelta(days=1),
        max_active_runs=rng.choice((1, 16)),
        tasks=(TaskSpec("t0", duration=timedelta(minutes=rng.randint(1, 30))),),
    )
    return GeneratedDag(spec, "asset", _no_case(dag_id))


def _rollup_pair(pair: int) -> list[GeneratedDag]:
    key = AssetKey(f"hourly_{pair:03d}", f"s3://lake/hourly_{pair:03d}")
    producer = DagSpec(
        dag_id=f"rollup_{pair:03d}_producer",
        timetable=CronPartitionTimetable("0 * * * *", timezone="UTC"),
        start_date=CLOCK_START,
        tasks=(TaskSpec("write", duration=timedelta(minutes=5), outlets=(key,)),),
    )
    mapper = build_mapper(
        {
            "mapper": "RollupMapper",
            "args": {
                "upstream_mapper": {"mapper": "StartOfDayMapper"},
                "window": {"window": "DayWindow"},
            },
        }
    )
    consumer = DagSpec(
        dag_id=f"rollup_{pair:03d}_daily",
        timetable=PartitionedAssetTimetable(assets=AssetNode(key), default_partition_mapper=mapper),
        start_date=CLOCK_START,
        tasks=(TaskSpec("summarise", duration=timedelta(minutes=10)),),
    )
    return [
        GeneratedDag(producer, "rollup_producer", _no_case(producer.dag_id)),
        GeneratedDag(consumer, "rollup_consumer", _no_case(consumer.dag_id)),
    ]


def _no_case(dag_id: str) -> Case:
    """Asset-driven and partitioned DAGs are not timed against Airflow's timetables."""
    return Case(
        id=dag_id,
        timetable="",
        args={},
        start_date=None,
        end_date=None,
        catchup=False,
        now=None,
        max_runs=0,
    )


def simulate(
    dags: list[GeneratedDag],
    horizon: timedelta,
    *,
    profile: bool,
    checkpoint_every: int = 0,
    progress: timedelta | None = None,
    spill_rows: int = 0,
    run_limit: int = RUN_LIMIT,
) -> tuple[Simulation, float]:
    """Run the simulation; ``checkpoint_every`` 0 turns automatic checkpoints off.

    With ``progress`` the clock is advanced that much at a time (``advance_to`` is
    incremental: the record is the same) and a line per step tells how far it got,
    so a run too long to finish still gives its rate and its memory growth.
    """
    config = SchedulerConfig(
        loop_interval=timedelta(seconds=1), parse_interval=timedelta(seconds=30)
    )
    extra: dict[str, Any] = {}
    if "checkpoint_every" in inspect.signature(Simulation).parameters:
        extra["checkpoint_every"] = checkpoint_every
    if spill_rows and "spill_rows" in inspect.signature(Simulation).parameters:
        extra["spill_rows"] = spill_rows
    profiler = cProfile.Profile() if profile else None
    begin = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    sim = Simulation(
        [d.spec for d in dags], start=CLOCK_START, config=config, run_limit=run_limit, **extra
    )
    with bulk_allocation():  # as `explorer simulate` runs it
        if progress:
            at = CLOCK_START
            while at < CLOCK_START + horizon:
                at = min(at + progress, CLOCK_START + horizon)
                sim.advance_to(at)
                _progress_line(sim, at, time.perf_counter() - begin)
        sim.advance_to(CLOCK_START + horizon)
    if profiler is not None:
        profiler.disable()
    wall = time.perf_counter() - begin
    if profiler is not None:
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(25)
            print(f"--- profile: top 25 by {order} ---")
            print("\n".join(line for line in out.getvalue().splitlines()[4:] if line.strip()))
    return sim, wall


def _progress_line(sim: Simulation, at: datetime, wall: float) -> None:
    days = (at - CLOCK_START) / timedelta(days=1)
    rss_mb = _current_rss_mb()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime  # on a shared machine, steadier than wall
    pool = getattr(sim.runs, "pool", None)
    print(
        f"progress: sim_days={days:.3f} wall_s={wall:.1f} cpu_s={cpu:.1f} runs={len(sim.runs)} "
        f"events={len(sim.state.assets.events)} "
        f"sim_days_per_min={days * 60 / wall if wall else 0:.4f} rss_mb={rss_mb:.1f} "
        f"peak_rss_mb={usage.ru_maxrss / 1024:.1f} "
        f"spilled_rows={getattr(sim.runs, 'spilled_rows', 0)} "
        f"blocks_read={getattr(sim.runs, 'blocks_read', 0)} "
        f"chunks_read={getattr(pool, 'chunks_read', 0)}",
        file=sys.stderr,
        flush=True,
    )


def _current_rss_mb() -> float:
    """Resident set size now (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        fields = Path("/proc/self/statm").read_text().split()
        return int(fields[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: Instants of the sampled DAGs' scheduled runs read by :func:`scheduled_instants`.
SAMPLED = ("created_at", "logical_date", "data_interval_start", "data_interval_end", "run_after")


def scheduled_instants(
    sim: Simulation, cases: list[Case]
) -> dict[str, list[tuple[datetime | None, ...]]]:
    """:data:`SAMPLED` of every scheduled run of the sampled DAGs, by dag_id: one pass
    over the run log for all of them (a spilled log is read once, not once per DAG)."""
    ids = [c["id"] for c in cases]
    by_dag = getattr(sim.runs, "instants_by_dag", None)
    if by_dag is not None:
        found: dict[str, list[tuple[datetime | None, ...]]] = by_dag(SAMPLED, "scheduled", ids)
        return found
    return {  # revisions before the one-pass reader
        dag_id: [
            (
                r.created_at,
                r.logical_date,
                r.data_interval.start if r.data_interval else None,
                r.data_interval.end if r.data_interval else None,
                r.run_after,
            )
            for r in sim.dags[dag_id].runs
            if r.run_type == "scheduled"
        ]
        for dag_id in ids
    }


def sample_cases(dags: list[GeneratedDag], k: int) -> list[Case]:
    """The ``k`` evenly spaced time-driven DAGs whose chains are compared."""
    timed = [d for d in dags if d.case["timetable"]]
    n = len(timed)
    picked = sorted({i * n // k for i in range(min(k, n))})
    return [timed[i].case for i in picked]


def chain_cases(
    cases: list[Case], scheduled: dict[str, list[tuple[datetime | None, ...]]]
) -> list[Case]:
    """The scheduler's chain of calls for each sampled DAG (see the docstring)."""
    out: list[Case] = []
    for case in cases:
        created = (row[0] for row in scheduled[case["id"]])
        clocks = [fmt(CLOCK_START) or "", *(fmt(at) or "" for at in created)]
        fields: dict[str, Any] = {**case, "now_per_call": clocks, "max_runs": len(clocks)}
        out.append(Case(**fields))  # type: ignore[typeddict-item]
    return out


#: Passes per chain on both sides of the timetable comparison (best kept).
TIMING_PASSES = 3


def record_sha256(sim: Simulation) -> str:
    """A digest of every run of the record, in creation order (compare engine versions):
    each run's ``record.run_row`` as canonical JSON. The rows are read from the run log's
    packed columns (``run_rows``: the same values, without building the packed runs)."""
    digest = hashlib.sha256()
    for rows in run_rows(sim.runs):
        for row in rows:
            fields = dict(zip(RUN_FIELDS, row, strict=True))
            digest.update(json.dumps(fields, sort_keys=True, default=str).encode())
            digest.update(b"\n")
    return digest.hexdigest()


def sim_mismatch(
    case: Case,
    chain: Result,
    sim: Simulation,
    scheduled: dict[str, list[tuple[datetime | None, ...]]],
) -> Mismatch | None:
    """The simulation's scheduled runs (and pending next run) against the chain."""
    state = sim.dags[case["id"]]
    expected: list[list[str | None]] = [
        [fmt(at) for at in row[1:]] for row in scheduled[case["id"]]
    ]
    pending: DagRunInfo | None = state.next_run
    if pending is not None:
        expected.append(run_row(pending))
    got = chain["runs"]
    for index, (a, b) in enumerate(zip(got, expected, strict=False)):
        if a != b:
            return Mismatch(case["id"], f"call #{index}: chain={a} simulation={b}")
    if len(got) != len(expected):
        return Mismatch(
            case["id"], f"{len(got)} chain answers vs {len(expected)} in the simulation"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dags", type=int, default=100, help="number of DAGs (N)")
    parser.add_argument("--days", type=int, default=30, help="simulated days (D)")
    parser.add_argument(
        "--hours", type=float, help="simulated hours instead of --days (profiling a big N)"
    )
    parser.add_argument(
        "--progress",
        type=float,
        default=None,
        metavar="H",
        help="advance H simulated hours at a time and print a progress line (wall and CPU "
        "seconds, runs, RSS) to stderr after each (default: 24 past two simulated days, "
        "else none; 0: none)",
    )
    parser.add_argument(
        "--spill-rows",
        type=int,
        default=SPILL_ROWS,
        metavar="N",
        help="the run log moves ended runs to a scratch file N at a time, as "
        f"`explorer simulate` does (default {SPILL_ROWS}; 0: keep every run in memory)",
    )
    parser.add_argument("--seed", type=int, default=20240301)
    parser.add_argument("--sample", type=int, default=20, help="DAGs timed against Airflow")
    parser.add_argument("--airflow-python", help="interpreter of a venv with Airflow 3.3.2")
    parser.add_argument("--profile", action="store_true", help="cProfile the simulation")
    parser.add_argument(
        "--run-limit",
        type=int,
        default=RUN_LIMIT,
        metavar="N",
        help=f"stop with an error past N runs (default {RUN_LIMIT:,}: a year of 10,000 DAGs "
        "creates about 128 M)",
    )
    parser.add_argument(
        "--no-assets", action="store_true", help="time-driven DAGs only (no asset consumers)"
    )
    parser.add_argument(
        "--rollups",
        type=int,
        default=0,
        metavar="K",
        help="add K hourly-keyed producers rolled up daily (the rollup-heavy case)",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=0,
        metavar="K",
        help="automatic rewind checkpoints every K processed instants "
        "(the engine's default is 2000; default here: 0 = off)",
    )
    args = parser.parse_args(argv)

    begin = time.perf_counter()
    dags = generate(args.dags, args.seed, assets=not args.no_assets, rollups=args.rollups)
    generate_s = time.perf_counter() - begin
    kinds: dict[str, int] = {}
    for d in dags:
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
    print(
        f"scenario: {args.dags} DAGs ({', '.join(f'{k}={v}' for k, v in sorted(kinds.items()))}),"
        f" {sum(d.spec.catchup for d in dags)} with catchup, "
        + (f"{args.hours} hours" if args.hours is not None else f"{args.days} days")
        + " from "
        f"{fmt(CLOCK_START)}, seed {args.seed}; generate_s={generate_s:.2f}; checkpoints "
        + (f"every {args.checkpoint_every} instants" if args.checkpoint_every else "off")
    )
    print(describe())  # figures under two interpreters differ (benchmarks/README.md)

    horizon = timedelta(hours=args.hours) if args.hours is not None else timedelta(days=args.days)
    if args.progress is None:  # a long run says how far it got, a day at a time
        args.progress = 24.0 if horizon > timedelta(days=2) else 0.0
    try:
        sim, wall = simulate(
            dags,
            horizon,
            profile=args.profile,
            checkpoint_every=args.checkpoint_every,
            progress=timedelta(hours=args.progress) if args.progress else None,
            spill_rows=args.spill_rows,
            run_limit=args.run_limit,
        )
    except SimulationLimitError as exc:
        print(f"error: {exc} (--run-limit)", file=sys.stderr)
        return 2
    runs = len(sim.runs)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    us_per_run = wall * 1e6 / max(1, runs)
    count = getattr(sim.runs, "count", None)  # from the columns, without building every run
    scheduled = (
        count("scheduled")
        if count is not None
        else sum(1 for r in sim.runs if r.run_type == "scheduled")
    )
    print(
        f"simulation: runs={runs} (scheduled={scheduled}) wall_s={wall:.2f} "
        f"us_per_run={us_per_run:.1f} peak_rss_mb={peak_mb:.1f}"
        + (" (profiled)" if args.profile else "")
    )

    if args.airflow_python:
        sampled = sample_cases(dags, args.sample)
        found = scheduled_instants(sim, sampled)
        cases = chain_cases(sampled, found)
        ours = {c["id"]: our_chain(c, TIMING_PASSES) for c in cases}
        theirs = airflow_chains(args.airflow_python, cases, TIMING_PASSES)
        mismatches = [m for c in cases if (m := compare(ours[c["id"]], theirs[c["id"]]))]
        sim_issues = [m for c in cases if (m := sim_mismatch(c, ours[c["id"]], sim, found))]
        calls = sum(r["calls"] for r in theirs.values())
        af_s = sum(r["elapsed_s"] for r in theirs.values())
        our_s = sum(r["elapsed_s"] for r in ours.values())
        our_calls = sum(r["calls"] for r in ours.values())
        af_per_call = af_s / max(1, calls)
        print(
            f"sample: {len(cases)} DAGs, {calls} next_dagrun_info calls; Airflow "
            f"{af_s:.2f} s ({af_per_call * 1e6:.1f} us/call), our timetables {our_s:.3f} s "
            f"({our_s * 1e6 / max(1, our_calls):.1f} us/call)"
        )
        print(
            f"timetable_ratio={af_s / our_s if our_s else float('inf'):.1f} "
            f"identical={'false' if mismatches else 'true'} "
            f"sim_consistent={'false' if sim_issues else 'true'}"
        )
        for m in mismatches:
            print(f"MISMATCH {m.case_id}: {m.detail}")
        for m in sim_issues:
            print(f"SIM-INCONSISTENT {m.case_id}: {m.detail}")
    print(
        f"runs={runs} wall_s={wall:.2f} peak_rss_mb={peak_mb:.1f} "
        f"us_per_run={us_per_run:.1f} record_sha256={record_sha256(sim)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
