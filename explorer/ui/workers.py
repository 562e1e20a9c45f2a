"""Force-directed layouts off the GUI thread, with progress and cancel.

networkx's spring and Kamada-Kawai layouts take seconds on hundreds of
nodes (stack notes: 2.5 s and 6 s for 500 on these machines); the window
must keep painting and answering meanwhile. A :class:`LayoutJob` runs one
layout of :mod:`explorer.graph.layout` in a ``QThreadPool`` thread; the
layout polls the job's cancel flag and reports progress between its steps,
and the result comes back to the GUI thread through queued signals. The job
never touches the document: the window turns its result into one command.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from explorer.graph import LayoutCancelled, kamada_kawai_layout, layered_layout, spring_layout
from explorer.ui.nodes import CANVAS_SPACING, separate

__all__ = ["LAYOUTS", "LayoutJob", "run_layout"]

#: Layout name -> (title for menus and the undo history, function).
LAYOUTS: dict[str, tuple[str, Callable[..., dict[str, tuple[float, float]]]]] = {
    "layered": ("Layered layout", layered_layout),
    "spring": ("Spring layout", spring_layout),
    "kamada_kawai": ("Kamada-Kawai layout", kamada_kawai_layout),
}


class LayoutSignals(QObject):
    progress = Signal(float)
    finished = Signal(object)  # dict[node id, (x, y)]
    cancelled = Signal()
    failed = Signal(str)


class LayoutJob(QRunnable):
    """One layout of one graph; :meth:`cancel` may be called from the GUI thread."""

    def __init__(
        self, name: str, graph: Any, sizes: dict[str, tuple[float, float]] | None = None
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.name = name
        self.graph = graph
        #: Node sizes: the points networkx places are pushed apart so no boxes overlap.
        self.sizes = sizes or {}
        self.signals = LayoutSignals()
        self._cancel = threading.Event()
        self.done = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> None:
        _, layout = LAYOUTS[self.name]
        try:
            result = layout(
                self.graph,
                spacing=CANVAS_SPACING,
                sizes=self.sizes,
                cancel=self._cancel.is_set,
                progress=self.signals.progress.emit,
            )
        except LayoutCancelled:
            self.signals.cancelled.emit()
        except Exception as exc:  # a layout that fails must not kill the app
            self.signals.failed.emit(f"{type(exc).__name__}: {exc}")
        else:
            if self.sizes and not self._cancel.is_set():
                result = separate(result, self.sizes)
            if self._cancel.is_set():
                self.signals.cancelled.emit()
            else:
                self.signals.finished.emit(result)
        finally:
            self.done.set()


def run_layout(job: LayoutJob, pool: QThreadPool | None = None) -> None:
    (pool or QThreadPool.globalInstance()).start(job)
