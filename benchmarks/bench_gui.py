"""Figures of the desktop app, offscreen: what a user waits for.

Usage::

    python benchmarks/bench_gui.py [--repeat R]

Runs with ``QT_QPA_PLATFORM=offscreen``. Each figure is a median of its runs,
in milliseconds of wall time:

* ``layout_ms_500_nodes``: Layout > Layered on a canvas of 500 nodes (a
  synthetic scenario whose canvas graph, tasks folded into their DAGs, has
  500 nodes): the graph, the layered layout, the undoable command and the
  scene moving every item, as the menu action does it;
* ``scene_build_ms_500_nodes``: opening that scenario on the canvas (every
  item made and placed);
* ``cold_start_ms``: a fresh ``python`` process until the main window is
  shown with an example scenario open (imports included).

Detail lines come first; the LAST line holds every figure as ``name=value``
pairs separated by spaces, so that other figures can be appended to it: add
a ``(name, function)`` pair to :data:`FIGURES`. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402

from explorer.document.nodes import layout_graph  # noqa: E402
from explorer.graph.generate import synthetic_scenario  # noqa: E402
from explorer.scenario import Scenario  # noqa: E402

Figure = Callable[[argparse.Namespace], float]


def median_ms(run: Callable[[], Any], times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def scenario_of(nodes: int) -> Scenario:
    """A synthetic scenario whose canvas graph has at least ``nodes`` nodes (the first one)."""
    n = nodes
    while True:
        scenario = synthetic_scenario(n)
        if layout_graph(scenario).number_of_nodes() >= nodes:
            return scenario
        n += max(1, (nodes - layout_graph(scenario).number_of_nodes()))


def _canvas(scenario: Scenario) -> Any:
    from explorer.ui.canvas.editor import CanvasEditor
    from explorer.ui.canvas.scene import ScenarioScene
    from explorer.ui.document import ScenarioDocument

    app = QApplication.instance()
    document = ScenarioDocument(scenario)
    scene = ScenarioScene(document, app.palette())  # type: ignore[union-attr]
    return document, scene, CanvasEditor(scene)


def layout_ms_500_nodes(args: argparse.Namespace) -> float:
    scenario = scenario_of(500)
    document, scene, editor = _canvas(scenario)
    print(f"# canvas: {len(scene.nodes)} nodes, {len(scene.edges)} edges")

    def run() -> None:
        editor.apply_layout("layered")
        document.undo_stack.undo()  # back to the file's positions for the next run

    return median_ms(run, args.repeat)


def scene_build_ms_500_nodes(args: argparse.Namespace) -> float:
    scenario = scenario_of(500)
    return median_ms(lambda: _canvas(scenario), args.repeat)


def cold_start_ms(args: argparse.Namespace) -> float:
    code = (
        "import time, sys; t0 = time.perf_counter()\n"
        "from pathlib import Path\n"
        "from PySide6.QtCore import QSettings\n"
        "from explorer.ui.app import create_app\n"
        "from explorer.ui.settings import Preferences\n"
        "from explorer.ui.main_window import MainWindow\n"
        "app = create_app()\n"
        "import tempfile; d = tempfile.mkdtemp()\n"
        "prefs = Preferences(QSettings(d + '/s.ini', QSettings.Format.IniFormat))\n"
        "w = MainWindow(prefs); w.show()\n"
        "w.open_file(Path(sys.argv[1])); app.processEvents()\n"
        "print((time.perf_counter() - t0) * 1000)\n"
        "w.workspace.document.undo_stack.setClean(); w.close()\n"
    )
    example = ROOT / "resources" / "scenarios" / "ny_dst_orders_mart.json"
    samples = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code, str(example)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        )
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


# ----------------------------------------------------------------------------
# Part 2 (issue 6: timeline, clock, panels) — owned by the timeline engineer.
#
# * ``step_ms_median``: one "step to next event" on a 200-DAG synthetic scenario
#   (half a day simulated first), until the timeline, runs table and clock bar
#   are repainted (``Workbench.repaint()`` paints synchronously offscreen);
# * ``pan_ms_median``: one range change of a timeline drawing 100,000 runs (the
#   whole horizon in view, the worst case), repainted;
# * ``cold_start_s``: a fresh ``python`` process until ``python -m
#   explorer.ui.session``'s window is shown with the New York DST example.
# ----------------------------------------------------------------------------


def _scenario_with_dags(count: int) -> Scenario:
    n = 900
    while True:
        scenario = synthetic_scenario(n)
        if len(scenario.dags) >= count:
            return scenario
        n += 5


def step_ms_median(args: argparse.Namespace) -> float:
    from datetime import timedelta

    from explorer.ui.clock import ManualTicker
    from explorer.ui.panels.workbench import Workbench
    from explorer.ui.session import SimulationSession

    session = SimulationSession(_scenario_with_dags(200), publish_badges=True)
    bench = Workbench(session, ticker=ManualTicker())
    bench.resize(1600, 1000)
    bench.show()
    app = QApplication.instance()
    session.run_to(session.start + timedelta(hours=12))
    while session.busy:  # the warm-up runs in slices through the event loop
        app.processEvents()  # type: ignore[union-attr]
    app.processEvents()  # type: ignore[union-attr]
    bench.repaint()

    paints = [0]
    draw = bench.timeline.runs_item.draw

    def counted(painter: Any) -> None:
        paints[0] += 1
        draw(painter)

    bench.timeline.runs_item.draw = counted

    def step() -> None:
        """The step, then the event loop until Qt has painted what the step changed."""
        session.step_next()
        app.processEvents()  # type: ignore[union-attr]

    panes = (bench.timeline.plot.viewport(), bench.table.view.viewport(), bench.clock_bar)

    def step_full() -> None:
        """The step, then the timeline, the table and the clock bar repainted whole."""
        session.step_next()
        for pane in panes:
            pane.repaint()
        app.processEvents()  # type: ignore[union-attr]

    steps = max(40, args.repeat * 10)
    cpu = time.process_time()
    value = median_ms(step, steps)
    cpu = (time.process_time() - cpu) * 1000 / steps
    print(
        f"# step: {len(session.sim.dags)} DAGs, {len(session.sim.runs)} runs at the end, "
        f"{steps} steps (Runs tab shown), timeline painted {paints[0]} times, "
        f"mean CPU time {cpu:.1f} ms per step"
    )
    full = median_ms(step_full, steps)
    print(f"# step with timeline, table and clock bar repainted whole: {full:.1f} ms")
    bench.tabs.setCurrentWidget(bench.explain)
    with_explain = median_ms(step, steps // 2)
    print(
        f"# step with the Why?/Alerts tab shown (explain + alerts per step): {with_explain:.1f} ms"
    )
    bench.close()
    return value


def _hundred_thousand_runs() -> Any:
    from datetime import UTC, datetime, timedelta

    from explorer.engine.dag import DagSpec, TaskSpec
    from explorer.engine.runs import DagRun
    from explorer.engine.simulation import Simulation
    from explorer.engine.timetables.trigger import CronTriggerTimetable
    from explorer.engine.types import DataInterval

    start = datetime(2024, 1, 1, tzinfo=UTC)
    specs = [
        DagSpec(
            f"dag_{i:03d}",
            CronTriggerTimetable("0 * * * *"),
            start_date=start,
            tasks=(TaskSpec("t", timedelta(minutes=10)),),
        )
        for i in range(100)
    ]
    sim = Simulation(specs, start=start)
    for i, spec in enumerate(specs):  # runs as the engine records them, made directly
        for n in range(1000):
            at = start + timedelta(hours=n, minutes=i % 60)
            end = at + timedelta(hours=1)
            run = DagRun(
                spec.dag_id,
                n,
                f"scheduled__{at.isoformat()}",
                "scheduled",
                "timetable",
                at,
                DataInterval(at, end),
                end,
                end,
            )
            run.set_state("queued", end)
            run.set_state("running", end)
            run.set_state("failed" if n % 97 == 0 else "success", end + timedelta(minutes=10))
            sim.state.runs.append(run)
    sim.state.now = start + timedelta(hours=1001)
    return sim


def pan_ms_median(args: argparse.Namespace) -> float:
    from explorer.ui.timeline.pane import TimelinePane

    sim = _hundred_thousand_runs()
    pane = TimelinePane()
    pane.resize(1600, 900)
    pane.show()
    app = QApplication.instance()
    pane.show_simulation(sim)
    pane.fit()
    app.processEvents()  # type: ignore[union-attr]
    pane.plot.viewport().repaint()
    viewbox = pane.viewbox
    direction = [1.0]

    def pan() -> None:  # back and forth, so the view stays on the runs
        (x0, x1), _ = viewbox.viewRange()
        direction[0] = -direction[0]
        shift = (x1 - x0) * 0.05 * direction[0]
        viewbox.setXRange(x0 + shift, x1 + shift, padding=0)
        pane.plot.viewport().repaint()

    pans = max(30, args.repeat * 10)
    value = median_ms(pan, pans)
    print(
        f"# pan: {len(pane.runs)} runs, whole horizon in view, "
        f"{pane.runs_item.drawn} rectangles drawn after decimation"
    )
    (x0, x1), _ = viewbox.viewRange()
    middle = (x0 + x1) / 2
    viewbox.setXRange(middle, middle + (x1 - x0) / 40, padding=0)
    zoomed = median_ms(pan, pans)
    print(
        f"# pan zoomed to 1/40 of the horizon: {zoomed:.1f} ms, {pane.runs_item.drawn} rectangles"
    )
    pane.close()
    return value


def cold_start_s(args: argparse.Namespace) -> float:
    code = (
        "import time; t0 = time.perf_counter()\n"
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from explorer.ui.session import SimulationSession\n"
        "from explorer.ui.panels.workbench import WorkbenchWindow\n"
        "app = QApplication([])\n"
        "w = WorkbenchWindow(SimulationSession.from_file(sys.argv[1]))\n"
        "w.resize(1400, 900); w.show(); app.processEvents()\n"
        "print(time.perf_counter() - t0)\n"
    )
    example = ROOT / "resources" / "scenarios" / "ny_dst_spring_forward.json"
    samples = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code, str(example)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        )
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


# ---------------------------------------------------------------------------- end of part 2


# ----------------------------------------------------------------------------
# Instant edits (issue 13). One 200-DAG synthetic scenario, simulated 60 days in
# (clock.until moved to day 61), in the panes the main window mounts (canvas,
# clock bar, timeline, runs table) with the window shown:
#
# * ``edit_ms_median``: a cron edit of one DAG pushed on the undo stack (as the
#   inspector does) until the first redraw after it (the event loop has painted);
# * ``edit_done_ms_median``: the same edit until the re-simulation is back at the
#   clock (a DAG deployed at clock.start: its edit reaches back to clock.start);
# * ``move_ms_median``: a node dragged on the canvas (press, moves, release: the
#   undoable move and everything that follows it), repainted;
# * ``back_ms_median``: Back after a step to the next event, repainted.
#
# A step and a Back are measured as the app lives them: the action, then the event
# loop until Qt has painted the timeline (one paint; calling repaint() as well would
# paint it twice, the second time for the updates the action queued). "step" in the
# CPU line is the figure of issue 13's "step <= 50 ms" (200 DAGs, 60 days in).
# ----------------------------------------------------------------------------

_INSTANT: dict[str, float] = {}


class _PaintCounter:
    """Counts the paint events a widget receives (an event filter that never consumes)."""

    def __init__(self, widget: Any) -> None:
        from PySide6.QtCore import QEvent, QObject

        paint = QEvent.Type.Paint
        counter = self

        class _Filter(QObject):
            def eventFilter(self, watched: Any, event: Any) -> bool:
                if event.type() == paint:
                    counter.count += 1
                return False

        self.count = 0
        self._filter = _Filter()
        widget.installEventFilter(self._filter)


def _wait(app: Any, condition: Callable[[], bool]) -> None:
    while not condition():
        app.processEvents()


def _instant_figures(args: argparse.Namespace) -> dict[str, float]:
    """All four figures from one warm-up (60 simulated days cost about a minute)."""
    if _INSTANT:
        return _INSTANT
    import dataclasses
    from datetime import timedelta

    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtTest import QTest

    from explorer.document.edits import replace_dag
    from explorer.scenario.model import Clock, PauseAction
    from explorer.scenario.values import Instant
    from explorer.ui.canvas.scene import ScenarioScene
    from explorer.ui.canvas.view import CanvasView
    from explorer.ui.commands import EditScenario
    from explorer.ui.document import ScenarioDocument
    from explorer.ui.simulation_panes import SimulationPanes

    app = QApplication.instance()
    base = _scenario_with_dags(200)
    start = base.clock.start.value
    until = start + timedelta(days=61)
    scenario = dataclasses.replace(
        base, clock=Clock(base.clock.start, Instant(until, until.isoformat()))
    )
    document = ScenarioDocument(scenario)
    scene = ScenarioScene(document, app.palette())  # type: ignore[union-attr]
    view = CanvasView(scene)
    panes = SimulationPanes(document, scene, view)
    session = panes.session
    view.resize(800, 1000)
    view.show()
    panes.bench.resize(1600, 1000)
    panes.bench.show()
    t0 = time.perf_counter()
    session.sim.advance_to(start + timedelta(days=60))  # the warm-up: the engine alone
    session.step_next()  # then one step through the session: the panes catch up
    app.processEvents()  # type: ignore[union-attr]
    print(
        f"# instant edits: {len(session.sim.dags)} DAGs, {len(session.sim.runs)} runs "
        f"({session.sim.runs.packed} packed) 60 days in, reached in "
        f"{time.perf_counter() - t0:.1f} s with checkpoints every "
        f"{session.checkpoint_every} instants"
    )
    panes_to_paint = (panes.bench.timeline.plot.viewport(), panes.bench.clock_bar)

    # --- a cron edit: to the first redraw, and until back at the clock
    dag = next(d for d in scenario.dags if isinstance(d.schedule, str) and " " in d.schedule)
    crons = ["17 */3 * * *", dag.schedule]
    first, done = [], []
    #: CPU milliseconds of each sample (the machine may be shared: wall time varies more).
    cpu_of: dict[str, list[float]] = {"edit": [], "move": [], "back": [], "step": []}
    # Each edit reaches back to clock.start and takes as long as the warm-up to come back
    # to the clock: the first redraw is measured for every edit (the next edit starts
    # while the previous one is still re-simulating, as a user typing would), the
    # whole re-simulation once, for the last one.
    for i in range(args.repeat):
        edited = replace_dag(
            document.scenario, dag.dag_id, dataclasses.replace(dag, schedule=crons[i % 2])
        )
        t, c = time.perf_counter(), time.process_time()
        document.push(EditScenario(document, edited, "Edit schedule"))
        app.processEvents()  # type: ignore[union-attr]
        for pane in panes_to_paint:
            pane.repaint()
        first.append((time.perf_counter() - t) * 1000)
        cpu_of["edit"].append((time.process_time() - c) * 1000)
    # the first sample is the edit of the simulation 60 days in (the others replace one
    # that is still re-simulating): what a single edit costs
    print(
        "# cron edits to the first redraw, CPU ms each: "
        + ", ".join(f"{ms:.0f}" for ms in cpu_of["edit"])
    )
    cpu = time.process_time()
    _wait(app, lambda: not session.busy)
    done.append((time.perf_counter() - t) * 1000)
    print(
        f"# cron edit of {dag.dag_id}: re-simulated from {session.resumed_at or 'clock.start'}"
        f" to the clock in {done[-1] / 1000:.1f} s ({time.process_time() - cpu:.1f} s CPU)"
    )

    # --- a script edit a day before the clock (for comparison: from a checkpoint)
    at = session.now - timedelta(days=1)
    pause = PauseAction(at=Instant(at, at.isoformat()), dag_id=dag.dag_id)
    edited = dataclasses.replace(document.scenario, script=(*document.scenario.script, pause))
    t = time.perf_counter()
    document.push(EditScenario(document, edited, "Pause"))
    app.processEvents()  # type: ignore[union-attr]
    script_first = (time.perf_counter() - t) * 1000
    _wait(app, lambda: not session.busy)
    print(
        f"# script edit (a pause one day before the clock): first redraw {script_first:.0f} ms, "
        f"back at the clock in {(time.perf_counter() - t) * 1000:.0f} ms, re-simulated from "
        f"{session.resumed_at}"
    )

    # --- a node drag on the canvas
    node = scene.nodes[f"dag:{dag.dag_id}"]
    view.center_on_node(f"dag:{dag.dag_id}")
    app.processEvents()  # type: ignore[union-attr]
    sim_before = session.sim
    moves = []
    for i in range(max(10, args.repeat * 5)):
        grab = node.mapToScene(QPointF(0, node.body().top() + 10))
        a = view.mapFromScene(grab)
        b = view.mapFromScene(grab + QPointF(40 if i % 2 == 0 else -40, 0))
        port = view.viewport()
        t, c = time.perf_counter(), time.process_time()
        QTest.mousePress(port, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
        for step in range(1, 5):
            QTest.mouseMove(port, a + (b - a) * step / 4)
        QTest.mouseRelease(port, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
        app.processEvents()  # type: ignore[union-attr]
        port.repaint()
        moves.append((time.perf_counter() - t) * 1000)
        cpu_of["move"].append((time.process_time() - c) * 1000)
    print(
        f"# node drags: {len(moves)}, the engine kept: {session.sim is sim_before}, "
        f"undo stack: {document.undo_stack.count()} commands"
    )

    # --- Back after a step: each action, then the event loop until Qt has painted the
    # timeline (once, as in the app). An explicit repaint() here painted it twice: the
    # repaint, then again for the updates the step had queued.
    backs, steps = [], []
    painted = _PaintCounter(panes.bench.timeline.plot.viewport())

    def until_painted(action: Callable[[], object]) -> None:
        before = painted.count
        action()
        while painted.count == before:
            app.processEvents()  # type: ignore[union-attr]

    for _ in range(max(10, args.repeat * 5)):
        t, c = time.perf_counter(), time.process_time()
        until_painted(session.step_next)
        steps.append((time.perf_counter() - t) * 1000)
        cpu_of["step"].append((time.process_time() - c) * 1000)
        t, c = time.perf_counter(), time.process_time()
        until_painted(session.step_back)
        backs.append((time.perf_counter() - t) * 1000)
        cpu_of["back"].append((time.process_time() - c) * 1000)
    print(f"# step to the next event 60 days in, repainted: {statistics.median(steps):.1f} ms")
    print(
        "# CPU time medians (ms): "
        + ", ".join(f"{name} {statistics.median(v):.1f}" for name, v in cpu_of.items())
    )
    _INSTANT.update(
        edit_ms_median=statistics.median(first),
        edit_done_ms_median=statistics.median(done),
        move_ms_median=statistics.median(moves),
        back_ms_median=statistics.median(backs),
    )
    panes.dispose()
    view.close()
    return _INSTANT


def edit_ms_median(args: argparse.Namespace) -> float:
    return _instant_figures(args)["edit_ms_median"]


def edit_done_ms_median(args: argparse.Namespace) -> float:
    return _instant_figures(args)["edit_done_ms_median"]


def move_ms_median(args: argparse.Namespace) -> float:
    return _instant_figures(args)["move_ms_median"]


def back_ms_median(args: argparse.Namespace) -> float:
    return _instant_figures(args)["back_ms_median"]


# ---------------------------------------------------------------------------- end of issue 13

#: Every figure, in the order of the last line. Append new ones here.
FIGURES: list[tuple[str, Figure]] = [
    ("step_ms_median", step_ms_median),  # part 2
    ("pan_ms_median", pan_ms_median),  # part 2
    ("cold_start_s", cold_start_s),  # part 2
    ("layout_ms_500_nodes", layout_ms_500_nodes),
    ("scene_build_ms_500_nodes", scene_build_ms_500_nodes),
    ("cold_start_ms", cold_start_ms),
    ("edit_ms_median", edit_ms_median),  # issue 13
    ("edit_done_ms_median", edit_done_ms_median),  # issue 13
    ("move_ms_median", move_ms_median),  # issue 13
    ("back_ms_median", back_ms_median),  # issue 13
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--only", nargs="*", help="measure only these figures (by name)")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    values: list[tuple[str, float]] = []
    for name, figure in FIGURES:
        if args.only and name not in args.only:
            continue
        value = figure(args)
        unit = "s" if name.endswith("_s") else "ms"  # part 2: cold_start_s is in seconds
        print(f"# {name}: {value:.2f} {unit} (median of {args.repeat})")
        values.append((name, value))
    del app
    print(
        " ".join(
            f"{name}={value:.2f}" if name.endswith("_s") else f"{name}={value:.1f}"
            for name, value in values
        )
    )


if __name__ == "__main__":
    main()
