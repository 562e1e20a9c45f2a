"""An import (or the file-reading half of a re-import) off the GUI thread, with progress.

Reading a project of 1,000 DAG files takes seconds; the window must keep
painting and the open document stay editable meanwhile. An
:class:`ImportJob` runs one call of :mod:`explorer.importer` in a
``QThreadPool`` thread: the importer reports ``progress(done, total, file)``
after each file and polls ``cancel()`` between files; both cross to the GUI
thread as queued signals. The job never touches a document: the caller turns
its result into a new document or one command.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

from explorer.importer import ImportCancelled
from explorer.ui.workers import CancellableJob

__all__ = ["ImportJob", "Work", "run_import_job"]

#: ``work(progress, cancel)``: the importer call, given the job's progress and cancel.
Work = Callable[[Callable[[int, int, str], None], Callable[[], bool]], object]


class ImportSignals(QObject):
    progress = Signal(int, int, str)
    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(str)


class ImportJob(CancellableJob):
    """One importer call; :meth:`cancel` may be called from the GUI thread."""

    def __init__(self, work: Work) -> None:
        super().__init__()
        self.work = work
        self.signals = ImportSignals()

    def run(self) -> None:
        try:
            result = self.work(self.signals.progress.emit, self._cancel.is_set)
        except ImportCancelled:
            self.signals.cancelled.emit()
        except Exception as exc:  # an importer bug must not take the app down
            self.signals.failed.emit(f"{type(exc).__name__}: {exc}")
        else:
            if self._cancel.is_set():
                self.signals.cancelled.emit()
            else:
                self.signals.finished.emit(result)
        finally:
            self.done.set()


def run_import_job(job: ImportJob, pool: QThreadPool | None = None) -> None:
    (pool or QThreadPool.globalInstance()).start(job)
