"""The template context a run's task sees, and templates rendered per run (adr/0008).

Expected values are those the task SDK 1.3.2's ``get_template_context`` gives for
the same runs (checked by ``benchmarks/check_template_context.py``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pendulum

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.context import LOGICAL_DATE_KEYS, run_contexts, template_context
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.render import TemplateRenderer, render_template
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import AssetTriggeredTimetable, CronDataIntervalTimetable

START = datetime(2025, 1, 1, tzinfo=UTC)
ORDERS = AssetKey("orders", "s3://lake/orders")


def _sim(script: list[act.Action] | None = None, days: int = 3) -> Simulation:
    producer = DagSpec(
        "daily",
        CronDataIntervalTimetable("@daily", "UTC"),
        start_date=START,
        tasks=(TaskSpec("load", timedelta(minutes=10), outlets=(ORDERS,)),),
    )
    consumer = DagSpec(
        "consumer",
        AssetTriggeredTimetable(AssetNode(ORDERS)),
        start_date=START,
        tasks=(TaskSpec("report", timedelta(minutes=5)),),
    )
    sim = Simulation([producer, consumer], start=START, script=script or [])
    sim.advance_to(START + timedelta(days=days))
    return sim


def test_scheduled_run_keys_are_pendulum_and_strings_as_the_sdk_gives_them() -> None:
    sim = _sim()
    second = sim.dags["daily"].runs[1]  # [01-02, 01-03), run at 01-03 00:00
    ctx = template_context(sim, second)
    assert ctx["ds"] == "2025-01-02"
    assert ctx["ds_nodash"] == "20250102"
    assert ctx["ts"] == "2025-01-02T00:00:00+00:00"
    assert ctx["ts_nodash"] == "20250102T000000"
    assert ctx["ts_nodash_with_tz"] == "20250102T000000+0000"
    assert isinstance(ctx["logical_date"], pendulum.DateTime)
    assert ctx["data_interval_end"] == datetime(2025, 1, 3, tzinfo=UTC)
    assert ctx["task_instance_key_str"] == "daily__load__20250102"
    # the previous success is the 01-01 run, done by the time this one's task starts
    assert ctx["prev_data_interval_start_success"] == datetime(2025, 1, 1, tzinfo=UTC)
    assert ctx["prev_start_date_success"] == datetime(2025, 1, 2, tzinfo=UTC)
    assert ctx["prev_end_date_success"] == datetime(2025, 1, 2, 0, 10, tzinfo=UTC)
    assert ctx["dag_run"].run_type == "scheduled"
    assert str(ctx["dag_run"].run_type) == "DagRunType.SCHEDULED"


def test_asset_triggered_run_lacks_the_logical_date_keys_and_has_none_for_others() -> None:
    sim = _sim()
    run = sim.dags["consumer"].runs[0]
    ctx = template_context(sim, run)
    for key in LOGICAL_DATE_KEYS:
        assert key not in ctx
    assert ctx["prev_start_date_success"] is None
    assert ctx["partition_key"] is None and ctx["partition_date"] is None
    events = ctx["triggering_asset_events"]
    assert list(events) == [ORDERS]
    assert [e.source_dag_id for e in events[ORDERS]] == ["daily"]
    assert ctx["task_instance_key_str"] == f"consumer__report__{run.run_id}"


def test_previous_success_is_read_when_the_task_runs() -> None:
    """A previous run still running when this one's task starts is not a success yet."""
    sim = _sim(
        [act.Override(START, act.RunSelector("daily", nth=0), delay=timedelta(days=1, hours=2))],
        days=4,
    )
    second = sim.dags["daily"].runs[1]
    assert template_context(sim, second)["prev_start_date_success"] is None
    late = template_context(sim, second, at=START + timedelta(days=4))
    assert late["prev_start_date_success"] == START + timedelta(days=1)


def test_render_per_run_with_errors_as_text() -> None:
    sim = _sim()
    runs = list(sim.runs)
    renderer = TemplateRenderer(
        "{{ macros.ds_add(ds, -1) }}|{{ logical_date.in_timezone('America/New_York') }}"
    )
    out = [renderer.render(c) for c in run_contexts(sim, runs)]
    by_type = {r.run_type: o for r, o in zip(runs, out, strict=True)}
    assert by_type["scheduled"].text is not None
    assert out[0].text == "2024-12-31|2024-12-31 19:00:00-05:00"
    assert by_type["asset_triggered"].text is None
    assert by_type["asset_triggered"].error is not None
    assert by_type["asset_triggered"].error.startswith("'ds' is undefined")
    assert "without logical date" in by_type["asset_triggered"].display


def test_the_sandbox_refuses_and_bad_syntax_is_a_result() -> None:
    sim = _sim(days=1)
    ctx = template_context(sim, sim.runs[0])
    unsafe = render_template("{{ ''.__class__.__mro__ }}", ctx)
    assert unsafe.error is not None and "unsafe" in unsafe.error
    broken = render_template("{{ ds ", ctx)
    assert broken.error is not None and broken.error.startswith("template syntax error")
    assert render_template("{{ data_interval_end | ds }}", ctx).text == "2025-01-02"
    assert render_template("{{ nope }}", ctx).error == "'nope' is undefined"
