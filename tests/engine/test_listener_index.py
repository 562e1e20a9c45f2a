"""The listener index answers as a scan of every DAG would (AS-2), in declaration
order, also on its shortcut: an event with no alias on an asset no ``Asset.ref``
names reaches its direct consumers, read straight from the index."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.engine.assets.condition import AliasNode, AnyOf, AssetKey, AssetNode, RefNode
from explorer.engine.assets.listeners import ListenerIndex
from explorer.engine.dag import DagSpec
from explorer.engine.dagstate import DagState
from explorer.engine.timetables import AssetTriggeredTimetable

KEYS = [AssetKey(f"a{i}", f"s3://b/a{i % 3}") for i in range(5)]
ALIASES = ["x", "y"]
NODES = (
    [AssetNode(k) for k in KEYS]
    + [RefNode(name="a1"), RefNode(uri="s3://b/a2")]
    + [AliasNode(a) for a in ALIASES]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(NODES), min_size=1, max_size=4), min_size=1, max_size=12),
    st.randoms(use_true_random=False),
    st.sampled_from(KEYS),
    st.lists(st.sampled_from(ALIASES), max_size=2, unique=True),
    st.booleans(),
)
def test_listeners_are_a_scan_of_every_dag(
    conditions: list[list[object]],
    rnd: random.Random,
    key: AssetKey,
    aliases: list[str],
    orphaned: bool,
) -> None:
    dags = [
        DagState(
            DagSpec(f"d{i}", AssetTriggeredTimetable(AnyOf(tuple(nodes)))),  # type: ignore[arg-type]
            i,
        )
        for i, nodes in enumerate(conditions)
    ]
    shuffled = list(dags)
    rnd.shuffle(shuffled)  # the index sorts by declaration order itself
    index = ListenerIndex.of(shuffled)
    by_id = {d.dag_id: d for d in dags}
    activates_at = {key: None} if orphaned else {}  # a reference does not resolve yet
    found = index.listeners(key, tuple(aliases), by_id, activates_at)  # type: ignore[arg-type]
    expected = [
        d.dag_id
        for d in dags
        if key in d.direct_assets
        or (not orphaned and any(ref.matches(key) for ref in d.schedule_refs))
        or any(alias in d.schedule_aliases for alias in aliases)
    ]
    assert found == expected
