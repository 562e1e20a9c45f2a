"""The event log and its indexes read as sequences, and asset keys hash, compare and
order as the dataclass made them (adr/0013).

Both are compiled in the bundle, where a class may not derive from an interpreted
base (``collections.abc.Sequence``) and keeps a dataclass's generated methods
interpreted, so the sequence methods and the key's ``__hash__``, ``__eq__`` and
order are written out. These tests hold them to what the library's versions give.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.engine.assets.condition import AssetKey
from explorer.engine.assets.store import AssetEvent, AssetStore, EventSource

KEYS = (AssetKey("a", "a"), AssetKey("b", "s3://b"), AssetKey("a", "s3://a"))
AT = datetime(2024, 3, 1, tzinfo=UTC)


def _store(assets: list[int]) -> AssetStore:
    store = AssetStore()
    for event_id, asset in enumerate(assets):
        key = KEYS[asset]
        source = EventSource("rest_api")
        store.add(AssetEvent(event_id, key, AT + timedelta(minutes=event_id), source))
    return store


@given(st.lists(st.integers(0, 2), max_size=12))
def test_the_log_and_an_index_read_as_the_list_of_their_events(assets: list[int]) -> None:
    store = _store(assets)
    log = store.events
    events = [log.get(i) for i in range(len(assets))]
    assert isinstance(log, Sequence)
    assert list(log) == events and list(reversed(log)) == events[::-1]
    assert log[1:] == events[1:] and log[::-2] == events[::-2]
    for event in events:
        assert event in log
        assert log.index(event) == events.index(event)
        assert log.count(event) == 1
    for key, index in store.by_asset.items():
        assert isinstance(index, Sequence)
        mine = [e for e in events if e.asset == key]
        assert list(index) == mine and list(reversed(index)) == mine[::-1]
        assert all(index.index(e) == mine.index(e) for e in mine)


def test_an_event_not_in_the_log_is_neither_found_nor_counted() -> None:
    store = _store([0, 1])
    stranger = AssetEvent(7, KEYS[2], AT, EventSource("rest_api"))
    assert stranger not in store.events
    assert store.events.count(stranger) == 0
    with pytest.raises(ValueError, match="not in the events"):
        store.events.index(stranger)
    with pytest.raises(IndexError):
        store.events[2]
    assert store.events[-1].id == 1


def test_a_built_event_is_the_one_the_log_hands_out_while_held() -> None:
    store = _store([0, 1, 0])
    held = store.events[2]
    assert store.events[2] is held and store.by_asset[KEYS[0]][1] is held
    assert held.source == EventSource("rest_api") and held.timestamp == AT + timedelta(minutes=2)


names = st.text("abc:/", max_size=4)


@given(names, names, names, names)
def test_asset_keys_hash_compare_and_order_as_their_name_and_uri(
    n1: str, u1: str, n2: str, u2: str
) -> None:
    one, two = AssetKey(n1, u1), AssetKey(n2, u2)
    assert hash(one) == hash(AssetKey(n1, u1)) == hash((n1, u1))
    assert (one == two) == ((n1, u1) == (n2, u2))
    assert (one != two) == ((n1, u1) != (n2, u2))
    assert (one < two) == ((n1, u1) < (n2, u2))
    assert (one <= two) == ((n1, u1) <= (n2, u2))
    assert (one > two) == ((n1, u1) > (n2, u2))
    assert (one >= two) == ((n1, u1) >= (n2, u2))
    expected = [one, two] if (n1, u1) < (n2, u2) else [two, one]
    assert sorted([two, one]) == expected


def test_an_asset_key_is_not_equal_to_its_tuple_nor_ordered_with_it() -> None:
    key = AssetKey("a", "a")
    assert key != ("a", "a")
    assert key.__eq__(("a", "a")) is NotImplemented
    for compare in (key.__lt__, key.__le__, key.__gt__, key.__ge__):
        assert compare(("a", "a")) is NotImplemented
    with pytest.raises(TypeError):
        sorted([key, ("a", "a")])  # type: ignore[type-var]
