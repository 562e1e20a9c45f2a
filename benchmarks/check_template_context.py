"""One-off differential check: explorer.engine.context / render against the task SDK 1.3.2.

Simulates a small deployment in this venv (a CronDataIntervalTimetable DAG, a
cron trigger DAG, a manual run without logical date, an asset-triggered
consumer), computes each run's template context and renders a set of
templates with :mod:`explorer.engine.render`. Then a second interpreter (a
throwaway venv with ``apache-airflow-core==3.3.2`` and
``apache-airflow-task-sdk==1.3.2``; the product never imports Airflow) builds
a ``RuntimeTaskInstance`` per run from the same run data, calls the SDK's own
``get_template_context`` and renders the same templates with the task's own
Jinja environment. Keys present, the type of each value and every rendering
are compared.

The previous-success values come from Airflow core's execution API
(``get_previous_successful_dagrun``: the run with the greatest logical date
below the task's with state success, read when the task runs). That query
needs a metadata database, so the Airflow side is handed the run the engine
picked: this check covers how the SDK formats it, the selection rule is read
from core's route (adr/0008).

Usage::

    python benchmarks/check_template_context.py --airflow-python /path/to/venv/bin/python

Prints a summary and every mismatch; exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.context import run_contexts
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.render import TemplateRenderer
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import (
    AssetTriggeredTimetable,
    CronDataIntervalTimetable,
    CronTriggerTimetable,
)

TEMPLATES = [
    "{{ ds }}",
    "{{ ds_nodash }}",
    "{{ ts }}",
    "{{ ts_nodash }}",
    "{{ ts_nodash_with_tz }}",
    "{{ logical_date }}",
    "{{ logical_date.in_timezone('America/New_York') }}",
    "{{ data_interval_start }} {{ data_interval_end }}",
    "WHERE dt >= '{{ data_interval_start }}' AND dt < '{{ data_interval_end }}'",
    "{{ macros.ds_add(ds, -1) }}",
    "{{ macros.ds_format(ds, '%Y-%m-%d', '%d/%m/%Y') }}",
    "{{ dag_run.run_id }}",
    "{{ dag_run.run_type }}",
    "{{ dag_run.run_after }}",
    "{{ dag_run.logical_date }}",
    "{{ prev_data_interval_start_success }} {{ prev_data_interval_end_success }}",
    "{{ prev_start_date_success }} {{ prev_end_date_success }}",
    "{{ partition_key }} {{ partition_date }}",
    "{{ triggering_asset_events | length }}",
    "{% for a, evs in triggering_asset_events.items() %}"
    "{{ a.uri }}={{ evs | length }};{% endfor %}",
    "{{ data_interval_end | ds }} {{ logical_date | ts_nodash }}",
    "{{ task_instance_key_str }}",
    "{{ run_id }}",
    "{{ nope }}",
]

KEYS = [
    "ds",
    "ds_nodash",
    "ts",
    "ts_nodash",
    "ts_nodash_with_tz",
    "logical_date",
    "data_interval_start",
    "data_interval_end",
    "prev_data_interval_start_success",
    "prev_data_interval_end_success",
    "prev_start_date_success",
    "prev_end_date_success",
    "partition_key",
    "partition_date",
    "run_id",
    "task_instance_key_str",
]


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def simulate() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Runs as data for the Airflow side, and this side's answers."""
    start = datetime(2025, 3, 8, tzinfo=UTC)
    orders = AssetKey("orders", "s3://lake/orders")
    dags = [
        DagSpec(
            "daily_cdi",
            CronDataIntervalTimetable("0 0 * * *", "America/New_York"),
            start_date=start,
            timezone="America/New_York",
            tasks=(TaskSpec("load", timedelta(minutes=20), outlets=(orders,)),),
        ),
        DagSpec(
            "hourly_trigger",
            CronTriggerTimetable("0 */6 * * *", timezone="UTC"),
            start_date=start,
            tasks=(TaskSpec("load", timedelta(minutes=5)),),
        ),
        DagSpec(
            "consumer",
            AssetTriggeredTimetable(AssetNode(orders)),
            start_date=start,
            tasks=(TaskSpec("report", timedelta(minutes=5)),),
        ),
    ]
    script = [
        act.Trigger(at=start + timedelta(days=1, hours=3), dag_id="hourly_trigger"),
        act.Trigger(
            at=start + timedelta(days=1, hours=4),
            dag_id="daily_cdi",
            logical_date=start + timedelta(hours=12),
        ),
    ]
    sim = Simulation(dags, start=start, script=script)
    sim.advance_to(start + timedelta(days=3))
    runs = list(sim.runs)
    contexts = run_contexts(sim, runs)
    data, ours = [], []
    for run, context in zip(runs, contexts, strict=True):
        previous = {
            "data_interval_start": _iso(context.get("prev_data_interval_start_success")),
            "data_interval_end": _iso(context.get("prev_data_interval_end_success")),
            "start_date": _iso(context["prev_start_date_success"]),
            "end_date": _iso(context["prev_end_date_success"]),
        }
        data.append(
            {
                "dag_id": run.dag_id,
                "run_id": run.run_id,
                "task_id": run.tasks[0].task_id,
                "logical_date": _iso(run.logical_date),
                "data_interval_start": _iso(run.data_interval.start if run.data_interval else None),
                "data_interval_end": _iso(run.data_interval.end if run.data_interval else None),
                "run_after": _iso(run.run_after),
                "start_date": _iso(run.start_date),
                "end_date": _iso(run.end_date),
                "run_type": run.run_type,
                "state": run.state,
                "partition_key": run.partition_key,
                "partition_date": _iso(run.partition_date),
                "consumed": [
                    {
                        "name": e.asset.name,
                        "uri": e.asset.uri,
                        "timestamp": e.timestamp.isoformat(),
                        "extra": dict(e.extra),
                        "source_dag_id": e.source.dag_id,
                        "source_task_id": e.source.task_id,
                        "source_run_id": e.source.run_id,
                    }
                    for e in (sim.state.assets.events[i] for i in run.consumed_asset_events)
                ],
                "previous": previous,
            }
        )
        ours.append(
            {
                "keys": {
                    k: (type(context[k]).__name__ if k in context else "ABSENT") for k in KEYS
                },
                "rendered": {t: TemplateRenderer(t).render(context).text for t in TEMPLATES},
            }
        )
    return data, ours


AIRFLOW_SIDE = r"""
import json, sys, uuid
from datetime import datetime
from unittest import mock
from airflow.sdk import DAG
from airflow.sdk.bases.operator import BaseOperator
from airflow.sdk.api.datamodels._generated import TIRunContext, DagRun, PrevSuccessfulDagRunResponse
from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance
import airflow.sdk.execution_time.task_runner as task_runner

payload = json.load(sys.stdin)
out = []
for run in payload["runs"]:
    with DAG(run["dag_id"], schedule=None) as dag:
        task = BaseOperator(task_id=run["task_id"])
    events = [
        {"asset": {"name": e["name"], "uri": e["uri"], "extra": {}}, "extra": e["extra"],
         "source_task_id": e["source_task_id"], "source_dag_id": e["source_dag_id"],
         "source_run_id": e["source_run_id"],
         "source_map_index": -1 if e["source_task_id"] else None, "source_aliases": [],
         "timestamp": e["timestamp"]}
        for e in run["consumed"]
    ]
    dag_run = DagRun(
        dag_id=run["dag_id"], run_id=run["run_id"], logical_date=run["logical_date"],
        data_interval_start=run["data_interval_start"], data_interval_end=run["data_interval_end"],
        run_after=run["run_after"], start_date=run["start_date"], end_date=run["end_date"],
        run_type=run["run_type"], state=run["state"], consumed_asset_events=events,
        partition_key=run["partition_key"], partition_date=run["partition_date"],
    )
    ti = RuntimeTaskInstance.model_construct(
        id=uuid.uuid4(), task_id=run["task_id"], dag_id=run["dag_id"], run_id=run["run_id"],
        try_number=1, map_index=-1, task=task, max_tries=0, dag_version_id=uuid.uuid4(),
        _ti_context_from_server=TIRunContext(dag_run=dag_run, max_tries=0),
        _cached_template_context=None,
    )
    previous = PrevSuccessfulDagRunResponse(**run["previous"])
    with mock.patch.object(task_runner, "get_previous_dagrun_success", return_value=previous):
        context = ti.get_template_context()
        keys = {}
        for k in payload["keys"]:
            if k not in context:
                keys[k] = "ABSENT"
                continue
            value = context[k]
            value = getattr(value, "__wrapped__", value)
            keys[k] = type(value).__name__
        env = task.get_template_env()
        rendered = {}
        for t in payload["templates"]:
            try:
                rendered[t] = env.from_string(t).render(**context)
            except Exception:
                rendered[t] = None
    out.append({"keys": keys, "rendered": rendered})
json.dump(out, sys.stdout)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--airflow-python", required=True)
    args = parser.parse_args()
    data, ours = simulate()
    with tempfile.TemporaryDirectory() as home:
        done = subprocess.run(
            [args.airflow_python, "-c", AIRFLOW_SIDE],
            input=json.dumps({"runs": data, "keys": KEYS, "templates": TEMPLATES}),
            capture_output=True,
            text=True,
            env={"AIRFLOW_HOME": home, "PATH": "/usr/bin:/bin"},
            check=False,
        )
    if done.returncode:
        print(done.stderr[-3000:])
        return 2
    theirs = json.loads(done.stdout)
    mismatches = []
    for run, mine, air in zip(data, ours, theirs, strict=True):
        for key in KEYS:
            if mine["keys"][key] != air["keys"][key]:
                mismatches.append((run["run_id"], key, mine["keys"][key], air["keys"][key]))
        for template in TEMPLATES:
            if mine["rendered"][template] != air["rendered"][template]:
                mismatches.append(
                    (run["run_id"], template, mine["rendered"][template], air["rendered"][template])
                )
    checks = len(data) * (len(KEYS) + len(TEMPLATES))
    kinds = sorted({r["run_type"] for r in data})
    print(f"{len(data)} runs ({', '.join(kinds)}), {checks} comparisons, {len(mismatches)} differ")
    for row in mismatches[:40]:
        print("  ", *row, sep=" | ")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
