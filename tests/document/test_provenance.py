"""Provenance of imported DAGs: the report's items and the supplied marks (no Qt)."""

from __future__ import annotations

import dataclasses

from explorer.document.provenance import import_record, mark_supplied, unresolved_items
from explorer.scenario.model import Clock, Dag, DagSource, ImportInfo, Scenario, Unresolved
from explorer.scenario.values import Instant

START = Instant.parse("2024-05-01T00:00:00Z")


def imported(**fields: object) -> Dag:
    return Dag(
        "orders",
        "@daily",
        source=DagSource("team/orders.py", 4),
        unresolved=(
            Unresolved("start_date", "read from the environment", line=7),
            Unresolved("schedule", "a Variable", line=6, file="team/common.py"),
        ),
        **fields,  # type: ignore[arg-type]
    )


def test_items_carry_file_line_and_reason_and_the_supplied_mark() -> None:
    scenario = Scenario("s", Clock(START), dags=(imported(supplied=("schedule",)), Dag("hand")))
    items = unresolved_items(scenario)
    assert [(i.dag_id, i.field, i.where, i.supplied) for i in items] == [
        ("orders", "start_date", "team/orders.py:7", False),
        ("orders", "schedule", "team/common.py:6", True),  # its own file when it names one
    ]


def test_typing_an_unresolved_value_marks_it_supplied_and_nothing_else() -> None:
    before = imported()
    after = mark_supplied(before, dataclasses.replace(before, start_date=START))
    assert after.supplied == ("start_date",)
    # a field the import read is not "supplied" by an edit
    edited = mark_supplied(before, dataclasses.replace(before, timezone="Europe/Paris"))
    assert edited.supplied == ()
    # a DAG made by hand has nothing to supply
    hand = Dag("hand")
    assert mark_supplied(hand, dataclasses.replace(hand, start_date=START)).supplied == ()
    # supplied once stays supplied, listed once
    again = mark_supplied(after, dataclasses.replace(after, start_date=None))
    assert again.supplied == ("start_date",)


def test_import_record_needs_roots() -> None:
    assert import_record(Scenario("s", Clock(START))) is None
    assert import_record(Scenario("s", Clock(START), import_info=ImportInfo())) is None
    info = ImportInfo(roots=("dags",))
    assert import_record(Scenario("s", Clock(START), import_info=info)) is info
