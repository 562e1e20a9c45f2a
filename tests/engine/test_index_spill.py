"""What grows with the runs spills with the run log (adr/0006); readers see no change.

A spilling run log's :class:`SpillPool` also takes the old entries of every index
that grows by a few bytes a run: each DAG's run ids (``DagRuns``), logical dates
(``LogicalDates``) and asset run_afters (``AssetRunAfters``), the asset events'
columns (``EventLog``) and their per-asset and per-alias indexes (``EventIndex``).

* a :class:`SpillArray` with two-entry chunks answers every read (index, slice,
  iteration both ways, bisection, cuts, copies) like a plain list (hypothesis);
* logical dates and asset run_afters added in any order (an old date among the
  spilled ones: SCH-9) are found exactly as a dict and a sorted list find them;
* an asset store spilling every few events reads back every event, index, window
  (AS-5's ``floor < t <= upto``), latest event and queue-row event equal to one that
  keeps everything, and so do its copies;
* whatever is appended, the resident part of each index stays within two chunks;
* the alerts' one-pass reader of a spilled log (``RunLog.instants_by_dag``) gives
  each DAG's instants as its own view reads them, thawed runs included.

Whole simulations (random scenarios, every scheduler trace, the CLI's CSV) with a
two-row spill are compared with unspilled ones in ``test_runlog_spill.py``: their
records include every asset event and every run's consumed events.
"""

from __future__ import annotations

import copy
import gc
from bisect import bisect_left, bisect_right, insort
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.store import AssetEvent, AssetStore, EventSource
from explorer.engine.dagstate import AssetRunAfters, LogicalDates
from explorer.engine.runlog import DagRuns, RunLog
from explorer.engine.runs import DagRun
from explorer.engine.runspill import SpillArray, SpillPool
from explorer.engine.tz import epoch_us
from tests.engine.test_runlog import _run, finished_runs
from tests.engine.test_runlog_spill import _fill

T0 = datetime(2024, 3, 1, tzinfo=UTC)
KEYS = [AssetKey(f"a{i}", f"s3://lake/a{i}") for i in range(3)]

# ---------------------------------------------------------------------- SpillArray
steps = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 5)),  # a step up from the last value
        st.tuples(st.just("insert"), st.integers(-50, 400)),  # anywhere (sorted)
        st.tuples(st.just("cut"), st.integers(0, 6)),  # drop up to that many at the end
        st.tuples(st.just("copy"), st.just(0)),
    ),
    max_size=120,
)


@settings(max_examples=200, deadline=None)
@given(steps, st.lists(st.integers(-60, 420), max_size=12))
def test_a_spill_array_reads_like_a_list(drawn: list[tuple[str, int]], probes: list[int]) -> None:
    pool = SpillPool(2)
    array, mirror = SpillArray("q", pool), []
    copies: list[tuple[SpillArray, list[int]]] = []
    for op, value in drawn:
        if op == "append":
            value += mirror[-1] if mirror else 0
            array.append(value)
            mirror.append(value)
        elif op == "insert":
            index = bisect_right(mirror, value)
            if array.insert_at(index, value):
                mirror.insert(index, value)
            else:  # only the spilled chunks refuse, and they never change
                assert index < array.start
        elif op == "cut":
            count = max(array.start, len(mirror) - value)
            del array[count:]
            del mirror[count:]
        else:
            copies.append((array.copy(), list(mirror)))
        assert len(array) == len(mirror) and len(array.head) < 4
    gc.collect()
    for kept, expected in [*copies, (array, mirror)]:
        assert list(kept) == expected and list(reversed(kept)) == expected[::-1]
        assert [kept[i] for i in range(-len(expected), len(expected))] == expected * 2
        for lo in range(len(expected) + 1):
            assert kept.take(lo, len(expected)) == expected[lo:]
            assert kept.take(0, lo) == expected[:lo]
        for probe in probes:
            assert kept.bisect_left(probe) == bisect_left(expected, probe)
            assert kept.bisect_right(probe) == bisect_right(expected, probe)
    if len(mirror) >= 4:
        assert array.start > 0  # it did spill


# ---------------------------------------------------------------------- per-DAG indexes
dates = st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 500)), max_size=80)


def _at(us: int) -> datetime:
    return T0 + timedelta(microseconds=us)


@settings(max_examples=150, deadline=None)
@given(dates, st.integers(-10, 600), st.integers(0, 600))
def test_logical_dates_and_run_afters_find_every_entry_spilled_or_not(
    drawn: list[tuple[int, bool, int]], first: int, length: int
) -> None:
    """Mostly the next date (a step of 0-3: equal dates are refused, SCH-9), sometimes
    any earlier one (a trigger naming an old logical date)."""
    pool = SpillPool(2)
    spilled, kept, truth = LogicalDates(pool), LogicalDates(), dict[int, int]()
    afters, after_truth = AssetRunAfters(pool), list[int]()
    latest = 0
    for nth, (step, old, back) in enumerate(drawn):
        us = max(0, latest - back) if old else latest + step
        latest = max(latest, us)
        for dates_ in (spilled, kept):
            dates_.add(_at(us), nth)
        truth.setdefault(us, nth)
        afters.add(us)
        insort(after_truth, us)
    copied = copy.deepcopy(spilled)
    gc.collect()
    for probe in range(-2, latest + 3):
        expected = truth.get(probe)
        assert spilled.get(_at(probe)) == expected == kept.get(_at(probe))
        assert copied.get(_at(probe)) == expected
        assert (_at(probe) in spilled) == (expected is not None)
        below = bisect_left(after_truth, probe)
        assert afters.latest_before(probe) == (after_truth[below - 1] if below else None)
    assert len(spilled) == len(truth) and sorted(afters) == after_truth
    last = first + length  # a DAG's start_date and end_date (RND-1)
    outside = sorted(n for us, n in truth.items() if us < first or us > last)
    bounds = epoch_us(_at(first)), epoch_us(_at(last))
    assert sorted(spilled.nths_outside(*bounds)) == outside
    assert sorted(spilled.nths_outside(None, None)) == []
    if len(truth) >= 8 and not any(old for _, old, _ in drawn):
        assert spilled.keys.start > 0


def test_a_dag_s_run_ids_stay_within_two_chunks_and_read_back() -> None:
    log = RunLog(spill_rows=4)
    view = DagRuns(log)
    runs: list[DagRun] = []
    for nth in range(200):
        run = _run(nth)
        log.append(run)
        view.append(run)
        log.freeze(run)
        runs.append(run)
        assert len(view._ids.head) < 8
    assert view._ids.start > 0
    del runs
    gc.collect()
    assert [run.nth for run in view] == list(range(200))
    assert view[3] == _run(3, id=3) and view[-1].nth == 199
    assert [run.nth for run in view[2:9:3]] == [2, 5, 8]


# ---------------------------------------------------------------------- asset events
events = st.lists(
    st.tuples(
        st.integers(0, 2),  # the asset
        st.integers(0, 3),  # seconds since the previous event
        st.sampled_from([(), ("al",), ("al", "zz")]),  # aliases it goes through
        st.one_of(st.none(), st.integers(0, 9)),  # the emitting run's nth (None: REST API)
        st.booleans(),  # a partitioned event (an origin of its own)
    ),
    max_size=60,
)


def _record(
    store: AssetStore,
    runs: DagRuns,
    drawn: list[tuple[int, int, tuple[str, ...], int | None, bool]],
) -> None:
    at = T0
    for asset, step, aliases, nth, keyed in drawn:
        at = at + timedelta(seconds=step)
        key = KEYS[asset]
        if nth is None:
            source = EventSource("rest_api")
        else:
            source = EventSource("task", "p", "t", run_nth=nth, runs=runs)
        origin = None if keyed else store.origin(key, source, aliases, True)
        event = AssetEvent(
            len(store.events),
            key,
            at,
            source,
            partition_key=f"k{step}" if keyed else None,
            via_aliases=aliases,
            origin=origin,
        )
        store.add(event)


@settings(max_examples=150, deadline=None)
@given(events, st.lists(st.integers(-1, 200), max_size=8))
def test_a_spilling_asset_store_reads_like_one_that_keeps_everything(
    drawn: list[tuple[int, int, tuple[str, ...], int | None, bool]], probes: list[int]
) -> None:
    runs = DagRuns(RunLog())
    spilled, kept = AssetStore(SpillPool(2)), AssetStore()
    _record(spilled, runs, drawn)
    _record(kept, runs, drawn)
    copied = copy.deepcopy(spilled)
    gc.collect()  # nobody holds the built events: they are built again from the columns
    for store in (spilled, copied):
        assert list(store.events) == list(kept.events) and store.events == kept.events
        assert [store.events[-i] for i in range(1, len(kept.events) + 1)] == [
            kept.events[-i] for i in range(1, len(kept.events) + 1)
        ]
        assert store.by_asset.keys() == kept.by_asset.keys()
        assert store.by_alias.keys() == kept.by_alias.keys()
        assert store.alias_assets == kept.alias_assets
        for source in [*KEYS, "al", "zz", "none"]:
            index = (store.by_alias if isinstance(source, str) else store.by_asset).get(source)
            truth = (kept.by_alias if isinstance(source, str) else kept.by_asset).get(source)
            assert (index is None) == (truth is None)
            if index is not None and truth is not None:
                assert list(index) == list(truth) and index[1:3] == truth[1:3]
            for floor in [None, *probes]:
                for upto in probes:
                    low = None if floor is None else T0 + timedelta(seconds=floor)
                    high = T0 + timedelta(seconds=upto)
                    assert store.between(source, low, high) == kept.between(source, low, high)
                    assert store.ids_between(source, low, high) == [
                        e.id for e in kept.between(source, low, high)
                    ]
                    found = kept.between(source, None, high)
                    assert store.latest_id(source, high) == (found[-1].id if found else None)
        for key in KEYS:
            for probe in probes:
                at = T0 + timedelta(seconds=probe)
                assert store.latest_before(key, at) == kept.latest_before(key, at)
                first = next((e for e in kept.by_asset.get(key, []) if e.timestamp == at), None)
                assert store.event_at(key, at) == first
    if len(drawn) >= 8:
        assert spilled.events._stamps.start > 0


def test_an_event_is_the_same_object_while_held_and_equal_when_rebuilt() -> None:
    store = AssetStore(SpillPool(2))
    _record(store, DagRuns(RunLog()), [(i % 3, 1, (), i, False) for i in range(40)])
    held = store.events[5]
    assert store.events[5] is held and store.by_asset[KEYS[2]][1] is held
    fields = (held.id, held.asset, held.timestamp, held.source.run_nth)
    del held
    gc.collect()
    again = store.events[5]
    assert (again.id, again.asset, again.timestamp, again.source.run_nth) == fields
    assert again.timestamp.tzinfo is UTC


def test_an_asset_store_s_resident_columns_stay_within_two_chunks() -> None:
    store = AssetStore(SpillPool(8))
    runs = DagRuns(RunLog())
    for i in range(2000):
        _record(store, runs, [(i % 3, 1, ("al",), i, False)])
        log = store.events
        assert max(len(c.head) for c in (log._stamps, log._codes, log._nths)) < 16
        for index in (*store.by_asset.values(), *store.by_alias.values()):
            assert len(index.ids.head) < 16 and len(index.stamps.head) < 16
    assert len(store.events) == 2000 and store.events[3].id == 3


# ---------------------------------------------------------------------- one-pass reader
@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(finished_runs(), st.integers(0, 2), st.sampled_from(["x", "y", "z"])),
        min_size=1,
        max_size=40,
    )
)
def test_instants_by_dag_reads_each_dag_like_its_own_view(
    drawn: list[tuple[DagRun, int, str]],
) -> None:
    log = RunLog(spill_rows=3)
    views = {dag_id: DagRuns(log) for dag_id in ("x", "y", "z")}
    runs, counts = [], dict.fromkeys(views, 0)
    for run, _, dag_id in drawn:
        run.dag_id, run.nth = dag_id, counts[dag_id]
        counts[dag_id] += 1
        run.run_id = f"{run.run_id}__custom"  # any id: this reader reads instants only
        runs.append(run)
    original_append = log.append

    def append(run: DagRun, *, derived_run_id: bool = False) -> None:
        original_append(run, derived_run_id=derived_run_id)
        views[run.dag_id].append(run)

    log.append = append  # type: ignore[method-assign]
    _fill(log, runs, [what for _, what, _ in drawn])
    del runs, drawn
    gc.collect()
    names = ("created_at", "data_interval_end", "run_after", "data_interval_start", "end_date")
    for run_type in ("asset_triggered", "scheduled", "backfill", "manual"):
        got = log.instants_by_dag(names, run_type, ["x", "z"])
        assert set(got) == {"x", "z"}
        for dag_id, values in got.items():
            runs_of_type = [run for run in views[dag_id] if run.run_type == run_type]
            assert values == [
                (
                    run.created_at,
                    run.data_interval and run.data_interval.end,
                    run.run_after,
                    run.data_interval and run.data_interval.start,
                    run.end_date,
                )
                for run in runs_of_type
            ]
        assert log.count(run_type) == sum(run.run_type == run_type for run in log)


def test_an_id_block_leaves_memory_once_its_runs_are_packed() -> None:
    """A run packed after its id was spilled costs an entry of ``_row_over`` for good: the
    id → row map waits for a block's runs to end (up to four blocks resident) before it
    spills it. Runs here end 12 runs after they start, with 8-id blocks; one never ends
    until the last."""
    log = RunLog(spill_rows=8)
    held = _run(0)
    log.append(held)
    running: list[DagRun] = []
    for nth in range(1, 400):
        run = _run(nth)
        log.append(run)
        running.append(run)
        if len(running) > 12:
            assert log.freeze(running.pop(0))
        assert len(log._row) <= 4 * 8
        assert not log._row_over
    assert log._id0 > 0  # the held run's block went at four blocks resident
    for run in (*running, held):
        assert log.freeze(run)
    assert list(log._row_over) == [0]
    del running, held
    gc.collect()
    assert [run.nth for run in log] == list(range(400)) and log[0] == _run(0, id=0)
