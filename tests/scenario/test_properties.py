"""Generated scenarios round-trip: load(save(s)) == s, and saving again changes no byte."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.scenario import (
    AirflowConfig,
    AlertSettings,
    AliasEvent,
    AssetDecl,
    BackfillAction,
    Clock,
    CountExpectation,
    Dag,
    DagSource,
    DeployAction,
    Duration,
    FiresWithinExpectation,
    ImportInfo,
    Instant,
    NoAlertExpectation,
    NoRunExpectation,
    OverrideAction,
    ParseAction,
    PauseAction,
    RemoveDagAction,
    RunOutcomeAction,
    RunsBetweenExpectation,
    RunSelectorModel,
    SameAsExpectation,
    Scenario,
    SchedulerSettings,
    SetOptionAction,
    SourceItem,
    Task,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
    Unresolved,
    Watcher,
    build_engine_inputs,
    dumps_scenario,
    loads_scenario,
)
from explorer.scenario.options import OPTIONS

START = datetime(2024, 3, 8, tzinfo=UTC)
ZONES = ["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe"]
OFFSETS = [timedelta(0), timedelta(hours=-5), timedelta(hours=5, minutes=30), timedelta(hours=13)]
CRONS = ["@daily", "@hourly", "@weekly", "0 2 * * *", "*/15 * * * *", "30 1 * * 1-5", "0 0 1 * *"]

ids = st.from_regex(r"[a-z][a-z0-9_.-]{0,10}", fullmatch=True)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
extras = st.dictionaries(st.text(max_size=6).map(lambda key: "x-" + key), json_values, max_size=2)


@st.composite
def instants(
    draw: st.DrawFn, after: datetime = START, within: timedelta = timedelta(days=30)
) -> Instant:
    seconds = draw(st.integers(0, int(within.total_seconds())))
    micro = draw(st.sampled_from([0, 0, 0, 500000, 123456]))
    offset = timezone(draw(st.sampled_from(OFFSETS)))
    moment = after + timedelta(seconds=seconds, microseconds=micro)
    return Instant.of(moment.astimezone(offset))


durations = st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=3)).map(Duration.of)
positive_durations = st.timedeltas(min_value=timedelta(minutes=1), max_value=timedelta(days=3)).map(
    Duration.of
)
asset_nodes = st.sampled_from(
    [
        {"asset": {"uri": "s3://bucket/orders/"}},
        {"asset": {"name": "customers", "uri": "S3://Bucket/customers"}},
        {"asset_ref": {"name": "customers"}},
        {"alias": {"name": "feed"}},
    ]
)
conditions = st.recursive(
    asset_nodes,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.lists(inner, min_size=1, max_size=3).map(lambda c: {"all": c})
        | st.lists(inner, min_size=1, max_size=3).map(lambda c: {"any": c})
    ),
    max_leaves=4,
)
json_objects = st.dictionaries(st.text(max_size=5), json_values, max_size=3)
#: Keys Airflow accepts: not blank, at most 250 characters (PT-1).
partition_keys = st.text(min_size=1, max_size=4).filter(lambda key: key.strip() != "")
PARTITIONED_AT_RUNTIME = {"timetable": "PartitionedAtRuntime"}
alias_events = st.builds(
    AliasEvent,
    st.sampled_from(["feed", "other"]),
    st.sampled_from([{"asset": {"uri": "s3://bucket/orders/"}}, {"asset": {"name": "x"}}]),
    st.none() | json_objects,
    extras,
)
schedules = st.one_of(
    st.none(),
    conditions,
    st.sampled_from(CRONS),
    positive_durations.map(lambda d: {"timedelta": d.text}),
    st.integers(1, 12).map(lambda n: {"relativedelta": {"months": n}}),
    st.sampled_from(CRONS).map(
        lambda c: {"timetable": "CronTriggerTimetable", "args": {"cron": c}}
    ),
    st.just(PARTITIONED_AT_RUNTIME),
)


@st.composite
def tasks(draw: st.DrawFn) -> tuple[Task, ...]:
    names = draw(st.lists(ids, unique=True, max_size=3))
    return tuple(
        Task(
            task_id=name,
            duration=draw(durations),
            outcome=draw(st.sampled_from(["success", "failed", "success_no_data"])),
            partition_keys=draw(st.none() | st.lists(partition_keys, max_size=2).map(tuple)),
            outlets=tuple(draw(st.lists(asset_nodes, max_size=2))),
            alias_events=tuple(draw(st.lists(alias_events, max_size=2))),
            extras=draw(extras),
            failure_rate=draw(st.sampled_from([0.0, 0, 0.25, 1, 1.0])),
        )
        for name in names
    )


@st.composite
def dags(draw: st.DrawFn, dag_id: str, catchup_by_default: bool = False) -> Dag:
    start = draw(st.none() | instants(START - timedelta(days=60), timedelta(days=90)))
    end = None
    if start is not None and draw(st.booleans()):
        end = Instant.of(start.value + draw(st.timedeltas(timedelta(0), timedelta(days=90))))
    # Unset (None) catchup takes catchup_by_default, which needs a start_date (TT-1).
    catchup_choices = st.booleans() | st.none() if start is not None else st.just(False)
    if start is None and not catchup_by_default:
        catchup_choices = st.just(False) | st.none()
    return Dag(
        dag_id=dag_id,
        schedule=draw(schedules),
        start_date=start,
        end_date=end,
        timezone=draw(st.sampled_from(ZONES)),
        catchup=draw(catchup_choices),
        max_active_runs=draw(st.none() | st.integers(1, 32)),
        is_paused_upon_creation=draw(st.booleans()),
        tasks=draw(tasks()),
        extras=draw(extras),
        tags=tuple(draw(st.lists(ids, max_size=2))),
        source=draw(st.none() | st.builds(DagSource, ids, st.none() | st.integers(1, 500), extras)),
        unresolved=tuple(
            draw(
                st.lists(
                    st.builds(
                        Unresolved,
                        st.sampled_from(["start_date", "schedule", "tasks"]),
                        st.text(min_size=1, max_size=10),
                        st.none() | st.integers(1, 99),
                        st.none() | ids,
                        extras,
                    ),
                    max_size=2,
                )
            )
        ),
        supplied=tuple(draw(st.lists(st.sampled_from(["start_date", "schedule"]), unique=True))),
    )


@st.composite
def selectors(draw: st.DrawFn, dag_id: str) -> RunSelectorModel:
    which = draw(st.sampled_from(["nth", "logical_date", "partition_key", "next"]))
    return RunSelectorModel(
        dag_id=dag_id,
        nth=draw(st.integers(0, 50)) if which == "nth" else None,
        logical_date=draw(instants()) if which == "logical_date" else None,
        partition_key=draw(st.text(min_size=1, max_size=6)) if which == "partition_key" else None,
        next=which == "next",
        extras=draw(extras),
    )


@st.composite
def actions(
    draw: st.DrawFn, at: Instant, dag_list: list[Dag], catchup_by_default: bool = False
) -> Any:
    dag = draw(st.sampled_from(dag_list))
    kinds = ["parse", "pause", "unpause", "trigger", "run", "backfill"]
    kinds += ["deploy", "remove", "option"]
    if dag.tasks:
        kinds += ["task", "override"]
    kind = draw(st.sampled_from(kinds))
    more = draw(extras)
    if kind == "parse":
        chosen = draw(st.none() | st.just((dag.dag_id,)))
        return ParseAction(at, chosen, more)
    if kind == "deploy":
        return DeployAction(at, draw(dags(dag.dag_id, catchup_by_default)), more)
    if kind == "remove":
        return RemoveDagAction(at, dag.dag_id, more)
    if kind == "option":
        option = draw(st.sampled_from(OPTIONS))
        value = draw(st.booleans() if option.type is bool else st.integers(1, 400))
        return SetOptionAction(at, option.section, option.key, value, more)
    if kind in ("pause", "unpause"):
        return (PauseAction if kind == "pause" else UnpauseAction)(at, dag.dag_id, more)
    if kind == "trigger":
        logical = draw(st.none() | instants())
        keyed = dag.schedule == PARTITIONED_AT_RUNTIME  # PT-17: only partitioned DAGs take keys
        key = draw(st.none() | partition_keys) if keyed else None
        return TriggerAction(at, dag.dag_id, logical, key, more)
    if kind == "run":
        return RunOutcomeAction(
            at, draw(selectors(dag.dag_id)), draw(st.sampled_from(["success", "failed"])), more
        )
    if kind == "backfill":
        begin = draw(instants(START - timedelta(days=60), timedelta(days=30)))
        end = Instant.of(begin.value + timedelta(days=draw(st.integers(0, 9))))
        return BackfillAction(
            at=at,
            dag_id=dag.dag_id,
            from_date=begin,
            to_date=end,
            reprocess_behavior=draw(st.sampled_from(["none", "failed", "completed"])),
            max_active_runs=draw(st.integers(1, 20)),
            run_backwards=draw(st.booleans()),
            extras=more,
        )
    task_id = draw(st.sampled_from([t.task_id for t in dag.tasks]))
    if kind == "task":
        outcome = draw(st.sampled_from(["success", "failed", "success_no_data"]))
        emits = outcome != "failed" and draw(st.booleans())
        return TaskOutcomeAction(
            at,
            draw(selectors(dag.dag_id)),
            task_id,
            outcome,
            partition_keys=draw(st.lists(partition_keys).map(tuple)) if emits else None,
            alias_events=tuple(draw(st.lists(alias_events, max_size=2))) if emits else None,
            extras=more,
        )
    return OverrideAction(
        at=at,
        run=draw(selectors(dag.dag_id)),
        task_id=draw(st.none() | st.just(task_id)),
        outcome=draw(st.sampled_from(["success", "failed", "success_no_data"])),
        delay=draw(st.none() | durations),
        hold=draw(st.booleans()),
        extras=more,
    )


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    names = draw(st.lists(ids, unique=True, min_size=1, max_size=4))
    config = AirflowConfig(
        create_cron_data_intervals=draw(st.booleans()),
        catchup_by_default=draw(st.booleans()),
        create_delta_data_intervals=draw(st.booleans()),
        max_active_runs_per_dag=draw(st.sampled_from([16, 1, 4])),
        refresh_interval=draw(st.sampled_from([300, 60])),
        extras=draw(extras),
        section_extras=draw(st.sampled_from([{}, {"core": {"x-why": "tuned"}}])),
    )
    dag_list = [draw(dags(name, config.catchup_by_default)) for name in names]
    start = draw(instants(START, timedelta(days=1)))
    moments = sorted(
        draw(st.lists(instants(start.value, timedelta(days=10)), max_size=6)), key=lambda i: i.value
    )
    script = tuple(draw(actions(at, dag_list, config.catchup_by_default)) for at in moments)
    until = draw(st.none() | instants(moments[-1].value if moments else start.value))
    layout = draw(
        st.dictionaries(
            st.text(max_size=8),
            st.tuples(st.integers(-500, 500) | st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)),
            max_size=3,
        )
    )
    watchers = tuple(
        Watcher(
            name=f"watch_{index}",
            poll_interval=draw(positive_durations),
            trigger=draw(st.none() | st.just("airflow.triggers.base.BaseEventTrigger")),
            source=tuple(
                SourceItem(
                    draw(instants()), draw(ids), draw(st.none() | json_objects), draw(extras)
                )
                for _ in range(draw(st.integers(0, 2)))
            ),
            extras=draw(extras),
        )
        for index in range(draw(st.integers(0, 2)))
    )
    assets = draw(
        st.sampled_from([(), (AssetDecl("landing", "s3://landing/files", watchers=watchers),)])
    )
    return Scenario(
        name=draw(st.text(min_size=1, max_size=20)),
        description=draw(st.none() | st.text(max_size=20)),
        clock=Clock(start, until, draw(extras)),
        scheduler=SchedulerSettings(
            draw(positive_durations), draw(st.none() | positive_durations), draw(extras)
        ),
        airflow_config=config,
        seed=draw(st.integers(-(2**31), 2**31)),
        alerts=AlertSettings(draw(st.sampled_from([1.5, 2, 1.01, 10.0])), draw(extras)),
        assets=assets,
        dags=tuple(dag_list),
        script=script,
        layout=layout,
        extras=draw(extras),
        expectations=tuple(draw(st.lists(expectations(names), max_size=3))),
        import_info=draw(
            st.none()
            | st.builds(
                ImportInfo,
                st.lists(ids, max_size=2).map(tuple),
                st.none() | positive_durations,
                st.none() | instants(),
                extras,
            )
        ),
    )


@st.composite
def expectations(draw: st.DrawFn, names: list[str]) -> Any:
    dag_id = draw(st.sampled_from(names))
    name = draw(st.none() | st.text(min_size=1, max_size=8))
    more = draw(extras)
    start = draw(st.none() | instants())
    end = draw(st.none() | instants())
    kind = draw(st.sampled_from(["between", "no_run", "count", "within", "alert", "same"]))
    if kind == "between":
        hours, minutes = st.integers(0, 23), st.integers(0, 59)
        clock = st.tuples(hours, minutes).map(lambda t: f"{t[0]:02d}:{t[1]:02d}")
        return RunsBetweenExpectation(
            dag_id,
            draw(clock),
            draw(clock),
            draw(st.none() | st.sampled_from(ZONES)),
            draw(st.sampled_from(["every_day", "weekdays"])),
            draw(st.sampled_from(["run_after", "end_date"])),
            start,
            end,
            name,
            more,
        )
    if kind == "no_run":
        return NoRunExpectation(dag_id, draw(instants()), draw(instants()), name, more)
    if kind == "count":
        bound = draw(st.sampled_from(["exactly", "at_least", "at_most"]))
        return CountExpectation(
            dag_id, **{bound: draw(st.integers(0, 9))}, from_=start, to=end, name=name, extras=more
        )
    if kind == "within":
        producer = draw(st.none() | st.sampled_from(names))
        return FiresWithinExpectation(dag_id, draw(positive_durations), producer, name, more)
    if kind == "alert":
        alert = draw(st.none() | st.sampled_from(["consumer_silent", "catchup_backlog"]))
        return NoAlertExpectation(alert, start, end, name, more)
    golden = {
        "run_type": "scheduled",
        "logical_date": None,
        "data_interval_start": None,
        "data_interval_end": None,
        "run_after": draw(instants()).text,
        "partition_key": None,
    }
    return SameAsExpectation(dag_id, (golden,), name, more)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_a_generated_scenario_survives_save_and_load_unchanged(scenario: Scenario) -> None:
    text = dumps_scenario(scenario)
    loaded = loads_scenario(text, source="generated.json")
    assert loaded == scenario
    assert dumps_scenario(loaded) == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_a_generated_scenario_builds_engine_inputs(scenario: Scenario) -> None:
    inputs = build_engine_inputs(scenario)
    assert [d.dag_id for d in inputs.dags] == [d.dag_id for d in scenario.dags]
    # Every action reaches the engine, deployment changes included (DEP-1..DEP-7).
    assert inputs.unsupported == ()
    assert len(inputs.script) == len(scenario.script)
