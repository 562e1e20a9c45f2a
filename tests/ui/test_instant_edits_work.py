"""Edits, steps and Back do only the work they need.

Work is counted, never timed: which builders run, which rows are read again, which
measurements a hidden table makes. Each test also checks that the cheaper path shows
exactly what the full one shows.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import explorer.document.nodes as nodes_module
import explorer.ui.canvas.scene as scene_module
from explorer.document.edits import replace_dag
from explorer.document.timeline.data import RUN_COLUMNS, RunStore
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.commands import EditScenario
from explorer.ui.document import ScenarioDocument
from explorer.ui.timeline.runs_table import RunsTable
from tests.ui.test_instant_edits import scenario, session_at

pytestmark = pytest.mark.gui


def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[object]:
    calls: list[object] = []
    original = getattr(owner, name)

    def wrapper(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


def same_canvas(scene: ScenarioScene, fresh: ScenarioScene) -> None:
    assert set(scene.nodes) == set(fresh.nodes)
    assert {n: i.view for n, i in scene.nodes.items()} == {
        n: i.view for n, i in fresh.nodes.items()
    }
    assert {n: i.pos() for n, i in scene.nodes.items()} == {
        n: i.pos() for n, i in fresh.nodes.items()
    }
    assert {k: e.path() for k, e in scene.edges.items()} == {
        k: e.path() for k, e in fresh.edges.items()
    }


class TestCanvasAfterADagEdit:
    def test_a_schedule_edit_remakes_only_that_dags_node(
        self, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        s = scenario()
        document = ScenarioDocument(s)
        scene = ScenarioScene(document, qapp.palette())
        graph = scene.model.graph
        built = spy(monkeypatch, scene_module, "canvas_model")
        built_inside = spy(monkeypatch, nodes_module, "canvas_model")
        dag = next(d for d in s.dags if d.schedule == "@daily")
        edited = replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule="17 */3 * * *"))
        document.push(EditScenario(document, edited, "Edit schedule"))
        assert not built and not built_inside  # the graph and other nodes are kept
        assert scene.model.graph is graph
        edited_views = {n: i.view for n, i in scene.nodes.items()}
        document.undo_stack.undo()
        assert not built and not built_inside
        assert scene.model.graph is graph
        same_canvas(scene, ScenarioScene(ScenarioDocument(s), qapp.palette()))
        node = f"dag:{dag.dag_id}"
        fresh = ScenarioScene(ScenarioDocument(edited), qapp.palette())
        assert edited_views == {n: i.view for n, i in fresh.nodes.items()}
        assert edited_views[node] != scene.nodes[node].view  # the chip says the new schedule
        document.undo_stack.redo()
        same_canvas(scene, fresh)

    def test_an_edit_of_a_dags_tasks_builds_the_graph_again(
        self, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A task added to a DAG that writes an asset: its node grows and a new outlet
        edge appears (the graph changed, so the model is built whole)."""
        s = scenario()
        document = ScenarioDocument(s)
        scene = ScenarioScene(document, qapp.palette())
        built = spy(monkeypatch, nodes_module, "canvas_model")
        dag = next(d for d in s.dags if d.tasks and d.tasks[0].outlets)
        extra = dataclasses.replace(dag.tasks[0], task_id="extra_writer")
        edited = replace_dag(s, dag.dag_id, dataclasses.replace(dag, tasks=(*dag.tasks, extra)))
        document.push(EditScenario(document, edited, "Add task"))
        assert built
        same_canvas(scene, ScenarioScene(ScenarioDocument(edited), qapp.palette()))


class TestBackCutsTheRunStores:
    def columns(self, store: RunStore) -> dict[str, list[float]]:
        out = {name: store.col(name).tolist() for name in RUN_COLUMNS}
        out["state"] = store.states().tolist()
        out["type"] = store.types().tolist()
        out["dag"] = [store.dag_ids[c] for c in store.dag_codes().tolist()]
        out["no_interval"] = store.no_interval().tolist()
        return out

    def test_back_reads_only_the_rows_that_can_differ(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        session, _ = session_at(4)
        store = RunStore()
        store.sync(session.sim.runs)
        for _ in range(6):  # steps in which runs start, end and are packed
            session.step_next()
            store.sync(session.sim.runs)
        shown = len(store)
        rebuilt = spy(monkeypatch, RunStore, "_fill_packed")
        for _ in range(3):
            session.step_back()
            result = store.sync(session.sim.runs)
            assert not result.reset
        assert not rebuilt  # cut to the restored log, not rebuilt from its columns
        assert len(store) == len(session.sim.runs) < shown
        fresh = RunStore()
        fresh.sync(session.sim.runs)
        np.testing.assert_equal(self.columns(store), self.columns(fresh))
        row = len(store) - 1
        run = session.sim.runs[row]
        assert store.find(run.dag_id, run.run_id) == row

    def test_another_simulations_log_is_still_read_whole(self) -> None:
        """An edit's re-simulation is not a copy of an earlier state: rebuilt, and right."""
        session, defer = session_at(3)
        store = RunStore()
        store.sync(session.sim.runs)
        dags = session.scenario.dags
        edited = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=1), *dags[1:])
        )
        session.replace_scenario(edited)
        defer.drain()
        store.sync(session.sim.runs)
        fresh = RunStore()
        fresh.sync(session.sim.runs)
        np.testing.assert_equal(self.columns(store), self.columns(fresh))

    def test_a_step_leaves_the_garbage_collector_on(self) -> None:
        import gc

        session, _ = session_at(1)
        session.step_next()
        assert gc.isenabled()

    def test_the_back_snapshot_is_filed_with_the_old_objects(self) -> None:
        """The copy a step keeps for Back is never scanned by a young collection: it makes
        no garbage, and scanning its lists of every asset event cost a quarter of a step
        60 days in. Right after the step, none of its containers is in a young
        generation (before: all of them, until two collections had walked them)."""
        import gc

        session, _ = session_at(1)
        gc.collect()  # the young generations start empty; the step makes < 10 collections
        session.step_next()
        snapshot = session._back[-1].state
        copied = [snapshot, *snapshot.dags.values(), snapshot.assets.events, snapshot.runs]
        copied += [dag.active for dag in snapshot.dags.values()]
        young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation)}
        assert all(gc.is_tracked(o) for o in copied)
        assert [o for o in copied if id(o) in young] == []
        # and the copy is the state Back restores: the same instant as before the step
        assert snapshot.now < session.now
        session.step_back()
        assert session.sim.state is snapshot


class TestSupersededEdit:
    def test_an_edit_made_mid_resimulation_never_shows_the_dropped_run(self) -> None:
        """The first edit's half-made simulation is dropped unseen when a second edit
        arrives: no redraw of it, the clock still comes back."""
        session, defer = session_at(3, chunk_ms=0)  # one instant a slice
        dags = session.scenario.dags
        first = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=2), *dags[1:])
        )
        session.replace_scenario(first)
        dropped = session.sim
        assert session.busy
        shown: list[object] = []
        session.changed.connect(lambda: shown.append(session.sim))
        busy: list[bool] = []
        session.busy_changed.connect(busy.append)
        second = dataclasses.replace(first, dags=(dags[0], *first.dags[1:]))
        session.replace_scenario(second)
        defer.drain()
        assert dropped not in shown
        assert shown and shown[-1] is session.sim
        assert busy == [False]  # busy from the first edit to the end of the second
        assert session.now == session.start + timedelta(days=3)


class TestHiddenRunsTable:
    def test_a_hidden_table_measures_nothing_and_grows_its_columns_when_shown(
        self, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        session, _ = session_at(2)
        table = RunsTable()
        qtbot.addWidget(table)
        table.resize(900, 400)
        table.refresh(session.sim)
        session.run_to(session.start + timedelta(days=3))
        table.refresh(session.sim)
        measured = spy(monkeypatch, table.view, "sizeHintForColumn")
        table.view.setColumnWidth(1, 8)  # a cell cut: the table must grow it once shown
        table.grow_columns()  # what the timer does while the table is hidden
        assert not measured
        table.show()
        qtbot.waitExposed(table)
        view = table.view
        last = view.horizontalHeader().count() - 1

        def every_column_fits() -> bool:
            return all(view.sizeHintForColumn(c) <= view.columnWidth(c) for c in range(last))

        qtbot.waitUntil(every_column_fits, timeout=5000)
