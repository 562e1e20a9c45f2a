"""File > Import Airflow Project… and File > Re-import, in the window.

The importer (:mod:`explorer.importer`) is headless; this module runs it in
an :class:`~explorer.ui.import_job.ImportJob` with progress and Cancel in
the status bar, so the open document stays usable while files are read:

* an **import** ends as a new, unsaved document (after the usual question if
  the open one has unsaved changes), with the report dock showing what could
  not be read;
* a **re-import** reads the roots the open scenario's ``import`` record
  names, then merges in the GUI thread against the document *as it is when
  the files are read* (an edit made meanwhile is not lost), keeping layout
  positions, the script and every supplied value
  (:func:`explorer.importer.merge_reimport`); the result is one command on
  the undo stack, and the report dock lists what changed.

Selecting an unresolved item in the report selects its DAG on the canvas
(showing it if the canvas filter hid it) and focuses its field in the
inspector.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QProgressBar,
    QToolButton,
    QWidget,
)

from explorer.document.provenance import import_record
from explorer.document.wording import count
from explorer.importer import DEFAULT_TASK_DURATION, ImportResult, import_paths, merge_reimport
from explorer.importer.report import ImportReport
from explorer.ui.actions import ActionRegistry
from explorer.ui.commands import edit
from explorer.ui.document import ScenarioDocument
from explorer.ui.import_job import ImportJob, run_import_job
from explorer.ui.import_report import ImportReportPanel, _change_words

if TYPE_CHECKING:
    from explorer.ui.main_window import MainWindow

__all__ = ["ImportOps"]

#: The File menu's entries, in order (the window puts them after Open).
MENU = ("file.import", "file.import_files", "file.reimport")


class ImportOps(QObject):
    """Import and re-import for one main window, and the report dock."""

    #: A job is about to run (the :class:`ImportJob`), before its thread starts.
    started = Signal(object)
    #: (files read, files in all, the last file), in the GUI thread.
    progressed = Signal(int, int, str)
    #: A job ended: "imported", "reimported", "cancelled", "failed" or "empty".
    ended = Signal(str)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.panel = ImportReportPanel()
        self.dock = QDockWidget("Import report", window)
        self.dock.setObjectName("importDock")
        self.dock.setToolTip("What the last import could not read, and what re-import changed")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.progress = QProgressBar()
        self.progress.setObjectName("importProgress")
        self.progress.setMaximumWidth(180)
        self.progress.setFormat("%v of %m files")
        self.progress.setToolTip("DAG files read so far")
        self.progress_label = QLabel()
        self.cancel_button = QToolButton()
        self.cancel_button.setObjectName("cancelImport")
        self.cancel_button.setText("Cancel import")
        self.cancel_button.setToolTip("Stop reading files; the open scenario stays as it is")
        self.cancel_button.clicked.connect(self.cancel)
        bar = window.statusBar()
        for widget in (self.progress_label, self.progress, self.cancel_button):
            bar.addPermanentWidget(widget)
            widget.hide()
        self.job: ImportJob | None = None
        #: Asks for the project folder (a dialog; tests replace it).
        self.ask_folder: Callable[[], Path | None] = self._folder_dialog
        #: Asks for DAG files (a dialog; tests replace it).
        self.ask_files: Callable[[], list[Path]] = self._files_dialog
        self._opening: ScenarioDocument | None = None
        self._document: ScenarioDocument | None = None
        self.panel.locate.connect(self.locate)
        window.files.opened.connect(self._attach)
        window.files.closed.connect(lambda: self._attach(None))
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The window closes: a running import stops (its thread must not outlive the window)."""
        if event.type() == QEvent.Type.Close and self.job is not None:
            self.job.cancel()
            self.job.done.wait(10)
        return False

    # ----------------------------------------------------------------- actions
    def register(self, registry: ActionRegistry) -> None:
        registry.register(
            "file.import",
            "&Import Airflow Project…",
            self.import_project,
            shortcut="Ctrl+I",
            tip="Read a folder of Airflow DAG files into a new scenario (never runs them)",
        )
        registry.register(
            "file.import_files",
            "Import Airflow DAG &Files…",
            self.import_files,
            tip="Read chosen Airflow DAG files into a new scenario (never runs them)",
        )
        registry.register(
            "file.reimport",
            "&Re-import from Files",
            self.reimport,
            shortcut="Ctrl+Shift+I",
            tip="Read the imported files again: keeps positions and supplied values (undoable)",
        )
        action = registry.register(
            "view.dock.import",
            "Import Report",
            lambda: self.dock.setVisible(registry.action("view.dock.import").isChecked()),
            checkable=True,
        )
        self.dock.visibilityChanged.connect(lambda _v: action.setChecked(not self.dock.isHidden()))
        self._registry = registry
        self._update_actions()

    def _update_actions(self) -> None:
        registry = getattr(self, "_registry", None)
        if registry is None:
            return
        document = self._document  # the window's, once shown (this runs before the window's slot)
        can = document is not None and import_record(document.scenario) is not None
        registry.set_enabled("file.reimport", can and self.job is None)
        for action_id in ("file.import", "file.import_files"):
            registry.set_enabled(action_id, self.job is None)

    # ----------------------------------------------------------------- import
    def import_project(self) -> bool:
        folder = self.ask_folder()
        return folder is not None and self.start_import([folder])

    def import_files(self) -> bool:
        files = self.ask_files()
        return bool(files) and self.start_import(files)

    def start_import(self, paths: list[Path]) -> bool:
        """Read ``paths`` in a worker; a new document opens when done."""
        if self.job is not None:
            self.window.show_message("an import is already running (Cancel stops it)")
            return False
        parsed_at = self.window.files.today()
        name = paths[0].name if len(paths) == 1 else f"{paths[0].parent.name} DAG files"

        def work(progress: Callable[[int, int, str], None], cancel: Callable[[], bool]) -> Any:
            return import_paths(
                paths, parsed_at=parsed_at, name=name, progress=progress, cancel=cancel
            )

        return self._start(work, self._imported, f"Importing {name}")

    def _imported(self, result: ImportResult) -> None:
        report = result.report
        if result.dag_count == 0:
            first = _first_reason(report)
            self.panel.set_report(report)
            self.panel.summary.setText(
                f"Nothing could be imported: {first} " + self.panel.summary.text()
            )
            self.dock.show()
            self.window.show_message(f"Nothing imported: {first}")
            self.window.prompts.error(
                "Nothing to import",
                f"No DAG could be read from these files.\n\nFirst reason: {first}",
                report.summary(),
            )
            self.ended.emit("empty")
            return
        if not self.window.files.maybe_discard():
            self.window.show_message("Import not opened: the open scenario was kept")
            self.ended.emit("cancelled")
            return
        document = ScenarioDocument(result.scenario)
        self._opening = document
        try:
            self.window.files.opened.emit(document)
        finally:
            self._opening = None
        self.panel.set_report(report)
        self._show_dock()
        self.window.show_message(
            f"Imported {count(result.dag_count, 'DAG')} from {count(len(report.files), 'file')}: "
            + self.panel.summary.text().split(". ")[0]
        )
        self.ended.emit("imported")

    # ----------------------------------------------------------------- re-import
    def reimport(self) -> bool:
        document = self.window.document()
        record = import_record(document.scenario) if document is not None else None
        if document is None or record is None:
            self.window.show_message(
                "Re-import needs an imported scenario (File > Import Airflow Project…)"
            )
            return False
        base = document.path.parent if document.path is not None else None
        roots = [
            Path(r) if Path(r).is_absolute() or base is None else base / r for r in record.roots
        ]
        start = record.parsed_at or document.scenario.clock.start
        parsed_at: datetime = start.value
        duration = (
            record.task_duration.value
            if record.task_duration is not None
            else DEFAULT_TASK_DURATION
        )
        name = document.scenario.name

        def work(progress: Callable[[int, int, str], None], cancel: Callable[[], bool]) -> Any:
            return import_paths(
                roots,
                parsed_at=parsed_at,
                task_duration=duration,
                base_dir=base,
                name=name,
                progress=progress,
                cancel=cancel,
            )

        return self._start(
            work, lambda fresh: self._reimported(document, fresh), "Re-importing from files"
        )

    def _reimported(self, document: ScenarioDocument, fresh: ImportResult) -> None:
        if document is not self.window.document():
            self.window.show_message("Re-import dropped: its scenario was closed meanwhile")
            self.ended.emit("cancelled")
            return
        merged = merge_reimport(document.scenario, fresh)
        edit(document, merged.scenario, "Re-import from files")
        self.panel.set_report(merged.report, merged.changes)
        self._show_dock()
        self.window.show_message(_change_words(merged.changes))
        self.ended.emit("reimported")

    def _show_dock(self) -> None:
        first = self.dock.isHidden()
        self.dock.show()
        self.dock.raise_()
        if first:  # wide enough for "dag_id · field" and file:line; the timeline keeps the most
            QTimer.singleShot(0, self, self._size_dock)

    def _size_dock(self) -> None:
        width = self.window.width()
        self.window.resizeDocks(
            [self.window.timeline_dock, self.dock],
            [width - max(420, width // 3), max(420, width // 3)],
            Qt.Orientation.Horizontal,
        )

    # ----------------------------------------------------------------- the job
    def _start(self, work: Any, done: Callable[[Any], None], title: str) -> bool:
        job = ImportJob(work)
        job.signals.progress.connect(self._progress)
        job.signals.finished.connect(lambda result: self._done(done, result))
        job.signals.cancelled.connect(self._cancelled)
        job.signals.failed.connect(self._failed)
        self.job = job
        self.progress.setRange(0, 0)  # busy until the first file reports the total
        self.progress_label.setText(title)
        for widget in (self.progress_label, self.progress, self.cancel_button):
            widget.show()
        self.window.show_message(f"{title}: the open scenario stays usable (Cancel stops it)")
        self._update_actions()
        self.started.emit(job)
        run_import_job(job)
        return True

    def _done(self, done: Callable[[Any], None], result: Any) -> None:
        self._finish()
        done(result)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def _progress(self, done: int, total: int, file: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setToolTip(f"{done} of {total} files read; last: {file}")
        self.progressed.emit(done, total, file)

    def _finish(self) -> None:
        self.job = None
        for widget in (self.progress_label, self.progress, self.cancel_button):
            widget.hide()
        self._update_actions()

    def _cancelled(self) -> None:
        self._finish()
        self.window.show_message("Import cancelled: the open scenario is unchanged")
        self.ended.emit("cancelled")

    def _failed(self, text: str) -> None:
        self._finish()
        self.window.prompts.error("Import failed", "The import stopped on an error.", text)
        self.ended.emit("failed")

    # ----------------------------------------------------------------- documents
    def _attach(self, document: ScenarioDocument | None) -> None:
        """A document was shown (or closed): the report follows it."""
        if self._document is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                self._document.changed.disconnect(self._changed)
        self._document = document
        if document is not self._opening:
            self.panel.set_report(None)  # the last import's report is not this file's
        if document is not None:
            document.changed.connect(self._changed)
            self.panel.show_scenario(document.scenario)
            if self.panel._items and document is not self._opening:
                self.dock.show()
        else:
            self.panel.show_scenario(None)
            self.dock.hide()  # the gallery shows: nothing to report on
        self._update_actions()

    def _changed(self, scenario: object) -> None:
        document = self._document
        if document is not None:
            self.panel.show_scenario(document.scenario)
        self._update_actions()

    # ----------------------------------------------------------------- report -> inspector
    def locate(self, dag_id: str, field: str) -> QWidget | None:
        """Select ``dag_id`` and focus its ``field`` in the inspector; the focused widget."""
        workspace = self.window.workspace
        if workspace is None:
            return None
        node = f"dag:{dag_id}"
        item = workspace.scene.nodes.get(node)
        if item is None:
            self.window.show_message(f"{dag_id} is not in the scenario any more")
            return None
        if not item.isVisible():
            workspace.focus.clear()  # the canvas filter hid it: show everything
        workspace.scene.select_nodes([node])
        workspace.view.center_on_node(node)
        self.window.inspector_dock.show()
        self.window.inspector_dock.raise_()
        form = workspace.inspector.current
        widget = _field_widget(form, field) if form is not None else None
        if widget is not None:
            workspace.inspector.ensureWidgetVisible(widget, 20, 40)
            widget.setFocus(Qt.FocusReason.OtherFocusReason)
        self.window.show_message(f"{dag_id}.{field}: type its value in the inspector")
        return widget

    # ----------------------------------------------------------------- dialogs
    def _folder_dialog(self) -> Path | None:
        prefs = self.window.prefs
        folder = QFileDialog.getExistingDirectory(
            self.window, "Import an Airflow project: its DAG folder", prefs.last_directory()
        )
        if not folder:
            return None
        prefs.set_last_directory(Path(folder).parent)
        return Path(folder)

    def _files_dialog(self) -> list[Path]:
        prefs = self.window.prefs
        names, _ = QFileDialog.getOpenFileNames(
            self.window,
            "Import Airflow DAG files",
            prefs.last_directory(),
            "Python files (*.py);;All files (*)",
        )
        if names:
            prefs.set_last_directory(Path(names[0]).parent)
        return [Path(n) for n in names]


def _field_widget(form: QWidget, field: str) -> QWidget | None:
    """The inspector widget that edits ``field`` (a DAG argument, or a task's part)."""
    if field.startswith("tasks"):
        box = getattr(form, "tasks_box", None)
        return box if isinstance(box, QWidget) else None
    if field == "schedule":
        editor = getattr(form, "schedule", None)
        if isinstance(editor, QWidget):
            child = editor.focusProxy() or next(
                (
                    w
                    for w in editor.findChildren(QWidget)
                    if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisibleTo(form)
                ),
                None,
            )
            return child or editor
        return None
    widget = form.findChild(QWidget, field)
    return widget if isinstance(widget, QWidget) else None


def _first_reason(report: ImportReport) -> str:
    """The first reason an import read nothing: a file's, else a DAG's (with its place)."""
    for file in report.files:
        if file.status == "error" and file.reason:
            return f"{file.file}: {file.reason}"
    for dag in report.dags:
        if dag.reason:
            return f"{dag.file}:{dag.line}: {dag.dag_id}: {dag.reason}"
    for file in report.files:
        if file.reason:
            return f"{file.file}: {file.reason}"
    return "no Python file with a DAG was found"
