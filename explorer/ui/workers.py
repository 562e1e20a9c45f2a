"""Force-directed layouts, and opening big files, off the GUI thread, with progress and cancel.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from explorer.document.nodes import CANVAS_SPACING, separate
from explorer.graph import LayoutCancelled, kamada_kawai_layout, layered_layout, spring_layout

if TYPE_CHECKING:
    from explorer.scenario import Scenario

__all__ = [
    "LAYOUTS",
    "CancellableJob",
    "LayoutJob",
    "OpenJob",
    "OpenResult",
    "run_layout",
    "run_open",
]

#: Layout name -> (title for menus and the undo history, function).
LAYOUTS: dict[str, tuple[str, Callable[..., dict[str, tuple[float, float]]]]] = {
    "layered": ("Layered layout", layered_layout),
    "spring": ("Spring layout", spring_layout),
    "kamada_kawai": ("Kamada-Kawai layout", kamada_kawai_layout),
}


class CancellableJob(QRunnable):
    """A thread-pool job the GUI thread may cancel; ``done`` is set when it has ended.

    The pool does not delete it: the GUI thread holds it until its signals arrive.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self._cancel = threading.Event()
        self.done = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()


class LayoutSignals(QObject):
    progress = Signal(float)
    finished = Signal(object)  # dict[node id, (x, y)]
    cancelled = Signal()
    failed = Signal(str)


class LayoutJob(CancellableJob):
    """One layout of one graph; :meth:`cancel` may be called from the GUI thread."""

    def __init__(
        self, name: str, graph: Any, sizes: dict[str, tuple[float, float]] | None = None
    ) -> None:
        super().__init__()
        self.name = name
        self.graph = graph
        #: Node sizes: the points networkx places are pushed apart so no boxes overlap.
        self.sizes = sizes or {}
        self.signals = LayoutSignals()

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


# ----------------------------------------------------------------------------- opening


class OpenSignals(QObject):
    stage = Signal(str)  # what the job does now ("reading and checking", ...)
    finished = Signal(object)  # OpenResult
    failed = Signal(object)  # ScenarioError
    cancelled = Signal()


class OpenResult:
    """A scenario read from its file, with its engine inputs and first simulation built."""

    __slots__ = ("canvas", "inputs", "path", "scenario", "simulation")

    def __init__(
        self,
        path: Path,
        scenario: Scenario,
        inputs: object,
        simulation: object,
        canvas: object = None,
    ) -> None:
        self.path = path
        self.scenario = scenario
        self.inputs = inputs
        self.simulation = simulation
        #: (canvas model, node positions) of ``scenario``: the graph read and laid out here,
        #: not on the GUI thread (there it froze the window for seconds at 2,000 DAGs).
        self.canvas = canvas


class OpenJob(CancellableJob):
    """Read, check and prepare one scenario file off the GUI thread.

    A 2,000-DAG file takes seconds to read and check and seconds more to turn
    into an engine; done here, the window keeps painting and the open document
    stays usable until the new one is ready. The job never touches a document.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.signals = OpenSignals()

    def run(self) -> None:
        from explorer.document.nodes import canvas_model, place
        from explorer.scenario import ScenarioError, build_engine_inputs, load_scenario
        from explorer.scenario.simulate import make_simulation
        from explorer.ui.session import CHECKPOINT_EVERY

        try:
            self.signals.stage.emit("reading and checking")
            scenario = load_scenario(self.path)
            if self._cancel.is_set():
                self.signals.cancelled.emit()
                return
            self.signals.stage.emit("building the engine")
            inputs = build_engine_inputs(scenario, source=str(self.path.resolve()))
            if self._cancel.is_set():
                self.signals.cancelled.emit()
                return
            self.signals.stage.emit("first simulation")
            simulation = make_simulation(inputs, checkpoint_every=CHECKPOINT_EVERY)
            if self._cancel.is_set():
                self.signals.cancelled.emit()
                return
            self.signals.stage.emit("laying out the canvas")
            model = canvas_model(scenario)  # no Qt: the graph and its layout, off the GUI
            canvas = (model, place(model, scenario.layout))
        except ScenarioError as exc:
            self.signals.failed.emit(exc)
        except Exception as exc:  # a file the engine cannot take must not kill the app
            self.signals.failed.emit(
                ScenarioError(str(self.path), "$", f"{type(exc).__name__}: {exc}")
            )
        else:
            if self._cancel.is_set():
                self.signals.cancelled.emit()
            else:
                self.signals.finished.emit(
                    OpenResult(self.path, scenario, inputs, simulation, canvas)
                )
        finally:
            self.done.set()


def run_open(job: OpenJob, pool: QThreadPool | None = None) -> None:
    (pool or QThreadPool.globalInstance()).start(job)
