"""A step, a Back and a node drag redo only the canvas work of what changed (budgets:
``step <= 50 ms``, ``back <= 50 ms``, ``move <= 16 ms`` on 200 DAGs).

Work is counted, never timed: the live badges given to DAG nodes after a step, a
Back and a drag, and the pieces of a replaced simulation let go while the user
acts right after an edit. Each test also checks that what is shown is what the
full path gives.
"""

from __future__ import annotations

import dataclasses
import weakref
from datetime import timedelta

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

import explorer.ui.session as session_module
from explorer.ui.canvas.items import NodeItem
from explorer.ui.main_window import MainWindow
from explorer.ui.simulation_panes import SimulationPanes, badge_look
from tests.ui.conftest import EXAMPLES, drag
from tests.ui.test_instant_edits import session_at

pytestmark = pytest.mark.gui

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def _panes(window: MainWindow) -> SimulationPanes:
    assert window.open_file(ORDERS)
    assert window.workspace is not None and window.workspace.simulation is not None
    QApplication.processEvents()
    return window.workspace.simulation


def _count_set_live(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    given: list[str] = []
    original = NodeItem.set_live

    def counted(self: NodeItem, live: tuple[str, str, str] | None) -> None:
        given.append(self.node_id)
        original(self, live)

    monkeypatch.setattr(NodeItem, "set_live", counted)
    return given


def _shown_as_computed(panes: SimulationPanes) -> None:
    """Every DAG node shows the badge a fresh reading of the engine gives."""
    for dag_id, badge in panes.session.badges().items():
        item = panes.scene.nodes.get(f"dag:{dag_id}")
        if item is not None:
            assert item.live == badge_look(badge), dag_id


def test_a_step_and_back_give_badges_only_to_nodes_whose_badge_changed(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    panes = _panes(window)
    session = panes.session
    given = _count_set_live(monkeypatch)
    dags = len(session.sim.dags)
    changed_total = 0
    for move in [session.step_next] * 6 + [session.step_back] * 4:
        before = session.badges()
        given.clear()
        move()
        after = session.badges()
        changed = {f"dag:{d}" for d, badge in after.items() if before.get(d) != badge}
        # before: every DAG node was given its badge again after every move
        assert sorted(given) == sorted(changed)
        changed_total += len(changed)
        _shown_as_computed(panes)
    assert 0 < changed_total < 10 * dags  # some badges changed, not all of them each time


def test_a_node_drag_gives_no_badge_again(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    panes = _panes(window)
    panes.session.step_next()
    given = _count_set_live(monkeypatch)
    item = panes.scene.nodes["asset:orders"]
    grab = item.mapToScene(QPointF(0, item.body().top() + 10))
    drag(window, grab, grab + QPointF(30, 20))
    QApplication.processEvents()
    assert panes.document.undo_stack.count() == 1  # the move command ran and synced the scene
    assert given == []  # before: every DAG node of the scene, on every sync
    _shown_as_computed(panes)


def _replaced_session(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A session weeks of checkpoints in, then edited: its old engine waits to be let go."""
    session, defer = session_at(4, checkpoint_every=200)  # the session's own (Qt) reap
    session.step_next()
    old = weakref.ref(session.sim)
    pieces = len(session.sim._checkpoints) + len(session._back) + 1
    dags = session.scenario.dags
    edited = dataclasses.replace(
        session.scenario, dags=(dataclasses.replace(dags[0], max_active_runs=3), *dags[1:])
    )
    session.replace_scenario(edited)
    defer.drain()
    return session, old, pieces


def test_turns_of_the_loop_right_after_an_edit_let_nothing_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each piece of a replaced simulation costs milliseconds to let go: the turns of the
    event loop right after an edit (a drag's events, a step) paid one each."""
    monkeypatch.setattr(session_module, "RETIRE_PAUSE_MS", 60_000, raising=False)
    session, old, pieces = _replaced_session(monkeypatch)
    assert pieces > 3
    for _ in range(10):  # ten turns of the loop (before: ten pieces let go)
        QApplication.processEvents()
    assert len(session._retiring) == pieces and old() is not None
    session._retiring.clear()  # (the pending timer then finds nothing to drop)


def test_the_pieces_are_still_all_let_go(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(session_module, "RETIRE_PAUSE_MS", 1, raising=False)
    session, old, pieces = _replaced_session(monkeypatch)
    assert pieces > 3
    qtbot.waitUntil(lambda: not session._retiring, timeout=10_000)
    assert old() is None


def test_badges_read_again_only_the_conditions_whose_queue_rows_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every step and Back computes every DAG's badge: each asset consumer's condition was
    walked again. A condition of assets only is read again only when its DAG's queue rows
    (adrq) changed; one with a ref or an alias always (the asset store moves too)."""
    from explorer.document.panels import badges as badges_module
    from explorer.engine.assets.condition import AliasNode, RefNode, walk
    from tests.ui.test_back_snapshots import session_at as session_hours

    session, defer = session_hours(30)

    def forward() -> None:  # half an hour on (queue rows change a few times a day here)
        session.run_to(session.now + timedelta(minutes=30))
        defer.drain()

    sim = session.sim
    consumers = {
        dag_id: dag.spec.timetable.asset_condition
        for dag_id, dag in sim.dags.items()
        if dag.spec.timetable.asset_condition is not None
        and dag.deployed
        and not dag.spec.timetable.partitioned
    }
    with_refs = {
        dag_id
        for dag_id, cond in consumers.items()
        if any(isinstance(node, RefNode | AliasNode) for node in walk(cond))  # type: ignore[arg-type]
    }
    read: list[str] = []
    original = badges_module._leaves_updated

    def counted(sim, dag, cond, resolve_ref):  # type: ignore[no-untyped-def]
        read.append(dag.dag_id)
        return original(sim, dag, cond, resolve_ref)

    monkeypatch.setattr(badges_module, "_leaves_updated", counted)
    session.badges()
    assert sorted(read) == sorted(consumers)  # the first reading reads them all
    assert len(consumers) > len(with_refs)  # conditions of assets only among them
    reread = 0
    for move in [forward] * 60 + [session.step_back] * 6:
        rows = {dag_id: tuple(sim.dags[dag_id].adrq) for dag_id in consumers}
        move()
        sim = session.sim
        read.clear()
        badges = session.badges()
        changed = {d for d in consumers if tuple(sim.dags[d].adrq) != rows[d]}
        assert set(read) == changed | with_refs  # before: every consumer, every time
        assert badges == badges_module.compute_badges(sim)  # what a whole reading gives
        reread += len(changed)
    assert reread > 0  # queue rows did change on the way


def _canvas_order_by_key(panes: SimulationPanes) -> list[str]:
    """The lane order as a sort with a key per node gives it (what the panes did)."""
    places, offsets = panes.scene.positions, panes.scene.view_offsets
    uris = panes._uris[2] if panes._uris is not None else {}

    def shown(node_id: str) -> tuple[float, float]:
        x, y = places.get(node_id, (0.0, 0.0))
        dx, dy = offsets.get(node_id, (0.0, 0.0))
        return (y + dy, x + dx)

    order = []
    for node_id in sorted(panes.scene.nodes, key=shown):
        kind, _, name = node_id.partition(":")
        if kind == "dag":
            order.append(name)
        elif kind == "asset":
            order.append(uris.get(name, name))
    return order


def test_the_lane_order_is_the_canvas_order_with_ties_and_offsets(window: MainWindow) -> None:
    panes = _panes(window)
    scene = panes.scene
    assert panes.canvas_order() == _canvas_order_by_key(panes)
    ids = list(scene.nodes)
    # ties on y (then x), a node without a place, and the canvas filter's offsets
    scene.positions[ids[0]] = (50.0, 10.0)
    scene.positions[ids[1]] = (20.0, 10.0)
    scene.positions[ids[2]] = (20.0, 10.0)
    scene.positions.pop(ids[3], None)
    scene.view_offsets[ids[4]] = (0.0, -1e6)
    scene.view_offsets[ids[1]] = (-0.0, 0.0)
    order = panes.canvas_order()
    assert order == _canvas_order_by_key(panes) != []
