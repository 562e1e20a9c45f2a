"""The canvas filter: show a DAG with its upstream and downstream, or the DAGs of a name,
a tag or a folder, on the canvas and on the timeline at once.

:class:`CanvasFocus` holds the document's current :class:`~explorer.graph.focus.Focus`
(a view setting, never part of the file and never an undo step) and applies
it: nodes the focus leaves out are hidden, with their edges, and the nodes
shown are *arranged* by a layered layout of their own (in a large project a
DAG's upstream and downstream lie far apart in the whole graph's layout). The
arrangement is a view, not an edit: the file's positions stay, and a node
dragged while arranged moves in the file by as much as it moved on screen
(:meth:`ScenarioScene.arrange`). The scene then measures only what is shown,
so Fit, the minimap and presentation mode frame the part being looked at.
The timeline is told the same part as lane keys (dag ids and asset uris,
:attr:`CanvasFocus.lanesChanged`). Nodes that appear
after the focus was set (a DAG just added, a paste) are shown: what the user
just made must not vanish. After every edit (the scene's ``synced``) the
focus is applied again to the new graph.

:class:`FocusBar` is the row above the canvas that sets it: a name field, tag
and folder choices (offered when the scenario has tags or source files,
that is after an import), the upstream/downstream focus on the selected DAG,
what is shown in words, and Show all.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from explorer.document.nodes import CANVAS_SPACING, node_size
from explorer.graph.focus import Focus, folders_of, tags_of, visible_nodes
from explorer.graph.layout import layered_layout
from explorer.ui.canvas.scene import ScenarioScene
from explorer.ui.canvas.view import CanvasView

__all__ = ["CanvasFocus", "FocusBar", "lane_keys"]

_Positions = dict[str, tuple[float, float]]
#: Typing in the name field waits this long (ms) before filtering a large graph.
TYPING_DELAY_MS = 150
_ANY_TAG = "Any tag"
_ANY_FOLDER = "Any folder"


def lane_keys(graph: Any, visible: set[str]) -> set[str]:
    """The timeline's lane keys for ``visible``: dag ids and asset uris."""
    keys: set[str] = set()
    for node in visible:
        if node not in graph:
            continue
        data = graph.nodes[node]
        if data.get("kind") == "dag":
            keys.add(str(data.get("dag_id", node.removeprefix("dag:"))))
        elif data.get("kind") == "asset":
            keys.add(str(data.get("uri", data.get("name", ""))))
    return keys


class CanvasFocus(QObject):
    """The filter applied to one document's scene."""

    #: The focus changed (a :class:`Focus`).
    changed = Signal(object)
    #: The timeline's lanes to show (a set of keys), or None for every lane.
    lanesChanged = Signal(object)

    def __init__(self, scene: ScenarioScene, view: CanvasView) -> None:
        super().__init__(scene)
        self.scene = scene
        self.view = view
        self.focus = Focus()
        #: Node ids the scene had when the focus was set (newer ones are always shown).
        self._known: set[str] = set()
        #: What the current focus shows (None: everything).
        self.visible: set[str] | None = None
        #: (what was laid out, where it was shown, the file positions then).
        self._arranged: tuple[object, _Positions, _Positions] | None = None
        scene.synced.connect(self._apply)

    @property
    def graph(self) -> Any:
        return self.scene.model.graph

    def set_focus(self, focus: Focus, *, fit: bool = True) -> None:
        """Show ``focus``'s part of the graph (and fit the view to it)."""
        if focus == self.focus:
            return
        self.focus = focus
        self._known = set(self.scene.nodes)
        self._apply()
        self.changed.emit(focus)
        if fit:  # the whole part when it fits readably, else its upper left and the minimap
            self.view.fit(readable=True)

    def clear(self) -> None:
        self.set_focus(Focus())

    def focus_selected(self) -> str | None:
        """Focus on the selected DAG with its upstream and downstream; its dag_id, or None."""
        dags = [n for n in self.scene.selected_ids() if n.startswith("dag:")]
        if len(dags) != 1:
            self.scene.hint.emit("select one DAG to see it with its upstream and downstream")
            return None
        dag_id = dags[0].removeprefix("dag:")
        self.set_focus(Focus(self.focus.text, self.focus.tag, self.focus.folder, around=dag_id))
        return dag_id

    def counts(self) -> tuple[int, int]:
        """(DAGs shown, DAGs in the scenario)."""
        dags = [n for n in self.scene.nodes if n.startswith("dag:")]
        shown = [n for n in dags if self.scene.nodes[n].isVisible()]
        return len(shown), len(dags)

    def _apply(self) -> None:
        graph = self.graph
        visible = visible_nodes(graph, self.focus) if graph is not None else None
        if visible is None and self.visible is None and not self.scene.filtered:
            return  # nothing filtered before or now: an edit costs nothing here
        if visible is not None:
            visible |= {n for n in self.scene.nodes if n not in self._known}
        self.visible = visible
        for node_id, item in self.scene.nodes.items():
            shown = visible is None or node_id in visible
            if not shown and item.isSelected():
                item.setSelected(False)
            item.setVisible(shown)
        for edge in self.scene.edges.values():
            edge.setVisible(edge.source.isVisible() and edge.target.isVisible())
        self.scene.arrange(self._arrangement(visible) if visible is not None else {})
        self.scene.set_filtered(visible is not None)
        self.lanesChanged.emit(None if visible is None else lane_keys(graph, visible))

    def _arrangement(self, visible: set[str]) -> dict[str, tuple[float, float]]:
        """The shown nodes laid out on their own, from where the first of them is in the file.

        Laid out again only when what is shown changes (nodes, edges, sizes);
        otherwise a node whose file position moved (a drag, an undo) moves by as
        much in the arrangement, so nothing jumps after a move.
        """
        graph, scene = self.graph, self.scene
        nodes = [n for n in graph if n in visible and n in scene.nodes]
        edges = [(u, v) for u, v in graph.edges if u in visible and v in visible]
        sizes = {n: node_size(scene.nodes[n].view) for n in nodes}
        files = {n: scene.positions[n] for n in nodes if n in scene.positions}
        key = (tuple(nodes), tuple(edges), tuple(sizes.values()))
        if self._arranged is not None and self._arranged[0] == key:
            _, before, before_files = self._arranged
            arranged = {
                n: (x + files[n][0] - before_files[n][0], y + files[n][1] - before_files[n][1])
                if n in files and n in before_files
                else (x, y)
                for n, (x, y) in before.items()
            }
        else:
            sub: Any = nx.DiGraph()
            # in graph order (the layout is deterministic), with the attributes that group
            sub.add_nodes_from((n, graph.nodes[n]) for n in nodes)
            sub.add_edges_from(edges)
            # packed to the canvas's own shape, so that Fit magnifies as much as it can
            port = self.view.viewport().rect()
            aspect = min(max(port.width() / max(port.height(), 1), 0.5), 6.0)
            laid = layered_layout(sub, spacing=CANVAS_SPACING, sizes=sizes, aspect=aspect)
            ox = min((x for x, _ in files.values()), default=0.0)
            oy = min((y for _, y in files.values()), default=0.0)
            arranged = {n: (x + ox, y + oy) for n, (x, y) in laid.items()}
        self._arranged = (key, arranged, files)
        return arranged


class FocusBar(QWidget):
    """The row above the canvas that sets the :class:`CanvasFocus`."""

    def __init__(self, focus: CanvasFocus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("focusBar")
        self.focus = focus
        self.name = QLineEdit()
        self.name.setObjectName("focusName")
        self.name.setPlaceholderText("Filter DAGs by name…")
        self.name.setClearButtonEnabled(True)
        self.name.setToolTip("Show only the DAGs whose dag_id contains this text")
        self.name.setMaximumWidth(240)
        self.tag = QComboBox()
        self.tag.setObjectName("focusTag")
        self.tag.setToolTip("Show only the DAGs with this tag (Airflow's tags=)")
        self.folder = QComboBox()
        self.folder.setObjectName("focusFolder")
        self.folder.setToolTip("Show only the DAGs whose file is in this folder or below it")
        self.lineage = QToolButton()
        self.lineage.setObjectName("focusLineage")
        self.lineage.setText("Upstream && downstream")
        self.lineage.setCheckable(True)
        self.lineage.setToolTip(
            "Show the selected DAG with everything upstream and downstream of it "
            "(Ctrl+Shift+U; also on a DAG's right-click menu)"
        )
        self.summary = QLabel()
        self.summary.setObjectName("focusSummary")
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.show_all = QToolButton()
        self.show_all.setObjectName("focusShowAll")
        self.show_all.setText("Show all")
        self.show_all.setToolTip("Clear the filter: show every DAG (Ctrl+Shift+A)")
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 3, 6, 3)
        for widget in (self.name, self.tag, self.folder, self.lineage):
            row.addWidget(widget)
        row.addWidget(self.summary, 1)
        row.addWidget(self.show_all)
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(TYPING_DELAY_MS)
        self._typing.timeout.connect(self._from_widgets)
        self.name.textChanged.connect(self._typing.start)
        self.name.returnPressed.connect(self._from_widgets)
        self.tag.activated.connect(self._from_widgets)
        self.folder.activated.connect(self._from_widgets)
        self.lineage.clicked.connect(self._lineage_clicked)
        self.show_all.clicked.connect(focus.clear)
        focus.changed.connect(self._show)
        focus.scene.synced.connect(self._refill)
        self._refill()
        self._show(focus.focus)

    # ----------------------------------------------------------------- widgets -> focus
    def _from_widgets(self) -> None:
        tag = self.tag.currentData()
        folder = self.folder.currentData()
        self.focus.set_focus(
            Focus(
                self.name.text(),
                tag if isinstance(tag, str) else None,
                folder if isinstance(folder, str) else None,
                self.focus.focus.around,
            )
        )

    def _lineage_clicked(self, checked: bool) -> None:
        if checked:
            if self.focus.focus_selected() is None:
                self.lineage.setChecked(False)
        else:
            f = self.focus.focus
            self.focus.set_focus(Focus(f.text, f.tag, f.folder))

    # ----------------------------------------------------------------- focus -> widgets
    def _show(self, focus: Focus) -> None:
        if self.name.text() != focus.text:
            self.name.blockSignals(True)
            self.name.setText(focus.text)
            self.name.blockSignals(False)
        _choose(self.tag, focus.tag)
        _choose(self.folder, focus.folder)
        self.lineage.setChecked(focus.around is not None)
        self._summarise()

    def _summarise(self) -> None:
        shown, total = self.focus.counts()
        focus = self.focus.focus
        if focus.active:
            text = f"Showing {shown} of {total} DAGs: {focus.describe()}"
        else:
            text = f"{total} DAG{'s' if total != 1 else ''}"
        self.summary.setText(text)
        self.summary.setToolTip(text)
        self.show_all.setEnabled(focus.active)

    def _refill(self) -> None:
        """Offer the scenario's tags and folders (hidden when it has none)."""
        graph = self.focus.graph
        tags = tags_of(graph) if graph is not None else []
        folders = folders_of(graph) if graph is not None else []
        _fill(self.tag, _ANY_TAG, [(t, t) for t in tags], self.focus.focus.tag)
        _fill(
            self.folder,
            _ANY_FOLDER,
            [(f or "(import root)", f) for f in folders],
            self.focus.focus.folder,
        )
        self.tag.setVisible(bool(tags))
        self.folder.setVisible(bool(folders))
        self._summarise()


def _fill(box: QComboBox, first: str, items: list[tuple[str, str]], current: str | None) -> None:
    wanted = [(first, None), *items]
    have = [(box.itemText(i), box.itemData(i)) for i in range(box.count())]
    if have != wanted:
        box.blockSignals(True)
        box.clear()
        for text, data in wanted:
            box.addItem(text, data)
        box.blockSignals(False)
    _choose(box, current)


def _choose(box: QComboBox, value: str | None) -> None:
    index = box.findData(value) if value is not None else 0
    box.blockSignals(True)
    box.setCurrentIndex(max(index, 0))
    box.blockSignals(False)
