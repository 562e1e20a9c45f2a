"""The ADR 0009 pairing rule: logical_date, then partition_key, then run_after order."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from explorer.engine.alerts import Alert
from explorer.engine.diff import RunFacts, diff_alerts, diff_behaviour, diff_runs, pair_runs


def at(day: int, hour: int = 0) -> datetime:
    return datetime(2024, 3, day, hour, tzinfo=UTC)


def run(
    dag: str,
    run_after: datetime,
    *,
    logical: datetime | None = None,
    start: datetime | None = None,
    key: str | None = None,
    run_type: str = "scheduled",
    rid: str = "",
) -> RunFacts:
    end = run_after if start is not None else None
    return RunFacts(
        dag, rid or f"{dag}@{run_after:%d%H}", run_type, logical, start, end, run_after, key
    )


def test_equal_logical_dates_pair_and_a_moved_run_after_is_shifted() -> None:
    before = [
        run("d", at(2), logical=at(1), start=at(1)),
        run("d", at(3), logical=at(2), start=at(2)),
    ]
    after = [
        run("d", at(4), logical=at(1), start=at(1)),
        run("d", at(3), logical=at(2), start=at(2)),
    ]
    changes = diff_runs(before, after)
    assert [(c.kind, c.fields) for c in changes] == [("shifted", ("run_after", "data_interval"))]
    assert changes[0].before == before[0] and changes[0].after == after[0]


def test_different_logical_dates_never_pair_even_with_the_same_run_after() -> None:
    # A cron moved from 00:00 to 02:00: every logical date is new (ADR 0009 consequences).
    before = [run("d", at(2), logical=at(2))]
    after = [run("d", at(2), logical=at(2, 2))]
    kinds = [c.kind for c in diff_runs(before, after)]
    assert sorted(kinds) == ["added", "removed"]


def test_partition_key_pairs_runs_without_logical_date() -> None:
    before = [run("p", at(2), key="2024-03-01"), run("p", at(3), key="2024-03-02")]
    after = [run("p", at(2, 5), key="2024-03-01"), run("p", at(4), key="2024-03-03")]
    pairs, only_b, only_a = pair_runs(before, after)
    assert [(b.partition_key, a.partition_key) for b, a in pairs] == [("2024-03-01", "2024-03-01")]
    assert [r.partition_key for r in only_b] == ["2024-03-02"]
    assert [r.partition_key for r in only_a] == ["2024-03-03"]
    kinds = sorted(c.kind for c in diff_runs(before, after))
    assert kinds == ["added", "removed", "shifted"]


def test_runs_without_keys_pair_in_run_after_order_and_extras_are_added() -> None:
    before = [
        run("c", at(2), run_type="asset_triggered"),
        run("c", at(3), run_type="asset_triggered"),
    ]
    after = [
        run("c", at(2), run_type="asset_triggered"),
        run("c", at(3, 1), run_type="asset_triggered"),
        run("c", at(5), run_type="asset_triggered"),
    ]
    changes = diff_runs(before, after)
    assert [(c.kind, c.after.run_after if c.after else None) for c in changes] == [
        ("shifted", at(3, 1)),
        ("added", at(5)),
    ]


def test_identical_runs_are_not_listed_and_the_diff_is_same() -> None:
    runs = [run("d", at(d), logical=at(d - 1), start=at(d - 1)) for d in range(2, 9)]
    assert diff_runs(runs, list(runs)) == []
    assert diff_behaviour(runs, list(runs)).same


@dataclass(frozen=True)
class _Alert:
    kind: str
    subject: str
    at: datetime
    message: str


def test_alerts_that_only_move_in_time_are_the_same_alert() -> None:
    before = [Alert("consumer_silent", at(3), "mart", "silent 2 days")]
    after = [
        Alert("consumer_silent", at(4), "mart", "silent 3 days"),
        Alert("catchup_backlog", at(1), "orders", "flood"),
    ]
    changes = diff_alerts(before, after)
    assert [(c.kind, c.alert_kind, c.subject) for c in changes] == [
        ("appears", "catchup_backlog", "orders")
    ]
    gone = diff_alerts(after, before)
    assert [(c.kind, c.alert_kind) for c in gone] == [("disappears", "catchup_backlog")]


def test_consumers_and_flipping_expectations_are_listed() -> None:
    before = [run("mart", at(2), run_type="asset_triggered")]
    after = [
        run("mart", at(2), run_type="asset_triggered"),
        run("mart", at(2) + timedelta(hours=3), run_type="asset_triggered"),
    ]
    diff = diff_behaviour(
        before,
        after,
        expectations_before={"mart daily": True, "quiet": True},
        expectations_after={"mart daily": False, "quiet": True},
    )
    assert [(c.dag_id, c.runs_before, c.runs_after) for c in diff.consumers] == [("mart", 1, 2)]
    assert [(f.name, f.before, f.after) for f in diff.expectations] == [("mart daily", True, False)]
    assert not diff.same
    assert diff.to_dict()["counts"] == {"added": 1, "removed": 0, "shifted": 0}
