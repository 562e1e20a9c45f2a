"""Every form the importer reads resolves from DAG files the tests write (checked against Airflow
3.3.2's DagBag by benchmarks/diff_import_vs_airflow.py on the same forms)."""

from __future__ import annotations

import ast

from explorer.importer.convert import ConvertedDag, convert_dag
from explorer.importer.project import module_finder
from explorer.importer.reader import ModuleLoader, read_module
from tests.importer.conftest import AT, Project


def converted(project: Project) -> dict[str, ConvertedDag]:
    """Every DAG of the project as the converter reads it (before the scenario model)."""
    out: dict[str, ConvertedDag] = {}
    loader = ModuleLoader(module_finder(project.root), AT)
    for path in sorted(project.root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for dag in read_module(tree, path.name, loader).dags:
            result = convert_dag(dag, file=path.name)
            out[result.dag_id] = result
    return out


HEADER = """
import pendulum
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo
from dateutil.relativedelta import relativedelta
from airflow.sdk import DAG, dag, task, task_group, Asset, AssetAlias, TaskGroup
from airflow.providers.standard.operators.empty import EmptyOperator
"""


def test_dag_context_manager_cron_and_pendulum_zone(project: Project) -> None:
    project.write(
        "orders.py",
        HEADER
        + """
with DAG(
    dag_id="orders",
    schedule="0 2 * * *",
    start_date=pendulum.datetime(2024, 3, 1, tz="America/New_York"),
    catchup=True,
    max_active_runs=2,
    tags=["finance", "daily"],
) as d:
    EmptyOperator(task_id="extract")
""",
    )
    dag = project.dags()["orders"]
    assert dag["schedule"] == "0 2 * * *"
    assert dag["timezone"] == "America/New_York"  # from start_date's zone (DAG._extract_tz)
    assert dag["start_date"] == "2024-03-01T00:00:00-05:00"
    assert dag["catchup"] is True
    assert dag["max_active_runs"] == 2
    assert [t["task_id"] for t in dag["tasks"]] == ["extract"]
    assert [t["duration"] for t in dag["tasks"]] == ["PT10M"]


def test_assigned_dag_with_tasks_given_dag_and_default_args(project: Project) -> None:
    project.write(
        "assigned.py",
        HEADER
        + """
default_args = {"start_date": datetime(2024, 1, 1), "end_date": "2024-12-31T00:00:00",
                "retries": 2}
my_dag = DAG("assigned", schedule="@daily", default_args=default_args)
EmptyOperator(task_id="a", dag=my_dag)
""",
    )
    dag = project.dags()["assigned"]
    assert dag["schedule"] == "@daily"
    assert dag["start_date"] == "2024-01-01T00:00:00Z"  # naive: Airflow's default zone, UTC
    assert dag["end_date"] == "2024-12-31T00:00:00Z"  # a string in default_args is parsed
    assert dag.get("timezone", "UTC") == "UTC"
    assert [t["task_id"] for t in dag["tasks"]] == ["a"]


def test_dag_decorator_id_from_function_or_argument(project: Project) -> None:
    project.write(
        "decorated.py",
        HEADER
        + """
@dag(schedule=timedelta(hours=6), start_date=datetime(2024, 1, 1, tzinfo=ZoneInfo("Europe/Paris")))
def every_six_hours():
    @task
    def work():
        pass
    work()
    work()

every_six_hours()

@dag("renamed", schedule=relativedelta(months=1), start_date=datetime(2024, 1, 1))
def not_this_name():
    pass

not_this_name()

@dag(schedule=None, start_date=datetime(2024, 1, 1))
def never_called():
    pass
""",
    )
    dags = project.dags()
    assert set(dags) == {"every_six_hours", "renamed"}  # a @dag function never called makes none
    six = dags["every_six_hours"]
    assert six["schedule"] == {"timedelta": "PT6H"}
    assert six["timezone"] == "Europe/Paris"
    assert [t["task_id"] for t in six["tasks"]] == ["work", "work__1"]  # get_unique_task_id
    assert dags["renamed"]["schedule"] == {"relativedelta": {"months": 1}}


def test_schedule_strings_and_none(project: Project) -> None:
    project.write(
        "strings.py",
        HEADER
        + """
for dag_id, schedule in [("p", "@hourly"), ("n", None), ("o", "@once"), ("c", "@continuous")]:
    with DAG(dag_id, schedule=schedule, start_date=datetime(2024, 1, 1), max_active_runs=1):
        pass
""",
    )
    dags = project.dags()
    assert {k: d.get("schedule") for k, d in dags.items()} == {
        "p": "@hourly",
        "n": None,
        "o": "@once",
        "c": "@continuous",
    }


def test_every_timetable_constructor(project: Project) -> None:
    project.write(
        "timetables.py",
        HEADER
        + """
from airflow.timetables.trigger import (
    CronTriggerTimetable, MultipleCronTriggerTimetable, DeltaTriggerTimetable,
    CronPartitionTimetable,
)
from airflow.timetables.interval import CronDataIntervalTimetable, DeltaDataIntervalTimetable
from airflow.timetables.events import EventsTimetable

S = datetime(2024, 1, 1, tzinfo=timezone.utc)
tables = {
    "trigger": CronTriggerTimetable("0 3 * * *", timezone="Asia/Tokyo", interval=timedelta(hours=1),
                                    run_immediately=True),
    "multi": MultipleCronTriggerTimetable("0 1 * * *", "30 13 * * *", timezone="UTC"),
    "delta_trigger": DeltaTriggerTimetable(timedelta(minutes=90)),
    "partition": CronPartitionTimetable("0 * * * *", timezone="UTC", key_format="%Y-%m-%dT%H"),
    "data_interval": CronDataIntervalTimetable(
        "0 0 * * 1", timezone=pendulum.timezone("Europe/Berlin")),
    "delta_interval": DeltaDataIntervalTimetable(timedelta(days=1)),
    "events": EventsTimetable(event_dates=[pendulum.datetime(2024, 5, 1, tz="UTC"),
                                           pendulum.datetime(2024, 6, 1, 8, tz="UTC")]),
}
for name, table in tables.items():
    with DAG(name, schedule=table, start_date=S):
        pass
""",
    )
    dags = project.dags()
    assert dags["trigger"]["schedule"] == {
        "timetable": "CronTriggerTimetable",
        "args": {
            "cron": "0 3 * * *",
            "timezone": "Asia/Tokyo",
            "interval": "PT1H",
            "run_immediately": True,
        },
    }
    assert dags["multi"]["schedule"] == {
        "timetable": "MultipleCronTriggerTimetable",
        "args": {"crons": ["0 1 * * *", "30 13 * * *"], "timezone": "UTC"},
    }
    assert dags["delta_trigger"]["schedule"] == {
        "timetable": "DeltaTriggerTimetable",
        "args": {"delta": "PT1H30M"},
    }
    assert dags["partition"]["schedule"] == {
        "timetable": "CronPartitionTimetable",
        "args": {"cron": "0 * * * *", "timezone": "UTC", "key_format": "%Y-%m-%dT%H"},
    }
    assert dags["data_interval"]["schedule"] == {
        "timetable": "CronDataIntervalTimetable",
        "args": {"cron": "0 0 * * 1", "timezone": "Europe/Berlin"},
    }
    assert dags["delta_interval"]["schedule"] == {
        "timetable": "DeltaDataIntervalTimetable",
        "args": {"delta": "P1D"},
    }
    assert dags["events"]["schedule"] == {
        "timetable": "EventsTimetable",
        "args": {"event_dates": ["2024-05-01T00:00:00Z", "2024-06-01T08:00:00Z"]},
    }


def test_asset_conditions_of_every_shape(project: Project) -> None:
    project.write(
        "conditions.py",
        HEADER
        + """
from airflow.sdk import Asset as Dataset

a = Asset("a")
b = Asset(name="b", uri="s3://bucket/b")
old = Dataset("s3://legacy/c")
with DAG("listed", schedule=[a, b], start_date=datetime(2024, 1, 1)):
    pass
with DAG("nested", schedule=(a & b) | (AssetAlias("al") & Asset.ref(name="r")) | old,
         start_date=datetime(2024, 1, 1)):
    pass
with DAG("flat", schedule=a & b & old, start_date=datetime(2024, 1, 1)):
    pass
""",
    )
    dags = project.dags()
    assert dags["listed"]["schedule"] == [
        {"asset": {"name": "a"}},
        {"asset": {"name": "b", "uri": "s3://bucket/b"}},
    ]
    assert dags["nested"]["schedule"] == {
        "any": [
            {"all": [{"asset": {"name": "a"}}, {"asset": {"name": "b", "uri": "s3://bucket/b"}}]},
            {"all": [{"alias": {"name": "al"}}, {"asset_ref": {"name": "r"}}]},
            {"asset": {"name": "s3://legacy/c"}},
        ]
    }
    # AssetAll.__and__ flattens: (a & b) & c is one AssetAll of three.
    assert dags["flat"]["schedule"] == {
        "all": [
            {"asset": {"name": "a"}},
            {"asset": {"name": "b", "uri": "s3://bucket/b"}},
            {"asset": {"name": "s3://legacy/c"}},
        ]
    }


def test_asset_or_time_and_partitioned_with_mappers(project: Project) -> None:
    project.write(
        "partitioned.py",
        HEADER
        + """
from airflow.sdk import (
    AssetOrTimeSchedule, CronTriggerTimetable, PartitionedAssetTimetable, StartOfDayMapper,
    IdentityMapper, RollupMapper, DayWindow, MinimumCount,
)

raw = Asset("raw")
hourly = Asset("hourly")
with DAG("either", start_date=datetime(2024, 1, 1),
         schedule=AssetOrTimeSchedule(timetable=CronTriggerTimetable("0 4 * * *", timezone="UTC"),
                                      assets=raw | hourly)):
    pass
with DAG("rollup", start_date=datetime(2024, 1, 1),
         schedule=PartitionedAssetTimetable(
             assets=raw & hourly,
             default_partition_mapper=StartOfDayMapper(),
             partition_mapper_config={
                 hourly: RollupMapper(upstream_mapper=StartOfDayMapper(timezone="UTC"),
                                      window=DayWindow(), wait_policy=MinimumCount(2)),
                 raw: IdentityMapper(),
             })):
    pass
""",
    )
    dags = project.dags()
    assert dags["either"]["schedule"] == {
        "timetable": "AssetOrTimeSchedule",
        "args": {
            "timetable": {
                "timetable": "CronTriggerTimetable",
                "args": {"cron": "0 4 * * *", "timezone": "UTC"},
            },
            "assets": {"any": [{"asset": {"name": "raw"}}, {"asset": {"name": "hourly"}}]},
        },
    }
    assert dags["rollup"]["schedule"] == {
        "timetable": "PartitionedAssetTimetable",
        "args": {
            "assets": {"all": [{"asset": {"name": "raw"}}, {"asset": {"name": "hourly"}}]},
            "default_partition_mapper": {"mapper": "StartOfDayMapper"},
            "partition_mapper_config": [
                {
                    "asset": {"asset": {"name": "hourly"}},
                    "mapper": {
                        "mapper": "RollupMapper",
                        "args": {
                            "upstream_mapper": {
                                "mapper": "StartOfDayMapper",
                                "args": {"timezone": "UTC"},
                            },
                            "window": {"window": "DayWindow"},
                            "wait_policy": {"policy": "MinimumCount", "args": {"n": 2}},
                        },
                    },
                },
                {"asset": {"asset": {"name": "raw"}}, "mapper": {"mapper": "IdentityMapper"}},
            ],
        },
    }


def test_start_date_zone_forms(project: Project) -> None:
    project.write(
        "zones.py",
        HEADER
        + """
with DAG("pz", schedule="@daily",
         start_date=datetime(2024, 7, 1, tzinfo=pendulum.timezone("Asia/Kolkata"))):
    pass
with DAG("zi", schedule="@daily",
         start_date=datetime(2024, 1, 1, 6, tzinfo=ZoneInfo("America/Chicago"))):
    pass
with DAG("utc", schedule="@daily", start_date=datetime(2024, 1, 1, tzinfo=timezone.utc)):
    pass
""",
    )
    dags = project.dags()
    assert (dags["pz"]["timezone"], dags["pz"]["start_date"]) == (
        "Asia/Kolkata",
        "2024-07-01T00:00:00+05:30",
    )
    assert (dags["zi"]["timezone"], dags["zi"]["start_date"]) == (
        "America/Chicago",
        "2024-01-01T06:00:00-06:00",
    )
    assert (dags["utc"].get("timezone", "UTC"), dags["utc"]["start_date"]) == (
        "UTC",
        "2024-01-01T00:00:00Z",
    )


def test_tasks_operators_task_decorator_groups_outlets_inlets(project: Project) -> None:
    project.write(
        "tasks.py",
        HEADER
        + """
out = Asset("out")
with DAG("tasks", schedule=None, start_date=datetime(2024, 1, 1)):
    EmptyOperator(task_id="first", outlets=[out], inlets=[Asset("in")])

    @task(outlets=[AssetAlias("late")])
    def emit():
        pass

    emit()
    emit.override(task_id="renamed")()
    with TaskGroup("grp"):
        EmptyOperator(task_id="inner", outlets=out)
        with TaskGroup("sub", prefix_group_id=False):
            EmptyOperator(task_id="deep")

    @task_group
    def block():
        EmptyOperator(task_id="step")

    block()
    block()
""",
    )
    tasks = {t["task_id"]: t for t in project.dags()["tasks"]["tasks"]}
    assert list(tasks) == [
        "first",
        "emit",
        "renamed",
        "grp.inner",
        "deep",
        "block.step",
        "block__1.step",
    ]
    assert tasks["first"]["outlets"] == [{"asset": {"name": "out"}}]
    assert tasks["first"]["inlets"] == [{"asset": {"name": "in"}}]
    assert tasks["emit"]["outlets"] == [{"alias": {"name": "late"}}]
    assert tasks["grp.inner"]["outlets"] == [{"asset": {"name": "out"}}]


def test_asset_decorator_and_multi(project: Project) -> None:
    project.write(
        "assets.py",
        """
from airflow.sdk import asset, Asset

@asset(schedule="@daily", uri="s3://lake/raw")
def raw_data():
    pass

@asset(schedule=raw_data)
def cleaned(raw_data, context, limit=3):
    pass

@asset.multi(schedule=None, outlets=[Asset("x"), Asset("y")])
def split():
    pass
""",
    )
    document = project.run().scenario
    by_id = {a.dag_id: a for a in document.asset_dags}
    assert set(by_id) == {"raw_data", "cleaned", "split"}
    assert (by_id["raw_data"].uri, by_id["raw_data"].schedule) == ("s3://lake/raw", "@daily")
    assert by_id["cleaned"].schedule == {"asset": {"name": "raw_data", "uri": "s3://lake/raw"}}
    # Parameters without a default are the task's inlets (Asset.ref by name).
    assert by_id["cleaned"].inlets == ({"asset_ref": {"name": "raw_data"}},)
    assert by_id["raw_data"].inlets == ()
    multi = by_id["split"].multi
    assert multi is not None
    assert multi.outlets == ({"asset": {"name": "x"}}, {"asset": {"name": "y"}})


def test_constants_fstrings_arithmetic_siblings_loops_and_factories(project: Project) -> None:
    project.write("common/__init__.py", "")
    project.write("common/config.py", 'TEAM = "sales"\nHOURS = 4\n')
    project.write(
        "generated.py",
        HEADER
        + """
from common.config import TEAM, HOURS
import common.config as cfg

PREFIX = f"{TEAM}_load"
CRON = f"0 */{HOURS * 2 - 2} * * *"

for region in ["eu", "us"]:
    with DAG(f"{PREFIX}_{region}", schedule=CRON, start_date=datetime(2024, 1, 1),
             tags=[cfg.TEAM, region.upper()]):
        EmptyOperator(task_id=f"load_{region}")

def make(name, hours):
    with DAG(name, schedule=timedelta(hours=hours), start_date=datetime(2024, 2, 1)) as made:
        EmptyOperator(task_id="run")
    return made

daily = make("factory_daily", 24)
globals()["factory_hourly"] = make("factory_hourly", 1)
""",
    )
    dags = project.dags()
    assert dags["sales_load_eu"]["schedule"] == "0 */6 * * *"
    assert dags["sales_load_us"]["tasks"][0]["task_id"] == "load_us"
    assert dags["factory_daily"]["schedule"] == {"timedelta": "P1D"}
    assert dags["factory_hourly"]["schedule"] == {"timedelta": "PT1H"}
    assert converted(project)["sales_load_eu"].tags == ("sales", "EU")
    assert dags["sales_load_eu"]["tags"] == ["sales", "EU"]
    assert dags["sales_load_eu"]["source"] == {"file": "generated.py", "line": 15}


def test_only_the_last_assigned_dag_of_a_loop_is_kept_as_in_dagbag(project: Project) -> None:
    project.write(
        "overwrite.py",
        HEADER
        + """
for name in ["first", "second"]:
    d = DAG(name, schedule=None, start_date=datetime(2024, 1, 1))
""",
    )
    assert set(project.dags()) == {"second"}  # DagBag scans module globals; the first is gone


def test_unset_catchup_and_max_active_runs_stay_unset(project: Project) -> None:
    project.write(
        "unset.py",
        HEADER
        + """
with DAG("unset", schedule="@daily", start_date=datetime(2024, 1, 1)):
    pass
with DAG("set", schedule="@daily", start_date=datetime(2024, 1, 1), catchup=False,
         max_active_runs=16, is_paused_upon_creation=True, end_date=datetime(2025, 1, 1)):
    pass
""",
    )
    dags = converted(project)
    # DEP-7: left out of the file means unset (the options decide), not the default value.
    assert (dags["unset"].catchup, dags["unset"].max_active_runs) == (None, None)
    assert (dags["set"].catchup, dags["set"].max_active_runs) == (False, 16)
    assert dags["set"].is_paused_upon_creation is True
    assert dags["set"].end_date is not None
    assert dags["set"].end_date.text == "2025-01-01T00:00:00Z"
    written = project.dags()  # format 2 writes unset as absent, a set default as written
    assert "catchup" not in written["unset"] and "max_active_runs" not in written["unset"]
    assert (written["set"]["catchup"], written["set"]["max_active_runs"]) == (False, 16)


def test_dates_are_the_schedulers_time_restriction(project: Project) -> None:
    project.write(
        "restriction.py",
        HEADER
        + """
args = {"start_date": datetime(2024, 1, 1), "end_date": datetime(2024, 6, 1)}
with DAG("no_tasks", schedule="@daily", default_args=args):
    pass
with DAG("tasks_end", schedule="@daily", default_args=args):
    EmptyOperator(task_id="a")
    EmptyOperator(task_id="b", end_date=datetime(2024, 9, 1), start_date=datetime(2023, 12, 1))
""",
    )
    dags = project.dags()
    # 3.3's DAG never reads end_date from default_args; its tasks do (TT-2: every task has
    # one, so the latest bounds the runs). DAG.add_task keeps the later of a task's and
    # the DAG's start: an earlier task start_date changes nothing.
    assert "end_date" not in dags["no_tasks"]
    assert dags["tasks_end"]["end_date"] == "2024-09-01T00:00:00Z"
    assert dags["tasks_end"]["start_date"] == "2024-01-01T00:00:00Z"


def test_an_asset_dag_with_inlets_saves_loads_and_builds(project: Project) -> None:
    from explorer.scenario import build_engine_inputs, dumps_scenario, loads_scenario

    project.write(
        "assets.py",
        """
from airflow.sdk import asset

@asset(schedule="@daily")
def source():
    pass

@asset(schedule=source)
def derived(source):
    pass
""",
    )
    scenario = project.run().scenario
    text = dumps_scenario(scenario)
    again = loads_scenario(text)
    assert dumps_scenario(again) == text
    dags = {d.dag_id: d for d in build_engine_inputs(again).dags}
    assert [t.inlets for t in dags["derived"].tasks] != [()]


def test_common_real_world_idioms(project: Project) -> None:
    project.write(
        "classic.py",
        """
import os
from datetime import datetime
from airflow import DAG
from airflow.operators.bash import BashOperator

dag = DAG(
    dag_id=os.path.basename(__file__).replace(".py", ""),
    default_args={"owner": "airflow", "start_date": datetime(2022, 5, 1)},
    schedule="0 */4 * * *",
)
dag.doc_md = __doc__
BashOperator(task_id="run", bash_command="echo hi", dag=dag)
""",
    )
    project.write(
        "generated.py",
        """
from datetime import datetime, timedelta
from airflow import DAG

SOURCES = {"stripe": "15 * * * *", "zendesk": timedelta(hours=2)}

def create_dag(name, schedule):
    return DAG(dag_id=f"ingest_{name}", schedule=schedule, start_date=datetime(2023, 6, 1))

for source_name, schedule in SOURCES.items():
    globals()[f"ingest_{source_name}"] = create_dag(source_name, schedule)
""",
    )
    project.write(
        "outside_factory.py",
        """
from airflow import DAG
from company_lib.factories import build_dag

orders = build_dag("orders")
""",
    )
    result = project.run()
    dags = {d.dag_id: d for d in result.scenario.dags}
    assert set(dags) == {"classic", "ingest_stripe", "ingest_zendesk"}
    assert dags["classic"].schedule == "0 */4 * * *"
    assert dags["ingest_zendesk"].schedule == {"timedelta": "PT2H"}
    (missed,) = [d for d in result.report.dags if d.status == "skipped"]
    assert (missed.file, missed.line) == ("outside_factory.py", 4)
    assert "build_dag(...) may make DAGs" in str(missed.reason)


def test_a_dag_subclass_makes_a_dag_reported_as_partial(project: Project) -> None:
    project.write(
        "subclass.py",
        """
from datetime import datetime
from airflow.models.dag import DAG

class TeamDag(DAG):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

with TeamDag("team", schedule="@hourly", start_date=datetime(2024, 1, 1)):
    pass
""",
    )
    result = project.run()
    assert [d.schedule for d in result.scenario.dags] == ["@hourly"]
    (report,) = result.report.dags
    assert report.status == "partial"
    assert "subclass of DAG" in report.unresolved[0].reason


def test_a_zone_that_names_a_tzdata_folder_is_an_unknown_time_zone(project: Project) -> None:
    # Unknown zones, in the import too: pendulum/zoneinfo open a file named after the zone,
    # so "America" raised IsADirectoryError with a path of this machine in the report.
    project.write(
        "zones.py",
        HEADER
        + """
with DAG("folder_tz", schedule="@daily", start_date=pendulum.datetime(2024, 1, 1, tz="America")):
    pass
with DAG("folder_obj", schedule="@daily",
         start_date=datetime(2024, 1, 1, tzinfo=ZoneInfo("Europe"))):
    pass
with DAG("folder_now", schedule="@daily", start_date=pendulum.today("Asia")):
    pass
with DAG("good", schedule="@daily", start_date=pendulum.datetime(2024, 1, 1, tz="Asia/Tokyo")):
    pass
""",
    )
    report = project.run().report
    reasons = {
        d["dag_id"]: [u["reason"] for u in d["unresolved"]] for d in report.to_json()["dags"]
    }
    for dag_id, zone in (
        ("folder_tz", "America"),
        ("folder_obj", "Europe"),
        ("folder_now", "Asia"),
    ):
        assert any(f"unknown time zone '{zone}'" in r for r in reasons[dag_id]), reasons[dag_id]
        assert not any("Is a directory" in r or "Errno" in r for r in reasons[dag_id])
    assert reasons["good"] == []
