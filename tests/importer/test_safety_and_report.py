"""DAG files are never run; unreadable files are reported one by one; what cannot be read is
listed with file, line and reason."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.importer.conftest import AT, Project


def test_a_dag_file_is_read_never_executed(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "marker.txt"
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        project.write(
            "hostile.py",
            f"""
import socket
from datetime import datetime
from airflow.sdk import DAG

open({str(marker)!r}, "w").write("executed")
socket.create_connection(("127.0.0.1", {port}))
try:
    raise RuntimeError("top level raised")
except RuntimeError:
    pass

with DAG("hostile", schedule="@daily", start_date=datetime(2024, 1, 1)):
    pass
""",
        )
        result = project.run()
        assert [d.dag_id for d in result.scenario.dags] == ["hostile"]
        assert not marker.exists()
        try:
            listener.accept()
            connected = True
        except BlockingIOError:
            connected = False
        assert not connected
    finally:
        listener.close()


def test_a_file_that_raises_at_top_level_is_reported_with_its_dags(project: Project) -> None:
    project.write(
        "fails.py",
        """
from datetime import datetime
from airflow.sdk import DAG

with DAG("before_raise", schedule=None, start_date=datetime(2024, 1, 1)):
    pass
raise ValueError("no")
""",
    )
    report = project.run().report
    (file,) = report.files
    assert (file.status, file.file) == ("error", "fails.py")
    assert "line 6" in (file.reason or "")
    (dag,) = report.dags
    assert (dag.dag_id, dag.status) == ("before_raise", "skipped")


def test_unreadable_files_are_reported_and_never_stop_the_rest(project: Project) -> None:
    project.write("broken.py", "from airflow import DAG\ndef (:\n")
    (project.root / "latin.py").write_bytes(b"# airflow dag\nname = '\xe9t\xe9'\n")
    big = project.root / "huge.py"
    with big.open("wb") as stream:
        stream.write(b"# airflow dag\n")
        stream.truncate(10 * 1024 * 1024)
    project.write("plain.py", "print('no airflow words here')\n")
    project.write(
        "good.py",
        "from datetime import datetime\nfrom airflow.sdk import DAG\n"
        "DAG('good', schedule=None, start_date=datetime(2024, 1, 1))\n"
        "with DAG('good2', schedule=None, start_date=datetime(2024, 1, 1)): pass\n",
    )
    result = project.run()
    files = {f.file: f for f in result.report.files}
    assert files["broken.py"].status == "error" and "SyntaxError at line 2" in str(
        files["broken.py"].reason
    )
    assert files["latin.py"].status == "error" and "not UTF-8" in str(files["latin.py"].reason)
    assert files["huge.py"].status == "skipped" and "10 MB" in str(files["huge.py"].reason)
    assert files["plain.py"].status == "skipped" and "safe mode" in str(files["plain.py"].reason)
    assert files["good.py"].status == "parsed"
    # A DAG neither assigned nor used as a context manager is not kept by DagBag.
    assert [d.dag_id for d in result.scenario.dags] == ["good2"]


def test_airflowignore_glob_by_default_and_symlinks_leaving_the_root(
    project: Project, tmp_path: Path
) -> None:
    dag = (
        "from datetime import datetime\nfrom airflow.sdk import DAG\n"
        "with DAG({!r}, schedule=None, start_date=datetime(2024, 1, 1)): pass\n"
    )
    project.write(".airflowignore", "# scratch work\nscratch_*.py\nold/\n")
    project.write("scratch_one.py", dag.format("scratch"))
    project.write("old/legacy.py", dag.format("legacy"))
    project.write("kept/fine.py", dag.format("fine"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "elsewhere.py").write_text(dag.format("elsewhere"), encoding="utf-8")
    (project.root / "link").symlink_to(outside, target_is_directory=True)
    result = project.run()
    assert [d.dag_id for d in result.scenario.dags] == ["fine"]
    files = {f.file: f for f in result.report.files}
    assert files["link"].status == "skipped" and "leaving the imported root" in str(
        files["link"].reason
    )
    assert "matched by .airflowignore" in str(files["scratch_one.py"].reason)


def test_airflowignore_regexp_when_configured(project: Project) -> None:
    from explorer.importer.project import run_import

    dag = (
        "from datetime import datetime\nfrom airflow.sdk import DAG\n"
        "with DAG({!r}, schedule=None, start_date=datetime(2024, 1, 1)): pass\n"
    )
    project.write(".airflowignore", "^tmp_.*\nsub/skip\n")
    project.write("tmp_a.py", dag.format("a"))
    project.write("sub/skip_me.py", dag.format("b"))
    project.write("sub/keep.py", dag.format("c"))
    result = run_import(
        [project.root],
        parsed_at=AT,
        task_duration=__import__("datetime").timedelta(minutes=5),
        base_dir=None,
        name=None,
        progress=None,
        cancel=None,
        ignore_syntax="regexp",
    )
    assert [d.dag_id for d in result.scenario.dags] == ["c"]


def test_unresolvable_values_are_listed_with_line_and_reason(project: Project) -> None:
    project.write(
        "dynamic.py",
        """
import os
import pendulum
from airflow.sdk import DAG, Variable

SCHEDULE = Variable.get("orders_cron")
with DAG(
    "dynamic",
    schedule=SCHEDULE,
    start_date=pendulum.today("UTC").add(days=-2),
    max_active_runs=int(os.environ["RUNS"]),
):
    pass
""",
    )
    result = project.run()
    (dag,) = result.report.dags
    assert dag.status == "partial"
    by_field = {u.field: u for u in dag.unresolved}
    assert by_field["schedule"].line == 5 and "Variable" in by_field["schedule"].reason
    assert "environment" in by_field["max_active_runs"].reason
    start = by_field["start_date"]
    assert start.parse_time and start.line == 9
    # pendulum.today("UTC").add(days=-2) at the deployment instant 2025-06-15T12:00Z
    assert result.scenario.dags[0].start_date is not None
    assert result.scenario.dags[0].start_date.text == "2025-06-13T00:00:00Z"


def test_airflow_2_forms_are_reported_with_airflow_3s_reason(project: Project) -> None:
    project.write(
        "interval.py",
        "from datetime import datetime\nfrom airflow import DAG\n"
        "with DAG('old', schedule_interval='@daily', start_date=datetime(2024, 1, 1)): pass\n",
    )
    project.write("days.py", "from airflow.utils.dates import days_ago\nfrom airflow import DAG\n")
    project.write(
        "moved.py",
        "from airflow.operators.bash_operator import BashOperator\nfrom airflow import DAG\n",
    )
    report = project.run().report
    reasons = {f.file: str(f.reason) for f in report.files}
    assert "unexpected keyword argument 'schedule_interval'" in reasons["interval.py"]
    assert "cannot import name 'days_ago'" in reasons["days.py"]
    assert "No module named 'airflow.operators.bash_operator'" in reasons["moved.py"]
    assert [(d.dag_id, d.status) for d in report.dags] == [("old", "skipped")]


def test_report_json_shape_progress_and_cancel(project: Project) -> None:
    project.write(
        "one.py",
        "from datetime import datetime\nfrom airflow.sdk import DAG\n"
        "with DAG('one', schedule='@daily', start_date=datetime(2024, 1, 1)): pass\n",
    )
    project.write("two.py", "# airflow dag\n")
    seen: list[tuple[int, int, str]] = []
    result = project.run(progress=lambda done, total, file: seen.append((done, total, file)))
    assert seen == [(1, 2, "one.py"), (2, 2, "two.py")]
    data = result.report.to_json()
    assert data["dags"] == [
        {"dag_id": "one", "file": "one.py", "line": 3, "status": "imported", "unresolved": []}
    ]
    assert {f["file"]: f["status"] for f in data["files"]} == {
        "one.py": "parsed",
        "two.py": "parsed",
    }
    assert data["task_duration"] == "PT10M"

    from explorer.importer import ImportCancelled

    calls = iter([False, True])
    try:
        project.run(cancel=lambda: next(calls))
        cancelled = False
    except ImportCancelled:
        cancelled = True
    assert cancelled


def test_reimport_keeps_layout_and_script_and_lists_changes(project: Project) -> None:
    from dataclasses import replace

    from explorer.importer import merge_reimport

    dag = (
        "from datetime import datetime\nfrom airflow.sdk import DAG\n"
        "with DAG({!r}, schedule={!r}, start_date=datetime(2024, 1, 1)): pass\n"
    )
    project.write("a.py", dag.format("kept", "@daily"))
    project.write("b.py", dag.format("gone", "@hourly"))
    first = project.run().scenario
    opened = replace(first, layout={"kept": (10.0, 20.0)})
    (project.root / "b.py").unlink()
    project.write("a.py", dag.format("kept", "0 3 * * *"))
    project.write("c.py", dag.format("new", None))
    merged = merge_reimport(opened, project.run())
    assert merged.scenario.layout == {"kept": (10.0, 20.0)}
    assert sorted(str(c) for c in merged.changes) == [
        "gone: removed",
        'kept: schedule changed from "@daily" to "0 3 * * *"',
        "new: added",
    ]


def test_a_dag_airflows_constructor_refuses_fails_its_whole_file(project: Project) -> None:
    project.write(
        "continuous.py",
        """
from datetime import datetime
from airflow.sdk import DAG
with DAG("cont", schedule="@continuous", start_date=datetime(2024, 1, 1)):
    pass
with DAG("same_file", schedule="@daily", start_date=datetime(2024, 1, 1)):
    pass
""",
    )
    project.write(
        "other.py",
        """
from datetime import datetime
from airflow.sdk import DAG
with DAG("other", schedule="@daily", start_date=datetime(2024, 1, 1)):
    pass
""",
    )
    result = project.run()
    assert [d.dag_id for d in result.scenario.dags] == ["other"]
    statuses = {d.dag_id: (d.status, str(d.reason)) for d in result.report.dags}
    assert statuses["cont"][0] == statuses["same_file"][0] == "skipped"
    assert "ContinuousTimetable requires max_active_runs <= 1" in statuses["same_file"][1]
    files = {f.file: f.status for f in result.report.files}
    assert files == {"continuous.py": "error", "other.py": "parsed"}
