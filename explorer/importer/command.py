"""``explorer import PATH [PATH ...] -o OUT.json [--report REPORT.json]``: the headless import.

Exit status: 0 when a scenario was written, even with unresolved
items; 1 when nothing could be imported; 2 for usage errors (a PATH that does
not exist, a bad ``--task-duration`` or ``--at``). The human summary goes to
stderr; stdout stays empty so that scripts can rely on the files.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from explorer.document.wording import count
from explorer.importer.api import import_paths
from explorer.importer.discover import IgnoreSyntax
from explorer.importer.project import run_import
from explorer.scenario.save import save_scenario
from explorer.scenario.values import parse_duration, parse_instant

__all__ = ["ImportUsageError", "run_import_command"]


class ImportUsageError(Exception):
    """A usage error (exit 2)."""


def run_import_command(
    paths: list[str],
    *,
    output: str,
    report: str | None,
    task_duration: str,
    at: str | None,
    ignore_syntax: IgnoreSyntax,
    now: datetime,
) -> int:
    """Run the import and write its files; ``now`` is the deployment instant without ``--at``."""
    try:
        duration = parse_duration(task_duration)
    except ValueError as exc:
        raise ImportUsageError(f"--task-duration: {exc}") from exc
    if duration <= timedelta(0):
        raise ImportUsageError("--task-duration must be longer than zero")
    try:
        parsed_at = parse_instant(at) if at is not None else now.astimezone(UTC)
    except ValueError as exc:
        raise ImportUsageError(f"--at: {exc}") from exc
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise ImportUsageError(f"no such file or folder: {', '.join(missing)}")
    out_path = Path(output)
    base = out_path.absolute().parent
    for where, option in ((out_path, "-o"), (Path(report) if report else None, "--report")):
        if where is not None and not where.absolute().parent.is_dir():
            raise ImportUsageError(f"{option}: the folder {where.absolute().parent} does not exist")
    if ignore_syntax == "glob":
        result = import_paths(paths, parsed_at=parsed_at, task_duration=duration, base_dir=base)
    else:
        result = run_import(
            [Path(p) for p in paths],
            parsed_at=parsed_at,
            task_duration=duration,
            base_dir=base,
            name=None,
            progress=None,
            cancel=None,
            ignore_syntax=ignore_syntax,
        )
    if report is not None:
        Path(report).write_text(
            json.dumps(result.report.to_json(), indent=2) + "\n", encoding="utf-8"
        )
    sys.stderr.write(result.report.summary() + "\n")
    if result.dag_count == 0:
        sys.stderr.write("error: no DAG could be imported; no scenario written\n")
        return 1
    save_scenario(result.scenario, out_path)
    sys.stderr.write(f"wrote {output} ({count(result.dag_count, 'DAG')})\n")
    return 0
