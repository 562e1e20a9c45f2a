"""The timeline pane: every run, asset event, window member and DST day on one time axis.

Public API (what the main window and the canvas bind to):

* :meth:`TimelinePane.show_simulation` — redraw from the simulation as it
  stands (cheap: the stores update incrementally);
* :meth:`select_run` / signal :attr:`run_selected` (dag_id, run_id);
  :attr:`dag_selected` (dag_id) for the canvas; :attr:`asset_selected` (uri);
* :attr:`context_requested` (a :class:`TimelineTarget`, global position) —
  :mod:`explorer.ui.panels.injection` builds the failure-injection menu;
* :attr:`scrub_requested` (datetime) when the clock line is dragged;
* :meth:`set_display_zone`, :meth:`set_lane_order`, :meth:`set_lane_filter`,
  :meth:`set_presentation`, :meth:`center_on`, :meth:`fit`, :attr:`plot` (for export).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from explorer.document.timeline.data import (
    EventStore,
    GhostRun,
    Lane,
    RunStore,
    WindowBox,
    ghost_runs,
    lanes_for,
    paused_spans,
    window_boxes,
)
from explorer.document.timeline.dst import DstTransition, transitions_between
from explorer.document.timeline.injected import Injected, injected_on_ghost, injected_on_runs
from explorer.document.timeline.picking import TimelineTarget, describe, pick
from explorer.document.timeline.timebase import fmt_local, fmt_utc, from_x, zone_of
from explorer.engine.actions import Override
from explorer.engine.context import template_context
from explorer.engine.render import TemplateRenderer
from explorer.engine.run_card import RunCard, run_card
from explorer.ui.run_card import RunCardView
from explorer.ui.timeline.bands import BOTTOM_STRIP, TOP_STRIP, BandsItem
from explorer.ui.timeline.change_layer import ChangeLayer, mark_html
from explorer.ui.timeline.items import DeviceItem, RunsItem, RunsView
from explorer.ui.timeline.marks import (
    BoxMark,
    DoomMark,
    EventsItem,
    GhostMark,
    LinkMark,
    OverlayItem,
)
from explorer.ui.timeline.plot import TimePlot
from explorer.ui.timeline.style import NORMAL, PRESENTATION, TimelineStyle

if TYPE_CHECKING:
    from explorer.engine.change_marks import ChangeMark, DeployReport
    from explorer.engine.runs import DagRun
    from explorer.engine.simulation import Simulation

__all__ = ["TimelinePane", "TimelineTarget", "legend_html"]

_BOX_STATUS = {"arrived": 0, "pending": 1, "never": 2}
#: How long the pointer rests before its last move is looked at again (ms): longer than
#: pyqtgraph's default gap between moves it passes on (10 ms), short enough to be unseen.
_REST_MS = 40


class _BadgeText:
    """Row → partition key, read lazily by the runs item for "no interval" pills."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def __getitem__(self, row: int) -> str:
        return self.store.partition_key(row) or ""

    def __len__(self) -> int:
        return len(self.store)


def legend_entries(style: TimelineStyle) -> list[list[tuple[str, str]]]:
    """The legend's groups of (swatch HTML, words): what each mark of the timeline means."""

    def sw(colour: str, glyph: str = "■") -> str:
        return f'<span style="color:{colour[:7]}">{glyph}</span>'

    t, st = style.type_colours, style.state_colours
    return [
        [(sw(t[0]), "interval"), (sw(t[1]), "manual"), (sw(t[3]), "backfill")],
        [
            (sw(style.logical, "▮"), "logical_date"),
            (sw(style.run_after, "▮"), "run_after"),
            (sw(style.created, "▮"), "created"),
        ],
        [
            (sw(st[0]), "queued"),
            (sw(st[1]), "running"),
            (sw(st[2]), "success"),
            (sw(st[3], "▨"), "failed"),
        ],
        [
            (sw(style.no_interval), "no interval"),
            (sw(style.no_task_instances, "⊘"), "no task instances"),
        ],
        [
            (sw(style.source_colours[0], "▮"), "event"),
            (sw(style.source_colours[1], "▮"), "external"),
            (sw(style.no_data, "▮"), "no data"),
        ],
        [("".join(sw(colour) for colour in style.box_colours[:3]), "window members")],
        [(sw(style.dst_line), "DST day")],
        [(sw(style.ghost, "┆"), "next run")],
    ]


def legend_html(style: TimelineStyle) -> str:
    """The legend as rich text that wraps only between entries: a swatch and its words are
    one unbreakable unit (a wrapped legend once split "next" from "run")."""

    def entry(swatch: str, words: str) -> str:
        return swatch + "&nbsp;" + words.replace(" ", "&nbsp;")

    groups = legend_entries(style)
    return " &nbsp;·&nbsp; ".join(" ".join(entry(*e) for e in group) for group in groups)


class TimelinePane(QtWidgets.QWidget):
    run_selected = QtCore.Signal(str, str)
    dag_selected = QtCore.Signal(str)
    asset_selected = QtCore.Signal(str)
    context_requested = QtCore.Signal(object, QtCore.QPoint)
    scrub_requested = QtCore.Signal(object)
    display_zone_changed = QtCore.Signal(str)
    #: A deploy mark was clicked (its :class:`~explorer.engine.change_marks.ChangeMark`).
    change_mark_selected = QtCore.Signal(object)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.style_: TimelineStyle = NORMAL
        self.runs = RunStore()
        self.events = EventStore()
        self.lanes: list[Lane] = []
        self.transitions: list[DstTransition] = []
        self.ghosts: dict[str, GhostRun] = {}
        #: What injected overrides will do to a ghost (by dag_id) / an active run, before
        #: it happens: drawn hatched in the failed colour, told in the tooltip.
        self.injected_ghosts: dict[str, Injected] = {}
        self.injected_runs: dict[tuple[str, str], Injected] = {}
        self._sim: Simulation | None = None
        self._order: list[str] = []
        #: Lane keys shown (the canvas's filter, :mod:`explorer.ui.focus`); None: every lane.
        self._only: frozenset[str] | None = None
        self._zone_name = "UTC"
        self._horizon: tuple[float, float] | None = None
        self._lane_of_dag: dict[str, int] = {}
        self._lane_of_asset: dict[str, int] = {}
        self._lane_rows: dict[int, npt.NDArray[np.int32]] = {}
        self._lane_rows_version = -1
        self._run_lanes: npt.NDArray[np.float64] = np.zeros(0)
        self._event_lanes: npt.NDArray[np.float64] = np.zeros(0)
        self._selected: tuple[str, str] | None = None
        #: The runs table's template, rendered in the run card too (adr/0008).
        self.template: TemplateRenderer | None = None
        self.window_boxes: list[WindowBox] = []
        self._marker: pg.InfiniteLine | None = None
        self._lane_signature: tuple[int, int, int] = (0, 0, 0)
        #: Lane keys drawn so far (a lane an edit adds is scrolled into view).
        self._shown_keys: set[str] = set()
        self._build()

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        self.zone_box = QtWidgets.QComboBox()
        self.zone_box.setToolTip("Time zone of the lower axis, the table and the tooltips")
        self.zone_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.zone_box.currentTextChanged.connect(self._zone_picked)
        self.legend = QtWidgets.QLabel(legend_html(self.style_))
        self.legend.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        fit = QtWidgets.QToolButton()
        fit.setText("Fit")
        fit.setToolTip("Show the whole horizon (Home)")
        fit.clicked.connect(self.fit)
        now = QtWidgets.QToolButton()
        now.setText("Clock")
        now.setToolTip("Centre on the clock, closing in to two days around it (C)")
        now.clicked.connect(self.center_on_clock)
        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 0)
        top.addWidget(QtWidgets.QLabel("Time zone:"))
        top.addWidget(self.zone_box)
        top.addWidget(fit)
        top.addWidget(now)
        top.addWidget(self.legend, 1)
        self.top_bar = QtWidgets.QWidget()
        self.top_bar.setLayout(top)

        self.plot = TimePlot(self.style_)
        self.viewbox = self.plot.viewbox
        self.bottom_axis = self.plot.bottom_axis
        self.top_axis = self.plot.top_axis
        self.lane_axis = self.plot.lane_axis
        self.plot.installEventFilter(self)

        self.bands_item = BandsItem()
        self.runs_item = RunsItem()
        self.events_item = EventsItem()
        self.overlay_item = OverlayItem()
        self.band_labels = BandsItem(labels=True)
        self.bands_item.grid_source = self.plot.grid_lines
        for z, graphics in enumerate(self._items()):
            graphics.setZValue(z - 10)
            self.viewbox.addItem(graphics, ignoreBounds=True)
        #: What each deployment change did: marks and deploy lines.
        self.change_layer = ChangeLayer(self.viewbox)
        self.clock_line = pg.InfiniteLine(
            angle=90,
            movable=True,
            pen=pg.mkPen(self.style_.clock, width=self.style_.clock_px),
            hoverPen=pg.mkPen(self.style_.clock, width=self.style_.clock_px + 2),
            label="",
            labelOpts={
                "position": 0.985,
                "color": self.style_.clock,
                "fill": "#ffffffd8",
                "anchors": [(0, 1), (0, 1)],
            },
        )
        self.clock_line.setZValue(10)
        self.clock_line.setToolTip("The simulated clock: drag to scrub")
        self.clock_line.sigPositionChangeFinished.connect(self._clock_dragged)
        self.viewbox.addItem(self.clock_line, ignoreBounds=True)

        self.viewbox.sigXRangeChanged.connect(lambda *_: self._update_clock_label())
        self.viewbox.sigXRangeChanged.connect(lambda *_: self.change_layer.place_labels())
        # the plot's height changes without the pane's (a caption appears and wraps)
        self.viewbox.sigResized.connect(self._viewbox_resized)
        scene = self.plot.scene()
        scene.sigMouseMoved.connect(self._mouse_moved)
        # pyqtgraph's scene drops a move that comes sooner than 1/``mouseRateLimit`` s
        # after the last one it passed on: a pointer that stops just after leaving a run
        # would leave its card up. The last move is looked at again once the pointer
        # has rested (a trailing edge; the same answer when nothing was dropped).
        self._last_move: QtCore.QPoint | None = None
        self._rest_timer = QtCore.QTimer(self)
        self._rest_timer.setSingleShot(True)
        self._rest_timer.setInterval(_REST_MS)
        self._rest_timer.timeout.connect(self._pointer_rested)
        scene.sigMouseClicked.connect(self._mouse_clicked)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.top_bar)
        layout.addWidget(self.plot, 1)
        #: The run card: shown while a run is hovered, pinned by a click.
        self.run_card = RunCardView(self)
        self.destroyed.connect(self.run_card.deleteLater)  # it may float in another widget
        self.run_card.closed.connect(self.plot.setFocus)
        self.plot.viewport().installEventFilter(self)
        self._apply_fonts()

    # ------------------------------------------------------------------ public API
    @property
    def display_zone(self) -> str:
        return self._zone_name

    def set_display_zone(self, name: str) -> None:
        """Label the lower axis, tooltips and clock in ``name`` (the top axis stays UTC)."""
        zone_of(name)  # refuse unknown zones early
        if self.zone_box.findText(name) < 0:
            self.zone_box.addItem(name)
        self._zone_name = name
        self.zone_box.blockSignals(True)
        self.zone_box.setCurrentText(name)
        self.zone_box.blockSignals(False)
        self.plot.set_zone(name)
        self._update_clock_label()
        self.run_card.set_zone(name)
        self.change_layer.set_zone(name)
        self.display_zone_changed.emit(name)

    def set_lane_order(self, keys: Sequence[str]) -> None:
        """Lanes in the canvas's order: DAG ids and asset uris, top to bottom."""
        self._order = list(keys)
        self.lanes = []
        self._lane_signature = (0, 0, 0)
        if self._sim is not None:
            self.show_simulation(self._sim)

    def lane_choice(self) -> tuple[list[str], frozenset[str] | None]:
        """The lane order and the lane filter (:meth:`set_lane_order`, :meth:`set_lane_filter`)."""
        return list(self._order), self._only

    def set_lane_filter(self, keys: Collection[str] | None) -> None:
        """Show only the lanes of these DAG ids and asset uris (None: every lane)."""
        only = None if keys is None else frozenset(keys)
        if only == self._only:
            return
        self._only = only
        self.set_lane_order(self._order)

    def set_horizon(self, start: datetime, end: datetime) -> None:
        """The range :meth:`fit` shows (the scenario's clock.start to clock.until).

        When an edit moves it, the view moves to it: the clock and the runs of the new
        horizon would otherwise stay off-screen until Fit.
        """
        horizon = (start.timestamp(), end.timestamp())
        moved = self._horizon is not None and horizon != self._horizon
        self._horizon = horizon
        if self._sim is not None:
            self._update_bands(self._sim)
        if moved:
            self._fit_time()

    def show_simulation(self, sim: Simulation) -> None:
        """Redraw from ``sim`` at its clock (incremental: only changed runs are re-read)."""
        first = self._sim is None
        self._sim = sim
        signature = (id(sim), len(sim.specs), len(sim.state.assets.active))
        if not self.lanes or signature != self._lane_signature:
            self._lane_signature = signature
            lanes = lanes_for(sim, self._order)
            if self._only is not None:
                lanes = [lane for lane in lanes if lane.key in self._only]
            self._set_lanes(lanes, sim)
        self.runs.declared_tasks = {d: len(spec.tasks) for d, spec in sim.specs.items()}
        synced = self.runs.sync(sim.runs)
        self.events.sync(sim.state.assets.events)
        now = sim.now.timestamp()
        self._run_lanes = self.runs.lanes(self._lane_of_dag).astype(np.float64)
        self._event_lanes = self.events.lanes(self._lane_of_asset).astype(np.float64)
        # the rows the sync read again: only their lanes (and new runs', and the clock's
        # unfinished runs') are measured and drawn again (a step must stay within 50 ms)
        changed = None if synced.reset else synced.changed
        self.runs_item.set_view(self._runs_view(now), changed)
        self.events_item.set_events(
            self.events.col_t(), self._event_lanes, self.events.sources(), self.events.wrote()
        )
        self.ghosts = {g.dag_id: g for g in ghost_runs(sim)}
        self._find_injected(sim)
        self.overlay_item.set_marks(
            ghosts=self._ghost_marks(), boxes=self._box_marks(sim), doomed=self._doom_marks()
        )
        self.change_layer.show(sim.now, self._lane_of_dag)
        spans = [
            (
                float(self._lane_of_dag[span.dag_id]),
                span.start.timestamp(),
                (span.end or sim.now).timestamp(),
            )
            for span in paused_spans(sim)
            if span.dag_id in self._lane_of_dag
        ]
        self.bands_item.set_paused(spans)
        self.band_labels.set_paused(spans)
        self._restore_selection()
        self.clock_line.blockSignals(True)
        self.clock_line.setValue(now)
        self.clock_line.blockSignals(False)
        self._update_clock_label()
        if first:
            self.fit()

    def set_deploy_report(self, report: DeployReport | None) -> None:
        """Mark what the scenario's deployment changes did (None: no marks)."""
        self.change_layer.set_report(report)
        self.change_layer.item.set_selected(None)
        if self._sim is not None:
            self.change_layer.show(self._sim.now, self._lane_of_dag)

    def select_change_mark(self, mark: ChangeMark, *, emit: bool = True) -> None:
        """Outline a deploy mark (and its run, if it has one); tell the explain pane."""
        self.change_layer.item.set_selected(mark)
        if mark.run_id is not None:
            self.select_run(mark.dag_id, mark.run_id)
        if emit:
            self.change_mark_selected.emit(mark)
            self.dag_selected.emit(mark.dag_id)

    def change_mark_at(self, scene_pos: QtCore.QPointF, *, over_run: bool) -> ChangeMark | None:
        """The deploy mark under a scene point: its label wherever it is, else its shape
        where no run is (a run under the mouse shows its card)."""
        if not self.viewbox.sceneBoundingRect().contains(scene_pos):
            return None
        device = self.plot.mapFromScene(scene_pos)
        point = self.viewbox.mapSceneToView(scene_pos)
        (x0, x1), _ = self.viewbox.viewRange()
        tolerance = 6 * (x1 - x0) / max(self.viewbox.width(), 1.0)
        label = self.change_layer.mark_at(
            point.x(), point.y(), tolerance, label_pos=QtCore.QPointF(device)
        )
        if label is not None and any(
            rect.contains(QtCore.QPointF(device)) for rect, _ in self.change_layer.item.label_rects
        ):
            return label
        return None if over_run else label

    def select_run(self, dag_id: str, run_id: str, *, emit: bool = False) -> bool:
        """Outline a run and link the events it consumed; False when there is no such run."""
        row = self.runs.find(dag_id, run_id)
        if row is None:
            self._selected = None
            self.runs_item.set_selected(None)
            self.events_item.set_highlight([])
            self.overlay_item.set_marks(links=[])
            return False
        self._selected = (dag_id, run_id)
        self.runs_item.set_selected(row)
        run = self.runs.runs[row]
        consumed = list(run.consumed_asset_events)
        self.events_item.set_highlight(consumed)
        links = []
        y_run = float(self._run_lanes[row]) if row < self._run_lanes.size else -1
        t = self.events.col_t()
        for event_row in consumed:
            if event_row < t.size and self._event_lanes[event_row] >= 0 and y_run >= 0:
                links.append(
                    LinkMark(
                        float(t[event_row]),
                        float(self._event_lanes[event_row]),
                        run.created_at.timestamp(),
                        y_run,
                    )
                )
        self.overlay_item.set_marks(links=links)
        if emit:
            self.run_selected.emit(dag_id, run_id)
            self.dag_selected.emit(dag_id)
        return True

    @property
    def selected_run(self) -> tuple[str, str] | None:
        return self._selected

    def center_on(self, instant: datetime) -> None:
        (x0, x1), _ = self.viewbox.viewRange()
        half = (x1 - x0) / 2
        x = instant.timestamp()
        self.viewbox.setXRange(x - half, x + half, padding=0)

    def mark_instant(self, instant: datetime, text: str) -> None:
        """A thin labelled marker (e.g. where an alert was raised); one at a time."""
        if self._marker is None:
            self._marker = pg.InfiniteLine(
                angle=90,
                movable=False,
                pen=pg.mkPen("#b71c1c", width=2, style=QtCore.Qt.PenStyle.DotLine),
                label="",
                labelOpts={"position": 0.06, "color": "#b71c1c", "fill": "#ffffffd8"},
            )
            self._marker.setZValue(9)
            self.viewbox.addItem(self._marker, ignoreBounds=True)
        self._marker.setValue(instant.timestamp())
        self._marker.label.setFormat(f" {text} ")
        self._marker.show()

    def clear_marker(self) -> None:
        if self._marker is not None:
            self._marker.hide()

    #: The widest view "Clock" keeps: a horizon of months fitted on screen puts a day's
    #: runs in a pixel, and centring that view on the clock changes nothing one can see.
    CLOCK_SPAN_S = 2 * 86400.0

    def center_on_clock(self) -> None:
        """Centre on the clock; a view wider than :attr:`CLOCK_SPAN_S` closes in to it."""
        if self._sim is None:
            return
        (x0, x1), _ = self.viewbox.viewRange()
        if x1 - x0 > self.CLOCK_SPAN_S:
            x = self._sim.now.timestamp()
            half = self.CLOCK_SPAN_S / 2
            self.viewbox.setXRange(x - half, x + half, padding=0)
        else:
            self.center_on(self._sim.now)

    def set_x_range(self, start: datetime, end: datetime) -> None:
        self.viewbox.setXRange(start.timestamp(), end.timestamp(), padding=0)

    def x_range(self) -> tuple[datetime, datetime]:
        (x0, x1), _ = self.viewbox.viewRange()
        return from_x(x0), from_x(x1)

    def fit(self) -> None:
        """The whole horizon, and as many lanes as fit at the style's lane height."""
        if self._horizon is not None:
            x0, x1 = self._horizon
        elif self._sim is not None and len(self.runs):
            left, right = self.runs_item._left, self.runs_item._right
            x0, x1 = float(np.nanmin(left)), float(np.nanmax(right))
        elif self._sim is not None:
            x0 = self._sim.start.timestamp()
            x1 = x0 + 86400
        else:
            return
        pad = (x1 - x0) * 0.02
        self.viewbox.setXRange(x0 - pad, x1 + pad, padding=0)
        self._fit_lanes(top=-1e9)

    def fit_all_lanes(self) -> None:
        """Every lane, top to bottom, whatever their height (an exported picture)."""
        first = -0.5 - TOP_STRIP
        count = max(len(self.lanes), 1) + TOP_STRIP + BOTTOM_STRIP
        self.viewbox.setYRange(first, first + count, padding=0)

    def _fit_time(self) -> None:
        """The whole horizon on the time axis; the lanes stay as they are."""
        if self._horizon is not None:
            x0, x1 = self._horizon
            pad = (x1 - x0) * 0.02
            self.viewbox.setXRange(x0 - pad, x1 + pad, padding=0)

    def set_presentation(self, on: bool) -> None:
        """Larger type and marks, high contrast (screen sharing)."""
        self.style_ = PRESENTATION if on else NORMAL
        for graphics in self._items():
            graphics.set_style(self.style_)
        self.clock_line.setPen(pg.mkPen(self.style_.clock, width=self.style_.clock_px))
        self.legend.setText(legend_html(self.style_))
        self._apply_fonts()
        self._fit_lanes(top=self.viewbox.viewRange()[1][0])

    @property
    def presentation(self) -> bool:
        return self.style_ is PRESENTATION

    def target_at(
        self, instant: datetime, lane_key: str, *, tolerance_px: float = 6
    ) -> TimelineTarget | None:
        """What is drawn at ``instant`` on the lane of ``lane_key`` (DAG id or asset uri)."""
        index = next((i for i, lane in enumerate(self.lanes) if lane.key == lane_key), None)
        if index is None:
            return None
        return self._pick(instant.timestamp(), float(index), tolerance_px)

    def lane_index(self, key: str) -> int | None:
        return next((i for i, lane in enumerate(self.lanes) if lane.key == key), None)

    def request_context(self, target: TimelineTarget, global_pos: QtCore.QPoint) -> None:
        self.context_requested.emit(target, global_pos)

    # ------------------------------------------------------------------ internals
    def _items(self) -> tuple[DeviceItem, ...]:
        return (
            self.bands_item,
            self.runs_item,
            self.events_item,
            self.overlay_item,
            self.band_labels,
        )

    def _set_lanes(self, lanes: list[Lane], sim: Simulation) -> None:
        known = self._shown_keys
        self._shown_keys = {lane.key for lane in lanes}
        self.lanes = lanes
        self._lane_of_dag = {lane.key: i for i, lane in enumerate(lanes) if lane.kind == "dag"}
        self._lane_of_asset = {lane.key: i for i, lane in enumerate(lanes) if lane.kind == "asset"}
        self._lane_rows_version = -1
        self.plot.set_lanes(
            [lane.label if lane.kind == "dag" else f"◆ {lane.label}" for lane in lanes]
        )
        zones = [spec.timezone for spec in sim.specs.values()]
        zones += [getattr(spec.timetable, "timezone_name", "UTC") for spec in sim.specs.values()]
        choices = list(dict.fromkeys(["UTC", *zones]))
        self.zone_box.blockSignals(True)
        self.zone_box.clear()
        self.zone_box.addItems(choices)
        # as wide as its longest zone name, whatever the layout ("Americ▾" said nothing)
        metrics = self.zone_box.fontMetrics()
        self.zone_box.setMinimumWidth(max(metrics.horizontalAdvance(c) for c in choices) + 40)
        self.zone_box.blockSignals(False)
        local = next((z for z in zones if z not in ("UTC", "Etc/UTC")), "UTC")
        self.set_display_zone(local if self._zone_name == "UTC" else self._zone_name)
        self._update_bands(sim)
        added = [i for i, lane in enumerate(lanes) if lane.key not in known]
        if known and added:
            self._show_lanes(added)

    def _show_lanes(self, indexes: list[int]) -> None:
        """Scroll (or, when all fit, grow) the lanes so that these are on screen: a lane an
        edit added must not wait for Fit to be seen."""
        _, (y0, y1) = self.viewbox.viewRange()
        self._fit_lanes(top=y0)  # the view's lane count may have grown
        _, (y0, y1) = self.viewbox.viewRange()
        low, high = min(indexes) - 0.5, max(indexes) + 0.5
        if low >= y0 and high <= y1:
            return
        span = y1 - y0
        top = high - span if high > y1 else low
        self.viewbox.setYRange(top, top + span, padding=0)

    def _update_bands(self, sim: Simulation) -> None:
        zones = {spec.timezone for spec in sim.specs.values()}
        zones |= {getattr(spec.timetable, "timezone_name", "UTC") for spec in sim.specs.values()}
        zones.add(self._zone_name)
        start = sim.start.timestamp() - 86400 * 2
        end = self._horizon[1] if self._horizon else sim.now.timestamp() + 86400 * 30
        self.transitions = transitions_between(
            sorted(zones), from_x(start), from_x(max(end, start) + 86400 * 2)
        )
        self.bands_item.set_bands(len(self.lanes), self.transitions)
        self.band_labels.set_bands(len(self.lanes), self.transitions)

    def _runs_view(self, now: float) -> RunsView:
        r = self.runs
        return RunsView(
            lane=self._run_lanes,
            ival_start=r.col("ival_start"),
            ival_end=r.col("ival_end"),
            logical=r.col("logical"),
            run_after=r.col("run_after"),
            created=r.col("created"),
            start=r.col("start"),
            end=r.col("end"),
            state=r.states(),
            type=r.types(),
            no_interval=r.no_interval(),
            no_task_instances=r.no_task_instances(),
            badge_text=_BadgeText(r),
            now=now,
        )

    def _ghost_marks(self) -> list[GhostMark]:
        marks = []
        for dag_id, g in self.ghosts.items():
            lane = self._lane_of_dag.get(dag_id)
            if lane is None:
                continue
            x0 = g.interval_start.timestamp() if g.interval_start else float("nan")
            x1 = g.interval_end.timestamp() if g.interval_end else float("nan")
            injected = self.injected_ghosts.get(dag_id)
            level = 0 if injected is None else 2 if injected.fails else 1
            marks.append(GhostMark(float(lane), x0, x1, g.run_after.timestamp(), level))
        return marks

    def _find_injected(self, sim: Simulation) -> None:
        if not any(isinstance(a, Override) for a in sim.script):
            self.injected_ghosts, self.injected_runs = {}, {}
            return
        found = ((g.dag_id, injected_on_ghost(sim, g)) for g in self.ghosts.values())
        self.injected_ghosts = {dag_id: i for dag_id, i in found if i is not None}
        self.injected_runs = injected_on_runs(sim)

    def _doom_marks(self) -> list[DoomMark]:
        marks = []
        for (dag_id, run_id), injected in self.injected_runs.items():
            row = self.runs.find(dag_id, run_id)
            lane = self._lane_of_dag.get(dag_id)
            if row is None or lane is None or row >= self.runs_item._left.size:
                continue
            left, right = float(self.runs_item._left[row]), float(self.runs_item._right[row])
            marks.append(DoomMark(float(lane), left, right, injected.fails))
        return marks

    def _box_marks(self, sim: Simulation) -> list[BoxMark]:
        if not any(r.run is None for r in sim.state.partition_requests):
            self.window_boxes = []
            return []
        from explorer.engine.partition_waits import partition_waits

        horizon = from_x(self._horizon[1]) if self._horizon else sim.now
        boxes = window_boxes(sim, partition_waits(sim, max(horizon, sim.now)))
        marks = []
        for slot, box in enumerate(boxes):
            lane = self._lane_of_dag.get(box.dag_id)
            if lane is not None:
                marks.append(BoxMark(float(lane), box.at, _BOX_STATUS[box.status], slot))
        self.window_boxes = boxes
        return marks

    def _restore_selection(self) -> None:
        if self._selected is not None:
            self.select_run(*self._selected)
        self._refresh_card()

    def card_of(self, dag_id: str, run_id: str) -> RunCard | None:
        """The run card of a run drawn on the timeline (None when it is not there)."""
        row = self.runs.find(dag_id, run_id)
        if row is None or self._sim is None:
            return None
        return self._card(self.runs.runs[row])

    def set_template(self, source: str) -> None:
        """The user's Jinja template, rendered for each run in its card (adr/0008)."""
        self.template = TemplateRenderer(source) if source.strip() else None
        self._refresh_card()

    def _card(self, run: DagRun) -> RunCard:
        """The card with the run's template context as it stands at the clock (CTX-4)."""
        assert self._sim is not None
        context = template_context(self._sim, run)
        rendered: tuple[str | None, str | None] = (None, None)
        if self.template is not None:
            result = self.template.render(context)
            rendered = (result.text, result.error)
        return run_card(
            run,
            self._sim.state.assets.events,
            context=context,
            template=self.template.source if self.template is not None else None,
            rendered=rendered,
        )

    def pin_card(self, dag_id: str, run_id: str, anchor: QtCore.QPoint | None = None) -> bool:
        """Pin the card of a run beside ``anchor`` (pane coordinates; default: where it is)."""
        card = self.card_of(dag_id, run_id)
        if card is None:
            return False
        if anchor is None:
            anchor = self.run_card.pos() if self.run_card.isVisible() else QtCore.QPoint(60, 40)
        self.run_card.show_card(card, self._zone_name, anchor, pin=True)
        return True

    def _refresh_card(self) -> None:
        """A pinned card follows its run (a new state, an end date); gone runs close it."""
        shown = self.run_card.card
        if shown is None or not self.run_card.isVisible():
            return
        card = self.card_of(shown.dag_id, shown.run_id)
        if card is None:
            self.run_card.dismiss()
        elif card != shown:
            self.run_card.update_card(card)

    def _lane_row_index(self) -> dict[int, npt.NDArray[np.int32]]:
        if self._lane_rows_version != self.runs.version:
            lanes = self._run_lanes.astype(np.int64)
            order = np.argsort(lanes, kind="stable")
            sorted_lanes = lanes[order]
            cuts = np.flatnonzero(np.diff(sorted_lanes)) + 1
            self._lane_rows = {
                int(sorted_lanes[chunk[0]]): order[chunk[0] : chunk[-1] + 1].astype(np.int32)
                for chunk in np.split(np.arange(order.size), cuts)
                if chunk.size
            }
            self._lane_rows_version = self.runs.version
        return self._lane_rows

    def _pick(self, x: float, y: float, tolerance_px: float) -> TimelineTarget | None:
        (x0, x1), _ = self.viewbox.viewRange()
        width = max(self.viewbox.width(), 1.0)
        return pick(
            lanes=self.lanes,
            lane_rows=self._lane_row_index(),
            left=self.runs_item._left,
            right=self.runs_item._right,
            runs=self.runs,
            events=self.events,
            event_lanes=self._event_lanes,
            ghosts=self.ghosts,
            x=x,
            y=y,
            tolerance=tolerance_px * (x1 - x0) / width,
            members=self.window_boxes,
        )

    def _scene_target(self, scene_pos: QtCore.QPointF) -> TimelineTarget | None:
        if not self.viewbox.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.viewbox.mapSceneToView(scene_pos)
        return self._pick(point.x(), point.y(), 6)

    def _pane_pos(self, scene_pos: QtCore.QPointF) -> QtCore.QPoint:
        point: QtCore.QPoint = self.plot.mapFromScene(scene_pos)
        return QtCore.QPoint(self.plot.mapTo(self, point))

    def _mouse_moved(self, scene_pos: QtCore.QPointF) -> None:
        target = self._scene_target(scene_pos)
        card = self.run_card
        mark = self.change_mark_at(
            scene_pos, over_run=target is not None and target.run is not None
        )
        if mark is not None:
            if not card.pinned:
                card.hide()
            global_pos = self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos))
            QtWidgets.QToolTip.showText(
                global_pos + QtCore.QPoint(14, 14), mark_html(mark, self._zone_name), self.plot
            )
            return
        if target is not None and target.run is not None and not card.pinned:
            QtWidgets.QToolTip.hideText()
            shown = card.card
            if (
                card.isVisible()
                and shown is not None
                and (shown.dag_id, shown.run_id) == (target.run.dag_id, target.run.run_id)
            ):
                return  # the same run: the card stays where it was put
            facts = self._card(target.run)
            card.show_card(facts, self._zone_name, self._pane_pos(scene_pos))
            return
        if not card.pinned:
            card.hide()
        if target is None or (target.run is not None and card.pinned):
            QtWidgets.QToolTip.hideText()
            return
        text = describe(
            target, zone_of(self._zone_name), self.transitions, injected=self.injected_of(target)
        )
        global_pos = self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos))
        QtWidgets.QToolTip.showText(global_pos + QtCore.QPoint(14, 14), text, self.plot)

    def _mouse_clicked(self, event: object) -> None:
        scene_pos = event.scenePos()  # type: ignore[attr-defined]
        target = self._scene_target(scene_pos)
        button = event.button()  # type: ignore[attr-defined]
        mark = self.change_mark_at(
            scene_pos, over_run=target is not None and target.run is not None
        )
        if mark is not None and button == QtCore.Qt.MouseButton.LeftButton:
            self.select_change_mark(mark)
            return
        if target is None:
            return
        if button == QtCore.Qt.MouseButton.RightButton:
            global_pos = self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos))
            self.context_requested.emit(target, global_pos)
            return
        if button != QtCore.Qt.MouseButton.LeftButton:
            return
        self.activate(target)
        if target.run is not None:
            self.pin_card(target.run.dag_id, target.run.run_id, self._pane_pos(scene_pos))
        else:
            self.run_card.dismiss()

    def injected_of(self, target: TimelineTarget) -> Injected | None:
        """What an injected override will do to this run or ghost (None: nothing)."""
        if target.run is not None:
            return self.injected_runs.get((target.run.dag_id, target.run.run_id))
        if target.ghost is not None:
            return self.injected_ghosts.get(target.ghost.dag_id)
        return None

    def activate(self, target: TimelineTarget) -> None:
        """What a left click does: select the run, or the DAG / asset of the lane."""
        if target.run is not None:
            self.select_run(target.run.dag_id, target.run.run_id, emit=True)
        elif target.lane.kind == "dag":
            self.dag_selected.emit(target.lane.key)
        else:
            self.asset_selected.emit(target.lane.key)

    def _clock_dragged(self) -> None:
        self.scrub_requested.emit(from_x(float(self.clock_line.value())))

    def _update_clock_label(self) -> None:
        """The clock's label on the side of the line with room for it, shortened if
        neither side has: in presentation type a label anchored by the view's middle
        alone ran past the plot's left or right edge at 1280 px."""
        if self._sim is None:
            return
        now = self._sim.now
        local = fmt_local(now, zone_of(self._zone_name))
        label = self.clock_line.label
        (x0, x1), _ = self.viewbox.viewRange()
        width = self.viewbox.width()
        x_px = (now.timestamp() - x0) / (x1 - x0) * width if x1 > x0 and width > 0 else 0.0
        choice = None
        for text in (f" {local}  ·  {fmt_utc(now)} ", f" {local} "):
            label.setFormat(text)
            need = label.boundingRect().width()
            if x_px + need <= width:
                choice = (0, 1)
            elif x_px - need >= 0:
                choice = (1, 1)
            if choice is not None:
                break
        if choice is None:  # no side has room: the roomier one
            choice = (0, 1) if width - x_px >= x_px else (1, 1)
        label.anchors = [choice, choice]
        label.updatePosition()

    def _zone_picked(self, name: str) -> None:
        if name and name != self._zone_name:
            self.set_display_zone(name)
            if self._sim is not None:
                self._update_bands(self._sim)

    def _apply_fonts(self) -> None:
        s = self.style_
        self.plot.apply_style(s)
        label_font = QtGui.QFont()
        label_font.setPointSize(s.font_pt)
        label_font.setBold(True)
        self.clock_line.label.setFont(label_font)
        self.clock_line.label.setColor(s.clock)
        legend_font = QtGui.QFont()
        legend_font.setPointSize(max(8, s.font_pt - 1))
        self.legend.setFont(legend_font)

    def _fit_lanes(self, *, top: float) -> None:
        """Lanes at the style's height; when all fit, let them grow up to 1.8 times.

        In presentation mode every lane is shown, shrunk if need be: a lane the
        audience cannot see cannot be talked about.
        """
        height = max(self.viewbox.height(), 50.0)
        visible = max(1.0, height / self.style_.lane_px)
        first = -0.5 - TOP_STRIP
        count = max(len(self.lanes), 1) + TOP_STRIP + BOTTOM_STRIP
        if self.presentation:
            visible = max(visible, count)
            self._fit_marks(height / visible)
        if visible >= count:
            shown = max(count, height / (self.style_.lane_px * 1.8))
            self.viewbox.setYRange(first, first + shown, padding=0)
        else:
            top = min(max(top, first), first + count - visible)
            self.viewbox.setYRange(top, top + visible, padding=0)

    def _fit_marks(self, lane_px: float) -> None:
        """Lanes shrunk to fit (presentation at 1280x720): the type drawn in them shrinks
        with them, or "24 h", "next: 24 h" and the badges ran into each other."""
        base = self.style_
        share = min(1.0, lane_px / base.lane_px)
        font_pt = max(8, round(base.font_pt * share))
        style = base if font_pt == base.font_pt else dataclasses.replace(base, font_pt=font_pt)
        for graphics in self._items():
            if graphics.style != style:
                graphics.set_style(style)

    def _viewbox_resized(self, *_: object) -> None:
        self._update_clock_label()
        if self.presentation:
            self._fit_lanes(top=self.viewbox.viewRange()[1][0])

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        QtCore.QTimer.singleShot(0, lambda: self._fit_lanes(top=self.viewbox.viewRange()[1][0]))

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.plot and event.type() == QtCore.QEvent.Type.KeyPress:
            assert isinstance(event, QtGui.QKeyEvent)
            return self.handle_key(event.key(), event.modifiers())
        if watched is self.plot.viewport():
            if event.type() == QtCore.QEvent.Type.MouseMove:
                assert isinstance(event, QtGui.QMouseEvent)
                self._last_move = event.position().toPoint()
                self._rest_timer.start()
            elif event.type() == QtCore.QEvent.Type.Leave:
                self._rest_timer.stop()
                if not self.run_card.pinned:
                    self.run_card.hide()
            elif event.type() == QtCore.QEvent.Type.ToolTip:
                return self._tooltip_event(event)
        return super().eventFilter(watched, event)

    def _pointer_rested(self) -> None:
        """The pointer's last move, whether or not pyqtgraph passed it on."""
        if self._last_move is not None:
            self._mouse_moved(self.plot.mapToScene(self._last_move))

    def _tooltip_event(self, event: QtCore.QEvent) -> bool:
        """Let an item's own tooltip show (the clock line's); eat the rest.

        Without this Qt climbs to the nearest ancestor with a tooltip (the dock's
        "The timeline pane ...") and covers the run under the mouse with it: the
        card and :meth:`_mouse_moved` say what is there instead.
        """
        assert isinstance(event, QtGui.QHelpEvent)
        return all(not item.toolTip() for item in self.plot.items(event.pos()))

    def handle_key(
        self,
        key: int,
        modifiers: QtCore.Qt.KeyboardModifier = (QtCore.Qt.KeyboardModifier.NoModifier),
    ) -> bool:
        """Zoom and pan from the keyboard: ←/→ pan, +/− zoom, ↑/↓ lanes, Home fit, C clock."""
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        span = x1 - x0
        big = bool(modifiers & QtCore.Qt.KeyboardModifier.ShiftModifier)
        k = QtCore.Qt.Key
        if key in (k.Key_Left, k.Key_Right):
            step = span * (0.5 if big else 0.1) * (-1 if key == k.Key_Left else 1)
            self.viewbox.setXRange(x0 + step, x1 + step, padding=0)
            self._update_clock_label()
        elif key in (k.Key_Plus, k.Key_Equal, k.Key_Minus):
            factor = 0.5 if key != k.Key_Minus else 2.0
            centre = (x0 + x1) / 2
            self.viewbox.setXRange(
                centre - span * factor / 2, centre + span * factor / 2, padding=0
            )
        elif key in (k.Key_Up, k.Key_Down):
            step = -1.0 if key == k.Key_Up else 1.0
            self.viewbox.setYRange(y0 + step, y1 + step, padding=0)
        elif key == k.Key_Home:
            self.fit()
        elif key == k.Key_C and self._sim is not None:
            self.center_on_clock()
        elif key == k.Key_Escape and self.run_card.isVisible():
            self.run_card.dismiss()
        else:
            return False
        return True
