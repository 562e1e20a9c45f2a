"""DAG folders from strangers: nothing leaks through str.format, every file's reading is
bounded by counted work, special files and link loops are reported per file, and Python's
own source encodings are honoured."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest

from explorer.importer import ImportResult
from explorer.importer.discover import IgnoreTooComplex
from explorer.importer.project import run_import
from tests.importer.conftest import AT, Project

SECRET = "SCHEDULE_EXPLORER_IMPORT_SECRET"

HEADER = "from airflow.sdk import DAG\nfrom dateutil.relativedelta import relativedelta\n"


def _dag_with(expression: str, dag_id: str = "d") -> str:
    return HEADER + f"with DAG({dag_id!r}, schedule='@daily', tags=[{expression}]):\n    pass\n"


LEAKS = [
    '"{0.__init__.__globals__[calendar].sys.modules[os].environ[SECRET]}"'
    ".format(relativedelta(days=1))".replace("SECRET", SECRET),
    '"{0.__class__.__init__.__globals__}".format(relativedelta(days=1))',
    '"{x.__init__.__globals__[sys].path}".format(x=relativedelta(days=1))',
    '"{x.__init__.__globals__[__builtins__]}".format_map({"x": relativedelta(days=1)})',
    '"{0.year.__class__}".format(relativedelta(years=1))',
    '"{0[__class__]}".format({"__class__": 1})',
    '"{:{0.__init__.__globals__}}".format(relativedelta(days=1))',
]


@pytest.mark.parametrize("expression", LEAKS)
def test_str_format_never_follows_attributes(
    project: Project, expression: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET, "hunter2")
    project.write("leak.py", _dag_with(expression))
    result = project.run()
    (dag,) = result.report.dags
    assert "hunter2" not in repr(result.scenario) and "hunter2" not in repr(result.report)
    assert "sys.path" not in repr(result.scenario)
    assert any("not read statically" in u.reason for u in dag.unresolved), dag


def test_plain_formatting_still_reads(project: Project) -> None:
    project.write("ok.py", _dag_with('"{0}-{x}-{1[k]}".format("a", {"k": "b"}, x=3)'))
    assert project.dags()["d"]["tags"] == ["a-3-b"]


HEAVY = [
    "x = 3\nfor _ in range(36):\n    x = x * x\n",
    "x = sum([[0] * 999999] * 999999, [])\n",
    'x = "{:>8000000000}".format(1)\n',
    'x = ",".join(["x" * 999999] * 999)\n',
    'x = ("x" * 999999).replace("x", "yy")\n',
    "x = [0] * 10**9\n",
    "x = 2 ** 10**9\n",
    "x = 0\nfor i in range(10**6):\n    for j in range(10**6):\n        x += 1\n",
    "r = sorted(list(range(999999)))\nfor i in range(400):\n    x = sorted(r)\n",
]


@pytest.mark.parametrize("prelude", HEAVY)
def test_a_file_that_computes_too_much_is_reported_and_the_rest_imported(
    project: Project, prelude: str
) -> None:
    project.write("heavy.py", HEADER + prelude + _dag_with("str(x)", "heavy").split("\n", 2)[2])
    project.write("fine.py", _dag_with("'x'", "fine"))
    result = project.run()
    heavy = next(d for d in result.report.dags if d.dag_id in ("heavy", "?"))
    reasons = [heavy.reason or ""] + [u.reason for u in heavy.unresolved]
    assert any("too much work" in r or "too large" in r for r in reasons), reasons
    assert "fine" in {d.dag_id for d in result.scenario.dags}
    for dag in result.scenario.dags:
        assert dag.dag_id == "fine" or not dag.tags


def test_the_budget_gives_the_same_answer_every_time(project: Project) -> None:
    project.write("heavy.py", HEADER + HEAVY[7] + _dag_with("str(x)", "heavy").split("\n", 2)[2])
    first, second = project.run().report.to_json(), project.run().report.to_json()
    assert first == second


def test_special_files_and_link_loops_are_reported_one_by_one(project: Project) -> None:
    root = project.root
    os.mkfifo(root / "pipe_dag.py")
    (root / "self.py").symlink_to("self.py")
    (root / "a.py").symlink_to("b.py")
    (root / "b.py").symlink_to("a.py")
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("..")
    project.write("sub/real.py", _dag_with("'x'", "real"))
    result = project.run()
    files = {f.file: f for f in result.report.files}
    assert "named pipe" in str(files["pipe_dag.py"].reason)
    assert "loop" in str(files["self.py"].reason)
    assert "loop" in str(files["a.py"].reason) and "loop" in str(files["b.py"].reason)
    assert "read once" in str(files["sub/up"].reason)
    assert [d.dag_id for d in result.scenario.dags] == ["real"]  # read once, not twice


def test_a_bom_and_a_coding_line_are_read_as_python_reads_them(project: Project) -> None:
    (project.root / "bom.py").write_bytes(b"\xef\xbb\xbf" + _dag_with("'x'", "bom").encode())
    (project.root / "latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\n" + _dag_with("'caf\xe9'", "latin").encode("latin-1")
    )
    dags = project.dags()
    assert set(dags) == {"bom", "latin"}
    assert dags["latin"]["tags"] == ["caf\u00e9"]


def test_catastrophic_glob_ignore_patterns_match_in_linear_time(project: Project) -> None:
    project.write(".airflowignore", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n")
    project.write("a" * 200 + ".py", _dag_with("'x'", "long"))
    assert set(project.dags()) == {"long"}


def test_regexp_ignore_patterns_keep_python_semantics_in_linear_time(tmp_path: Path) -> None:
    root = tmp_path / "dags"
    root.mkdir()
    (root / ".airflowignore").write_text("(a+)+$\n^skip_\n")
    deep = root.joinpath(*["a" * 199 + "b"] * 15)  # long runs of a: Python would backtrack
    deep.mkdir(parents=True)
    (deep / "ab.py").write_text(_dag_with("'x'", "long"))
    (root / "skip_me.py").write_text(_dag_with("'x'", "skipped"))
    result = _import_with_regexp_ignores(root)
    assert [d.dag_id for d in result.scenario.dags] == ["long"]


def test_a_regexp_only_python_can_answer_out_of_bounds_stops_the_import(tmp_path: Path) -> None:
    root = tmp_path / "dags"
    root.mkdir()
    (root / ".airflowignore").write_text("(\\w+)+$\n")
    (root / "caf\u00e9_dag.py").write_text(_dag_with("'x'", "cafe"))
    with pytest.raises(IgnoreTooComplex, match=r"\(\\\\w\+\)\+\$"):
        _import_with_regexp_ignores(root)


def _import_with_regexp_ignores(root: Path) -> ImportResult:
    """``root`` imported with ``[core] dag_ignore_file_syntax = regexp``."""
    return run_import(
        [root],
        parsed_at=AT,
        task_duration=timedelta(minutes=10),
        base_dir=root.parent,
        name=None,
        progress=None,
        cancel=None,
        ignore_syntax="regexp",
    )
