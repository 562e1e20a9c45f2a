"""The timeline's Qt-free parts: DST bands, time axis ticks, incremental run arrays, compare.

Zones are pinned (America/New_York: 2024-03-10 02:00 EST → 03:00 EDT, 2024-11-03
02:00 EDT → 01:00 EST; Europe/London: 2024-03-31 01:00 GMT → 02:00 BST).
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from explorer.document.panels.captions import StepReport, caption
from explorer.document.panels.compare_model import compare, side_of, variants_of
from explorer.document.timeline.data import EventStore, RunStore, ghost_runs, lanes_for
from explorer.document.timeline.dst import transitions_between
from explorer.document.timeline.timebase import fmt_local, fmt_span
from explorer.engine.tz import get_zone
from explorer.scenario import build_engine_inputs, load_scenario
from explorer.scenario.simulate import make_simulation

SCENARIOS = Path(__file__).parents[2] / "resources" / "scenarios"
NY = "America/New_York"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def orders_mart(script: bool = True):  # type: ignore[no-untyped-def]
    scenario = load_scenario(SCENARIOS / "ny_dst_orders_mart.json")
    if not script:
        scenario = dataclasses.replace(scenario, script=())
    return make_simulation(build_engine_inputs(scenario)), scenario


class TestDstTransitions:
    @pytest.mark.parametrize(
        ("zone", "at", "hours", "skipped", "wall"),
        [
            (NY, utc(2024, 3, 10, 7), 23, True, ("02:00", "03:00")),
            (NY, utc(2024, 11, 3, 6), 25, False, ("01:00", "02:00")),
            ("Europe/London", utc(2024, 3, 31, 1), 23, True, ("01:00", "02:00")),
        ],
        ids=["new-york-spring-forward", "new-york-fall-back", "london-spring-forward"],
    )
    def test_each_transition_is_found_with_its_day(
        self, zone: str, at: datetime, hours: int, skipped: bool, wall: tuple[str, str]
    ) -> None:
        found = [
            t for t in transitions_between([zone], utc(2024, 1, 1), utc(2024, 12, 31)) if t.at == at
        ]
        assert len(found) == 1
        tr = found[0]
        assert tr.day_length == timedelta(hours=hours)
        assert tr.spring_forward is skipped
        a, b = tr.wall_times
        assert (f"{a:%H:%M}", f"{b:%H:%M}") == wall
        assert tr.title == f"{hours} h day"
        assert ("skipped" if skipped else "repeated") in tr.detail

    def test_utc_has_no_transitions_and_zones_are_not_repeated(self) -> None:
        assert transitions_between(["UTC"], utc(2024, 1, 1), utc(2025, 1, 1)) == []
        twice = transitions_between([NY, NY], utc(2024, 3, 1), utc(2024, 3, 20))
        assert len(twice) == 1

    def test_the_day_starts_at_local_midnight(self) -> None:
        (tr,) = transitions_between([NY], utc(2024, 3, 8), utc(2024, 3, 13))
        assert tr.day_start == utc(2024, 3, 10, 5)  # 00:00 EST
        assert tr.day_end == utc(2024, 3, 11, 4)  # 00:00 EDT


class TestFormatting:
    @pytest.mark.parametrize(
        ("delta", "text"),
        [
            (timedelta(hours=23), "23 h"),
            (timedelta(hours=25), "25 h"),
            (timedelta(days=1), "24 h"),
            (timedelta(minutes=20), "20 min"),
            (timedelta(days=3, hours=2), "3 d 2 h"),
            (timedelta(0), "0 s"),
        ],
    )
    def test_spans_read_the_way_people_say_them(self, delta: timedelta, text: str) -> None:
        assert fmt_span(delta) == text

    def test_local_time_carries_the_zone_abbreviation(self) -> None:
        assert fmt_local(utc(2024, 3, 10, 7), get_zone(NY)) == "Sun 10 Mar 2024 03:00 EDT"


class TestRunStore:
    def test_sync_appends_new_runs_and_rereads_only_active_ones(self) -> None:
        sim, _ = orders_mart()
        store = RunStore()
        sim.advance_to(utc(2024, 3, 9, 5, 10))
        first = store.sync(sim.runs)
        assert first.reset and len(store) == len(sim.runs)
        running = [i for i, r in enumerate(sim.runs) if r.active]
        assert running  # ingest_orders' first run is still running at 05:10Z
        sim.advance_to(utc(2024, 3, 10, 12))
        second = store.sync(sim.runs)
        assert not second.reset
        assert set(running) <= set(second.changed)
        assert list(second.appended) == list(range(len(first.appended), len(sim.runs)))
        states = store.states()
        assert states[running[0]] == 2  # success now
        assert np.isfinite(store.col("end")[running[0]])

    def test_a_rewind_reads_the_new_log_and_reports_only_what_differs(self) -> None:
        """A rewind restores a copy of the log: the columns are read from it again, and the
        views hear of the rows dropped (and of the live ones), not of a reset."""
        sim, _ = orders_mart()
        store = RunStore()
        sim.advance_to(utc(2024, 3, 12))
        store.sync(sim.runs)
        shown = len(store)
        sim.rewind_to(utc(2024, 3, 9, 6))
        result = store.sync(sim.runs)
        assert not result.reset and len(store) == len(sim.runs)
        assert result.removed == shown - len(sim.runs) > 0
        assert store.runs[0] is sim.runs[0]
        fresh = RunStore()
        fresh.sync(sim.runs)
        for name in ("ival_start", "ival_end", "logical", "run_after", "created", "start", "end"):
            np.testing.assert_array_equal(store.col(name), fresh.col(name))
        assert store.states().tolist() == fresh.states().tolist()
        assert store.dag_codes().tolist() == fresh.dag_codes().tolist()

    def test_asset_triggered_runs_have_no_interval(self) -> None:
        sim, _ = orders_mart()
        sim.advance_to(utc(2024, 3, 12))
        store = RunStore()
        store.sync(sim.runs)
        mart = [i for i, r in enumerate(sim.runs) if r.dag_id == "orders_mart"]
        assert mart and all(store.no_interval()[i] == 1 for i in mart)
        assert all(np.isnan(store.col("ival_start")[i]) for i in mart)

    def test_events_sync_incrementally(self) -> None:
        sim, _ = orders_mart()
        events = EventStore()
        sim.advance_to(utc(2024, 3, 9, 12))
        assert events.sync(sim.state.assets.events)
        count = len(events)
        assert not events.sync(sim.state.assets.events)
        sim.advance_to(utc(2024, 3, 11, 12))
        assert events.sync(sim.state.assets.events) and len(events) > count


class TestLanesAndGhosts:
    def test_dags_then_assets_and_canvas_order_first(self) -> None:
        sim, _ = orders_mart()
        lanes = lanes_for(sim)
        assert [lane.key for lane in lanes[:3]] == [
            "ingest_orders",
            "ingest_customers",
            "orders_mart",
        ]
        assert {lane.kind for lane in lanes[3:]} == {"asset"}
        ordered = lanes_for(sim, ["orders_mart", "s3://warehouse/orders"])
        assert [lane.key for lane in ordered[:2]] == ["orders_mart", "s3://warehouse/orders"]

    def test_the_next_run_cache_becomes_a_ghost(self) -> None:
        sim, _ = orders_mart()
        sim.advance_to(utc(2024, 3, 10, 12))
        ghost = {g.dag_id: g for g in ghost_runs(sim)}["ingest_orders"]
        assert ghost.logical_date == utc(2024, 3, 10, 5)
        assert ghost.interval_end is not None and ghost.interval_start is not None
        assert ghost.interval_end - ghost.interval_start == timedelta(hours=23)


class TestCompare:
    def test_trigger_and_data_interval_of_one_cron_pair_by_logical_date(self) -> None:
        # ADR 0009: the run for a logical date is the same run on both sides; the trigger
        # timetable runs it a day earlier (23 h across the spring-forward) with no interval.
        inputs = build_engine_inputs(load_scenario(SCENARIOS / "ny_dst_spring_forward.json"))
        spec = next(d for d in inputs.dags if d.dag_id == "ingest_orders")
        (variant,) = variants_of(spec)
        assert variant.timetable.name == "CronTriggerTimetable"
        pairs = compare(side_of(spec), variant, utc(2024, 3, 8, 5), 5)
        assert all(p.a and p.b and p.a.logical_date == p.b.logical_date for p in pairs)
        dst = next(p for p in pairs if p.a and p.a.logical_date == utc(2024, 3, 10, 5))
        assert dst.differences == ("run_after: B 23 h earlier", "interval 23 h vs 0 s")
        assert pairs[0].differences == ("run_after: B 24 h earlier", "interval 24 h vs 0 s")

    def test_different_logical_dates_are_different_runs(self) -> None:
        inputs = build_engine_inputs(load_scenario(SCENARIOS / "ny_dst_spring_forward.json"))
        orders = next(d for d in inputs.dags if d.dag_id == "ingest_orders")
        customers = next(d for d in inputs.dags if d.dag_id == "ingest_customers")
        pairs = compare(side_of(orders), side_of(customers), utc(2024, 3, 9, 5), 3)
        # Midnight New York vs midnight UTC: no logical date in common, nothing paired.
        assert not any(p.a and p.b for p in pairs)
        assert [p.differences for p in pairs].count(("only in A",)) == 3
        assert [p.differences for p in pairs].count(("only in B",)) == 3


class TestCaptions:
    def test_a_step_is_told_in_the_display_zone(self) -> None:
        sim, _ = orders_mart()
        changes = []
        sim.subscribe(changes.append)
        sim.advance_to(utc(2024, 3, 11, 4))
        created = [c for c in changes if c.kind == "run_created" and c.at == utc(2024, 3, 11, 4)]
        text = caption(StepReport(utc(2024, 3, 11, 3), utc(2024, 3, 11, 4), created), get_zone(NY))
        assert text.startswith("Mon 11 Mar 2024 00:00 EDT · 2024-03-11 04:00Z")
        assert "ingest_orders: run for the 23 h interval" in text
