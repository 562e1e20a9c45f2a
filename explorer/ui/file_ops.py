"""New, Open, Save, Save As, Close, recent files, dropped files and crash recovery.

The window's File menu and the gallery call these; they talk to the user
only through :class:`~explorer.ui.dialogs.Prompts` and report a new document
through :attr:`FileOps.opened`. A document is replaced only after the
unsaved-changes question has been answered; a file that cannot be read
leaves the current document as it was and shows the scenario layer's
message (file, JSON path, what was expected) in a dialog, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from explorer.document import files
from explorer.document.edits import new_scenario
from explorer.scenario import Instant, ScenarioError
from explorer.ui.autosave import discard_recovery, pending_recoveries
from explorer.ui.dialogs import Prompts
from explorer.ui.document import ScenarioDocument
from explorer.ui.settings import Preferences
from explorer.ui.workers import OpenJob, OpenResult, run_open

__all__ = ["FileOps"]


def _today() -> datetime:
    now = datetime.now(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


class FileOps(QObject):
    #: A document to show (new, opened or recovered).
    opened = Signal(object)
    #: The document was closed: show the gallery.
    closed = Signal()
    #: A document was saved (its path).
    saved = Signal(object)
    message = Signal(str)
    #: A big file is being opened in the background: what happens now ("" when done).
    loading = Signal(str)

    #: Files at least this big are read, checked and simulated off the GUI thread (a
    #: 2,000-DAG file takes seconds); the open document stays usable meanwhile.
    background_bytes = 256 * 1024

    def __init__(
        self,
        parent: QObject,
        current: Callable[[], ScenarioDocument | None],
        prefs: Preferences,
        prompts: Prompts,
        *,
        today: Callable[[], datetime] = _today,
    ) -> None:
        super().__init__(parent)
        self.current = current
        self.prefs = prefs
        self.prompts = prompts
        self.today = today
        self._job: OpenJob | None = None
        #: The document (and its undo position) the user agreed to replace.
        self._replacing: tuple[ScenarioDocument | None, int] = (None, 0)

    # ----------------------------------------------------------------- opening
    def new(self) -> bool:
        if not self.maybe_discard():
            return False
        document = ScenarioDocument(new_scenario(Instant.of(self.today())))
        self.opened.emit(document)
        self.message.emit("New scenario: add a DAG from the palette or press Tab on the canvas")
        return True

    def open_dialog(self) -> bool:
        if not self.maybe_discard():
            return False
        path = self.prompts.open_path(self.prefs.last_directory())
        return False if path is None else self.open_path(path, ask=False)

    def open_path(self, path: Path, *, ask: bool = True) -> bool:
        """Open ``path`` (after asking about unsaved changes unless already asked).

        A big file opens in the background: True then means "started", and
        :attr:`opened` follows when it is ready (:attr:`loading` says how it goes).
        """
        if ask and not self.maybe_discard():
            return False
        if self._is_big(path):
            return self._open_in_background(path)
        try:
            scenario = files.read(path)
        except ScenarioError as exc:
            self.prompts.file_error(path, exc)
            return False
        document = ScenarioDocument(scenario, path=path.resolve())
        self.prefs.add_recent(path)
        self.prefs.set_last_directory(path.resolve().parent)
        self.opened.emit(document)
        self.message.emit(f"Opened {path}")
        return True

    # ----------------------------------------------------------------- opening in the background
    @property
    def opening(self) -> bool:
        return self._job is not None

    def cancel_open(self) -> None:
        """Stop opening a file in the background; the open document stays."""
        if self._job is not None:
            self._job.cancel()
            self._end_job(f"Opening {self._job.path.name} cancelled")

    def _is_big(self, path: Path) -> bool:
        try:
            return path.stat().st_size >= self.background_bytes
        except OSError:
            return False  # the normal path reports it

    def _open_in_background(self, path: Path) -> bool:
        self.cancel_open()
        current = self.current()
        self._replacing = (current, current.undo_stack.index() if current is not None else 0)
        job = OpenJob(path)
        self._job = job
        job.signals.stage.connect(self._open_stage)
        job.signals.finished.connect(self._opened_in_background)
        job.signals.failed.connect(self._open_failed)
        self.loading.emit(f"Opening {path.name}…")
        run_open(job)
        return True

    def _open_stage(self, stage: str) -> None:
        if self._job is not None:
            self.loading.emit(f"Opening {self._job.path.name}: {stage}…")

    def _end_job(self, message: str = "") -> None:
        self._job = None
        self.loading.emit("")
        if message:
            self.message.emit(message)

    def _open_failed(self, exc: ScenarioError) -> None:
        job = self._job
        if job is None or job.cancelled:
            return
        self._end_job()
        self.prompts.file_error(job.path, exc)

    def _opened_in_background(self, result: OpenResult) -> None:
        job = self._job
        if job is None or job.cancelled or result.path != job.path:
            return
        self._end_job()
        document, index = self._replacing
        current = self.current()
        edited = current is not None and (
            current is not document or current.undo_stack.index() != index
        )
        if edited and not self.maybe_discard():  # edited while the file was read: ask again
            self.message.emit(f"{result.path.name} was not opened: the current work stays")
            return
        path = result.path
        opened = ScenarioDocument(result.scenario, path=path.resolve())
        opened.prepared = (result.inputs, result.simulation)
        opened.prepared_canvas = result.canvas  # type: ignore[assignment]
        self.prefs.add_recent(path)
        self.prefs.set_last_directory(path.resolve().parent)
        self.opened.emit(opened)
        self.message.emit(f"Opened {path}")

    def open_example(self, path: Path) -> bool:
        """A bundled example, opened as an untitled copy: Save never writes over it."""
        if not self.maybe_discard():
            return False
        try:
            scenario = files.read(path)
        except ScenarioError as exc:
            self.prompts.file_error(path, exc)
            return False
        self.opened.emit(ScenarioDocument(scenario))
        self.message.emit(f"Example {path.name}, opened as a copy: Save asks where to keep it")
        return True

    def open_dropped(self, paths: list[Path]) -> bool:
        """Files dropped on the window: the first scenario file is opened."""
        candidates = [p for p in paths if p.suffix.lower() == ".json"] or paths
        return self.open_path(candidates[0]) if candidates else False

    # ----------------------------------------------------------------- saving
    def save(self) -> bool:
        document = self.current()
        if document is None:
            return False
        if document.path is None:
            return self.save_as()
        return self._write(document, document.path)

    def save_as(self) -> bool:
        document = self.current()
        if document is None:
            return False
        suggested = document.path.name if document.path else f"{_slug(document.scenario.name)}.json"
        folder = str(document.path.parent) if document.path else self.prefs.last_directory()
        path = self.prompts.save_path(folder, suggested)
        return False if path is None else self._write(document, path)

    def save_to(self, path: Path) -> bool:
        """Save the current document to ``path`` (Save As without the dialog)."""
        document = self.current()
        return False if document is None else self._write(document, path)

    def _write(self, document: ScenarioDocument, path: Path) -> bool:
        try:
            files.write(document.scenario, path)
        except files.FileRefused as exc:
            self.prompts.error("Not saved", str(exc))
            return False
        except OSError as exc:
            self.prompts.error("Not saved", f"{path}: {exc.strerror or exc}")
            return False
        document.mark_saved(path.resolve())
        self.prefs.add_recent(path)
        self.prefs.set_last_directory(path.resolve().parent)
        self.saved.emit(path)
        self.message.emit(f"Saved {path}")
        return True

    # ----------------------------------------------------------------- closing
    def maybe_discard(self) -> bool:
        """True when the current document may be replaced (saved, discarded or unchanged)."""
        document = self.current()
        if document is None or not document.is_modified():
            return True
        answer = self.prompts.ask_save_changes(document.scenario.name)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def close(self) -> bool:
        if not self.maybe_discard():
            return False
        self.closed.emit()
        return True

    # ----------------------------------------------------------------- recovery
    def offer_recovery(self, folder: Path) -> bool:
        """After a crash: offer the newest autosaved scenario; open it as unsaved work."""
        found = pending_recoveries(folder)
        if not found:
            return False
        answer = self.prompts.ask_recover(found)
        for recovery in answer.discard:  # only what the user chose to discard
            discard_recovery(recovery.path, recovery.meta)
        choice = answer.recover
        if choice is None:
            return False
        try:
            scenario = files.read(choice.path)
        except ScenarioError as exc:
            self.prompts.file_error(choice.path, exc)
            return False
        from explorer.ui.commands import EditScenario

        # The recovered scenario is unsaved work: it opens as an edit of the file it came
        # from (or of an empty scenario), so Save writes it and Undo shows where it came from.
        base = None
        if choice.original is not None and choice.original.exists():
            try:
                base = files.read(choice.original)
            except ScenarioError:
                base = None
        document = ScenarioDocument(
            base if base is not None else new_scenario(scenario.clock.start, scenario.name),
            path=choice.original if base is not None else None,
        )
        document.push(EditScenario(document, scenario, "Recovered unsaved work"))
        discard_recovery(choice.path, choice.meta)  # the others stay for later
        self.opened.emit(document)
        self.message.emit("Recovered unsaved work: save it to keep it")
        return True


def _slug(name: str) -> str:
    out = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")
    return "_".join(p for p in out.split("_") if p)[:60] or "scenario"
