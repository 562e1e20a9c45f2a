"""Pure scenario edits (no Qt): what a click does to the model, and that the model stays whole."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from explorer.document import clipboard, conditions, edits
from explorer.scenario import (
    Instant,
    PauseAction,
    dumps_scenario,
    load_scenario,
    loads_scenario,
    validate_scenario,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "scenarios"

START = Instant.parse("2024-05-01T00:00:00Z")


def orders() -> edits.Scenario:  # type: ignore[name-defined]
    s = edits.new_scenario(START, "orders")
    s, p1 = edits.add_dag(s, (0, 0), "ingest_orders")
    s, p2 = edits.add_dag(s, (0, 200), "ingest_customers")
    s, a1 = edits.add_asset(s, (300, 0), "orders", "s3://warehouse/orders")
    s, a2 = edits.add_asset(s, (300, 200), "customers", "s3://warehouse/customers")
    s, c = edits.add_dag(s, (600, 100), "orders_mart")
    s = edits.connect(s, p1, a1, task_id="task_1")
    s = edits.connect(s, p2, a2, task_id="task_1")
    s = edits.connect(s, a1, c)
    s = edits.connect(s, a2, c)
    return s


class TestConditions:
    @pytest.mark.parametrize(
        ("schedule", "added", "expected"),
        [
            pytest.param(None, {"asset": "a"}, {"asset": "a"}, id="manual-becomes-asset"),
            pytest.param(
                {"asset": "a"},
                {"asset": "b"},
                {"all": [{"asset": "a"}, {"asset": "b"}]},
                id="second-asset-makes-an-AND",
            ),
            pytest.param(
                [{"asset": "a"}],
                {"asset": "b"},
                [{"asset": "a"}, {"asset": "b"}],
                id="bare-list-grows",
            ),
            pytest.param(
                {"any": [{"asset": "a"}]},
                {"asset": "b"},
                {"any": [{"asset": "a"}, {"asset": "b"}]},
                id="OR-grows",
            ),
            pytest.param(
                "@daily",
                {"asset": "a"},
                {
                    "timetable": "AssetOrTimeSchedule",
                    "args": {
                        "timetable": {
                            "timetable": "CronTriggerTimetable",
                            "args": {"cron": "@daily"},
                        },
                        "assets": {"asset": "a"},
                    },
                },
                id="cron-plus-asset-is-AssetOrTimeSchedule",
            ),
        ],
    )
    def test_add_input(self, schedule, added, expected) -> None:  # type: ignore[no-untyped-def]
        assert conditions.add_input(schedule, added) == expected

    def test_operand_paths_follow_the_graph_ids(self) -> None:
        schedule = {"any": [{"asset": "a"}, {"all": [{"asset": "b"}, {"asset": "c"}]}]}
        inner = conditions.part_at(schedule, (0, 1))
        assert isinstance(inner, conditions.Gate) and inner.kind == "all"
        assert [c.operands for c in inner.children] == [(0, 1, 0), (0, 1, 1)]

    def test_removing_the_last_input_of_a_gate_removes_the_gate(self) -> None:
        schedule = {"any": [{"asset": "a"}, {"all": [{"asset": "b"}]}]}
        assert conditions.remove_parts(schedule, [(0, 1, 0)]) == {"any": [{"asset": "a"}]}

    def test_removing_everything_of_AssetOrTimeSchedule_keeps_its_time_part(self) -> None:
        schedule = conditions.add_input("@daily", {"asset": "a"})
        assert conditions.remove_leaves(schedule, lambda _n: True) == {
            "timetable": "CronTriggerTimetable",
            "args": {"cron": "@daily"},
        }

    def test_the_input_is_never_changed_in_place(self) -> None:
        schedule = {"all": [{"asset": "a"}, {"asset": "b"}]}
        frozen = repr(schedule)
        conditions.set_gate_kind(schedule, (), "any")
        conditions.wrap_in_gate(schedule, ("all", 0), "any")
        conditions.remove_parts(schedule, [(0, 0)])
        conditions.add_input(schedule, {"asset": "c"})
        assert repr(schedule) == frozen


class TestEdits:
    def test_orders_example_is_valid_and_round_trips(self) -> None:
        s = orders()
        assert validate_scenario(s) == []
        mart = next(d for d in s.dags if d.dag_id == "orders_mart")
        assert mart.schedule == {"all": [{"asset": "orders"}, {"asset": "customers"}]}
        assert loads_scenario(dumps_scenario(s)) == s

    @pytest.mark.parametrize(
        ("source", "target", "task_id", "hint"),
        [
            pytest.param(
                "asset:orders",
                "asset:customers",
                None,
                "assets do not feed assets",
                id="asset-to-asset",
            ),
            pytest.param(
                "dag:ingest_orders", "dag:orders_mart", "task_1", "not a DAG", id="outlet-to-dag"
            ),
            pytest.param(
                "dag:ingest_orders", "asset:orders", "task_1", "already writes", id="twice"
            ),
            pytest.param(
                "asset:orders", "dag:orders_mart", None, "already waits", id="input-twice"
            ),
            pytest.param(
                "gate:orders_mart:0",
                "dag:ingest_orders",
                None,
                "belongs to its consumer",
                id="gate-out",
            ),
        ],
    )
    def test_invalid_connections_are_refused_with_a_hint(
        self, source, target, task_id, hint
    ) -> None:  # type: ignore[no-untyped-def]
        with pytest.raises(edits.EditError, match=hint):
            edits.connect(orders(), source, target, task_id=task_id)

    def test_rename_dag_reaches_the_script_and_the_layout(self) -> None:
        s = orders()
        s = dataclasses.replace(s, script=(PauseAction(START, "orders_mart"),))
        s = edits.rename_dag(s, "orders_mart", "mart")
        assert s.script[0].dag_id == "mart"  # type: ignore[union-attr]
        assert "dag:mart" in s.layout and "dag:orders_mart" not in s.layout
        assert validate_scenario(s) == []

    def test_rename_asset_reaches_every_reference(self) -> None:
        s = edits.rename_asset(orders(), "orders", "orders_v2")
        assert validate_scenario(s) == []
        mart = next(d for d in s.dags if d.dag_id == "orders_mart")
        assert {"asset": "orders_v2"} in mart.schedule["all"]  # type: ignore[index]

    def test_delete_asset_removes_its_uses_and_keeps_the_file_valid(self) -> None:
        s = edits.remove(orders(), ["asset:orders"])
        assert validate_scenario(s) == []
        mart = next(d for d in s.dags if d.dag_id == "orders_mart")
        assert mart.schedule == {"all": [{"asset": "customers"}]}
        assert all(not t.outlets for d in s.dags if d.dag_id == "ingest_orders" for t in d.tasks)

    def test_delete_dag_removes_its_script_actions(self) -> None:
        s = dataclasses.replace(orders(), script=(PauseAction(START, "orders_mart"),))
        s = edits.remove(s, ["dag:orders_mart"])
        assert s.script == () and validate_scenario(s) == []

    def test_delete_an_asset_decorator_dag_removes_its_entry_and_asset(self) -> None:
        # Delete on dag:orders (an @asset entry) must act, never silently do nothing.
        s = load_scenario(EXAMPLES / "asset_decorator_and_inlets.json")
        assert any(e.dag_id == "orders" for e in s.asset_dags)
        s = edits.remove(s, ["dag:orders"])
        assert [e.dag_id for e in s.asset_dags] == ["load_dimensions"]
        report = next(d for d in s.dags if d.dag_id == "sales_report")
        assert {"asset": "orders"} not in report.schedule  # type: ignore[operator]
        assert "dag:orders" not in s.layout and validate_scenario(s) == []

    def test_delete_a_multi_asset_dag_keeps_the_assets_it_wrote(self) -> None:
        s = load_scenario(EXAMPLES / "asset_decorator_and_inlets.json")
        s = edits.remove(s, ["dag:load_dimensions"])
        assert [e.dag_id for e in s.asset_dags] == ["orders"]
        assert {a.name for a in s.assets} == {"customers", "products"}
        assert validate_scenario(s) == []

    def test_delete_an_input_edge(self) -> None:
        s = edits.remove(
            orders(), edges=[edits.EdgeRef("asset:orders", "gate:orders_mart:0", None, (0, 0))]
        )
        mart = next(d for d in s.dags if d.dag_id == "orders_mart")
        assert mart.schedule == {"all": [{"asset": "customers"}]}

    def test_gate_op_and_nesting(self) -> None:
        s = edits.set_gate_op(orders(), "gate:orders_mart:0", "any")
        s = edits.wrap_in_gate(s, "orders_mart", (0, 1), "all")
        mart = next(d for d in s.dags if d.dag_id == "orders_mart")
        assert mart.schedule == {"any": [{"asset": "orders"}, {"all": [{"asset": "customers"}]}]}
        assert validate_scenario(s) == []

    def test_pending_alias_lives_in_layout_until_used(self) -> None:
        s, alias = edits.add_alias(orders(), (100, 400))
        assert alias == "alias:alias_1" and alias in s.layout
        s = edits.connect(s, "dag:ingest_orders", alias, task_id="task_1")
        assert {"alias": {"name": "alias_1"}} in s.dags[0].tasks[0].outlets
        assert loads_scenario(dumps_scenario(s)).layout[alias] == (100, 400)

    def test_every_example_survives_a_move_and_a_rename(self) -> None:
        for path in sorted(EXAMPLES.glob("*.json")):
            s = load_scenario(path)
            s = edits.move_nodes(s, {f"dag:{s.dags[0].dag_id}": (12.4, 56.6)})
            s = edits.rename_dag(s, s.dags[0].dag_id, "renamed_dag")
            assert validate_scenario(s) == [], path.name
            assert loads_scenario(dumps_scenario(s)) == s


class TestClipboard:
    def test_copy_paste_renames_dags_and_reuses_assets(self) -> None:
        s = orders()
        text = clipboard.copy_nodes(s, ["dag:ingest_orders", "asset:orders"])
        assert text is not None
        pasted, added = clipboard.paste(s, text)
        assert "dag:ingest_orders_2" in added
        assert [a.name for a in pasted.assets] == ["orders", "customers"]  # reused, not doubled
        assert validate_scenario(pasted) == []
        assert pasted.layout["dag:ingest_orders_2"] == (40, 40)

    def test_pasting_foreign_text_is_refused(self) -> None:
        with pytest.raises(edits.EditError, match="no Schedule Explorer nodes"):
            clipboard.paste(orders(), "hello")


def test_deleting_a_gate_removes_its_part_of_the_condition() -> None:
    s = edits.wrap_in_gate(orders(), "orders_mart", (0, 1), "any")
    s = edits.remove(s, ["gate:orders_mart:0.1"])
    mart = next(d for d in s.dags if d.dag_id == "orders_mart")
    assert mart.schedule == {"all": [{"asset": "orders"}]}
    s = edits.remove(s, ["gate:orders_mart:0"])
    mart = next(d for d in s.dags if d.dag_id == "orders_mart")
    assert mart.schedule is None
    assert validate_scenario(s) == []
    assert not any(k.startswith("gate:") for k in s.layout)
