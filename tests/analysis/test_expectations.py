"""Every expectation kind (ADR 0007 §5) judged on real simulations: holds, then breaks.

Each test runs the engine on a bundled example, states an expectation as a scenario
file spells it, and edits the example so the behaviour changes: the verdict must follow.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from explorer.analysis.expectations import ExpectationResult
from explorer.analysis.outcome import outcome_of
from explorer.scenario import build_engine_inputs, loads_scenario
from explorer.scenario.simulate import make_simulation

ROOT = Path(__file__).resolve().parents[2] / "resources" / "scenarios"


def example(name: str) -> dict[str, Any]:
    return json.loads((ROOT / f"{name}.json").read_text(encoding="utf-8"))


def judge(doc: dict[str, Any], expectation: dict[str, Any]) -> ExpectationResult:
    inputs = build_engine_inputs(loads_scenario(json.dumps(doc)))
    sim = make_simulation(inputs)
    assert inputs.until is not None
    sim.advance_to(inputs.until)
    sim.finish()
    outcome = outcome_of(sim, start=inputs.start, until=inputs.until, expectations=[expectation])
    return outcome.results[0]


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


class TestRunsBetween:
    EXPECT: ClassVar[dict[str, str]] = {
        "expect": "runs_between",
        "dag_id": "ingest_orders",
        "after": "23:30",
        "before": "00:30",
        "timezone": "America/New_York",
    }

    def test_midnight_new_york_runs_hold_across_the_spring_forward(self) -> None:
        result = judge(example("ny_dst_spring_forward"), self.EXPECT)
        assert result.ok, result.violations

    def test_a_cron_moved_to_02_00_breaks_every_day_and_names_them(self) -> None:
        doc = example("ny_dst_spring_forward")
        doc["dags"][0]["schedule"]["args"]["cron"] = "0 2 * * *"
        doc["script"] = []
        result = judge(doc, self.EXPECT)
        assert not result.ok
        days = [v.message.split(" ")[0] for v in result.violations]
        # Windows wholly inside [2024-03-08 00:00 EST, 2024-03-13 00:00 EDT).
        assert days == ["2024-03-08", "2024-03-09", "2024-03-10", "2024-03-11"]
        assert result.violations[2].at == utc(2024, 3, 11, 3, 30)  # 23:30 EDT

    def test_weekdays_skip_the_weekend_and_end_date_reads_the_finish(self) -> None:
        doc = example("ny_dst_spring_forward")
        doc["dags"][0]["schedule"]["args"]["cron"] = "0 0 * * 1-5"
        doc["script"] = []
        every = dict(self.EXPECT)
        assert [v.message[:10] for v in judge(doc, every).violations] == [
            "2024-03-08",
            "2024-03-09",
        ]
        weekdays = {
            **self.EXPECT,
            "days": "weekdays",
            "after": "00:10",
            "before": "00:30",
            "field": "end_date",
        }
        # Tasks take 20 minutes: each run ends at 00:20 local; Friday's run now ends Monday.
        result = judge(doc, weekdays)
        assert [v.message[:10] for v in result.violations] == ["2024-03-08"]


class TestNoRun:
    def test_a_freeze_window_holds_until_a_run_lands_in_it(self) -> None:
        doc = example("ny_dst_spring_forward")
        freeze = {
            "expect": "no_run",
            "dag_id": "ingest_orders",
            "from": "2024-03-10T06:00:00Z",
            "to": "2024-03-11T03:00:00Z",
        }
        assert judge(doc, freeze).ok
        doc["dags"][0]["schedule"]["args"]["cron"] = "0 12 * * *"
        doc["script"] = []
        result = judge(doc, freeze)
        assert [v.at for v in result.violations] == [utc(2024, 3, 10, 16)]  # noon EDT
        assert result.violations[0].run_id is not None


class TestCount:
    def test_exactly_at_least_at_most(self) -> None:
        doc = example("ny_dst_spring_forward")
        base = {"expect": "count", "dag_id": "ingest_orders"}
        # [clock.start, clock.until): the run due at clock.until itself is not counted.
        assert judge(doc, {**base, "exactly": 4}).ok
        assert judge(doc, {**base, "at_least": 4}).ok
        assert judge(doc, {**base, "at_most": 4}).ok
        too_few = judge(doc, {**base, "at_least": 5})
        assert not too_few.ok and "4 runs of ingest_orders" in too_few.violations[0].message
        assert not judge(doc, {**base, "at_most": 3}).ok
        window = {
            **base,
            "from": "2024-03-10T00:00:00Z",
            "to": "2024-03-12T00:00:00Z",
            "exactly": 2,
        }
        assert judge(doc, window).ok
        doc["dags"][0]["schedule"]["args"]["cron"] = "0 0 * * 1-5"
        doc["script"] = []
        assert not judge(doc, {**base, "exactly": 4}).ok
        assert judge(doc, {**base, "exactly": 2}).ok


class TestFiresWithin:
    def test_a_consumer_that_waits_on_a_paused_producer_breaks(self) -> None:
        doc = example("orders_mart_two_assets")
        after_orders = {
            "expect": "fires_within",
            "dag_id": "orders_mart",
            "producer": "ingest_orders",
            "within": "PT15M",
        }
        result = judge(doc, after_orders)
        assert not result.ok
        # Every hourly orders event is a broken promise, except the last (09:05 + 15 min
        # is past the horizon at 09:30? no: 09:20 is inside, so it is judged too).
        assert [v.at for v in result.violations][:2] == [
            utc(2024, 5, 1, 0, 5),
            utc(2024, 5, 1, 1, 5),
        ]
        assert len(result.violations) == 10

    def test_after_the_last_of_its_producers(self) -> None:
        doc = example("orders_mart_two_assets")
        last = {"expect": "fires_within", "dag_id": "orders_mart", "within": "PT15M"}
        # With customers never produced, the last producer never emits: nothing to break.
        assert judge(doc, last).ok
        doc["dags"][1]["is_paused_upon_creation"] = False
        result = judge(doc, last)
        assert result.ok, result.violations
        # Customers now arrive at 00:05 and the mart runs; orders alone each hour after
        # that do not satisfy the AND, but ingest_orders as the named producer breaks it.
        named = judge(doc, {**last, "producer": "ingest_orders"})
        assert named.violations[0].at == utc(2024, 5, 1, 1, 5)


class TestNoAlert:
    def test_alerts_of_a_kind_in_a_range(self) -> None:
        doc = example("catchup_flood")
        any_alert = judge(doc, {"expect": "no_alert"})
        assert [v.message.split(" ")[0] for v in any_alert.violations] == ["catchup_backlog"]
        assert judge(doc, {"expect": "no_alert", "alert": "consumer_silent"}).ok
        later = {"expect": "no_alert", "from": "2024-06-02T00:00:00Z"}
        assert judge(doc, later).ok
        for dag in doc["dags"]:
            dag["catchup"] = False
        assert judge(doc, {"expect": "no_alert", "alert": "catchup_backlog"}).ok


class TestSameAs:
    def golden(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        from explorer.engine.record import iso

        inputs = build_engine_inputs(loads_scenario(json.dumps(doc)))
        sim = make_simulation(inputs)
        assert inputs.until is not None
        sim.advance_to(inputs.until)
        return [
            {
                "run_type": r.run_type,
                "logical_date": iso(r.logical_date),
                "data_interval_start": iso(r.data_interval.start if r.data_interval else None),
                "data_interval_end": iso(r.data_interval.end if r.data_interval else None),
                "run_after": iso(r.run_after),
                "partition_key": r.partition_key,
            }
            for r in sim.runs
            if r.dag_id == "ingest_orders"
        ]

    def test_the_accepted_runs_hold_until_the_schedule_changes(self) -> None:
        doc = example("ny_dst_spring_forward")
        expectation = {"expect": "same_as", "dag_id": "ingest_orders", "runs": self.golden(doc)}
        assert judge(doc, expectation).ok
        doc["dags"][0]["schedule"]["args"]["cron"] = "0 0 * * 1-5"
        doc["script"] = []
        result = judge(doc, expectation)
        messages = [v.message for v in result.violations]
        assert len(messages) == 3
        assert messages[0].startswith("run of logical_date 2024-03-08T05:00:00Z moved")
        assert all(m.startswith("missing run") for m in messages[1:])


def test_an_expectation_on_an_unknown_dag_is_an_error_not_a_pass() -> None:
    result = judge(
        example("ny_dst_spring_forward"), {"expect": "count", "dag_id": "nope", "at_least": 0}
    )
    assert not result.ok and result.error is not None and "nope" in result.error
