"""Differential check: the static import against Airflow 3.3.2's own DagBag, DAG by DAG.

For each FOLDER, imports it with :func:`explorer.importer.import_paths` (never
running the files) and has Airflow load the same folder in a separate
interpreter (``_airflow_dagbag.py``, a throwaway venv with
apache-airflow-core 3.3.2 and apache-airflow-providers-standard; the product
never imports Airflow), both with the clock at the same instant. Compares:
dag_id set, timetable class and arguments (through the engine's timetable
and its next runs), time zone, start/end dates, catchup, max_active_runs,
asset condition, every task's outlets and inlets, and the next 10 runs
(logical_date, data interval, run_after).

A DAG Airflow loads that the import lists in its report (partial or
skipped, with a reason) counts as *reported*, not as a mismatch; a DAG
Airflow loads that the import neither produced nor reported is *missed*.

Usage::

    python benchmarks/diff_import_vs_airflow.py FOLDER [FOLDER ...]
        --airflow-python /tmp/af/bin/python [--at 2025-01-01T12:00:00Z] [--regexp] [-v]

Prints per folder ``dags_airflow=<n> exact=<n> reported=<n> mismatched=<n>
missed=<n> extra=<n>`` and each mismatch; exits 1 if any DAG is mismatched
or missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.engine.assets.condition import AliasNode, AllOf, AnyOf, AssetNode, RefNode
from explorer.engine.record import iso
from explorer.engine.types import ReferenceRun
from explorer.importer import import_paths
from explorer.scenario import build_engine_inputs

HERE = Path(__file__).resolve().parent


def _condition(node: Any) -> Any:
    if node is None:
        return None
    if isinstance(node, AssetNode):
        return {"asset": [node.key.name, node.key.uri]}
    if isinstance(node, AliasNode):
        return {"alias": node.name}
    if isinstance(node, RefNode):
        return {"ref_name": node.name} if node.name is not None else {"ref_uri": node.uri}
    if isinstance(node, AllOf):
        return {"all": [_condition(c) for c in node.children]}
    if isinstance(node, AnyOf):
        return {"any": [_condition(c) for c in node.children]}
    return {"other": type(node).__name__}


def _outlet(node: Any) -> Any:
    if isinstance(node, AliasNode | RefNode):
        return _condition(node)
    return {"asset": [node.name, node.uri]}


def _z(value: datetime | None) -> str | None:
    return None if value is None else iso(value)


def ours(folder: Path, at: datetime) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Our view of every imported DAG, and the reason of every DAG the report flags."""
    result = import_paths([folder], parsed_at=at)
    flagged: dict[str, str] = {}
    for dag in result.report.dags:
        if dag.dag_id == "?":  # DAGs of a block not read: every DAG of that file is reported
            flagged[f"file:{dag.file}"] = f"{dag.status}: {dag.reason}"
        elif dag.status != "imported":
            why = dag.reason or "; ".join(f"{u.field}: {u.reason}" for u in dag.unresolved)
            flagged[dag.dag_id] = f"{dag.status}: {why}"
    for file in result.report.files:
        if file.status != "parsed":  # not read (a symlink leaving the root...) or unreadable
            flagged[f"file:{file.file}"] = f"file {file.status}: {file.reason}"
    inputs = build_engine_inputs(result.scenario)
    out: dict[str, dict[str, Any]] = {}
    for dag in inputs.dags:
        table = dag.timetable
        runs: list[list[str | None]] = []
        last = None
        for _ in range(10):
            info = table.next_dagrun_info(last=last, restriction=dag.restriction, now=at)
            if info is None:
                break
            interval = info.data_interval
            runs.append(
                [
                    _z(info.logical_date),
                    _z(interval.start) if interval else None,
                    _z(interval.end) if interval else None,
                    _z(info.run_after),
                    info.partition_key,
                ]
            )
            last = ReferenceRun.of(info)
        out[dag.dag_id] = {
            "timetable": table.name,
            "timezone": dag.timezone,
            "start_date": _z(dag.start_date),
            "end_date": _z(dag.end_date),
            "catchup": dag.catchup,
            "max_active_runs": dag.max_active_runs,
            "condition": _condition(table.asset_condition),
            "tasks": {
                t.task_id: {
                    "outlets": [_outlet(o) for o in t.outlets],
                    "inlets": [_outlet(o) for o in t.inlets],
                }
                for t in dag.tasks
            },
            "runs": runs,
        }
    return out, flagged


def theirs(folder: Path, at: datetime, airflow_python: str, regexp: bool) -> dict[str, Any]:
    env = dict(os.environ)
    env.setdefault("AIRFLOW_HOME", os.path.join(tempfile.gettempdir(), "se-airflow-home"))
    # absolute: the Airflow side runs in a scratch folder
    command = [airflow_python, str(HERE / "_airflow_dagbag.py"), str(folder.absolute()), iso(at)]
    if regexp:
        command.append("--regexp")
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, check=False, cwd=tempfile.gettempdir()
    )
    if done.returncode != 0:
        raise SystemExit(f"Airflow side failed:\n{done.stderr[-3000:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


#: Airflow's timetable classes that the engine names differently or not at all.
_SAME_TIMETABLE = {
    "AssetTriggeredTimetable": "AssetTriggeredTimetable",
}

_FIELDS = ("timezone", "start_date", "end_date", "catchup", "max_active_runs", "condition", "runs")


def compare(mine: dict[str, Any], airflow: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if mine["timetable"] != airflow["timetable"]:
        problems.append(f"timetable {mine['timetable']} != Airflow's {airflow['timetable']}")
    for name in _FIELDS:
        a, b = mine[name], airflow[name]
        if name == "condition" and airflow["timetable"] in (
            "CronTriggerTimetable",
            "CronDataIntervalTimetable",
            "DeltaDataIntervalTimetable",
            "DeltaTriggerTimetable",
            "MultipleCronTriggerTimetable",
            "NullTimetable",
            "OnceTimetable",
            "ContinuousTimetable",
            "EventsTimetable",
            "CronPartitionTimetable",
        ):
            continue  # no condition on either side
        if a != b:
            problems.append(f"{name}: ours {json.dumps(a)} != Airflow's {json.dumps(b)}")
    their_tasks = airflow["tasks"]
    for task_id in sorted(set(mine["tasks"]) | set(their_tasks)):
        a = mine["tasks"].get(task_id)
        b = their_tasks.get(task_id)
        if a is None or b is None:
            problems.append(f"task {task_id}: {'missing here' if a is None else 'not in Airflow'}")
            continue
        for part in ("outlets", "inlets"):
            if a[part] != b[part]:
                problems.append(
                    f"task {task_id} {part}: ours {json.dumps(a[part])} "
                    f"!= Airflow's {json.dumps(b[part])}"
                )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--airflow-python", required=True)
    parser.add_argument("--at", default="2025-06-15T12:00:00Z", help="the frozen clock")
    parser.add_argument("--regexp", action="store_true", help="dag_ignore_file_syntax=regexp")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    at = datetime.fromisoformat(args.at.replace("Z", "+00:00")).astimezone(UTC)
    failed = False
    totals = dict.fromkeys(("airflow", "exact", "reported", "mismatched", "missed", "extra"), 0)
    for folder in args.folders:
        mine, flagged = ours(folder, at)
        airflow = theirs(folder, at, args.airflow_python, args.regexp)
        counts = dict.fromkeys(totals, 0)
        lines: list[str] = []
        for dag in airflow["dags"]:
            counts["airflow"] += 1
            dag_id = dag["dag_id"]
            if dag_id not in mine:
                for key, why in list(flagged.items()):
                    place = key.removeprefix("file:")
                    if key.startswith("file:") and (
                        dag["file"] == place or dag["file"].startswith(place + "/")
                    ):
                        flagged.setdefault(dag_id, why)
                if dag_id in flagged:
                    counts["reported"] += 1
                    if args.verbose:
                        lines.append(f"  reported {dag_id} ({dag['file']}): {flagged[dag_id]}")
                else:
                    counts["missed"] += 1
                    lines.append(f"  MISSED {dag_id} ({dag['file']})")
                continue
            problems = compare(mine[dag_id], dag)
            if not problems:
                counts["exact"] += 1
            elif dag_id in flagged:
                counts["reported"] += 1
                if args.verbose:
                    lines.append(f"  reported {dag_id}: {flagged[dag_id]}; differs: {problems[0]}")
            else:
                counts["mismatched"] += 1
                lines.append(f"  MISMATCH {dag_id} ({dag['file']}):")
                lines.extend(f"    {p}" for p in problems)
        airflow_ids = {d["dag_id"] for d in airflow["dags"]}
        failed_files = " ".join(airflow["import_errors"].values())
        for dag_id in sorted(set(mine) - airflow_ids):
            if dag_id in flagged:
                if args.verbose:
                    lines.append(f"  reported extra {dag_id}: {flagged[dag_id]}")
                continue
            counts["extra"] += 1
            why = " (Airflow failed to serialize it here)" if f"'{dag_id}'" in failed_files else ""
            lines.append(f"  EXTRA {dag_id}: imported, but Airflow does not load it{why}")
        if args.verbose:
            for file, error in sorted(airflow["import_errors"].items()):
                lines.append(f"  Airflow import error {file}: {error}")
        print(
            f"{folder}: dags_airflow={counts['airflow']} exact={counts['exact']} "
            f"reported={counts['reported']} mismatched={counts['mismatched']} "
            f"missed={counts['missed']} extra={counts['extra']} "
            f"airflow_import_errors={len(airflow['import_errors'])}"
        )
        for line in lines:
            print(line)
        for key in totals:
            totals[key] += counts[key]
        failed |= bool(counts["mismatched"] or counts["missed"] or counts["extra"])
    if len(args.folders) > 1:
        print("total: " + " ".join(f"{k}={v}" for k, v in totals.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    _ = timedelta
    sys.exit(main())
