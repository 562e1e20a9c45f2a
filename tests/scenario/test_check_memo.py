"""The rules check again only the DAGs an edit changed.

The GUI checks the whole scenario after every edit; a DAG the edit kept (the same
object, at the same place, with the same declared assets and Airflow options) keeps
its findings and schedule reading. Counted, never timed; and the answers are always
those of a check from scratch.
"""

from __future__ import annotations

import dataclasses

import pytest

import explorer.scenario.checks as checks
from explorer.document.edits import replace_dag
from explorer.graph.generate import synthetic_scenario
from explorer.scenario import build_engine_inputs
from explorer.scenario.build import EngineInputs
from explorer.scenario.model import Scenario


def reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    original = checks.read_schedule

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(kwargs.get("path"))
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checks, "read_schedule", counted)
    return calls


def found(scenario: Scenario) -> list[tuple[str, str]]:
    return [(e.path, e.message) for e in checks.check_scenario(scenario, source="s")]


def fresh(scenario: Scenario) -> list[tuple[str, str]]:
    """The findings of a check that remembers nothing."""
    checks._DAG_MEMO.clear()
    return found(scenario)


def test_an_edit_of_one_dag_reads_only_that_dags_schedule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = synthetic_scenario(120)
    build_engine_inputs(s)
    counted = reads(monkeypatch)
    index, dag = next((i, d) for i, d in enumerate(s.dags) if d.schedule == "@daily")
    edited = replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule="17 */3 * * *"))
    inputs = build_engine_inputs(edited)
    assert counted == [("dags", index, "schedule")]
    checks._DAG_MEMO.clear()
    scratch = build_engine_inputs(edited)  # what a check from scratch builds

    def specs(i: EngineInputs) -> list[tuple[object, ...]]:
        return [
            (d.dag_id, type(d.timetable), d.timetable.description, d.catchup, d.tasks)
            for d in i.dags
        ]

    assert specs(inputs) == specs(scratch) and inputs.warnings == scratch.warnings


def test_a_kept_dag_keeps_its_findings_at_its_place() -> None:
    s = synthetic_scenario(120)
    broken = dataclasses.replace(s.dags[3], schedule="61 * * * *")
    bad = dataclasses.replace(s, dags=(*s.dags[:3], broken, *s.dags[4:]))
    first = checks.check_scenario(bad, source="s")
    assert [e.path for e in first] == ["$.dags[3].schedule"]
    other = dataclasses.replace(s.dags[5], catchup=not s.dags[5].catchup)
    edited = dataclasses.replace(bad, dags=(*bad.dags[:5], other, *bad.dags[6:]))
    assert found(edited) == fresh(edited)
    moved = dataclasses.replace(bad, dags=(bad.dags[0], *bad.dags[2:], bad.dags[1]))
    checks.check_scenario(bad, source="s")
    assert [e.path for e in checks.check_scenario(moved, source="s")] == ["$.dags[2].schedule"]


def test_other_declared_assets_check_every_dag_again(monkeypatch: pytest.MonkeyPatch) -> None:
    s = synthetic_scenario(120)
    checks.check_scenario(s, source="s")
    counted = reads(monkeypatch)
    edited = dataclasses.replace(s, assets=tuple(s.assets))  # equal, but another object
    assert found(edited) == fresh(edited)
    assert len(counted) >= len(s.dags) - 1
