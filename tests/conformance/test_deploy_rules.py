"""DEP rules the public ``deploy_traces`` cases do not show, written as cases of that format.

SEMANTICS section 10 and README 7.9 name held-out cases (``dep-tt-timezone-changed``,
``dep-cfg-catchup-by-default``, ``dep-cfg-max-active-runs-per-dag``,
``dep-pt-rollup-mapper-replaced-pending``) and the ``null`` catchup /
max_active_runs fields no public case uses. Each test builds a small case in
the README 7.9 format, replays it with ``deploy_replay`` and checks what the
rule says Airflow 3.3.2 does.
"""

from __future__ import annotations

from typing import Any

from tests.conformance.deploy_replay import build, trace
from tests.conformance.traces import last_instant


def _dag(dag_id: str, schedule: Any, **fields: Any) -> dict[str, Any]:
    dag = {
        "dag_id": dag_id,
        "schedule": schedule,
        "start_date": "2025-06-01T00:00:00Z",
        "timezone": "UTC",
        "end_date": None,
        "catchup": False,
        "max_active_runs": 16,
        "paused_at_deploy": False,
        "tasks": [{"task_id": "work", "outlets": []}],
    }
    dag.update(fields)
    return dag


def _run(case: dict[str, Any]) -> dict[str, Any]:
    sim, states = build(case)
    final = last_instant(case)
    sim.advance_to(final)
    return trace(sim, final, states)


def _runs(out: dict[str, Any], dag_id: str, field: str = "run_after") -> list[str]:
    return [r[field] for r in out["runs"] if r["dag_id"] == dag_id]


def _case(dags: list[dict[str, Any]], script: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": "own", "dags": dags, "script": script, **extra}


def test_timezone_changed_runs_twice_then_skips_a_day() -> None:
    """DEP-1 (dep-tt-timezone-changed): `0 6 * * *` moved from UTC to New York after the
    06:00Z run runs again at 10:00Z that day; moved back after the 10:00Z run, the next
    run is 06:00Z the next day."""
    utc = _dag("report", "0 6 * * *")
    ny = _dag("report", "0 6 * * *", timezone="America/New_York")
    utc_again = _dag("report", "0 6 * * *")
    out = _run(
        _case(
            [utc],
            [
                {"at": "2025-06-02T05:00:00Z", "do": "parse"},
                {
                    "do": "ticks",
                    "from": "2025-06-02T05:05:00Z",
                    "to": "2025-06-04T11:05:00Z",
                    "every_seconds": 3600,
                },
                {"at": "2025-06-02T07:00:00Z", "do": "deploy", "dag": ny},
                {"at": "2025-06-03T11:00:00Z", "do": "deploy", "dag": utc_again},
            ],
        )
    )
    # catchup=False: the first parse runs the latest tick already past (TT-5)
    assert _runs(out, "report", "logical_date") == [
        "2025-06-01T06:00:00Z",
        "2025-06-02T06:00:00Z",
        "2025-06-02T10:00:00Z",
        "2025-06-03T10:00:00Z",
        "2025-06-04T06:00:00Z",
    ]


def test_catchup_by_default_reaches_only_files_without_catchup() -> None:
    """DEP-7 / DEP-3 (dep-cfg-catchup-by-default): `catchup: null` follows
    `[scheduler] catchup_by_default` at its next parse and back-fills from the latest
    scheduled run; a file that sets catchup=False is untouched."""
    unset = _dag("unset", "@daily", catchup=None)
    set_false = _dag("set_false", "@daily", catchup=False)
    out = _run(
        _case(
            [unset, set_false],
            [
                {"at": "2025-06-03T00:02:00Z", "do": "parse"},
                {
                    "do": "ticks",
                    "from": "2025-06-03T00:05:00Z",
                    "to": "2025-06-08T16:05:00Z",
                    "every_seconds": 3600,
                },
                {"at": "2025-06-03T01:00:00Z", "do": "pause", "dag_id": "unset"},
                {"at": "2025-06-03T01:00:00Z", "do": "pause", "dag_id": "set_false"},
                {
                    "at": "2025-06-08T09:00:00Z",
                    "do": "config",
                    "section": "scheduler",
                    "key": "catchup_by_default",
                    "value": "True",
                },
                {"at": "2025-06-08T09:00:00Z", "do": "parse"},
                {"at": "2025-06-08T09:30:00Z", "do": "unpause", "dag_id": "unset"},
                {"at": "2025-06-08T09:30:00Z", "do": "unpause", "dag_id": "set_false"},
            ],
            auto_tasks=[
                {"dag_id": d, "task_id": "work", "outcome": "success", "after_seconds": 60}
                for d in ("unset", "set_false")
            ],
        )
    )
    days = [f"2025-06-0{d}T00:00:00Z" for d in range(3, 9)]
    assert _runs(out, "unset", "logical_date") == days
    assert _runs(out, "set_false", "logical_date") == [days[0], days[-1]]
    # dag_states: the parse after the change reads catchup=True for the unset file only
    assert out["at_end"]["dags"]["unset"]["timetable"] == "CronTriggerTimetable"


def test_max_active_runs_per_dag_reaches_unset_files_at_next_parse() -> None:
    """DEP-4 / DEP-7 (dep-cfg-max-active-runs-per-dag): `[core] max_active_runs_per_dag`
    16 -> 2 reaches a file without max_active_runs at its next parse, not before; a file
    that sets 16 keeps 16."""
    unset = _dag("unset", "0 * * * *", catchup=True, max_active_runs=None)
    set16 = _dag("set16", "0 * * * *", catchup=True, max_active_runs=16)
    out = _run(
        _case(
            [unset, set16],
            [
                {"at": "2025-06-01T00:00:00Z", "do": "parse"},
                {
                    "at": "2025-06-01T00:01:00Z",
                    "do": "config",
                    "section": "core",
                    "key": "max_active_runs_per_dag",
                    "value": "2",
                },
                {
                    "do": "ticks",
                    "from": "2025-06-01T05:00:00Z",
                    "to": "2025-06-01T05:04:00Z",
                    "every_seconds": 60,
                },
                {"at": "2025-06-01T05:02:30Z", "do": "parse"},
            ],
        )
    )
    # tasks are held (no auto_tasks): every run stays running, so the limit shows.
    running = {d: _runs(out, d) for d in ("unset", "set16")}
    # before the 05:02:30 parse, unset still had 16: one run created per tick
    assert len(running["unset"]) == 3
    assert len(running["set16"]) == 5
    assert out["at_end"]["dags"]["unset"]["exceeds_max_active_runs"] is True
    assert out["at_end"]["dags"]["set16"]["exceeds_max_active_runs"] is False
    started = [r for r in out["runs"] if r["dag_id"] == "unset" and len(r["states"]) > 1]
    assert len(started) == 3  # started before the limit reached the file; none stopped


def test_rollup_mapper_replaced_drops_pending_request_with_keys() -> None:
    """DEP-8 (dep-pt-rollup-mapper-replaced-pending): a daily rollup holding 12 of 24
    hourly keys, re-deployed with a plain StartOfDayMapper, drops the request and its
    keys at the first tick after the deploy; each later hourly event opens a fresh
    request that fires at the next tick."""
    hourly = {"asset": {"name": "hourly", "uri": "s3://lake/hourly"}}

    def rollup(mapper: dict[str, Any]) -> dict[str, Any]:
        return _dag(
            "daily_rollup",
            {
                "timetable": "PartitionedAssetTimetable",
                "args": {"assets": hourly, "default_partition_mapper": mapper},
            },
        )

    before = rollup(
        {
            "mapper": "RollupMapper",
            "args": {
                "upstream_mapper": {"mapper": "StartOfDayMapper", "args": {}},
                "window": {"window": "DayWindow"},
            },
        }
    )
    after = rollup({"mapper": "StartOfDayMapper", "args": {}})
    events = [
        {
            "at": f"2025-02-10T{h:02d}:10:00Z",
            "do": "asset_event",
            "asset": hourly["asset"],
            "partition_key": f"2025-02-10T{h:02d}:00:00",
        }
        for h in [*range(12), 13, 14, 15, 16]
    ]
    out = _run(
        _case(
            [before],
            [
                {"at": "2025-02-10T00:00:00Z", "do": "parse"},
                {
                    "do": "ticks",
                    "from": "2025-02-10T00:15:00Z",
                    "to": "2025-02-10T17:15:00Z",
                    "every_seconds": 1800,
                },
                *events,
                {"at": "2025-02-10T12:20:00Z", "do": "deploy", "dag": after},
            ],
        )
    )
    dropped = out["dropped_partition_requests"]
    assert [(d["partition_key"], d["dropped_at"], len(d["received"])) for d in dropped] == [
        ("2025-02-10", "2025-02-10T12:45:00Z", 12)
    ]
    runs = [r for r in out["runs"] if r["dag_id"] == "daily_rollup"]
    assert [r["partition_key"] for r in runs] == ["2025-02-10"] * 4
    assert [r["run_after"] for r in runs] == [f"2025-02-10T{h}:15:00Z" for h in (13, 14, 15, 16)]
    assert all(len(r["consumed_asset_events"]) == 1 for r in runs)


def test_cron_data_intervals_true_to_false_skips_a_logical_date() -> None:
    """DEP-2 / DEP-7 (dep-cfg-cron-data-intervals-true-to-false): a daily cron string
    parsed as a CronDataIntervalTimetable, last run [06-01, 06-02), re-parsed as a trigger
    timetable: logical date 06-02 never exists, the next is 06-03 00:00."""
    daily = _dag("daily", "@daily")
    out = _run(
        _case(
            [daily],
            [
                {
                    "at": "2025-06-01T23:00:00Z",
                    "do": "config",
                    "section": "scheduler",
                    "key": "create_cron_data_intervals",
                    "value": "True",
                },
                {"at": "2025-06-01T23:00:00Z", "do": "parse"},
                {
                    "do": "ticks",
                    "from": "2025-06-02T00:05:00Z",
                    "to": "2025-06-04T00:05:00Z",
                    "every_seconds": 3600,
                },
                {
                    "at": "2025-06-02T01:00:00Z",
                    "do": "config",
                    "section": "scheduler",
                    "key": "create_cron_data_intervals",
                    "value": "false",
                },
                {"at": "2025-06-02T01:00:00Z", "do": "parse"},
            ],
        )
    )
    assert _runs(out, "daily", "logical_date") == [
        "2025-06-01T00:00:00Z",
        "2025-06-03T00:00:00Z",
        "2025-06-04T00:00:00Z",
    ]
    assert [s["timetable"] for s in out["dag_states"]] == [
        "CronDataIntervalTimetable",
        "CronTriggerTimetable",
    ]
