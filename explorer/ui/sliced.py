"""Run a long piece of GUI-thread work in slices, giving the event loop control between them.

Scene items can only be made on the GUI thread; a 2,000-DAG file has about
4,000 of them, seconds of work at once. A
:class:`SlicedRun` advances an iterator of progress shares (0..1) from a
zero-interval ``QTimer`` until a slice has taken :attr:`SlicedRun.slice_ms`,
then lets the window paint and answer input before the next slice. The wall
clock only sizes the slices; what is built never depends on it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from PySide6.QtCore import QObject, QTimer, Signal

__all__ = ["SlicedRun"]


class SlicedRun(QObject):
    #: The share done so far (0..1), after each slice.
    progress = Signal(float)
    #: The iterator is exhausted: the work is complete.
    finished = Signal()

    #: How long one slice may keep the event loop waiting.
    slice_ms = 30.0

    def __init__(self, steps: Iterator[float], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._steps = steps
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)
        #: Slices run so far (each one returned to the event loop after it).
        self.slices = 0
        self.running = False

    def start(self) -> None:
        self.running = True
        self._timer.start()

    def cancel(self) -> None:
        """Stop between slices; what was built so far is the caller's to drop."""
        self._timer.stop()
        self.running = False

    def _slice(self) -> None:
        end = time.perf_counter() + self.slice_ms / 1000.0
        share = 0.0
        try:
            while True:
                share = next(self._steps)
                if time.perf_counter() >= end:
                    break
        except StopIteration:
            self._timer.stop()
            self.running = False
            self.slices += 1
            self.progress.emit(1.0)
            self.finished.emit()
            return
        self.slices += 1
        self.progress.emit(share)
