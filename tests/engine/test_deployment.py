"""The engine API of changing deployments: options, DAG files, the refresh grid (DEP-6, DEP-7)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine import actions as act
from explorer.engine.assets.condition import AssetKey, AssetNode
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.dagfile import DagFile, DeployDag, RemoveDag, SetOption
from explorer.engine.options import AirflowOptions, OptionError, parse_option_value
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import AssetTriggeredTimetable, CronTriggerTimetable

START = datetime(2025, 6, 1, tzinfo=UTC)
A = AssetKey("a", "s3://bucket/a")


def _hourly(dag_id: str = "hourly", **kw: object) -> DagSpec:
    return DagSpec(
        dag_id,
        CronTriggerTimetable("0 * * * *", timezone="UTC"),
        start_date=START,
        tasks=(TaskSpec("work", timedelta(minutes=5)),),
        **kw,  # type: ignore[arg-type]
    )


def test_options_read_as_airflow_cfg_reads_them() -> None:
    assert parse_option_value("scheduler", "catchup_by_default", "True") is True
    assert parse_option_value("scheduler", "catchup_by_default", "f") is False
    assert parse_option_value("core", "max_active_runs_per_dag", "2") == 2
    assert parse_option_value("dag_processor", "refresh_interval", 60) == 60
    options = AirflowOptions().set("scheduler", "create_cron_data_intervals", "1")
    assert options.create_cron_data_intervals is True
    assert options.get("scheduler", "create_cron_data_intervals") is True


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("scheduler", "catchup", "true", "unknown Airflow option [scheduler] catchup"),
        ("scheduler", "catchup_by_default", "yes please", "must be true or false"),
        ("core", "max_active_runs_per_dag", "many", "must be an integer"),
        ("core", "max_active_runs_per_dag", 0, "at least 1"),
        ("core", "max_active_runs_per_dag", True, "must be an integer"),
    ],
)
def test_bad_options_are_refused_by_name(
    section: str, key: str, value: object, message: str
) -> None:
    with pytest.raises(OptionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        AirflowOptions().set(section, key, value)


def test_dag_file_resolves_unset_fields_and_plain_schedules_per_options() -> None:
    """DEP-7: unset catchup / max_active_runs follow the options; a plain cron string's
    class follows create_cron_data_intervals; a file that sets them is not affected."""
    file = DagFile(_hourly(), schedule="0 * * * *", catchup=None, max_active_runs=None)
    default = file.resolve(AirflowOptions())
    assert (default.catchup, default.max_active_runs) == (False, 16)
    assert default.timetable.name == "CronTriggerTimetable"
    changed = file.resolve(
        AirflowOptions(
            create_cron_data_intervals=True, catchup_by_default=True, max_active_runs_per_dag=3
        )
    )
    assert (changed.catchup, changed.max_active_runs) == (True, 3)
    assert changed.timetable.name == "CronDataIntervalTimetable"
    assert file.resolve(AirflowOptions()) is default  # same answers, same spec: no change
    fixed = DagFile.of(_hourly(catchup=False, max_active_runs=16))
    assert fixed.resolve(AirflowOptions(catchup_by_default=True)).catchup is False


def test_removal_takes_effect_at_the_next_grid_refresh_and_references_go_after() -> None:
    """DEP-6 on the refresh_interval grid from clock.start (300 s): a file removed at
    00:07 makes the DAG stale at the 00:10 refresh; events still queue it until the
    00:15 refresh deletes its references."""
    consumer = DagSpec(
        "consumer",
        AssetTriggeredTimetable(AssetNode(A)),
        start_date=START,
        tasks=(TaskSpec("work", timedelta(minutes=1)),),
    )

    def at(d: timedelta) -> datetime:
        return START + d

    script = [
        RemoveDag(at(timedelta(minutes=7)), "consumer"),
        act.ExternalEvent(at(timedelta(minutes=12)), A),
        act.ExternalEvent(at(timedelta(minutes=16)), A),
    ]
    sim = Simulation([consumer], start=START, script=script)
    sim.advance_to(at(timedelta(minutes=9)))
    assert not sim.dags["consumer"].is_stale  # the file is gone, not yet noticed
    sim.advance_to(at(timedelta(minutes=10)))
    assert sim.dags["consumer"].is_stale
    sim.advance_to(at(timedelta(minutes=14)))
    assert list(sim.dags["consumer"].adrq) == [A]  # 00:12 still queued it
    assert len(sim.runs) == 0  # a stale DAG gets no run (DEP-6)
    sim.advance_to(at(timedelta(minutes=30)))
    assert sim.dags["consumer"].adrq == {A: at(timedelta(minutes=12))}  # 00:16 did not
    assert len(sim.runs) == 0


def test_refresh_interval_option_sets_the_grid() -> None:
    sim = Simulation(
        [_hourly()],
        start=START,
        script=[
            SetOption(START, "dag_processor", "refresh_interval", 60),
            RemoveDag(START + timedelta(seconds=90), "hourly"),
        ],
    )
    sim.advance_to(START + timedelta(seconds=119))
    assert not sim.dags["hourly"].is_stale
    sim.advance_to(START + timedelta(seconds=120))
    assert sim.dags["hourly"].is_stale


def test_a_deployed_dag_id_is_a_new_dag_and_rewind_replays_the_deploy() -> None:
    """DEP-6: a new dag_id deployed later has no runs before; rewinding across the
    deploy and replaying gives the same record."""
    renamed = DagFile.of(_hourly("hourly_v2"))
    sim = Simulation(
        [_hourly()],
        start=START,
        script=[
            RemoveDag(START + timedelta(hours=2, minutes=30), "hourly"),
            DeployDag(START + timedelta(hours=2, minutes=30), renamed),
        ],
        checkpoint_every=5,
    )
    sim.advance_to(START + timedelta(hours=5))
    first = [(r.dag_id, r.logical_date) for r in sim.runs]
    assert [d for d, _ in first].count("hourly") == 3  # 00:00, 01:00, 02:00
    v2 = [when for d, when in first if d == "hourly_v2"]
    assert v2[0] == START + timedelta(hours=2)  # catchup=False: the latest tick at deploy
    sim.rewind_to(START + timedelta(hours=1))
    sim.advance_to(START + timedelta(hours=5))
    assert [(r.dag_id, r.logical_date) for r in sim.runs] == first


def test_unknown_dag_in_a_remove_is_refused() -> None:
    with pytest.raises(Exception, match="unknown dag_id 'nope'"):
        Simulation([_hourly()], start=START, script=[RemoveDag(START, "nope")])


def test_explain_says_a_removed_dag_is_stale_with_the_rule() -> None:
    from explorer.engine.explain import explain

    sim = Simulation(
        [_hourly()], start=START, script=[RemoveDag(START + timedelta(minutes=1), "hourly")]
    )
    sim.advance_to(START + timedelta(hours=2))
    why = explain(sim, "hourly")
    assert why.verdict.startswith("stale: its DAG file was removed")
    assert [c.rule for c in why.blocked_by] == ["DEP-6"]
    assert [r.logical_date for r in sim.runs] == [START]  # nothing after 00:05's refresh


def test_a_run_made_before_a_deploy_runs_the_tasks_the_file_has_now() -> None:
    """README 7.9: tasks that start or finish after a deploy use the new file's tasks; a task
    the new file no longer has takes no time and emits nothing."""
    old = DagSpec(
        "etl",
        CronTriggerTimetable("0 * * * *", timezone="UTC"),
        start_date=START,
        max_active_runs=1,
        tasks=(TaskSpec("extract", timedelta(minutes=90)), TaskSpec("gone", timedelta(hours=1))),
    )
    new = DagFile.of(
        DagSpec(
            "etl",
            CronTriggerTimetable("0 * * * *", timezone="UTC"),
            start_date=START,
            max_active_runs=1,
            tasks=(TaskSpec("extract", timedelta(minutes=10), outlets=(A,)),),
        )
    )
    sim = Simulation(
        [old],
        start=START,
        script=[
            act.Trigger(START + timedelta(minutes=5), "etl"),
            DeployDag(START + timedelta(minutes=30), new),
        ],
    )
    sim.advance_to(START + timedelta(hours=3))
    manual = next(r for r in sim.runs if r.run_type == "manual")
    # queued behind the 00:00 run (limit 1, its tasks started before the deploy and end at
    # 01:30), started the loop after with the new file's durations
    started = START + timedelta(minutes=90, seconds=1)
    assert manual.start_date == started
    ends = {t.task_id: t.end_date for t in manual.tasks}
    assert ends == {"extract": started + timedelta(minutes=10), "gone": started}
    # the 00:00 run's extract finished under the new file: it emits the new outlet
    assert [e.source.run_nth for e in sim.state.assets.events][:2] == [0, 1]
