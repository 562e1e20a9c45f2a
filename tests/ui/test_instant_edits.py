"""Edits that answer instantly: a layout edit never touches the engine, Back and
an edit replay from the nearest checkpoint rather than from clock.start, and the
re-simulation after an edit runs in slices with the panes following.

Engine work is counted, not timed: every run the engine creates is heard by the
session's observers (``Change("run_created")``), so a replay from clock.start is seen
as all the runs created again."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable
from datetime import datetime, timedelta

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import explorer.engine.loop as loop_module
import explorer.ui.canvas.scene as scene_module
from explorer.document.edit_reach import edit_kind
from explorer.document.edits import replace_dag
from explorer.document.timeline.data import RUN_COLUMNS, RUN_STATES, RUN_TYPES, RunStore
from explorer.engine.simulation import Change, Simulation
from explorer.graph.generate import synthetic_scenario
from explorer.scenario import Scenario
from explorer.scenario.model import PauseAction
from explorer.scenario.values import Instant
from explorer.ui.canvas.items import NodeItem
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.clock import ManualTicker
from explorer.ui.commands import EditScenario
from explorer.ui.document import ScenarioDocument
from explorer.ui.panels.workbench import Workbench
from explorer.ui.session import BACK_SNAPSHOTS, SimulationSession
from explorer.ui.timeline.runs_table import RunsTable
from tests.ui.conftest import EXAMPLES, drag

pytestmark = pytest.mark.gui


class Deferred:
    """The session's ``defer``: slices wait until the test runs them."""

    def __init__(self) -> None:
        self.pending: list[Callable[[], None]] = []

    def __call__(self, callback: Callable[[], None]) -> None:
        self.pending.append(callback)

    def run_one(self) -> None:
        self.pending.pop(0)()

    def drain(self) -> int:
        slices = 0
        while self.pending:
            self.run_one()
            slices += 1
        return slices


def scenario() -> Scenario:
    """19 DAGs over a week: about 2,500 instants, so several automatic checkpoints."""
    return synthetic_scenario(120)


def session_at(days: float, **kwargs: object) -> tuple[SimulationSession, Deferred]:
    defer = Deferred()
    session = SimulationSession(scenario(), defer=defer, **kwargs)  # type: ignore[arg-type]
    session.run_to(session.start + timedelta(days=days))
    defer.drain()
    return session, defer


def created_runs(sim: Simulation) -> list[Change]:
    """Every run the engine creates from now on."""
    heard: list[Change] = []
    sim.subscribe(lambda change: heard.append(change) if change.kind == "run_created" else None)
    return heard


def record(sim: Simulation) -> list[tuple[object, ...]]:
    return [(r.dag_id, r.run_id, r.state, r.start_date, r.end_date) for r in sim.runs]


def fresh_record(scenario: Scenario, until: datetime) -> list[tuple[object, ...]]:
    defer = Deferred()
    session = SimulationSession(scenario, defer=defer, checkpoint_every=0)
    session.run_to(until)
    defer.drain()
    return record(session.sim)


class TestBack:
    def test_back_after_a_move_replays_nothing(self) -> None:
        """Back restores the engine's state from before the move (a checkpoint the session
        took): no run is created again. With checkpoints off it replays from clock.start."""
        session, _ = session_at(5)
        before = record(session.sim)
        session.run_to(session.start + timedelta(days=6))
        heard = created_runs(session.sim)
        session.step_back()
        assert session.now == session.start + timedelta(days=5)
        assert not heard
        assert record(session.sim) == before == fresh_record(scenario(), session.now)

    def test_back_without_checkpoints_replays_from_clock_start(self) -> None:
        """The contrast of the test above (checkpoints are what makes Back instant)."""
        session, _ = session_at(5, checkpoint_every=0)
        at_day_5 = len(session.sim.runs)
        session.run_to(session.start + timedelta(days=6))
        heard = created_runs(session.sim)
        session.step_back()
        assert len(heard) == at_day_5 == len(session.sim.runs)

    def test_back_after_steps_gives_the_state_a_fresh_run_has(self) -> None:
        """Step, step, Back, Back: each Back lands on the record (and the next event) a
        fresh simulation to that instant has, and stepping again goes the same way."""
        session, _ = session_at(2)
        instants, records = [], []
        for _ in range(4):
            instants.append(session.now)
            records.append(record(session.sim))
            session.step_next()
        after = (session.now, record(session.sim))
        for instant, expected in zip(reversed(instants), reversed(records), strict=True):
            session.step_back()
            assert session.now == instant and record(session.sim) == expected
        assert records[0] == fresh_record(scenario(), instants[0])
        for _ in range(4):
            session.step_next()
        assert (session.now, record(session.sim)) == after

    def test_back_beyond_the_kept_states_replays_from_the_nearest_checkpoint(self) -> None:
        """Only the latest BACK_SNAPSHOTS moves keep their state: older ones go back
        through the automatic checkpoints, never from clock.start."""
        session, _ = session_at(5)
        before = record(session.sim)
        at_day_5 = len(before)
        for hour in range(1, BACK_SNAPSHOTS + 2):
            session.run_to(session.start + timedelta(days=5, hours=hour))
        for _ in range(BACK_SNAPSHOTS):
            session.step_back()
        heard = created_runs(session.sim)
        session.step_back()  # its state was not kept
        assert session.now == session.start + timedelta(days=5)
        assert record(session.sim) == before
        assert heard, "Back replays from a checkpoint before day 5"
        assert heard[0].at > session.start + timedelta(days=1)
        assert len(heard) < at_day_5 / 2  # from clock.start, all of them would be


class TestLayoutEdits:
    def test_moving_a_node_never_touches_the_engine(self, window, qtbot: QtBot) -> None:  # type: ignore[no-untyped-def]
        window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
        ws = window.workspace
        panes = ws.simulation
        session = panes.session
        session.run_to(session.start + timedelta(days=1))
        qtbot.waitUntil(lambda: not session.busy)
        sim, now = session.sim, session.now
        heard = created_runs(sim)
        changed: list[None] = []
        session.changed.connect(lambda: changed.append(None))
        item = ws.scene.nodes["dag:ingest_orders"]
        grab = item.mapToScene(QPointF(0, item.body().top() + 10))
        drag(window, grab, grab + QPointF(90, 40), steps=8)
        assert ws.document.undo_stack.text(0).startswith("Move")
        assert session.scenario.layout == ws.document.scenario.layout  # the session has it
        assert session.sim is sim and session.now == now
        assert not heard and not changed and not session.busy
        ws.document.undo_stack.undo()
        assert session.sim is sim and not heard

    def test_a_move_moves_that_node_and_its_edges_only(self, window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        """No item is rebuilt or re-measured: the dragged node and its edges move, the
        others stay where they were; undo moves it back the same way. (The first move of a
        node the file places nowhere is undone by placing it afresh: it is made first.)"""
        window.open_file(EXAMPLES / "ny_dst_orders_mart.json")
        scene = window.workspace.scene
        item = scene.nodes["dag:ingest_orders"]
        assert item.edges
        grab = item.mapToScene(QPointF(0, item.body().top() + 10))
        drag(window, grab, grab + QPointF(60, 0), steps=4)
        others = {n: i.pos() for n, i in scene.nodes.items() if i is not item}
        start = item.pos()
        rebuilt: list[object] = []
        for name in ("canvas_model", "place"):
            original = getattr(scene_module, name)

            def spy(*args: object, _original: Callable[..., object] = original) -> object:
                rebuilt.append(args)
                return _original(*args)

            monkeypatch.setattr(scene_module, name, spy)
        remeasured: list[object] = []
        monkeypatch.setattr(NodeItem, "set_view", lambda self, view: remeasured.append(view))
        grab = item.mapToScene(QPointF(0, item.body().top() + 10))
        drag(window, grab, grab + QPointF(90, 40), steps=8)
        assert item.pos() != start  # (snapped to the grid)

        def edges_follow() -> None:
            for edge in item.edges:
                a, b = edge.endpoints()
                path = edge.path()
                assert path.pointAtPercent(0) == a
                assert abs(path.pointAtPercent(1).y() - b.y()) < 1e-6

        edges_follow()
        window.workspace.document.undo_stack.undo()
        assert item.pos() == start
        edges_follow()
        assert {n: i.pos() for n, i in scene.nodes.items() if i is not item} == others
        assert not rebuilt and not remeasured


class TestCanvasAfterAnEdit:
    def test_the_canvas_after_an_edit_is_the_canvas_of_the_edited_scenario(
        self, qapp: QApplication
    ) -> None:
        """The scene keeps what an edit cannot change (the places of unplaced nodes, the
        edges' paths): after a schedule edit every item is where a fresh scene of the
        edited scenario puts it."""
        s = scenario()
        assert not s.layout  # every node placed by the layered layout
        document = ScenarioDocument(s)
        scene = ScenarioScene(document, qapp.palette())
        dag = next(d for d in s.dags if d.schedule == "@daily")
        edited = replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule="17 */3 * * *"))
        document.push(EditScenario(document, edited, "Edit schedule"))
        fresh = ScenarioScene(ScenarioDocument(edited), qapp.palette())
        assert scene.positions == fresh.positions
        assert {n: i.pos() for n, i in scene.nodes.items()} == {
            n: i.pos() for n, i in fresh.nodes.items()
        }
        assert {k: e.path() for k, e in scene.edges.items()} == {
            k: e.path() for k, e in fresh.edges.items()
        }
        assert scene.nodes[f"dag:{dag.dag_id}"].view == fresh.nodes[f"dag:{dag.dag_id}"].view


class TestEdits:
    def test_a_script_edit_resimulates_from_the_checkpoint_before_it(self) -> None:
        session, defer = session_at(6)
        at = session.start + timedelta(days=5, hours=3)
        dag_id = session.scenario.dags[0].dag_id
        pause = PauseAction(at=Instant(at, at.isoformat()), dag_id=dag_id)
        edited = dataclasses.replace(session.scenario, script=(*session.scenario.script, pause))
        heard: list[Change] = []

        def listen() -> None:  # the new engine is in place before its first slice runs
            session.sim.subscribe(lambda c: heard.append(c) if c.kind == "run_created" else None)

        session.scenario_replaced.connect(listen)
        session.replace_scenario(edited)
        defer.drain()
        assert session.resumed_at is not None
        assert session.start + timedelta(days=1) < session.resumed_at < at
        assert session.now == session.start + timedelta(days=6)
        resumed = session.resumed_at
        assert heard and heard[0].at > resumed  # nothing before it is replayed
        assert len(heard) == sum(1 for r in session.sim.runs if r.created_at > resumed)
        assert len(heard) < len(session.sim.runs)
        assert record(session.sim) == fresh_record(edited, session.now)

    def test_a_dag_edit_reaches_back_to_the_dags_first_parse(self) -> None:
        session, defer = session_at(2)
        dag = session.scenario.dags[1]
        edited_dag = dataclasses.replace(dag, catchup=not dag.catchup, max_active_runs=1)
        dags = tuple(edited_dag if d is dag else d for d in session.scenario.dags)
        edited = dataclasses.replace(session.scenario, dags=dags)
        session.replace_scenario(edited)
        defer.drain()
        assert session.resumed_at is None  # deployed at clock.start: nothing can be kept
        assert session.now == session.start + timedelta(days=2)
        assert record(session.sim) == fresh_record(edited, session.now)

    def test_the_clock_goes_back_to_where_it_was_after_an_edit_made_mid_resimulation(
        self,
    ) -> None:
        session, defer = session_at(3, chunk_ms=0)  # one instant a slice
        dags = session.scenario.dags
        first = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=2), *dags[1:])
        )
        session.replace_scenario(first)
        assert session.busy and session.now < session.start + timedelta(days=3)
        second = dataclasses.replace(first, dags=(dags[0], *first.dags[1:]))
        session.replace_scenario(second)  # while the first edit is still re-simulating
        defer.drain()
        assert session.now == session.start + timedelta(days=3)

    def test_edits_made_mid_resimulation_leave_one_chain_of_slices(self) -> None:
        """Each edit starts a new re-simulation; a slice of the one it supersedes that
        was still waiting for the event loop must do nothing. Otherwise every edit typed
        while the last one re-simulates adds a chain of slices, and each turn of the loop
        runs all of them before the window can redraw (the edit got slower each time)."""
        session, defer = session_at(3, chunk_ms=0)  # one instant a slice
        dags = session.scenario.dags
        scenarios = [
            dataclasses.replace(
                session.scenario,
                dags=(dataclasses.replace(dags[0], max_active_runs=runs), *dags[1:]),
            )
            for runs in (2, 3, 4, 5)
        ]
        for edited in scenarios:
            session.replace_scenario(edited)
        for _ in range(5):  # turns of the event loop: each runs the slices queued before it
            turn, defer.pending = defer.pending, []
            for callback in turn:
                callback()
            assert len(defer.pending) == 1  # one slice went on, and queued one successor
        defer.drain()
        assert session.now == session.start + timedelta(days=3)
        assert record(session.sim) == fresh_record(scenarios[-1], session.now)

    def test_an_edits_first_slice_is_one_instant(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The panes redraw after an edit's first slice: it processes one instant (the
        re-simulation's first), however long a slice may be, so the edit is shown at once
        and the slices that fill it in come after."""
        session, defer = session_at(2, chunk_ms=60_000)  # slices far longer than the run
        dags = session.scenario.dags
        edited = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=3), *dags[1:])
        )
        processed: list[datetime] = []
        process = loop_module.process_instant

        def counted(sim: Simulation, t: datetime) -> None:
            processed.append(t)
            process(sim, t)

        monkeypatch.setattr(loop_module, "process_instant", counted)
        redraws: list[datetime] = []
        session.changed.connect(lambda: redraws.append(session.now))
        session.replace_scenario(edited)
        assert session.busy and session.resumed_at is None
        assert processed == [session.start] and redraws == [session.start]
        defer.drain()  # then one long slice does the rest
        assert session.now == session.start + timedelta(days=2)
        assert record(session.sim) == fresh_record(edited, session.now)

    def test_the_replaced_simulation_is_let_go_a_piece_per_turn(self) -> None:
        """Freeing a simulation weeks in at once (its checkpoints are whole copies of the
        state) held the edit's first redraw: the edit hands its pieces to the event loop,
        one copy a turn, and the old engine itself goes last."""
        reap = Deferred()
        session, defer = session_at(4, checkpoint_every=200, reap=reap)
        session.step_next()  # a move, so Back keeps a copy of the state too
        old = weakref.ref(session.sim)
        copies = len(session.sim._checkpoints) + len(session._back)
        assert copies > 3
        dags = session.scenario.dags
        edited = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=3), *dags[1:])
        )
        session.replace_scenario(edited)
        assert old() is not None  # nothing freed before the panes could redraw
        assert len(reap.pending) == 1  # one piece waits for each turn
        turns = 0
        while reap.pending:
            assert old() is not None
            reap.run_one()
            turns += 1
        assert turns == copies + 1 and old() is None
        defer.drain()
        assert record(session.sim) == fresh_record(edited, session.now)

    def test_the_panes_follow_the_slices_of_a_resimulation(self, qtbot: QtBot) -> None:
        session, defer = session_at(4, chunk_ms=0)  # one instant a slice
        session.redraw_every_s = 0  # every slice (the default: a few times a second)
        bench = Workbench(session, ticker=ManualTicker())
        qtbot.addWidget(bench)
        dags = session.scenario.dags
        edited = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=3), *dags[1:])
        )
        session.replace_scenario(edited)
        assert session.busy and bench.clock_bar.progress.isVisibleTo(bench)
        shown = [len(bench.timeline.runs)]
        while defer.pending:
            defer.run_one()
            shown.append(len(bench.timeline.runs))
        assert len(set(shown)) > 3  # the timeline grew slice by slice
        assert shown == sorted(shown) and shown[-1] == len(session.sim.runs)
        assert not bench.clock_bar.progress.isVisibleTo(bench)


class TestPackedColumns:
    """The timeline reads ended runs from the engine's packed columns, never as objects."""

    @staticmethod
    def expected(sim: Simulation, store: RunStore) -> dict[str, list[float]]:
        def x(value: datetime | None) -> float:
            return float("nan") if value is None else value.timestamp()

        runs = list(sim.runs)
        return {
            "ival_start": [x(r.data_interval.start if r.data_interval else None) for r in runs],
            "ival_end": [x(r.data_interval.end if r.data_interval else None) for r in runs],
            "logical": [x(r.logical_date) for r in runs],
            "run_after": [x(r.run_after) for r in runs],
            "created": [x(r.created_at) for r in runs],
            "start": [x(r.start_date) for r in runs],
            "end": [x(r.end_date) for r in runs],
            "state": [RUN_STATES.index(r.state) for r in runs],
            "type": [RUN_TYPES.index(r.run_type) for r in runs],
            "dag": [store.dag_ids.index(r.dag_id) for r in runs],
        }

    def check(self, sim: Simulation, store: RunStore) -> None:
        expected = self.expected(sim, store)
        for name in ("state", "type"):
            assert getattr(store, f"{name}s")().tolist() == expected[name]
        assert store.dag_codes().tolist() == expected["dag"]
        for name in RUN_COLUMNS:
            np.testing.assert_array_equal(store.col(name), np.array(expected[name]))

    def test_a_whole_log_is_read_from_its_columns(self) -> None:
        session, _ = session_at(4, checkpoint_every=200)
        sim = session.sim
        store = RunStore()
        store.sync(sim.runs)
        live = len(sim.runs) - sim.runs.packed
        assert sim.runs.packed > 500
        assert store.objects_read == live  # the packed ones were never built
        self.check(sim, store)
        session.run_to(session.start + timedelta(days=5))
        result = store.sync(sim.runs)
        assert not result.reset and store.objects_read < 100
        self.check(sim, store)
        shown = len(store)
        session.step_back()  # a new run log (a copy from before): its columns are read again
        result = store.sync(session.sim.runs)
        assert not result.reset  # and compared: the views only hear of the rows dropped
        assert result.removed == shown - len(session.sim.runs) > 0
        assert set(result.changed) <= {r for r, run in enumerate(session.sim.runs) if run.active}
        assert store.objects_read == len(session.sim.runs) - session.sim.runs.packed
        self.check(session.sim, store)
        row = len(store) - 1
        run = session.sim.runs[row]
        assert store.find(run.dag_id, run.run_id) == row and store.runs[row] is run


class TestRunsTableAfterBack:
    def test_back_drops_the_latest_rows_and_shows_what_a_fresh_table_shows(
        self, qtbot: QtBot
    ) -> None:
        session, _ = session_at(4)
        table = RunsTable()
        qtbot.addWidget(table)
        table.refresh(session.sim)
        session.run_to(session.start + timedelta(days=5))
        table.refresh(session.sim)
        resets: list[None] = []
        table.model.modelReset.connect(lambda: resets.append(None))
        session.step_back()
        table.refresh(session.sim)
        assert not resets  # rows removed, not the whole model reset
        fresh = RunsTable()
        qtbot.addWidget(fresh)
        fresh.refresh(session.sim)

        def shown(t: RunsTable) -> list[list[object]]:
            m = t.proxy
            return [
                [m.index(r, c).data() for c in range(m.columnCount())] for r in range(m.rowCount())
            ]

        assert table.proxy.rowCount() == len(session.sim.runs)
        assert shown(table) == shown(fresh)
        assert table.count_label.text() == fresh.count_label.text()


class TestEditKinds:
    def test_each_field_is_classified(self) -> None:
        s = scenario()
        until = s.clock.start.value + timedelta(days=9)
        assert edit_kind(s, s) == "none"
        assert edit_kind(s, dataclasses.replace(s, layout={"dag:x": (1.0, 2.0)})) == "layout"
        assert edit_kind(s, dataclasses.replace(s, description="notes")) == "layout"
        later = dataclasses.replace(s.clock, until=Instant(until, until.isoformat()))
        assert edit_kind(s, dataclasses.replace(s, clock=later)) == "view"
        assert edit_kind(s, dataclasses.replace(s, seed=s.seed + 1)) == "engine"
        assert edit_kind(s, dataclasses.replace(s, dags=s.dags[1:])) == "engine"


class TestRunsTableAfterAnEdit:
    def test_an_edit_never_tells_the_old_rows_that_their_zone_changed(self, qtbot: QtBot) -> None:
        """The timeline names its display zone again whenever an edit hands it a new
        simulation; when the zone is the one shown, the runs table must not announce every
        row changed (60 days in, the proxy re-filtered 50,000 rows of the replaced
        simulation before the edit's first redraw). A zone that does change still does."""
        session, defer = session_at(3)
        bench = Workbench(session, ticker=ManualTicker())
        qtbot.addWidget(bench)
        model = bench.table.model
        assert model.rowCount() > 100
        announced: list[int] = []
        model.dataChanged.connect(lambda a, b: announced.append(b.row() - a.row() + 1))
        dags = session.scenario.dags
        edited = dataclasses.replace(
            session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=3), *dags[1:])
        )
        session.replace_scenario(edited)
        defer.drain()
        assert not [n for n in announced if n > 1]  # (a run's own row may change)
        zone = bench.timeline.display_zone
        other = "Asia/Tokyo" if zone != "Asia/Tokyo" else "Europe/Paris"
        bench.timeline.set_display_zone(other)
        assert announced[-1] == model.rowCount()
