"""The columnar run table (``explorer.engine.run_table``) says byte for byte what the
object path said: ``csv.DictWriter`` over ``record.run_row`` of every run, read back
through the run log.

* logs drawn at random (hypothesis): packed and live runs, every run type and state,
  run_ids of the formula and their own (commas, quotes, line breaks), partitions,
  microsecond instants, non-UTC live runs, cut into random chunks and blocks;
* every bundled example scenario, simulated as ``explorer simulate`` does;
* the random scenarios of ``test_random_scenarios`` (DST zones, manual runs with and
  without logical dates, failures, runs still queued or running at the horizon);
* the instant text against ``tz.iso`` over the whole range of ``datetime``.
"""

from __future__ import annotations

import csv
import io
import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.engine.record import RUN_FIELDS, run_row
from explorer.engine.run_table import RowBlock, _bare_iso, log_blocks, run_rows, write_csv
from explorer.engine.runlog import RunLog
from explorer.engine.runs import DagRun, TaskInstance, standard_run_id
from explorer.engine.simulation import Simulation
from explorer.engine.types import DataInterval
from explorer.engine.tz import EPOCH, ONE_US, iso
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation
from tests.engine import test_random_scenarios as random_scenarios
from tests.engine.test_backfill import NOW, reprocess_setup
from tests.engine.test_runlog import EXAMPLES, T0, TRIGGERED_BY


def reference_csv(log: RunLog) -> str:
    """What ``explorer simulate --format csv`` wrote before the columnar writer."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(RUN_FIELDS), lineterminator="\n")
    writer.writeheader()
    for run in log:
        writer.writerow(run_row(run))
    return out.getvalue()


def columnar_csv(log: RunLog, blocks: list[RowBlock] | None = None, chunk: int = 32_768) -> str:
    out = io.StringIO()
    write_csv(log, out, blocks, chunk=chunk)
    return out.getvalue()


def split_blocks(log: RunLog, cuts: list[int]) -> list[RowBlock]:
    """The log's one block cut at ``cuts`` (rows), each piece a copy: what a log that
    hands its rows out in several blocks (a spilled log) would give."""
    (whole,) = log_blocks(log)
    rows = len(whole.codes)
    edges = sorted({0, rows, *(c for c in cuts if 0 < c < rows)})
    times = np.frombuffer(whole.times, dtype=np.int64).reshape(-1, 7)
    return [
        RowBlock(
            lo,
            np.frombuffer(whole.dag, dtype=np.uint32)[lo:hi].copy(),
            list(whole.dag_names),
            bytes(whole.codes[lo:hi]),
            times[lo:hi].copy(),
            np.frombuffer(whole.nth, dtype=np.uint32)[lo:hi].copy(),
        )
        for lo, hi in itertools.pairwise(edges)
    ]


# ---------------------------------------------------------------------- random logs
instants = st.integers(0, 10**7).map(lambda s: T0 + timedelta(seconds=s, microseconds=s % 3))
awkward_text = st.sampled_from(
    ["plain", "a,b", 'say "hi"', "two\nlines", "cr\rlf", "", "ünï €", " lead", "x|y"]
)


@st.composite
def runs(draw: st.DrawFn, nth: int) -> tuple[DagRun, bool, bool]:
    """A run, whether its run_id is the formula's, and whether the log may pack it."""
    run_type = draw(st.sampled_from(list(TRIGGERED_BY)))
    dag_id = draw(st.sampled_from(["etl", "reports.daily", "a,b", 'q"d']))
    run_after = draw(instants)
    interval = None
    if run_type != "asset_triggered" or draw(st.booleans()):
        start = draw(instants)
        interval = DataInterval(start, start + timedelta(hours=draw(st.integers(0, 30))))
    own = draw(st.booleans())
    run_id = standard_run_id(run_type, run_after, dag_id, nth)
    if own:
        run_id = draw(st.sampled_from([f"{run_id}__{nth}", "my run, 1", 'id "q"', "x\ny"]))
    state = draw(st.sampled_from(["success", "failed", "success", "queued", "running"]))
    ended = state in ("success", "failed")
    created_at = run_after + timedelta(seconds=draw(st.integers(0, 90)))
    run = DagRun(
        dag_id=dag_id,
        nth=nth,
        run_id=run_id,
        run_type=run_type,
        triggered_by=TRIGGERED_BY[run_type],  # type: ignore[arg-type]
        logical_date=interval.start if interval is not None else draw(st.none() | instants),
        data_interval=interval,
        run_after=run_after,
        created_at=created_at,
        state=state,
        start_date=None if state == "queued" else created_at + timedelta(microseconds=7),
        end_date=created_at + timedelta(minutes=draw(st.integers(1, 500))) if ended else None,
    )
    if draw(st.booleans()):
        run.partition_key = draw(awkward_text)
        run.partition_date = draw(st.none() | instants)
    if ended and run.start_date is not None and draw(st.booleans()):
        run.tasks = [
            TaskInstance(
                "t",
                "success",
                state="success",
                start_date=run.start_date,
                finish_at=run.end_date,
                end_date=run.end_date,
            )
        ]
    if draw(st.integers(0, 9)) == 0:  # an instant in a zone: the log keeps it live
        run.created_at = run.created_at.astimezone(ZoneInfo("America/New_York"))
    return run, not own, ended and draw(st.integers(0, 5)) > 0


@st.composite
def logs(draw: st.DrawFn) -> RunLog:
    log = RunLog()
    count = draw(st.integers(0, 40))
    held = []
    for nth in range(count):
        run, derived, pack = draw(runs(nth))
        log.append(run, derived_run_id=derived)
        if pack:
            if draw(st.booleans()):  # packed out of id order, as runs end
                held.append(run)
            else:
                log.freeze(run)
    for run in draw(st.permutations(held)):
        log.freeze(run)
    return log


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs(), st.integers(1, 50), st.lists(st.integers(0, 40), max_size=4))
def test_a_random_log_reads_the_same_in_any_chunks_and_blocks(
    log: RunLog, chunk: int, cuts: list[int]
) -> None:
    expected = reference_csv(log)
    assert columnar_csv(log, chunk=chunk) == expected
    assert columnar_csv(log, split_blocks(log, cuts), chunk=chunk) == expected
    rows = [row for table in run_rows(log, chunk=chunk) for row in table]
    assert rows == [list(run_row(run).values()) for run in log]


def test_a_log_with_awkward_run_ids_and_keys_is_quoted_as_the_csv_module_quotes() -> None:
    log = RunLog()
    for nth, (run_id, key) in enumerate(
        [("plain", None), ("a,b", "k"), ('say "hi"', 'p,"q"'), ("two\nlines", "x\ry")]
    ):
        run = DagRun(
            "d",
            nth,
            run_id,
            "manual",
            "rest_api",
            T0,
            DataInterval(T0, T0),
            T0,
            T0,
            key,
            None,
            "success",
            T0,
            T0 + timedelta(seconds=1),
        )
        log.append(run)
        assert log.freeze(run)
    text = columnar_csv(log, chunk=1)
    assert text == reference_csv(log)
    assert ',"two\nlines",manual,' in text and ',"p,""q""",' in text
    # the csv module leaves a lone carriage return unquoted (its line end is "\n"): so do we
    assert ",x\ry," in text


def test_a_row_outside_every_block_is_refused() -> None:
    log = RunLog()
    for nth in range(2):
        run = DagRun("d", nth, "x", "scheduled", "timetable", T0, None, T0, T0, state="success")
        log.append(run)
        assert log.freeze(run)
    (whole,) = split_blocks(log, [])
    for blocks in ([RowBlock(1, *_fields(whole, 1))], [RowBlock(0, *_fields(whole, 1))]):
        with pytest.raises(IndexError, match="outside the log's blocks"):
            columnar_csv(log, blocks)


def _fields(block: RowBlock, rows: int) -> tuple[Any, ...]:
    """The first ``rows`` rows of ``block``'s columns."""
    return (
        block.dag[:rows],
        block.dag_names,
        block.codes[:rows],
        block.times[:rows],
        block.nth[:rows],
    )


# ---------------------------------------------------------------------- instant text
@settings(max_examples=500, deadline=None)
@given(st.lists(st.datetimes(timezones=st.just(UTC)), min_size=1, max_size=20))
def test_instant_text_is_isoformat_of_every_representable_instant(
    values: list[datetime],
) -> None:
    micros = np.array([(v - EPOCH) // ONE_US for v in values], dtype=np.int64)
    assert [f"{text}Z" for text in _bare_iso(micros).tolist()] == [iso(v) for v in values]


# ---------------------------------------------------------------------- simulations
def _simulated(path: Path) -> Simulation:
    inputs = build_engine_inputs(load_scenario(path), source=str(path))
    sim = make_simulation(inputs)
    assert inputs.until is not None
    sim.advance_to(inputs.until)
    sim.finish()
    return sim


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_every_example_scenario_reads_the_same(path: Path) -> None:
    sim = _simulated(path)
    expected = reference_csv(sim.runs)
    assert expected.count("\n") == len(sim.runs) + 1 > 1
    assert columnar_csv(sim.runs) == expected
    packed_rows = len(log_blocks(sim.runs)[0].codes)
    assert columnar_csv(sim.runs, split_blocks(sim.runs, [packed_rows // 3]), chunk=17) == (
        expected
    )


@random_scenarios.scenario_settings(60)
@given(random_scenarios.scenarios(), st.integers(1, 64))
def test_random_scenarios_read_the_same(scenario: Any, chunk: int) -> None:
    sim = random_scenarios.play(scenario)
    assert columnar_csv(sim.runs, chunk=chunk) == reference_csv(sim.runs)


@pytest.mark.parametrize("behavior", ["none", "failed", "completed"])
def test_backfills_read_the_same(behavior: str) -> None:
    """Backfill runs, and runs a backfill cleared (thawed: live again, with a history)."""
    sim = reprocess_setup(behavior)
    sim.advance_to(NOW + timedelta(days=2))
    expected = reference_csv(sim.runs)
    assert ",backfill," in expected
    assert columnar_csv(sim.runs) == expected
    assert columnar_csv(sim.runs, chunk=2) == expected
