"""Asset events share an interned origin and build their source on demand (adr/0006).

The compact event must read exactly like the nine-field event it replaced:
every field, its source (equal to the one it was emitted with), equality and
copies; only the usual events (no partition fields, no ``extra``) share.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.store import (
    NO_EXTRA,
    AssetEvent,
    AssetStore,
    EventOrigin,
    EventSource,
)
from explorer.engine.runlog import DagRuns, RunLog

KEY = AssetKey("orders", "s3://lake/orders")
AT = datetime(2024, 3, 1, 6, tzinfo=UTC)


def _task_event(store: AssetStore, runs: DagRuns, event_id: int, nth: int) -> AssetEvent:
    source = EventSource("task", "load", "write", run_nth=nth, runs=runs)
    origin = store.origin(KEY, source, (), True)
    event = AssetEvent(event_id, KEY, AT, source, origin=origin)
    store.add(event)
    return event


def test_a_task_s_daily_events_share_one_origin_and_keep_their_own_run() -> None:
    store, runs = AssetStore(), DagRuns(RunLog())
    first, second = _task_event(store, runs, 0, 0), _task_event(store, runs, 1, 1)
    assert first._origin is second._origin
    assert first.source == EventSource("task", "load", "write", run_nth=0)
    assert second.source.run_nth == 1 and second.source.runs is runs
    assert (second.id, second.asset, second.timestamp) == (1, KEY, AT)
    assert (second.partition_key, second.partition_date, second.extra) == (None, None, NO_EXTRA)
    assert (second.via_aliases, second.wrote_data) == ((), True)
    assert store.events == [first, second] and first != second


def test_another_dag_s_runs_get_another_origin() -> None:
    store = AssetStore()
    one = _task_event(store, DagRuns(RunLog()), 0, 0)
    other = _task_event(store, DagRuns(RunLog()), 1, 0)
    assert one._origin is not other._origin
    assert one.source.runs is not other.source.runs


def test_a_partitioned_event_with_extra_keeps_its_own_fields() -> None:
    source = EventSource("rest_api")
    event = AssetEvent(
        3, KEY, AT, source, partition_key="2024-03-01", extra={"rows": 7}, via_aliases=("a",)
    )
    assert event.source == source and event.source.run_nth is None
    assert (event.partition_key, event.extra, event.via_aliases) == (
        "2024-03-01",
        {"rows": 7},
        ("a",),
    )
    again = AssetEvent(
        3, KEY, AT, source, partition_key="2024-03-01", extra={"rows": 7}, via_aliases=("a",)
    )
    assert event == again and hash(event) == hash(again)
    assert event != AssetEvent(3, KEY, AT, source, partition_key="2024-03-02")
    assert copy.deepcopy(event) is event and copy.copy(event) is event
    assert "partition_key='2024-03-01'" in repr(event)


def test_a_task_origin_is_the_origin_its_event_source_reads() -> None:
    """``task_origin`` (no EventSource built) interns the entry ``origin`` does."""
    store, runs = AssetStore(), DagRuns(RunLog())
    source = EventSource("task", "load", "write", run_nth=4, runs=runs)
    for wrote in (True, False):
        made = store.task_origin(KEY, "load", "write", runs, wrote)
        assert made is store.origin(KEY, source, (), wrote)
        assert made == EventOrigin.of(KEY, source, wrote_data=wrote)


def test_an_event_recorded_unbuilt_reads_like_one_added() -> None:
    """``AssetStore.record`` stores the columns only; the event built on demand is equal
    to the one ``add`` keeps, in the log and in the asset's and alias's indexes."""
    runs = DagRuns(RunLog())
    added, recorded = AssetStore(), AssetStore()
    plan = [(KEY, (), 0), (AssetKey("b", "b"), ("al",), 1), (KEY, (), 2), (KEY, ("al",), None)]
    for asset, aliases, nth in plan:
        source = EventSource("task", "load", "write", run_nth=nth, runs=runs)
        origin = added.origin(asset, source, aliases, True)
        event = AssetEvent(len(added.events), asset, AT, source, via_aliases=aliases, origin=origin)
        flag = added.add(event)
        event_id, recorded_flag = recorded.record(
            recorded.origin(asset, source, aliases, True), AT, nth
        )
        assert (event_id, recorded_flag) == (event.id, flag)
    assert list(recorded.events) == list(added.events)
    for store in (added, recorded):
        assert [e.id for e in store.by_asset[KEY]] == [0, 2, 3]
        assert [e.id for e in store.by_alias["al"]] == [1, 3]
        assert store.alias_assets == {"al": [AssetKey("b", "b"), KEY]}
    held = recorded.events.get(2)
    assert recorded.events.get(2) is held  # one object while anybody holds it
