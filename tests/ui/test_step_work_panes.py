"""A step, a Back and a node drag redo only the canvas work of what changed (issue 13:
``step <= 50 ms``, ``back <= 50 ms``, ``move <= 16 ms`` on 200 DAGs).

Work is counted, never timed: the live badges given to DAG nodes after a step, a
Back and a drag, and the pieces of a replaced simulation let go while the user
acts right after an edit. Each test also checks that what is shown is what the
full path gives.
"""

from __future__ import annotations

import dataclasses
import weakref

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
