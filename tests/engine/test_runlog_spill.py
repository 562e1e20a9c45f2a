"""The run log's spill (adr/0006): old packed rows go to a scratch file, readers see no change.

* a log spilling every few rows reads back every run, instant, state and partition
  key equal to a log that keeps everything, whatever mix of packed, live and thawed
  runs (hypothesis), and hands out the same columns (whole or a block at a time);
* the resident columns stay bounded by two blocks however many runs are packed;
* a copy of a spilled log (a checkpoint) reads the same runs and stays independent;
* random scenarios (cap-binding ones included) and the conformance
  scheduler traces give identical records with a tiny spill and with none;
* ``explorer simulate --spill-rows`` prints the same CSV as without spilling.
"""

from __future__ import annotations

import copy
import gc
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.run_table import LogBlocks, write_csv
from explorer.engine.runlog import PackedColumns, RunLog
from explorer.engine.runs import DagRun
from explorer.engine.simulation import Simulation
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from tests.cli.test_cli import explorer
from tests.engine.strategies import SPAN, START, Scenario, scenarios, simulate
from tests.engine.test_random_scenarios import scenario_settings
from tests.engine.test_runlog import _run, finished_runs

ROOT = Path(__file__).resolve().parents[2]
INSTANTS = ("logical_date", "run_after", "created_at", "start_date", "end_date")


def _fill(log: RunLog, runs: list[DagRun], actions: list[int]) -> None:
    """Append every run; pack it (0), leave it live (1), or pack, thaw and pack it
    again later (2)."""
    thawed = []
    for run, what in zip(runs, actions, strict=True):
        log.append(run, derived_run_id=not run.run_id.endswith("__custom"))
        if what != 1:
            assert log.freeze(run)
        if what == 2:
            thawed.append(run)
    for run in thawed:  # after more rows and ids have gone to the file
        log.thaw(run)
        run.state = "failed" if run.state == "success" else "success"
        assert log.freeze(run)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(finished_runs(), st.integers(0, 2)), min_size=1, max_size=40))
def test_a_spilling_log_reads_like_one_that_keeps_everything(
    drawn: list[tuple[DagRun, int]],
) -> None:
    runs = [run for run, _ in drawn]
    actions = [what for _, what in drawn]
    kept, spilled = RunLog(), RunLog(spill_rows=3)
    _fill(kept, copy.deepcopy(runs), actions)
    _fill(spilled, runs, actions)
    del runs, drawn
    gc.collect()
    n = len(kept)
    assert len(spilled) == n and spilled.packed == kept.packed
    if kept.packed >= 6:
        assert spilled.spilled_rows > 0
    assert list(spilled) == list(kept)
    assert [spilled.get(i) for i in reversed(range(n))] == [kept.get(i) for i in range(n)][::-1]
    assert [spilled.state(i) for i in range(n)] == [kept.state(i) for i in range(n)]
    assert [spilled.partition_key(i) for i in range(n)] == [kept.partition_key(i) for i in range(n)]
    for name in INSTANTS:
        assert list(spilled.instants(name)) == list(kept.instants(name))
        assert list(spilled.instants(name, "backfill")) == list(kept.instants(name, "backfill"))
    whole, expected = spilled.columns(), kept.columns()
    assert whole == expected  # every row, read back from the file
    rows = [row for _, block in spilled.column_blocks() for row in block.codes]
    assert bytes(rows) == bytes(expected.codes)
    firsts = [first for first, _ in spilled.column_blocks()]
    assert firsts == sorted(firsts) and firsts[0] == 0
    ids = [row for _, block in spilled.id_row_blocks() for row in block]
    assert ids == list(expected.row)


def _packed(log: RunLog, nths: range, **fields: Any) -> None:
    """Runs ``nths`` appended to ``log`` and packed at once."""
    for nth in nths:
        run = _run(nth, **fields)
        log.append(run)
        log.freeze(run)


def test_resident_columns_stay_within_two_blocks() -> None:
    log = RunLog(spill_rows=16)
    for nth in range(1000):
        _packed(log, range(nth, nth + 1))
        assert len(log._nth) < 32 and len(log._row) < 32 and len(log._task_codes) < 64
    assert log.spilled_rows >= 1000 - 32
    gc.collect()
    assert log[5] == _run(5, id=5) and log[999] == _run(999, id=999)


def test_a_copy_of_a_spilled_log_reads_the_same_and_is_independent() -> None:
    log = RunLog(spill_rows=4)
    _packed(log, range(30))
    twin = copy.deepcopy(log)
    _packed(log, range(30, 60), state="success")  # both go on spilling into the one file
    _packed(twin, range(30, 60), state="failed")
    gc.collect()
    assert [r.state for r in log] == ["success"] * 60
    assert [r.state for r in twin] == ["success"] * 30 + ["failed"] * 30
    assert list(twin)[:30] == list(log)[:30]


# ---------------------------------------------------------------------- whole simulations
def _record(scenario: Scenario, spill_rows: int) -> tuple[str, int, int]:
    sim, record = simulate(scenario, spill_rows=spill_rows)
    return record, sim.runs.packed, sim.runs.spilled_rows


@scenario_settings(40)
@given(scenarios())
def test_random_scenarios_give_the_same_record_spilled_or_not(scenario: Scenario) -> None:
    kept, _, none = _record(scenario, 0)
    spilled, packed, count = _record(scenario, 2)
    assert none == 0
    assert spilled == kept
    assert packed < 4 or count > 0


def _traces() -> list[dict[str, Any]]:
    path = ROOT / "tests" / "data" / "conformance" / "scheduler_traces.json"
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return cases


@pytest.mark.parametrize("case", _traces(), ids=lambda c: c["id"])
def test_scheduler_traces_are_the_same_spilled(
    case: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conformance.traces import build, last_instant, trace

    final = last_instant(case)
    spilling = {**(Simulation.__init__.__kwdefaults__ or {}), "spill_rows": 2}
    monkeypatch.setattr(Simulation.__init__, "__kwdefaults__", spilling)
    sim = build(case)
    sim.advance_to(final)
    got = trace(sim, final)
    monkeypatch.undo()
    assert got["runs"] == case["trace"]["runs"]
    assert got["asset_events"] == case["trace"]["asset_events"]
    assert got["at_end"] == case["trace"]["at_end"]
    assert sim.runs.packed < 4 or sim.runs.spilled_rows > 0  # two blocks of 2: one went


def test_cli_csv_is_the_same_with_a_tiny_spill() -> None:
    scenario = ROOT / "resources" / "scenarios" / "ny_dst_spring_forward.json"

    def csv(*extra: str) -> str:
        done = explorer(
            "simulate", str(scenario), "--format", "csv", "--until", "2024-03-20T00:00Z", *extra
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    kept, spilled = csv("--spill-rows", "0"), csv("--spill-rows", "2")
    assert kept.count("\n") > 10
    assert spilled == kept


def test_a_back_snapshot_of_a_spilling_log_is_refused_not_misapplied() -> None:
    """Back truncates a log's columns in place: once a log has spilled their heads the
    snapshot says it is not valid (the GUI then replays from a checkpoint)."""
    from tests.engine.strategies import daily

    dags = [daily(f"d{i}") for i in range(3)]
    kept = Simulation(dags, start=START)
    spilling = Simulation(dags, start=START, spill_rows=2)
    for sim in (kept, spilling):
        sim.advance_to(START + SPAN / 4)
    before = (kept.back_snapshot(), spilling.back_snapshot())
    for sim in (kept, spilling):
        sim.advance_to(START + SPAN / 2)
    assert spilling.runs.spilled_rows > 0
    assert before[0].valid() and not before[1].valid()


def test_the_csv_writer_reads_a_spilled_log_a_block_at_a_time() -> None:
    """``explorer simulate --format csv`` (run_table) over a spilled log: the same text as
    over a log that keeps everything, reading each spilled block back a bounded number of
    times and never the whole log at once (``columns()`` would rebuild every row)."""
    path = ROOT / "resources" / "scenarios" / "ny_dst_spring_forward.json"
    texts = []
    for spill_rows in (0, 8):
        inputs = build_engine_inputs(load_scenario(path), source=str(path))
        sim = make_simulation(inputs, spill_rows=spill_rows)
        sim.advance_to(datetime(2024, 3, 20, tzinfo=UTC))
        log = sim.runs
        blocks = LogBlocks(log)
        read_before = log.blocks_read
        rebuilt: list[int] = []
        whole = log.columns

        def counted(
            rebuilt: list[int] = rebuilt, whole: Callable[[], PackedColumns] = whole
        ) -> PackedColumns:
            rebuilt.append(1)
            return whole()

        log.columns = counted  # type: ignore[method-assign]
        out = io.StringIO()
        write_csv(log, out, blocks, chunk=16)
        assert rebuilt == []
        if spill_rows:
            spilled = len(blocks) - 1
            assert spilled >= 3
            # runs end about in creation order: a chunk of ids lies in one or two blocks
            assert log.blocks_read - read_before <= 2 * spilled
        texts.append(out.getvalue())
    assert texts[0].count("\n") > 30
    assert texts[1] == texts[0]
