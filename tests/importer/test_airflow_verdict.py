"""Airflow 3.3.2's own import verdict, read statically from the generated table: files
Airflow would refuse are reported with its error and their DAGs not imported; guarded
imports follow the branch Airflow takes; modules outside the table are listed as needs;
defaults of Variables and the environment are taken, flagged."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.importer.airflow_table import TABLE, from_import, import_module
from tests.importer.conftest import Project

HEAD = "from datetime import datetime\n"
DAG = "with DAG({dag_id!r}, schedule='@daily', start_date=datetime(2024, 1, 1)):\n    pass\n"


def _dags(dag_ids: list[str]) -> str:
    return "".join(DAG.format(dag_id=d) for d in dag_ids)


def _file_and_dags(project: Project, name: str) -> tuple[str, dict[str, str]]:
    report = project.run().report
    (file,) = [f for f in report.files if f.file == name]
    dags = {d.dag_id: f"{d.status}: {d.reason}" for d in report.dags if d.file == name}
    return str(file.reason), dags


def test_an_airflow_2_module_fails_the_file_with_its_replacement_named(project: Project) -> None:
    project.write(
        "old.py",
        HEAD
        + "from airflow.models.dataset import Dataset\nfrom airflow.sdk import DAG\n"
        + _dags(["one", "two"]),
    )
    reason, dags = _file_and_dags(project, "old.py")
    assert "Airflow 3.3.2 would not load this file (line 2)" in reason
    assert "ModuleNotFoundError: No module named 'airflow.models.dataset'" in reason
    assert "airflow.sdk.Asset" in reason
    assert set(dags) == {"one", "two"}
    assert all(d.startswith("skipped: Airflow 3.3.2 would not load") for d in dags.values())
    assert project.run().scenario.dags == ()


def test_a_name_another_sdk_version_exports_fails_the_file(project: Project) -> None:
    project.write(
        "mapper.py", HEAD + "from airflow.sdk import DAG, ToHourlyMapper\n" + _dags(["m"])
    )
    reason, dags = _file_and_dags(project, "mapper.py")
    assert "ImportError: cannot import name 'ToHourlyMapper' from 'airflow.sdk'" in reason
    assert dags["m"].startswith("skipped")


def test_an_internal_module_that_does_not_exist_fails_the_file(project: Project) -> None:
    project.write(
        "internal.py",
        HEAD
        + "from airflow._shared.not_a_module import x\nfrom airflow.sdk import DAG\n"
        + _dags(["i"]),
    )
    reason, _ = _file_and_dags(project, "internal.py")
    assert "No module named 'airflow._shared.not_a_module'" in reason


def test_a_guarded_import_follows_the_branch_airflow_takes(project: Project) -> None:
    project.write(
        "guarded.py",
        HEAD
        + "try:\n    from airflow.sdk import DAG, PartitionAtRuntime\n"
        + "except ImportError:\n    from airflow.sdk import DAG\n"
        + _dags(["guarded"]),
    )
    project.write(
        "unguarded.py",
        HEAD
        + "try:\n    from airflow.sdk import PartitionAtRuntime\n"
        + "except KeyError:\n    pass\nfrom airflow.sdk import DAG\n"
        + _dags(["unguarded"]),
    )
    result = project.run()
    assert [d.dag_id for d in result.scenario.dags] == ["guarded"]
    reasons = {f.file: str(f.reason) for f in result.report.files}
    assert "cannot import name 'PartitionAtRuntime'" in reasons["unguarded.py"]
    assert {d.dag_id: d.status for d in result.report.dags}["unguarded"] == "skipped"


def test_a_project_module_that_imports_a_missing_name_fails_its_importer(
    project: Project,
) -> None:
    project.write("common/__init__.py", "")
    project.write("common/helpers.py", "from airflow.sdk import ToHourlyMapper\nX = 1\n")
    project.write(
        "uses.py",
        HEAD + "from common.helpers import X\nfrom airflow.sdk import DAG\n" + _dags(["uses"]),
    )
    reason, dags = _file_and_dags(project, "uses.py")
    assert "cannot import name 'ToHourlyMapper'" in reason and "common/helpers.py" in reason
    assert dags["uses"].startswith("skipped")


def test_a_relative_import_in_a_package_module_is_followed_to_its_failure(
    project: Project,
) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/base.py", "from airflow.models.dataset import Dataset\n")
    project.write("pkg/factory.py", "from .base import Dataset\nY = 2\n")
    project.write(
        "dag.py", HEAD + "from pkg.factory import Y\nfrom airflow.sdk import DAG\n" + _dags(["d"])
    )
    reason, _ = _file_and_dags(project, "dag.py")
    assert "No module named 'airflow.models.dataset'" in reason


def test_modules_outside_airflow_are_listed_as_needs_never_refused(project: Project) -> None:
    project.write(
        "needs.py",
        HEAD
        + "import pandas as pd\nfrom airflow.providers.amazon.aws.hooks.s3 import S3Hook\n"
        + "import pendulum\nimport json\nfrom airflow.sdk import DAG\n"
        + _dags(["needs"]),
    )
    result = project.run()
    (file,) = result.report.files
    assert file.status == "parsed"
    assert file.needs == ("apache-airflow-providers-amazon", "pandas")
    assert "needs `apache-airflow-providers-amazon`, `pandas`" in result.report.summary()
    assert [d.dag_id for d in result.scenario.dags] == ["needs"]


def test_defaults_are_taken_and_flagged_as_airflow_reads_them(project: Project) -> None:
    project.write(
        "defaults.py",
        HEAD
        + "import os\nfrom airflow.sdk import DAG, Variable\n"
        + "from airflow.models import Variable as ModelVariable\n"
        + "with DAG('v', schedule=Variable.get('report_cron', default='30 7 * * *'),"
        + " start_date=datetime(2024, 1, 1)):\n    pass\n"
        + "with DAG('e', schedule=os.environ.get('ENV_SCHEDULE', '@hourly'),"
        + " start_date=datetime(2024, 1, 1)):\n    pass\n"
        + "with DAG('g', schedule=os.getenv('OTHER', '@daily'), start_date=datetime(2024, 1, 1)):"
        + "\n    pass\n"
        + "for n in range(ModelVariable.get('dag_number', default_var=3)):\n"
        + "    with DAG(f'loop_{n}', schedule='@daily', start_date=datetime(2024, 1, 1)):\n"
        + "        pass\n",
    )
    result = project.run()
    dags = {d.dag_id: d for d in result.scenario.dags}
    assert set(dags) == {"v", "e", "g", "loop_0", "loop_1", "loop_2"}
    report = {d.dag_id: d for d in result.report.dags}
    assert all(d.status == "imported" for d in report.values())
    flags = {(d.dag_id, u.reason) for d in report.values() for u in d.unresolved if u.parse_time}
    assert ("v", "from the default of Variable `report_cron`") in flags
    assert ("e", "from the default of environment variable `ENV_SCHEDULE`") in flags
    assert ("g", "from the default of environment variable `OTHER`") in flags
    assert any(d == "loop_2" and "Variable `dag_number`" in r for d, r in flags)


def test_each_variable_class_takes_only_its_own_keyword(project: Project) -> None:
    project.write(
        "sdk_wrong.py",
        HEAD + "from airflow.sdk import DAG, Variable\n"
        "with DAG('a', schedule=Variable.get('x', default_var='@daily'),"
        " start_date=datetime(2024, 1, 1)):\n    pass\n",
    )
    project.write(
        "models_wrong.py",
        HEAD + "from airflow.sdk import DAG\nfrom airflow.models import Variable\n"
        "with DAG('b', schedule=Variable.get('x', default='@daily'),"
        " start_date=datetime(2024, 1, 1)):\n    pass\n",
    )
    reasons = {f.file: str(f.reason) for f in project.run().report.files}
    assert "unexpected keyword argument 'default_var'" in reasons["sdk_wrong.py"]
    assert "unexpected keyword argument 'default'" in reasons["models_wrong.py"]


def test_the_table_answers_as_airflow_would() -> None:
    assert import_module("airflow.sdk").error is None
    assert from_import("airflow.sdk", "Asset").error is None
    assert from_import("airflow.operators.bash", "BashOperator").error is None  # the shim
    assert from_import("airflow.utils.dates", "days_ago").error is not None
    assert import_module("airflow.datasets").error is not None
    assert import_module("airflow.providers.google.cloud").needs == (
        "apache-airflow-providers-google"
    )
    assert import_module("airflow.providers.common.sql.hooks").needs == (
        "apache-airflow-providers-common-sql"
    )
    assert import_module("pandas").error is None


def test_the_committed_table_names_its_sources_and_no_local_path() -> None:
    path = Path(__file__).resolve().parents[2] / "explorer" / "importer" / TABLE
    table = json.loads(path.read_text(encoding="utf-8"))
    assert table["distributions"] == {
        "apache-airflow-core": "3.3.2",
        "apache-airflow-task-sdk": "1.3.2",
        "apache-airflow-providers-standard": "1.21.0",
    }
    text = path.read_text(encoding="utf-8")
    assert "site-packages" not in text and "/tmp/" not in text


def test_an_unread_schedule_and_a_taken_default_are_marked_on_the_canvas(
    project: Project,
) -> None:
    from explorer.document.nodes import canvas_model

    project.write(
        "marks.py",
        HEAD
        + "from airflow.sdk import DAG, Variable\n"
        + "with DAG('unread', schedule=Variable.get('cron'), start_date=datetime(2024, 1, 1)):\n"
        + "    pass\n"
        + "with DAG('defaulted', schedule=Variable.get('cron', default='@hourly'),"
        + " start_date=datetime(2024, 1, 1)):\n    pass\n",
    )
    model = canvas_model(project.run().scenario)
    unread = model.nodes["dag:unread"]
    assert any("schedule not read" in p and "manual only" in p for p in unread.problems)
    assert "manual only" in unread.tooltip
    defaulted = model.nodes["dag:defaulted"]
    assert any("from the default of Variable `cron`" in p for p in defaulted.problems)
