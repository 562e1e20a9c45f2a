"""The engine inputs are built again only for the DAGs an edit changed.

The GUI builds the whole scenario after every edit; a DAG the edit kept (the same
object at the same place, with the same schedule reading, declared assets and Airflow
options) keeps its engine file and its warnings. Counted, never timed; the inputs are
always those of a build from scratch.
"""

from __future__ import annotations

import dataclasses

import pytest

import explorer.scenario.build as build
import explorer.scenario.checks as checks
from explorer.document.edits import replace_dag
from explorer.graph.generate import synthetic_scenario
from explorer.scenario import build_engine_inputs
from explorer.scenario.build import EngineInputs
from explorer.scenario.model import Scenario


def converted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The dag_id of every DAG converted to the engine's spec from now on."""
    calls: list[str] = []
    original = build._Builder.dag_spec

    def counted(self: build._Builder, dag: object, *args: object) -> object:
        calls.append(dag.dag_id)  # type: ignore[attr-defined]
        return original(self, dag, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(build._Builder, "dag_spec", counted)
    return calls


def scratch(scenario: Scenario) -> EngineInputs:
    """What a build that remembers nothing makes."""
    checks._DAG_MEMO.clear()
    build._FILE_MEMO.clear()
    return build_engine_inputs(scenario)


def shown(inputs: EngineInputs) -> list[tuple[object, ...]]:
    return [
        (
            f.spec.dag_id,
            type(f.spec.timetable),
            f.spec.timetable.description,
            f.spec.catchup,
            f.spec.max_active_runs,
            f.spec.tasks,
            f.schedule,
            f.catchup,
            f.max_active_runs,
        )
        for f in inputs.files
    ]


def test_an_edit_of_one_dag_converts_only_that_dag(monkeypatch: pytest.MonkeyPatch) -> None:
    s = synthetic_scenario(120)
    before = build_engine_inputs(s)
    counted = converted(monkeypatch)
    dag = next(d for d in s.dags if d.schedule == "@daily")
    edited = replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule="17 */3 * * *"))
    inputs = build_engine_inputs(edited)
    assert counted == [dag.dag_id]
    kept = [a is b for a, b in zip(before.files, inputs.files, strict=True)]
    assert kept.count(False) == 1
    fresh = scratch(edited)
    assert shown(inputs) == shown(fresh) and inputs.warnings == fresh.warnings


def test_other_options_or_assets_convert_every_dag_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = synthetic_scenario(120)
    build_engine_inputs(s)
    counted = converted(monkeypatch)
    config = dataclasses.replace(s.airflow_config, catchup_by_default=True)
    edited = dataclasses.replace(s, airflow_config=config)
    inputs = build_engine_inputs(edited)
    assert len(counted) == len(s.dags)
    assert shown(inputs) == shown(scratch(edited))
    counted.clear()
    again = dataclasses.replace(edited, assets=tuple(list(edited.assets)))  # equal, not the same
    build_engine_inputs(again)
    assert len(counted) == len(s.dags)


def test_a_kept_dag_keeps_its_warnings_at_its_place() -> None:
    s = synthetic_scenario(120)
    build_engine_inputs(s)
    moved = dataclasses.replace(s, dags=(s.dags[0], *s.dags[2:], s.dags[1]))
    inputs = build_engine_inputs(moved)
    fresh = scratch(moved)
    assert shown(inputs) == shown(fresh) and inputs.warnings == fresh.warnings


def test_an_edit_of_one_dag_walks_only_that_dags_asset_nodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The builder's asset warnings walk every asset node of the scenario (twice): a kept
    DAG's nodes are remembered, and the warnings are those of a walk from scratch."""
    import explorer.scenario.assets as assets

    s = synthetic_scenario(120)
    build_engine_inputs(s)
    walked: list[str] = []
    original = assets._dag_places

    def counted(dag: object, d: int) -> object:
        walked.append(dag.dag_id)  # type: ignore[attr-defined]
        return original(dag, d)  # type: ignore[arg-type]

    monkeypatch.setattr(assets, "_dag_places", counted)
    dag = next(d for d in s.dags if d.schedule == "@daily")
    edited = replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule="17 */3 * * *"))
    inputs = build_engine_inputs(edited)
    assert walked == [dag.dag_id]
    assets._PLACES.clear()
    fresh = scratch(edited)
    assert inputs.warnings == fresh.warnings
    assert list(assets.asset_places(edited)) == list(assets.asset_places(s))  # (no asset moved)
