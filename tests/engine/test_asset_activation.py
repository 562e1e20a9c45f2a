"""The first parse activates every referenced asset (URI-2): the same winners and warnings as
a scan of every active asset per new one, without that scan (an edit of a 200-DAG scenario
re-simulates from that parse, and it had grown quadratic in the number of assets)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine.assets.condition import AssetKey
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import Simulation
from explorer.engine.timetables.trigger import CronTriggerTimetable

START = datetime(2024, 1, 1, tzinfo=UTC)


class CountingDict(dict):  # type: ignore[type-arg]
    """The store's ``active`` table, counting the walks over its items."""

    walks = 0

    def items(self):  # type: ignore[no-untyped-def]
        type(self).walks += 1
        return super().items()


def simulation(keys: list[AssetKey], declared: list[AssetKey]) -> Simulation:
    specs = [
        DagSpec(
            f"producer_{i:03d}",
            CronTriggerTimetable("0 * * * *"),
            start_date=START,
            tasks=(TaskSpec("t", timedelta(minutes=5), outlets=(key,)),),
        )
        for i, key in enumerate(keys)
    ]
    return Simulation(specs, start=START, declared_assets=declared)


def scan(keys: list[AssetKey], declared: list[AssetKey]) -> tuple[dict[AssetKey, bool], int]:
    """URI-2 as a scan: each new asset (declared first, then by key) is active unless an
    active one shares its name or uri; returns the table and how many stayed inactive."""
    order = {key: i for i, key in enumerate(declared)}
    active: dict[AssetKey, bool] = {}
    for key in sorted(set(keys), key=lambda k: (order.get(k, len(order)), k)):
        active[key] = not any(
            on and k != key and (k.name == key.name or k.uri == key.uri) for k, on in active.items()
        )
    return active, sum(1 for on in active.values() if not on)


@pytest.mark.parametrize("seed", range(8))
def test_the_first_parse_picks_the_winners_a_scan_picks(seed: int) -> None:
    rng = random.Random(seed)
    names, uris = [f"n{i}" for i in range(12)], [f"s3://b/{i}" for i in range(12)]
    keys = [AssetKey(rng.choice(names), rng.choice(uris)) for _ in range(40)]
    declared = rng.sample(keys, 6)
    sim = simulation(keys, declared)
    sim.advance_to(START)
    expected, losers = scan(keys, declared)
    assert losers > 0  # the draw has conflicts to settle
    assert dict(sim.state.assets.active) == expected
    assert list(sim.state.assets.active) == list(expected)
    conflicts = [w for w in sim.state.warnings if w.startswith("asset conflict")]
    assert len(conflicts) == losers


def test_the_first_parse_walks_the_active_assets_once() -> None:
    keys = [AssetKey(f"asset_{i:03d}", f"s3://bucket/{i:03d}") for i in range(200)]
    sim = simulation(keys, [])
    sim.state.assets.active = CountingDict(sim.state.assets.active)
    CountingDict.walks = 0
    sim.advance_to(START)
    assert sum(sim.state.assets.active.values()) == 200
    assert CountingDict.walks <= 2  # a scan per new asset made it 200
