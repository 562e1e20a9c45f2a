"""An edited scenario's simulation continues from the unedited one's checkpoint before the
first instant the edit can affect, and ends with the record a fresh simulation gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from explorer.engine import actions as act
from explorer.engine.dag import DagSpec, TaskSpec
from explorer.engine.simulation import Simulation
from explorer.engine.timetables import CronTriggerTimetable


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


START = utc(2024, 3, 1)
END = START + timedelta(days=3)


def dags(cron_b: str = "30 * * * *") -> list[DagSpec]:
    return [
        DagSpec(
            dag_id,
            CronTriggerTimetable(cron, timezone="UTC"),
            start_date=START,
            tasks=(TaskSpec("t", timedelta(minutes=20)),),
        )
        for dag_id, cron in (("a", "0 * * * *"), ("b", cron_b))
    ]


def record(sim: Simulation) -> list[tuple[object, ...]]:
    return [(r.dag_id, r.run_id, r.state, r.start_date, r.end_date) for r in sim.runs]


def fresh(specs: list[DagSpec], script: list[act.Action]) -> list[tuple[object, ...]]:
    sim = Simulation(specs, start=START, script=script)
    sim.advance_to(END)
    return record(sim)


def test_a_script_edit_continues_from_a_checkpoint_before_it() -> None:
    """Failing a run on day 2 changes nothing before day 2: the new simulation starts from
    a checkpoint of the old one before that instant and ends as a fresh one would."""
    old = Simulation(dags(), start=START, checkpoint_every=20)
    old.advance_to(END)
    at = START + timedelta(days=2, hours=5, minutes=10)
    script: list[act.Action] = [act.Override(at, act.RunSelector("a", next=True), outcome="failed")]
    new = Simulation(dags(), start=START, script=script, checkpoint_every=20)
    adopted = new.adopt(old, at)
    assert adopted is not None and START + timedelta(days=1) < adopted < at
    assert new.now == adopted and len(new.runs) > 40  # the runs before it, not replayed
    new.advance_to(END)
    assert record(new) == fresh(dags(), script)
    assert any(r.state == "failed" for r in new.runs)


def test_a_dag_edited_before_its_first_parse_starts_from_its_initial_state() -> None:
    """b is deployed on day 2: a new cron for b cannot change anything before then."""
    deploy_b = START + timedelta(days=2)
    script: list[act.Action] = [act.Deploy(deploy_b, ("b",))]
    old = Simulation(dags(), start=START, script=script, checkpoint_every=20)
    old.advance_to(END)
    edited = dags("45 */2 * * *")
    new = Simulation(edited, start=START, script=script, checkpoint_every=20)
    assert new.adopt(old, deploy_b, changed=["b"]) is not None
    new.advance_to(END)
    assert record(new) == fresh(edited, script)


def test_nothing_is_adopted_when_the_edit_reaches_back_past_every_checkpoint() -> None:
    old = Simulation(dags(), start=START, checkpoint_every=20)
    old.advance_to(END)
    new = Simulation(dags("15 * * * *"), start=START, checkpoint_every=20)
    assert new.adopt(old, END, changed=["b"]) is None  # b was deployed at START
    assert new.adopt(old, START) is None
    assert new.now == START and not new.runs
