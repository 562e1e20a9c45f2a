"""``explorer simulate --format csv``, run as a user runs it, prints byte for byte what the
object path printed (``csv.DictWriter`` over ``record.run_row`` of every run): on
generated deployments (six zones, asset consumers, hourly partitioned producers with
daily rollups, runs still queued or running at the horizon) and on bundled examples
with manual runs, backfills, partitions and DST."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.gen_deployment import generate
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from tests.cli.test_cli import ROOT, explorer
from tests.engine.test_run_table import reference_csv

EXAMPLES = ROOT / "resources" / "scenarios"


def _reference(path: Path) -> str:
    inputs = build_engine_inputs(load_scenario(path), source=str(path))
    assert inputs.until is not None
    sim = make_simulation(inputs)
    sim.advance_to(inputs.until)
    sim.finish()
    return reference_csv(sim.runs)


@pytest.mark.parametrize("seed", [20240301, 7])
def test_a_generated_deployment_prints_the_same_csv(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "deployment.json"
    path.write_text(json.dumps(generate(60, 3, seed)), encoding="utf-8")
    result = explorer("simulate", str(path), "--format", "csv")
    assert result.returncode == 0, result.stderr
    expected = _reference(path)
    assert expected.count("\n") > 500
    assert ",running\n" in expected or ",queued\n" in expected  # live runs at the horizon
    assert result.stdout == expected


@pytest.mark.parametrize(
    "name",
    [
        "ny_dst_spring_forward",
        "runtime_partitioned_export",
        "segment_rollup_regions",
        "change_dag_removed_and_readded",
        "hourly_to_daily_rollup",
    ],
)
def test_an_example_prints_the_same_csv(name: str) -> None:
    path = EXAMPLES / f"{name}.json"
    result = explorer("simulate", str(path), "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert result.stdout == _reference(path)
