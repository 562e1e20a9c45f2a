"""``explorer check``, ``explorer diff`` and ``explorer report``: answers for CI and reviews.

Kept out of :mod:`explorer.cli` so that file stays a list of small commands; the
parser there calls :func:`add_parsers`. Exit code 5 (:data:`EXIT_DIFFERENT`) means
"an expectation failed" for ``check`` and "the behaviour changed" for ``diff``, so a
pipeline can tell it from 1 (invalid scenario) and 2 (usage).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from explorer.analysis.difftext import write_diff
from explorer.analysis.junit import junit_xml
from explorer.analysis.outcome import Outcome, outcome_of
from explorer.cli import DEFAULT_RUN_LIMIT, CliError, _count, _instant, _simulate
from explorer.engine.diff import BehaviourDiff, diff_behaviour
from explorer.engine.perf import bulk_allocation
from explorer.engine.record import iso
from explorer.engine.simulation import Simulation
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.build import EngineInputs
from explorer.scenario.model import Scenario

__all__ = [
    "EXIT_DIFFERENT",
    "Simulated",
    "add_parsers",
    "simulate_file",
    "simulate_scenario",
    "write_report",
]

#: ``check``: an expectation failed; ``diff``: the behaviour differs.
EXIT_DIFFERENT = 5


@dataclass(frozen=True, slots=True)
class Simulated:
    path: str
    scenario: Scenario
    inputs: EngineInputs
    sim: Simulation
    until: datetime
    outcome: Outcome


def expectations_of(scenario: Scenario) -> tuple[Any, ...]:
    return tuple(getattr(scenario, "expectations", ()) or ())


def simulate_file(
    path: str, until: datetime | None, max_runs: int = DEFAULT_RUN_LIMIT
) -> Simulated:
    if not Path(path).exists():
        raise CliError(f"{path}: no such file")
    return simulate_scenario(load_scenario(path), path, until, max_runs)


def simulate_scenario(
    scenario: Scenario, source: str, until: datetime | None, max_runs: int = DEFAULT_RUN_LIMIT
) -> Simulated:
    """Simulate ``scenario`` to ``until`` (default its ``clock.until``) and judge it."""
    inputs = build_engine_inputs(scenario, source=source)
    sim, end = _simulate(inputs, source, until, max_runs)
    outcome = outcome_of(
        sim,
        start=inputs.start,
        until=end,
        expectations=expectations_of(scenario),
        silence_factor=inputs.silence_factor,
    )
    return Simulated(source, scenario, inputs, sim, end, outcome)


def _until(args: argparse.Namespace) -> datetime | None:
    return _instant(args.until, "--until") if args.until else None


# ------------------------------------------------------------------------------- check
def _write_results(done: Simulated, out: TextIO) -> None:
    results = done.outcome.results
    if not results:
        out.write(f"{done.path}: no expectations to check\n")
        return
    for result in results:
        mark = "ok  " if result.ok else "FAIL"
        out.write(f"{mark} {result.name}: {result.description}\n")
        if result.error:
            out.write(f"       {result.error}\n")
        for violation in result.violations[:50]:
            out.write(f"       - {violation.message}\n")
        if len(result.violations) > 50:
            out.write(f"       ... and {len(result.violations) - 50} more\n")
    failed = len(done.outcome.failed)
    out.write(
        f"\n{len(results) - failed} of {len(results)} expectations hold "
        f"(simulated until {iso(done.until)})\n"
    )


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    done = simulate_file(args.scenario, _until(args), args.max_runs)
    _write_results(done, out)
    if args.junit:
        suite = Path(args.scenario).stem
        Path(args.junit).write_bytes(
            junit_xml(done.outcome.results, suite=suite, until=iso(done.until) or "")
        )
    return EXIT_DIFFERENT if done.outcome.failed else 0


# -------------------------------------------------------------------------------- diff
def behaviour_diff(before: Simulated, after: Simulated) -> BehaviourDiff:
    return diff_behaviour(
        before.sim.runs,
        after.sim.runs,
        alerts_before=before.outcome.alerts,
        alerts_after=after.outcome.alerts,
        expectations_before=before.outcome.verdicts(),
        expectations_after=after.outcome.verdicts(),
        dags_before=before.sim.dags,
        dags_after=after.sim.dags,
    )


def cmd_diff(args: argparse.Namespace, out: TextIO) -> int:
    until = _until(args)
    if until is None:
        # The same clock for both: the later of the two horizons (ADR 0009).
        ends = []
        for path in (args.before, args.after):
            if not Path(path).exists():
                raise CliError(f"{path}: no such file")
            inputs = build_engine_inputs(load_scenario(path), source=path)
            if inputs.until is None:
                raise CliError(f"{path}: the scenario has no clock.until; pass --until", 2)
            ends.append(inputs.until)
        until = max(ends)
    with bulk_allocation():
        before = simulate_file(args.before, until, args.max_runs)
        after = simulate_file(args.after, until, args.max_runs)
    diff = behaviour_diff(before, after)
    lost = _lost_overrides(before.sim, after.sim)
    if args.format == "json":
        json.dump(
            {
                "before": args.before,
                "after": args.after,
                "until": iso(until),
                **diff.to_dict(),
                "warnings": lost,
            },
            out,
            indent=2,
        )
        out.write("\n")
    else:
        zones = {d: s.spec.timezone for d, s in before.sim.dags.items()}
        zones.update({d: s.spec.timezone for d, s in after.sim.dags.items()})
        out.write(f"{args.before} -> {args.after}, simulated until {iso(until)}\n\n")
        write_diff(diff, out, zones)
        for warning in lost:
            out.write(f"warning: {warning}\n")
    return 0 if diff.same else EXIT_DIFFERENT


def _lost_overrides(before: Simulation, after: Simulation) -> list[str]:
    """The script's overrides that matched a run before the change and match none after
    it: the failure a reviewer planned no longer happens (a changed cron hour moved it)."""

    def unmatched(sim: Simulation) -> dict[str, str]:
        return {
            f"{a.run.describe()} {a.task_id}": a.run.describe()
            for a in sim.state.overrides.unmatched()
        }

    gone = unmatched(after)
    was = unmatched(before)
    return [
        f"the override of {what} matches no run after the change (it did before)"
        for key, what in gone.items()
        if key not in was
    ]


# ------------------------------------------------------------------------------ report
def write_report(done: Simulated, target: Path, pictures: dict[str, bytes]) -> Path:
    """Render the review report of ``done`` with ``pictures`` (SVG) to ``target``."""
    from explorer.analysis.report import render_report, report_data
    from explorer.scenario.simulate import make_simulation

    data = report_data(
        title=done.scenario.name,
        description=done.scenario.description or "",
        sim=done.sim,
        make_simulation=lambda: make_simulation(done.inputs),
        start=done.inputs.start,
        until=done.until,
        alerts=done.outcome.alerts,
        expectations=done.outcome.results,
        pictures={k: v.decode("utf-8") for k, v in pictures.items()},
        warnings=[*done.inputs.warnings, *done.sim.warnings],
    )
    target.write_text(render_report(data), encoding="utf-8")
    return target


def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    done = simulate_file(args.scenario, _until(args), args.max_runs)
    # The contract's one exception (section 4): the app's drawing code, offscreen.
    from explorer.ui.pictures import scenario_pictures

    pictures = scenario_pictures(args.scenario, done.until)
    target = write_report(done, Path(args.output), pictures)
    failed = len(done.outcome.failed)
    out.write(
        f"wrote {target} ({len(done.outcome.results)} expectations, {failed} failing; "
        f"{len(done.outcome.alerts)} alerts)\n"
    )
    return 0


# -------------------------------------------------------------------------------- parser
def add_parsers(sub: Any) -> None:
    """Add ``check``, ``diff`` and ``report`` to ``explorer``'s subcommands."""
    chk = sub.add_parser(
        "check",
        help=f"simulate and judge the scenario's expectations (exit {EXIT_DIFFERENT} "
        "when one fails)",
    )
    chk.add_argument("scenario")
    chk.add_argument(
        "--until",
        help="ISO-8601 instant with offset (2024-03-12T06:00Z), or a date alone for midnight UTC "
        "(default: clock.until)",
    )
    chk.add_argument("--junit", metavar="OUT.xml", help="also write the results as JUnit XML")
    chk.add_argument("--max-runs", type=_count(1), default=DEFAULT_RUN_LIMIT)
    chk.set_defaults(func=cmd_check)

    dif = sub.add_parser(
        "diff",
        help=f"what changes for users between two scenarios (exit {EXIT_DIFFERENT} "
        "when something does)",
    )
    dif.add_argument("before")
    dif.add_argument("after")
    dif.add_argument(
        "--until",
        help="ISO-8601 instant with offset, or a date alone for midnight UTC "
        "(default: the later clock.until)",
    )
    dif.add_argument("--format", choices=("text", "json"), default="text")
    dif.add_argument("--max-runs", type=_count(1), default=DEFAULT_RUN_LIMIT)
    dif.set_defaults(func=cmd_diff)

    rep = sub.add_parser(
        "report",
        help="write a self-contained HTML review report (pictures, runs, alerts, expectations)",
    )
    rep.add_argument("scenario")
    rep.add_argument(
        "--until",
        help="ISO-8601 instant with offset (2024-03-12T06:00Z), or a date alone for midnight UTC "
        "(default: clock.until)",
    )
    rep.add_argument("-o", "--output", required=True, metavar="REPORT.html")
    rep.add_argument("--max-runs", type=_count(1), default=DEFAULT_RUN_LIMIT)
    rep.set_defaults(func=cmd_report)
