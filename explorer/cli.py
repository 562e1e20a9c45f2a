"""``explorer <subcommand>``: the headless face of Schedule Explorer.

Runs the same engine as the desktop app, with no display and without
importing Qt (an import-linter contract keeps it so). Every refusal is one
clear line on stderr naming the file and the JSON path; no traceback.

Exit codes: 0 success, 1 invalid scenario or input, 2 usage error,
3 the run limit was reached, 5 an expectation failed (``check``) or the
behaviour differs (``diff``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import io
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from explorer import __version__
from explorer.document.wording import count
from explorer.engine.alerts import record_with_alerts
from explorer.engine.errors import EngineError
from explorer.engine.explain import explain
from explorer.engine.perf import bulk_allocation
from explorer.engine.record import RUN_FIELDS, iso, run_row
from explorer.engine.run_table import write_csv
from explorer.engine.runlog import SPILL_ROWS
from explorer.engine.simulation import Simulation, SimulationLimitError
from explorer.engine.types import ReferenceRun
from explorer.engine.tz import get_zone
from explorer.scenario import ScenarioError, build_engine_inputs, load_scenario
from explorer.scenario.build import EngineInputs
from explorer.scenario.load import MAX_FILE_SIZE_VARIABLE, parse_size
from explorer.scenario.model import Scenario
from explorer.scenario.options import find_option, parse_option_text, with_option
from explorer.scenario.printable import printable
from explorer.scenario.simulate import make_simulation
from explorer.scenario.values import check_instant_range

__all__ = ["main"]

DEFAULT_RUN_LIMIT = 5_000_000


class CliError(Exception):
    """A refusal to print as one line; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _instant(text: str, what: str) -> datetime:
    """An instant given on the command line: ISO-8601 with an offset or Z, or a date alone
    (``2024-03-12``: midnight UTC); within the range a scenario file allows."""
    if _DATE_ONLY.match(text):
        text = f"{text}T00:00:00Z"
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CliError(
            f"{what}: {text!r} is not an ISO-8601 datetime (e.g. 2024-03-12T06:00Z, "
            "or 2024-03-12 for midnight UTC)",
            2,
        ) from exc
    if value.tzinfo is None:
        raise CliError(f"{what}: {text!r} has no time zone; add an offset or Z (e.g. {text}Z)", 2)
    try:
        return check_instant_range(value.astimezone(UTC), text)
    except (ValueError, OverflowError) as exc:
        raise CliError(f"{what}: {exc}", 2) from exc


_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def _count(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is below {least}")
        return value

    return parse


def _load(path: str, settings: Sequence[str] = ()) -> EngineInputs:
    if not Path(path).exists():
        raise CliError(f"{path}: no such file")
    scenario = load_scenario(path)
    if settings:
        scenario = _with_options(scenario, settings)
    return build_engine_inputs(scenario, source=path)


def _simulate(
    inputs: EngineInputs,
    path: str,
    until: datetime | None,
    max_runs: int,
    spill_rows: int = SPILL_ROWS,
) -> tuple[Simulation, datetime]:
    end = until or inputs.until
    if end is None:
        raise CliError(f"{path}: the scenario has no clock.until; pass --until", 2)
    if end < inputs.start:
        raise CliError(
            f"--until {iso(end)} is before the scenario's clock.start {iso(inputs.start)}", 2
        )
    sim = make_simulation(inputs, run_limit=max_runs, spill_rows=spill_rows)
    with bulk_allocation():
        sim.advance_to(end)
    sim.finish()
    return sim, end


# ---------------------------------------------------------------------------- simulate
def _write_table(rows: list[dict[str, Any]], out: TextIO, columns: Sequence[str]) -> None:
    widths = {
        c: max([len(c), *(len(str(r[c] if r[c] is not None else "-")) for r in rows)])
        for c in columns
    }
    out.write("  ".join(c.ljust(widths[c]) for c in columns).rstrip() + "\n")
    for row in rows:
        cells = [str(row[c] if row[c] is not None else "-").ljust(widths[c]) for c in columns]
        out.write("  ".join(cells).rstrip() + "\n")


#: The instants of a run row, shown in ``--tz``'s zone in a table.
_INSTANT_COLUMNS = ("logical_date", "data_interval_start", "data_interval_end", "run_after",
                    "created_at")  # fmt: skip


def _table_rows(runs: list[dict[str, Any]], zone_name: str | None) -> list[dict[str, Any]]:
    """The runs as a table shows them: each data interval's length (a 23-hour day reads
    ``23h``), and the instants in ``zone_name`` (UTC when None)."""
    zone = None
    if zone_name is not None:
        try:
            zone = get_zone(zone_name)
        except Exception as exc:  # an unknown zone is a usage error, not a traceback
            raise CliError(f"--tz: {zone_name!r} is not an IANA time zone ({exc})", 2) from exc
    rows = []
    for run in runs:
        row = dict(run)
        start, end = run.get("data_interval_start"), run.get("data_interval_end")
        row["interval"] = (
            _length(datetime.fromisoformat(end) - datetime.fromisoformat(start))
            if start and end
            else None
        )
        if zone is not None:
            for column in _INSTANT_COLUMNS:
                if row.get(column):
                    row[column] = datetime.fromisoformat(row[column]).astimezone(zone).isoformat()
        rows.append(row)
    return rows


def _length(delta: timedelta) -> str:
    """``23h``, ``1d``, ``1d1h``, ``30m``, ``0s``."""
    seconds = int(delta.total_seconds())
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "",
             f"{minutes}m" if minutes else "", f"{secs}s" if secs else ""]  # fmt: skip
    return "".join(parts) or "0s"


def _with_options(scenario: Scenario, settings: Sequence[str]) -> Scenario:
    """``--set section.key=value`` (repeatable): the scenario's ``airflow_config`` with
    these options, in ``airflow.cfg``'s spelling (DEP-7); the file is not changed."""
    config = scenario.airflow_config
    for setting in settings:
        name, sep, value = setting.partition("=")
        section, dot, key = name.strip().partition(".")
        if not sep or not dot:
            raise CliError(f"--set {setting!r}: expected section.key=value", 2)
        try:
            option = find_option(section, key)
            config = with_option(config, option, parse_option_text(option, value))
        except KeyError as exc:
            raise CliError(f"--set {setting!r}: {exc.args[0]}", 2) from exc
        except ValueError as exc:
            raise CliError(f"--set {setting!r}: {exc}", 2) from exc
    return dataclasses.replace(scenario, airflow_config=config)


def _write_csv(sim: Simulation, out: TextIO, template: str | None) -> None:
    """The runs as CSV, one row per run in creation order, streamed from the run log.

    CSV carries the flat run columns only, so the record (every run's tasks, consumed
    events, the asset events, pending requests and alerts) is never built: on a
    1,000-DAG month that document held most of the process's memory.
    """
    runs = sim.runs
    fields = list(RUN_FIELDS)
    if template is None:  # straight from the run log's packed columns (no run objects built)
        write_csv(runs, out)
        return
    # what each run's task would render (adr/0008): rendering needs the run objects
    from explorer.engine.render import render_runs  # jinja2: only for --render

    rendered = render_runs(sim, list(runs), template)
    fields.append("rendered")
    dict_writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    dict_writer.writeheader()
    for index, run in enumerate(runs):
        row = run_row(run)
        row["rendered"] = rendered[index].display
        dict_writer.writerow(row)


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    inputs = _load(args.scenario, args.set)
    until = _instant(args.until, "--until") if args.until else None
    sim, end = _simulate(inputs, args.scenario, until, args.max_runs, args.spill_rows)
    if args.format == "csv":
        if not args.csv_for_spreadsheets:
            _write_csv(sim, out, args.render)
            return 0
        from explorer.analysis.spreadsheet import for_spreadsheets

        exact = io.StringIO()
        _write_csv(sim, exact, args.render)
        out.write(for_spreadsheets(exact.getvalue()))
        return 0
    record = record_with_alerts(
        sim,
        until=end,
        extra_warnings=list(inputs.warnings),
        silence_factor=inputs.silence_factor,
    )
    if args.render is not None:  # what each run's task would render (adr/0008)
        from explorer.engine.render import render_runs  # jinja2: only for --render

        rendered = render_runs(sim, list(sim.runs), args.render)
        for row, result in zip(record["runs"], rendered, strict=True):
            row["rendered"] = result.text if args.format == "json" else result.display
            if args.format == "json":
                row["render_error"] = result.error
    if args.format == "json":
        json.dump(record, out, indent=2)
        out.write("\n")
    else:
        columns = (
            "dag_id",
            "run_type",
            "logical_date",
            "data_interval_start",
            "data_interval_end",
            "interval",
            "run_after",
            "created_at",
            "state",
            *(["rendered"] if args.render is not None else []),
        )
        _write_table(_table_rows(record["runs"], args.tz), out, columns)
        out.write(f"\n{len(record['runs'])} runs until {record['until']}\n")
        for warning in record["warnings"]:
            out.write(f"warning: {warning}\n")
    return 0


# ---------------------------------------------------------------------------- validate
def cmd_validate(args: argparse.Namespace, out: TextIO) -> int:
    status = 0
    for path in args.scenarios:
        try:
            inputs = _load(path)
        except ScenarioError as exc:
            sys.stderr.write(f"{exc}\n")
            status = 1
            continue
        except CliError as exc:
            sys.stderr.write(f"error: {exc}\n")
            status = 1
            continue
        dags, actions = count(len(inputs.dags), "DAG"), count(len(inputs.script), "action")
        out.write(f"{path}: valid ({dags}, {actions})\n")
        for warning in inputs.warnings:
            out.write(f"{path}: warning: {warning}\n")
    return status


# ---------------------------------------------------------------------------- next-runs
def cmd_next_runs(args: argparse.Namespace, out: TextIO) -> int:
    inputs = _load(args.scenario)
    dag = next((d for d in inputs.dags if d.dag_id == args.dag_id), None)
    if dag is None:
        known = ", ".join(d.dag_id for d in inputs.dags)
        raise CliError(f"{args.scenario}: no DAG {args.dag_id!r} (known: {known})")
    now = _instant(args.at, "--at") if args.at else inputs.start
    table = dag.timetable
    if args.format == "json":
        json.dump(_next_runs_json(dag.timetable, dag.restriction, now, args.n), out, indent=2)
        out.write("\n")
        return 0
    zone = get_zone(dag.timezone)
    out.write(f"{dag.dag_id}: {table.name}({table.summary})\n")
    out.write(f"  {table.description}\n")
    out.write(f"  time zone {dag.timezone}; catchup={dag.catchup}; as deployed at {iso(now)}\n\n")
    rows: list[dict[str, Any]] = []
    last = None
    for _ in range(args.n):
        info = table.next_dagrun_info(last=last, restriction=dag.restriction, now=now)
        if info is None:
            break
        interval = info.data_interval

        def both(value: datetime | None) -> str | None:
            if value is None:
                return None
            local = value.astimezone(zone)
            return f"{local.isoformat()} ({iso(value)})"

        rows.append(
            {
                "logical_date": both(info.logical_date),
                "data_interval": None
                if interval is None
                else f"[{interval.start.astimezone(zone).isoformat()}, "
                f"{interval.end.astimezone(zone).isoformat()})",
                "run_after": both(info.run_after),
                "partition_key": info.partition_key,
            }
        )
        last = ReferenceRun.of(info)
    if not rows:
        out.write("no automatic runs\n")
        return 0
    columns = ["logical_date", "data_interval", "run_after"]
    if any(r["partition_key"] for r in rows):
        columns.append("partition_key")
    _write_table(rows, out, columns)
    return 0


def _next_runs_json(
    table: Any, restriction: Any, now: datetime, count: int
) -> list[dict[str, str | None]]:
    """The runs as ``{logical_date, data_interval_start, data_interval_end, run_after}``, UTC Z."""
    rows: list[dict[str, str | None]] = []
    last = None
    for _ in range(count):
        info = table.next_dagrun_info(last=last, restriction=restriction, now=now)
        if info is None:
            break
        interval = info.data_interval
        rows.append(
            {
                "logical_date": None if info.logical_date is None else iso(info.logical_date),
                "data_interval_start": None if interval is None else iso(interval.start),
                "data_interval_end": None if interval is None else iso(interval.end),
                "run_after": iso(info.run_after),
            }
        )
        last = ReferenceRun.of(info)
    return rows


# ---------------------------------------------------------------------------- explain
def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    inputs = _load(args.scenario)
    at = _instant(args.at, "--at")
    if args.dag_id not in {d.dag_id for d in inputs.dags}:
        known = ", ".join(d.dag_id for d in inputs.dags)
        raise CliError(f"{args.scenario}: no DAG {args.dag_id!r} (known: {known})")
    sim, _ = _simulate(inputs, args.scenario, at, args.max_runs)
    answer = explain(sim, args.dag_id)
    if args.format == "json":
        json.dump(answer.to_dict(), out, indent=2)
        out.write("\n")
        return 0
    out.write(f"{answer.question}\n{answer.dag_id} at {iso(answer.at)}: {answer.verdict}\n")
    marks = {True: "ok     ", False: "BLOCKS ", None: "info   "}
    for condition in answer.conditions:
        rule = f" [{condition.rule}]" if condition.rule else ""
        out.write(f"  {marks[condition.ok]}{condition.name}: {condition.detail}{rule}\n")
    return 0


# ---------------------------------------------------------------------------- import
def cmd_import(args: argparse.Namespace, out: TextIO) -> int:
    # imported here: the importer (an AST reader of DAG files) is a third of the
    # import time of every other command
    from explorer.importer.command import ImportUsageError, run_import_command
    from explorer.importer.discover import IgnoreTooComplex

    try:
        return run_import_command(
            args.paths,
            output=args.output,
            report=args.report,
            task_duration=args.task_duration,
            at=args.at,
            ignore_syntax=args.ignore_syntax,
            now=datetime.now(UTC).replace(second=0, microsecond=0),
        )
    except (ImportUsageError, IgnoreTooComplex) as exc:
        raise CliError(str(exc), 2) from exc


# ---------------------------------------------------------------------------- parser
class _VersionAction(argparse.Action):
    """``--version``: the version and whether the engine runs compiled (adr/0013),
    found only when asked (it imports the engine)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from explorer.installation import engine_build

        print(f"{parser.prog} {__version__} (engine: {engine_build()})")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explorer",
        description="See what Apache Airflow 3.3's scheduler will do with your schedules. "
        "Without a subcommand, opens the desktop app.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="print the version and the engine's build"
    )
    parser.add_argument(
        "--max-file-size",
        metavar="SIZE",
        help="refuse scenario files larger than this (bytes, or 512K, 64M, 1G; default "
        f"256M, or the {MAX_FILE_SIZE_VARIABLE} environment variable)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sim = sub.add_parser("simulate", help="run a scenario headless and print the record")
    sim.add_argument("scenario")
    sim.add_argument(
        "--until",
        help="ISO-8601 instant with offset (2024-03-12T06:00Z), or a date alone for midnight UTC "
        "(default: clock.until)",
    )
    sim.add_argument("--format", choices=("json", "table", "csv"), default="json")
    sim.add_argument(
        "--tz",
        metavar="ZONE",
        help="with --format table: show instants in this IANA zone (e.g. America/New_York); "
        "JSON and CSV stay in UTC",
    )
    sim.add_argument(
        "--csv-for-spreadsheets",
        action="store_true",
        help="with --format csv: prefix with ' every cell a spreadsheet would run as a formula "
        "(starting with =, @, tab, CR, or + or - not followed by a digit or P); the default "
        "CSV stays exact",
    )
    sim.add_argument(
        "--max-runs",
        type=_count(1),
        default=DEFAULT_RUN_LIMIT,
        help=f"stop with an error past this many runs (default {DEFAULT_RUN_LIMIT:,})",
    )
    sim.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="an Airflow option for the whole run, as in airflow.cfg "
        "(e.g. scheduler.create_cron_data_intervals=true); repeatable",
    )
    sim.add_argument(
        "--render",
        metavar="TEMPLATE",
        help="a Jinja template rendered per run with the run's Airflow template context "
        "(e.g. \"{{ ds }}\"); adds a 'rendered' column",
    )
    sim.add_argument(
        "--spill-rows",
        type=_count(0),
        default=SPILL_ROWS,
        metavar="N",
        help="move ended runs to a scratch file N at a time so memory stays flat on long "
        f"runs (default {SPILL_ROWS:,}; 0: keep every run in memory); the output is the same",
    )
    sim.set_defaults(func=cmd_simulate)

    val = sub.add_parser("validate", help="check scenario files and explain every problem")
    val.add_argument("scenarios", nargs="+")
    val.set_defaults(func=cmd_validate)

    nxt = sub.add_parser("next-runs", help="the next runs of a time-driven DAG")
    nxt.add_argument("scenario")
    nxt.add_argument("dag_id")
    nxt.add_argument("-n", type=_count(1), default=10, help="how many runs (default 10)")
    nxt.add_argument("--at", help="the scheduler's clock (default: the scenario's clock.start)")
    nxt.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="json: a list of {logical_date, data_interval_start, data_interval_end, run_after}",
    )
    nxt.set_defaults(func=cmd_next_runs)

    imp = sub.add_parser(
        "import", help="read Airflow DAG files statically (never run) into a scenario"
    )
    imp.add_argument("paths", nargs="+", metavar="PATH", help="a DAG file or a folder")
    imp.add_argument("-o", "--output", required=True, help="the scenario file to write")
    imp.add_argument("--report", help="also write the JSON report here")
    imp.add_argument(
        "--task-duration", default="PT10M", help="every task's duration (default PT10M)"
    )
    imp.add_argument(
        "--at", help="the deployment instant; parse-time values read as it (default: now)"
    )
    imp.add_argument(
        "--ignore-syntax",
        choices=("glob", "regexp"),
        default="glob",
        help=".airflowignore syntax, as [core] dag_ignore_file_syntax (default glob)",
    )
    imp.set_defaults(func=cmd_import)

    exp = sub.add_parser("explain", help="why a DAG did or did not run at an instant")
    exp.add_argument("scenario")
    exp.add_argument("dag_id")
    exp.add_argument(
        "--at",
        required=True,
        help="ISO-8601 instant with offset (2024-05-02T12:00Z), or a date alone for midnight UTC",
    )
    exp.add_argument("--format", choices=("text", "json"), default="text")
    exp.add_argument("--max-runs", type=_count(1), default=DEFAULT_RUN_LIMIT)
    exp.set_defaults(func=cmd_explain)

    from explorer.analysis.commands import add_parsers  # check, diff, report

    add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_file_size is not None:
        try:
            parse_size(args.max_file_size)
        except ValueError as exc:
            return _fail(f"error: --max-file-size: {exc}", 2)
        os.environ[MAX_FILE_SIZE_VARIABLE] = args.max_file_size  # read by every load
    if args.command is None:
        parser.print_help()
        return 2
    out = io.StringIO()
    scenario = getattr(args, "scenario", "")
    try:
        status = int(args.func(args, out))
    except ScenarioError as exc:
        return _fail(f"{exc}", 1)
    except SimulationLimitError as exc:
        return _fail(f"error: {scenario}: {exc}", 3)
    except CliError as exc:
        return _fail(f"error: {exc}", exc.code)
    except EngineError as exc:
        return _fail(f"error: {scenario}: {exc}", 1)
    except OSError as exc:  # an output that cannot be written (a missing folder, a full disk)
        return _fail(f"error: {_os_error(exc)}", 2)
    try:
        sys.stdout.write(out.getvalue())
        sys.stdout.flush()
    except OSError as exc:
        _quiet_stdout()
        return _fail(f"error: cannot write the output: {exc.strerror or exc}", 2)
    return status


def _fail(message: str, code: int) -> int:
    """Print ``message`` on stderr with control characters escaped (names in it come
    from other people's files) and return the exit status."""
    sys.stderr.write(printable(message) + "\n")
    return code


def _os_error(exc: OSError) -> str:
    """One line for an operating-system error: the file and the reason, no traceback."""
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's own flush at exit cannot fail again."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
