"""How fast the static import reads a large project: 1,000 generated DAG files by default.

Each generated file looks like a real one: imports, module constants, an
f-string dag_id, default_args, a pendulum start date, a cron or asset
schedule, a few operators with outlets, a ``@task`` and a task group. Prints
``files=<n> dags=<n> import_s=<s> cpu_s=<s>`` (the best of ``--repeat`` runs,
one core, discovery included; ``cpu_s`` is the process's CPU time, which a
busy machine inflates less than the wall clock). Issue 10 asks for 1,000 files in under 5 s.

Usage::

    python benchmarks/bench_import.py [--files 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.importer import import_paths

TEMPLATE = """
import pendulum
from datetime import timedelta
from airflow.sdk import DAG, Asset, task, TaskGroup
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.operators.bash import BashOperator

TEAM = "team_{team}"
OWNER = f"{{TEAM}}_owner"
default_args = {{"owner": OWNER, "retries": 2, "retry_delay": timedelta(minutes=5)}}

with DAG(
    dag_id=f"{{TEAM}}_pipeline_{index}",
    schedule={schedule},
    start_date=pendulum.datetime(2024, 1, 1, tz="{zone}"),
    catchup=False,
    default_args=default_args,
    tags=[TEAM, "generated"],
) as dag:
    extract = BashOperator(task_id="extract", bash_command="echo extract")

    @task(outlets=[Asset("s3://lake/{index}/clean")])
    def transform():
        return 1

    with TaskGroup("load"):
        for part in ["a", "b", "c"]:
            EmptyOperator(task_id=f"load_{{part}}", outlets=[Asset(f"s3://lake/{index}/{{part}}")])
    extract >> transform()
"""

ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo"]


def generate(folder: Path, count: int) -> None:
    for index in range(count):
        if index % 3 == 2:
            schedule = f'[Asset("s3://lake/{index - 1}/clean")]'
        else:
            schedule = f'"{index % 60} {index % 24} * * *"'
        text = TEMPLATE.format(
            team=index % 17, index=index, schedule=schedule, zone=ZONES[index % len(ZONES)]
        )
        (folder / f"pipeline_{index:05d}.py").write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "dags"
        folder.mkdir()
        generate(folder, args.files)
        best = cpu = float("inf")
        dags = 0
        for _ in range(args.repeat):
            begin, begin_cpu = time.perf_counter(), time.process_time()
            result = import_paths([folder], parsed_at=datetime(2025, 1, 1, tzinfo=UTC))
            best = min(best, time.perf_counter() - begin)
            cpu = min(cpu, time.process_time() - begin_cpu)
            dags = result.dag_count
    # cpu_s: the process's own CPU time, the fairer figure on a machine shared with other work.
    print(f"files={args.files} dags={dags} import_s={best:.2f} cpu_s={cpu:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
