"""The main window: composes the panes and wires signals, nothing more.

Centre: the welcome gallery, or the canvas of the open document. Docks: the
inspector, the node palette, the undo history, and the timeline and explain
simulation panes (kept in named docks, ``timelineDock`` and ``explainDock``,
until those panes are integrated). Menus and the toolbar are built from the
one action registry (:mod:`explorer.ui.actions`). File operations live in
:mod:`explorer.ui.file_ops`, per-document panes in :mod:`explorer.ui.workspace`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QPoint, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QStackedWidget,
    QStyle,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.ui import simulation_menu
from explorer.ui.actions import ActionRegistry, Menu, Separator, Submenu
from explorer.ui.autosave import Timer
from explorer.ui.behaviour_diff import CompareActions
from explorer.ui.dialogs import Prompts
from explorer.ui.document import ScenarioDocument
from explorer.ui.expectations_dock import install as install_expectations
from explorer.ui.export_actions import ExportActions
from explorer.ui.file_ops import FileOps
from explorer.ui.gallery import Gallery
from explorer.ui.import_ops import MENU as IMPORT_MENU
from explorer.ui.import_ops import ImportOps
from explorer.ui.opening import CanvasBuild, OpeningIndicator
from explorer.ui.palette import NodePalette
from explorer.ui.settings import Preferences
from explorer.ui.theme import apply_theme
from explorer.ui.workers import LAYOUTS
from explorer.ui.workspace import Workspace

if TYPE_CHECKING:
    from explorer.ui.canvas.scene import ScenarioScene
    from explorer.ui.panels.workbench import Workbench

__all__ = ["MainWindow"]

_NO_TIMELINE = "Open a scenario: the clock and the timeline of its simulated runs show here."
_NO_EXPLAIN = "Open a scenario: why a DAG did or did not run shows here."
_NO_INSPECTOR = "Open or create a scenario, then select a node to inspect it."
_NO_HISTORY = "No scenario is open: its edits will be listed here."

SK = QKeySequence.StandardKey
#: Saved dock layouts of an older arrangement (timeline and explain tabbed) are not restored.
_STATE_VERSION = 2
SP = QStyle.StandardPixmap


class MainWindow(QMainWindow):
    def __init__(
        self,
        prefs: Preferences,
        *,
        prompts: Prompts | None = None,
        recovery_dir: Path | None = None,
        autosave_timer: Timer | None = None,
        simulation: bool = True,
    ) -> None:
        super().__init__()
        self.simulation = simulation
        self.setObjectName("mainWindow")
        self.prefs = prefs
        self.prompts = prompts or Prompts(self)
        self.recovery_dir = recovery_dir
        self.autosave_timer = autosave_timer
        self.workspace: Workspace | None = None
        self.setAcceptDrops(True)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
        )
        self.files = FileOps(self, self.document, prefs, self.prompts)
        self.gallery = Gallery()
        self.stack = QStackedWidget()
        self.stack.setMinimumSize(240, 160)  # not the gallery's hint: the window fits 1280x720
        self.stack.addWidget(self.gallery)
        self.canvas_host = _Host("The canvas")
        self.stack.addWidget(self.canvas_host)
        self.setCentralWidget(self.stack)
        self.inspector_dock = self._dock(
            "Inspector", "inspectorDock", Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.node_palette = NodePalette()
        self.palette_dock = self._dock("Nodes", "paletteDock", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.palette_dock.setWidget(self.node_palette)
        self.history_dock = self._dock(
            "History", "historyDock", Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.timeline_dock = self._dock(
            "Timeline", "timelineDock", Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.timeline_dock.setWidget(_placeholder(_NO_TIMELINE))
        self.explain_dock = self._dock(
            "Explain", "explainDock", Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.explain_dock.setWidget(_placeholder(_NO_EXPLAIN))
        # the "why" beside the runs, not behind them in a tab
        self.splitDockWidget(self.timeline_dock, self.explain_dock, Qt.Orientation.Horizontal)
        self.inspector_dock.setWidget(_placeholder(_NO_INSPECTOR))
        self.history_dock.setWidget(_placeholder(_NO_HISTORY))
        #: Dock sizes are set once the window has its size, unless restored from settings.
        self._sized = False
        #: Docks hidden while the gallery shows (to show again with a document).
        self._tucked: list[QDockWidget] | None = None
        self._status()
        self.registry = ActionRegistry(self)
        self.imports = ImportOps(self)  # File > Import / Re-import, the import report dock
        self.imports.register(self.registry)
        self._register_actions()
        self._build_menus()
        self._wire()
        self._restore_window()
        self.show_gallery()

    # ----------------------------------------------------------------- composition
    def _dock(self, title: str, name: str, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setToolTip(f"The {title.lower()} pane (drag its title to move it)")
        self.addDockWidget(area, dock)
        return dock

    def _status(self) -> None:
        bar = self.statusBar()
        self.zoom_label = QLabel("100 %")
        self.zoom_label.setToolTip("Canvas zoom (Ctrl++ / Ctrl+- / Ctrl+0 fits)")
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(160)
        self.progress.setToolTip("Layout progress")
        self.progress.hide()
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel layout")
        self.cancel_button.setToolTip("Stop the running layout; the graph stays as it is")
        self.cancel_button.hide()
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        bar.addPermanentWidget(self.zoom_label)

    def _register_actions(self) -> None:
        r, ws = self.registry, self._ws
        f = self.files
        self.exports = ExportActions(self)  # timeline pictures, review report
        self.exports.register(r)
        self.compares = CompareActions(self)  # behavioural diff
        self.compares.register(r)
        r.register(
            "file.new",
            "&New",
            f.new,
            shortcut=SK.New,
            icon=SP.SP_FileIcon,
            tip="New empty scenario",
        )
        r.register(
            "file.open",
            "&Open…",
            f.open_dialog,
            shortcut=SK.Open,
            icon=SP.SP_DialogOpenButton,
            tip="Open a scenario file",
        )
        r.register(
            "file.gallery", "&Welcome Gallery", self.ask_gallery, tip="Examples and recent files"
        )
        r.register(
            "file.save",
            "&Save",
            f.save,
            shortcut=SK.Save,
            icon=SP.SP_DialogSaveButton,
            tip="Save the scenario",
        )
        r.register(
            "file.save_as",
            "Save &As…",
            f.save_as,
            shortcut=SK.SaveAs,
            tip="Save the scenario to another file",
        )
        r.register("file.close", "&Close", f.close, shortcut=SK.Close, tip="Close the scenario")
        r.register("file.quit", "&Quit", self.close, shortcut=SK.Quit, tip="Quit Schedule Explorer")
        r.register(
            "edit.undo",
            "&Undo",
            lambda: self._stack_do("undo"),
            shortcut=SK.Undo,
            icon=SP.SP_ArrowBack,
        )
        r.register(
            "edit.redo",
            "&Redo",
            lambda: self._stack_do("redo"),
            shortcut=SK.Redo,
            icon=SP.SP_ArrowForward,
        )
        r.register(
            "edit.cut",
            "Cu&t",
            ws(lambda w: w.editor.cut()),
            shortcut=SK.Cut,
            tip="Cut the selected nodes",
        )
        r.register(
            "edit.copy",
            "&Copy",
            ws(lambda w: w.editor.copy()),
            shortcut=SK.Copy,
            tip="Copy the selected nodes",
        )
        r.register(
            "edit.paste",
            "&Paste",
            ws(lambda w: w.editor.paste()),
            shortcut=SK.Paste,
            tip="Paste copied nodes",
        )
        r.register(
            "edit.delete",
            "&Delete",
            ws(lambda w: w.scene.delete_selection()),
            shortcut=SK.Delete,
            icon=SP.SP_TrashIcon,
            tip="Delete the selected nodes and connections",
        )
        r.register("edit.select_all", "Select &All", ws(self._select_all), shortcut=SK.SelectAll)
        r.register(
            "edit.find",
            "&Find…",
            ws(lambda w: w.find()),
            shortcut=SK.Find,
            tip="Find a node by name",
        )
        r.register(
            "edit.quick_add",
            "&Quick Add…\tTab",
            ws(lambda w: w.view.request_quick_add()),
            tip="Add a node by typing (Tab on the canvas)",
        )
        r.register(
            "edit.deploy_change",
            "&Deploy This Change At…",
            ws(self._deploy_change),
            tip="Ship the edits since the last save at an instant: the saved version runs "
            "before it, the edited one after (undoable)",
        )
        for kind, label in (
            ("dag", "&DAG"),
            ("asset", "&Asset"),
            ("alias", "Asset&Alias"),
            ("ref", "Asset.&ref"),
            ("and", "AND &gate"),
            ("or", "&OR gate"),
        ):
            r.register(
                f"insert.{kind}",
                label,
                ws(partial(_add_kind, kind)),
                tip=f"Add {label.replace('&', '')}",
            )
        r.register("view.zoom_in", "Zoom &In", ws(lambda w: w.view.zoom_in()), shortcut=SK.ZoomIn)
        r.register(
            "view.zoom_out", "Zoom &Out", ws(lambda w: w.view.zoom_out()), shortcut=SK.ZoomOut
        )
        r.register(
            "view.fit",
            "&Fit to Window",
            ws(lambda w: w.view.fit()),
            shortcut="Ctrl+0",
            tip="Show the whole graph",
        )
        r.register(
            "view.actual_size", "&Actual Size", ws(lambda w: w.view.zoom_reset()), shortcut="Ctrl+1"
        )
        r.register(
            "view.minimap",
            "&Minimap",
            self._toggle_minimap,
            checkable=True,
            shortcut="Ctrl+Shift+M",
            tip="Show a minimap when the graph does not fit",
        )
        r.register(
            "view.focus_dag",
            "Upstream && &Downstream of Selected DAG",
            ws(lambda w: w.focus.focus_selected()),
            shortcut="Ctrl+Shift+U",
            tip="Show the selected DAG with everything upstream and downstream of it",
        )
        r.register(
            "view.filter",
            "&Filter DAGs…",
            ws(lambda w: w.focus_bar.name.setFocus()),
            shortcut="Ctrl+Shift+F",
            tip="Filter the canvas and the timeline by name, tag or folder",
        )
        r.register(
            "view.show_all",
            "Show &All DAGs",
            ws(lambda w: w.focus.clear()),
            shortcut="Ctrl+Shift+A",
            tip="Clear the filter",
        )
        r.register(
            "view.focus_canvas", "Focus &Canvas", ws(lambda w: w.view.setFocus()), shortcut="F6"
        )
        r.register("view.focus_inspector", "Focus I&nspector", self._focus_inspector, shortcut="F7")
        for theme in ("system", "light", "dark"):
            r.register(
                f"view.theme.{theme}",
                f"{theme.title()} theme",
                partial(self.set_theme, theme),
                checkable=True,
            )
        for dock, action_id in (
            (self.inspector_dock, "view.dock.inspector"),
            (self.palette_dock, "view.dock.palette"),
            (self.history_dock, "view.dock.history"),
            (self.timeline_dock, "view.dock.timeline"),
            (self.explain_dock, "view.dock.explain"),
        ):
            action = r.register(
                action_id,
                dock.windowTitle(),
                partial(self._toggle_dock, dock, action_id),
                checkable=True,
            )
            action.setChecked(True)
            dock.visibilityChanged.connect(partial(_sync_check, action, dock))
        for name, (title, _fn) in LAYOUTS.items():
            keys = "Ctrl+L" if name == "layered" else None
            r.register(
                f"layout.{name}",
                title,
                ws(partial(_apply_layout, name)),
                shortcut=keys,
                tip=f"{title} (undoable)",
            )
        r.register("layout.cancel", "&Cancel Layout", ws(lambda w: w.editor.cancel_layout()))
        r.register("help.about", "&About", self._about)
        r.register("help.shortcuts", "&Keyboard Shortcuts", self._show_shortcuts)
        self._sim_actions = simulation_menu.register(r, self._bench)
        self.registry.action("view.minimap").setChecked(self.prefs.show_minimap())
        self.registry.action(f"view.theme.{self.prefs.theme()}").setChecked(True)

    def _build_menus(self) -> None:
        s = Separator()
        menus = [
            Menu(
                "&File",
                [
                    "file.new",
                    "file.open",
                    Submenu("Open &Recent", self._fill_recent),
                    "file.gallery",
                    s,
                    *IMPORT_MENU,
                    s,
                    "file.save",
                    "file.save_as",
                    s,
                    Menu(
                        "E&xport",
                        [
                            "file.export.canvas",
                            "file.export.timeline",
                            "file.export.both",
                            s,
                            "file.export.report",
                        ],
                    ),
                    "file.copy_image",
                    s,
                    "file.close",
                    "file.quit",
                ],
            ),
            Menu(
                "&Edit",
                [
                    "edit.undo",
                    "edit.redo",
                    s,
                    "edit.cut",
                    "edit.copy",
                    "edit.paste",
                    "edit.delete",
                    s,
                    "edit.select_all",
                    "edit.find",
                    "edit.quick_add",
                    s,
                    "edit.deploy_change",
                ],
            ),
            Menu(
                "&Insert",
                [
                    "insert.dag",
                    "insert.asset",
                    "insert.alias",
                    "insert.ref",
                    s,
                    "insert.and",
                    "insert.or",
                ],
            ),
            Menu(
                "&View",
                [
                    "view.zoom_in",
                    "view.zoom_out",
                    "view.fit",
                    "view.actual_size",
                    s,
                    "view.filter",
                    "view.focus_dag",
                    "view.show_all",
                    s,
                    "view.minimap",
                    s,
                    "view.dock.inspector",
                    "view.dock.palette",
                    "view.dock.history",
                    "view.dock.timeline",
                    "view.dock.explain",
                    "view.dock.import",
                    s,
                    "view.focus_canvas",
                    "view.focus_inspector",
                    s,
                    "view.compare_saved",
                    "view.compare_file",
                    "view.compare_airflow",
                    s,
                    Menu("&Theme", ["view.theme.system", "view.theme.light", "view.theme.dark"]),
                ],
            ),
            Menu(
                "&Layout",
                ["layout.layered", "layout.spring", "layout.kamada_kawai", s, "layout.cancel"],
            ),
            Menu("&Simulation", self._sim_actions),
            Menu("&Help", ["help.shortcuts", "help.about"]),
        ]
        self.registry.build_menus(self.menuBar(), menus)
        toolbar = QToolBar("Main toolbar")
        toolbar.setObjectName("mainToolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.registry.build_toolbar(
            toolbar,
            [
                "file.new",
                "file.open",
                "file.save",
                s,
                "edit.undo",
                "edit.redo",
                s,
                "edit.delete",
                s,
                "view.zoom_in",
                "view.zoom_out",
                "view.fit",
                s,
                "layout.layered",
            ],
        )
        self.addToolBar(toolbar)

    def _wire(self) -> None:
        # a big file opens in the background: its progress in the status bar, with Cancel
        self.opening = OpeningIndicator()
        self.statusBar().addPermanentWidget(self.opening)
        self.files.loading.connect(self.opening.show_text)
        self.opening.cancel.clicked.connect(self.files.cancel_open)
        self.opening.cancel.clicked.connect(self._cancel_build)
        #: The canvas of a file opened in the background, being made in slices.
        self.building: CanvasBuild | None = None
        self.files.opened.connect(self.show_document)
        self.files.closed.connect(self.show_gallery)
        self.files.message.connect(self.show_message)
        self.files.saved.connect(self._update_title)
        self.gallery.startEmpty.connect(self.files.new)
        self.gallery.openRequested.connect(self.files.open_dialog)
        self.gallery.chosen.connect(self.open_file)
        self.gallery.exampleChosen.connect(self.files.open_example)
        self.node_palette.addRequested.connect(self._add_from_palette)
        self.cancel_button.clicked.connect(self._ws(lambda w: w.editor.cancel_layout()))

    # ----------------------------------------------------------------- documents
    def document(self) -> ScenarioDocument | None:
        return self.workspace.document if self.workspace is not None else None

    def show_document(self, document: ScenarioDocument) -> None:
        """Replace the open document (the unsaved-changes question was already answered).

        A file opened in the background has its canvas made a slice at a time first,
        the old document on screen and usable meanwhile."""
        self._cancel_build()
        if document.prepared_canvas is not None:
            self.building = CanvasBuild(document, self.palette(), self.document(), self)
            self.building.progress.connect(self.opening.show_share)
            self.building.ready.connect(self._built)
            self.building.start()
            return
        self._show_document(document)

    def _cancel_build(self) -> None:
        if self.building is not None:
            building, self.building = self.building, None
            building.cancel()
            self.opening.show_text("")

    def _built(self, document: ScenarioDocument, scene: object) -> None:
        building, self.building = self.building, None
        self.opening.show_text("")
        if building is None:
            return
        if building.replaced_was_edited(self.document()) and not self.files.maybe_discard():
            building.cancel()
            self.show_message(f"{document.scenario.name} was not opened: the current work stays")
            return
        self._show_document(document, scene)  # type: ignore[arg-type]

    def _show_document(
        self, document: ScenarioDocument, scene: ScenarioScene | None = None
    ) -> None:
        self._drop_workspace()
        workspace = Workspace(
            document,
            self,
            recovery_dir=self.recovery_dir,
            autosave_ms=self.prefs.autosave_seconds() * 1000,
            autosave_timer=self.autosave_timer,
            simulation=self.simulation,
            scene=scene,
        )
        self.workspace = workspace
        if workspace.simulation is not None:
            self.timeline_dock.setWidget(workspace.simulation.timeline_widget)
            self.explain_dock.setWidget(workspace.simulation.explain_widget)
            # --- simulation panes: presentation mode (F5) keeps only canvas and timeline
            workspace.simulation.bench.injection.extensions.append(self.exports.timeline_items)
            self.expectations = install_expectations(self, workspace)
            presentation = workspace.simulation.bench.presentation
            # every dock but the timeline's (the expectations and import docks too)
            presentation.hide.extend(
                d for d in self.findChildren(QDockWidget) if d is not self.timeline_dock
            )
            # ... and the chrome: menu bar, toolbars, status bar, the timeline's title bar
            presentation.hide.extend([self.menuBar(), *self.findChildren(QToolBar)])
            presentation.hide.append(self.statusBar())
            presentation.hide.append(workspace.focus_bar)  # the canvas's filter: chrome too
            presentation.toggled.connect(self._present_chrome)
            view = workspace.view
            # the docks hide first; the canvas fits once the freed space is laid out
            presentation.toggled.connect(
                lambda on: QTimer.singleShot(0, view, lambda: view.present(on))
            )
            # --- end simulation panes
            if not self._sized:
                self._sized = True  # the first scenario: size the docks around its panes
                # Lay the new panes out now, so the sizes (and the canvas fit) hold at once.
                QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
                self._size_docks()
                QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self.canvas_host.set_widget(workspace.canvas_pane)
        self.inspector_dock.setWidget(workspace.inspector)
        self.history_dock.setWidget(workspace.history)
        workspace.view.minimap.set_enabled_by_user(self.registry.action("view.minimap").isChecked())
        workspace.message.connect(self.show_message)
        workspace.view.contextMenuRequested.connect(self._context_menu)
        workspace.view.zoomChanged.connect(self._show_zoom)
        workspace.editor.layoutStarted.connect(self._layout_started)
        workspace.editor.layoutProgress.connect(self._layout_progress)
        workspace.editor.layoutEnded.connect(self._layout_ended)
        stack = document.undo_stack
        stack.canUndoChanged.connect(self._update_actions)
        stack.canRedoChanged.connect(self._update_actions)
        stack.undoTextChanged.connect(self._update_actions)
        stack.redoTextChanged.connect(self._update_actions)
        document.modifiedChanged.connect(self._update_title)
        document.pathChanged.connect(self._update_title)
        document.changed.connect(self._update_title)
        self._untuck_docks()
        self.stack.setCurrentWidget(self.canvas_host)
        self._update_title()
        self._update_actions()
        workspace.view.fit(readable=True)
        workspace.view.setFocus()

    def _present_chrome(self, on: bool) -> None:
        """No "Timeline" title bar over the lanes while presenting, and half the height for
        them (big type needs it on a 720-pixel screen); the user's height comes back after."""
        self.timeline_dock.setTitleBarWidget(
            QWidget(self.timeline_dock) if on else None  # type: ignore[arg-type]  # None: Qt's own
        )
        vertical = Qt.Orientation.Vertical
        if on:
            self._timeline_height = self.timeline_dock.height()
            self.resizeDocks([self.timeline_dock], [int(self.height() * 0.5)], vertical)
        elif getattr(self, "_timeline_height", 0):
            self.resizeDocks([self.timeline_dock], [self._timeline_height], vertical)

    def _drop_workspace(self) -> None:
        if self.workspace is not None:
            old = self.workspace
            self.workspace = None
            self.inspector_dock.setWidget(_placeholder(_NO_INSPECTOR))
            self.history_dock.setWidget(_placeholder(_NO_HISTORY))
            self.timeline_dock.setWidget(_placeholder(_NO_TIMELINE))
            self.explain_dock.setWidget(_placeholder(_NO_EXPLAIN))
            self.canvas_host.set_widget(None)
            old.dispose()

    def _editing_docks(self) -> list[QDockWidget]:
        return [
            self.palette_dock,
            self.history_dock,
            self.inspector_dock,
            self.timeline_dock,
            self.explain_dock,
        ]

    def _tuck_docks(self) -> None:
        """The gallery gets the whole window; the docks the user had come back with a file."""
        if self._tucked is None:
            self._tucked = [d for d in self._editing_docks() if not d.isHidden()]
            for dock in self._tucked:
                dock.hide()

    def _untuck_docks(self) -> None:
        if self._tucked is not None:
            for dock in self._tucked:
                dock.show()
            self._tucked = None

    def show_gallery(self) -> None:
        self._cancel_build()
        self._drop_workspace()
        self.gallery.fill_recent(self.prefs.recent_files())
        self._tuck_docks()
        self.stack.setCurrentWidget(self.gallery)
        self._update_title()
        self._update_actions()
        self.gallery.examples.setFocus()

    def ask_gallery(self) -> None:
        if self.files.maybe_discard():
            self.show_gallery()

    def open_file(self, path: Path) -> bool:
        return self.files.open_path(path)

    # ----------------------------------------------------------------- state
    def _deploy_change(self, workspace: Workspace) -> None:
        """Edit > Deploy This Change At… (explorer/ui/deploy_change.py)."""
        from explorer.ui.deploy_change import DeployChangeDialog

        panes = workspace.simulation
        now = (
            panes.session.now
            if panes is not None
            else workspace.document.scenario.clock.start.value
        )
        text = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.deploy_dialog = DeployChangeDialog(workspace.document, text, self)
        self.deploy_dialog.open()

    def _ws(self, call: Callable[[Workspace], object]) -> Callable[[], None]:
        """An action callback that needs an open document (does nothing without one)."""

        def run() -> None:
            if self.workspace is not None:
                call(self.workspace)

        return run

    def _add_from_palette(self, kind: str) -> None:
        if self.workspace is not None:
            self.workspace.add_at(kind)
            self.workspace.view.setFocus()

    def _stack_do(self, what: str) -> None:
        document = self.document()
        if document is not None:
            getattr(document.undo_stack, what)()

    def _select_all(self, workspace: Workspace) -> None:
        workspace.scene.select_nodes(list(workspace.scene.nodes))

    def _show_zoom(self, zoom: float) -> None:
        self.zoom_label.setText(f"{zoom * 100:.0f} %")

    def _layout_progress(self, share: float) -> None:
        self.progress.setValue(int(share * 100))

    def _update_title(self, *_args: object) -> None:
        document = self.document()
        if document is None:
            self.setWindowTitle("Schedule Explorer")
            self.setWindowModified(False)
            return
        name = document.path.name if document.path else "Untitled"
        self.setWindowTitle(f"{name}[*] — {document.scenario.name} — Schedule Explorer")
        self.setWindowModified(document.is_modified())

    def _update_actions(self, *_args: object) -> None:
        document = self.document()
        has = document is not None
        for action_id in self.registry.ids():
            if action_id.split(".")[0] in ("edit", "insert", "layout") or action_id in (
                "file.save",
                "file.save_as",
                "file.close",
                "view.zoom_in",
                "view.zoom_out",
                "view.fit",
                "view.actual_size",
                "view.focus_canvas",
                "view.focus_dag",
                "view.filter",
                "view.show_all",
            ):
                self.registry.set_enabled(action_id, has)
        for action_id in self._sim_actions:
            self.registry.set_enabled(action_id, self._bench() is not None)
        self.zoom_label.setVisible(has)
        undo, redo = self.registry.action("edit.undo"), self.registry.action("edit.redo")
        stack = document.undo_stack if document is not None else None
        undo.setEnabled(bool(stack and stack.canUndo()))
        redo.setEnabled(bool(stack and stack.canRedo()))
        undo.setText(f"&Undo {stack.undoText()}" if stack and stack.canUndo() else "&Undo")
        redo.setText(f"&Redo {stack.redoText()}" if stack and stack.canRedo() else "&Redo")

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _layout_started(self, title: str) -> None:
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self.show_message(f"{title}: running (the window stays usable; Cancel stops it)")

    def _layout_ended(self, message: str) -> None:
        self.progress.hide()
        self.cancel_button.hide()
        self.show_message(message)
        if message.endswith("applied") and self.workspace is not None:
            self.workspace.view.fit()  # the new layout, whole, in view

    def _context_menu(self, where: QPoint, on_item: bool) -> QMenu:
        """The canvas's right-click menu, made of the registry's actions."""
        s = Separator()
        on_node: list[str | Separator] = [
            "edit.cut",
            "edit.copy",
            "edit.delete",
            s,
            "insert.and",
            "insert.or",
            s,
            "edit.find",
            "view.focus_dag",
        ]
        on_canvas: list[str | Separator] = [
            "edit.quick_add",
            "insert.dag",
            "insert.asset",
            "insert.alias",
            "insert.ref",
            s,
            "edit.paste",
            "edit.select_all",
            s,
            "view.fit",
            "layout.layered",
            s,
            "file.export.canvas",
            "file.copy_image",
        ]
        ids = on_node if on_item else on_canvas
        menu = QMenu(self)
        menu.setObjectName("canvasMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        for item in ids:
            if isinstance(item, Separator):
                menu.addSeparator()
            else:
                menu.addAction(self.registry.action(item))
        menu.popup(where)
        return menu

    def _fill_recent(self, menu: QMenu) -> None:
        files = self.prefs.recent_files()
        for path in files:
            action = menu.addAction(path.name)
            action.setToolTip(str(path))
            action.setStatusTip(str(path))
            action.triggered.connect(lambda _=False, p=path: self.files.open_path(p))
        if not files:
            menu.addAction("No recent files").setEnabled(False)
        else:
            menu.addSeparator()
            menu.addAction("Clear Recent Files", self.prefs.clear_recent)

    def _toggle_minimap(self) -> None:
        on = self.registry.action("view.minimap").isChecked()
        self.prefs.set_show_minimap(on)
        if self.workspace is not None:
            self.workspace.view.minimap.set_enabled_by_user(on)

    def _toggle_dock(self, dock: QDockWidget, action_id: str) -> None:
        dock.setVisible(self.registry.action(action_id).isChecked())

    def _focus_inspector(self) -> None:
        self.inspector_dock.show()
        widget = self.inspector_dock.widget()
        if widget is not None:
            widget.setFocus()
            widget.focusNextChild()

    def set_theme(self, theme: str) -> None:
        for name in ("system", "light", "dark"):
            action = self.registry.action(f"view.theme.{name}")
            action.blockSignals(True)
            action.setChecked(name == theme)
            action.blockSignals(False)
        self.prefs.set_theme(theme)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)
        self._repaint_canvas()

    def _repaint_canvas(self) -> None:
        if self.workspace is not None:
            self.workspace.scene.set_palette(QApplication.palette())
            self.workspace.view.viewport().update()

    def changeEvent(self, event: QEvent) -> None:
        """The palette changed (a theme chosen, or the desktop switched light/dark)."""
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self._repaint_canvas()
        super().changeEvent(event)

    def _bench(self) -> Workbench | None:
        """The open document's simulation panes (None without a document or an engine)."""
        simulation = self.workspace.simulation if self.workspace is not None else None
        return simulation.bench if simulation is not None else None

    def _show_shortcuts(self) -> None:
        dialog = simulation_menu.ShortcutsDialog(simulation_menu.shortcut_rows(self.registry), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    def _about(self) -> None:
        from explorer import __version__

        self.prompts.info(
            "About Schedule Explorer",
            f"Schedule Explorer {__version__}: what Apache Airflow 3.3's scheduler will do "
            "with your scenario. Scenario files saved here are read by `explorer simulate`.",
        )

    # ----------------------------------------------------------------- window state
    def _restore_window(self) -> None:
        geometry, state = self.prefs.window_geometry(), self.prefs.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            screen = self.screen().availableGeometry()
            self.resize(
                max(900, min(1600, int(screen.width() * 0.92))),
                max(640, min(1050, int(screen.height() * 0.92))),
            )
        if state is not None:
            self._sized = self.restoreState(state, _STATE_VERSION)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._sized:
            self._size_docks()

    def _size_docks(self) -> None:
        """First run (no saved window state): a wide inspector, two fifths of the height for the
        timeline, the rest for the canvas."""
        width, height = max(self.width(), 1000), max(self.height(), 700)
        self.resizeDocks(
            [self.inspector_dock, self.palette_dock],
            [max(400, width // 4), 130],
            Qt.Orientation.Horizontal,
        )
        self.resizeDocks([self.timeline_dock], [int(height * 0.4)], Qt.Orientation.Vertical)
        self.resizeDocks(
            [self.timeline_dock, self.explain_dock],
            [int(width * 0.6), int(width * 0.4)],
            Qt.Orientation.Horizontal,
        )

    def save_window(self) -> None:
        panes = self.workspace.simulation if self.workspace is not None else None
        if panes is not None and panes.bench.presentation.active:
            # closed while presenting: keep the user's docks and bars, not the show's
            panes.bench.presentation.exit()
        tucked = self._tucked
        self._untuck_docks()  # save the docks as the user arranged them, not the gallery's
        state = QByteArray(self.saveState(_STATE_VERSION))
        self.prefs.save_window(QByteArray(self.saveGeometry()), state)
        self.prefs.sync()
        if tucked is not None and self.workspace is None:
            self._tuck_docks()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.maybe_discard():
            event.ignore()
            return
        self.files.cancel_open()
        self.save_window()
        self._drop_workspace()
        event.accept()

    # ----------------------------------------------------------------- drops
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.files.open_dropped(paths)


def _add_kind(kind: str, workspace: Workspace) -> None:
    workspace.add_at(kind)


def _apply_layout(name: str, workspace: Workspace) -> None:
    workspace.editor.apply_layout(name)


def _sync_check(action: QAction, dock: QDockWidget, _visible: bool = False) -> None:
    action.blockSignals(True)
    action.setChecked(not dock.isHidden())
    action.blockSignals(False)


class _Host(QWidget):
    """Holds the open document's canvas view (replaced when another document opens)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName("canvasHost")
        self.setAccessibleName(name)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.widget: QWidget | None = None

    def set_widget(self, widget: QWidget | None) -> None:
        if self.widget is not None:
            self.layout_.removeWidget(self.widget)
        self.widget = widget
        if widget is not None:
            self.layout_.addWidget(widget)


def _placeholder(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setToolTip(text)
    label.setEnabled(False)
    return label
