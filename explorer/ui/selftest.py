"""``explorer --self-test``: prove that this installation can run the desktop app.

A source checkout, a ``pipx`` install, the PyInstaller bundle and the ``.deb``
all break in their own ways (a Qt plugin left out, the examples or the
schema not shipped, no font), and most of them only show once a window is
drawn. So the self-test does what a user does first, with no display:
open the main window offscreen on a bundled example, step the clock until
runs exist, export the timeline and the canvas as PNG, and look at the
pictures (they must hold drawn pixels, not only the background). It exits 0
when all that works and otherwise prints what failed and exits 1; CI runs
it against the built bundle, so a broken bundle fails the build.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EXAMPLE", "Picture", "SelfTestFailed", "inspect_picture", "main", "run"]

#: The example opened: three DAGs across the New York spring-forward, so the clock has
#: runs to create within a few steps.
EXAMPLE = "ny_dst_orders_mart.json"
#: Clock steps taken at least (the first only processes the start instant), and at most
#: while waiting for the first run.
MIN_STEPS = 3
#: Runs the clock must have created before the pictures are taken.
MIN_RUNS = 3
MAX_STEPS = 200
#: A picture whose drawn share (pixels unlike the background) is below this is blank.
MIN_DRAWN_SHARE = 0.005


class SelfTestFailed(Exception):
    """A check failed; the message says which and what was seen."""


@dataclass(frozen=True)
class Picture:
    path: Path
    width: int
    height: int
    #: Share of the pixels that differ from the most common colour (the background).
    drawn_share: float
    colours: int


def inspect_picture(path: Path) -> Picture:
    """Read a PNG back and measure how much of it is drawn; refuse an empty or blank one."""
    import numpy as np
    from PySide6.QtGui import QImage

    if not path.is_file() or path.stat().st_size == 0:
        raise SelfTestFailed(f"{path.name}: no picture was written")
    image = QImage(str(path))
    if image.isNull():
        raise SelfTestFailed(f"{path.name}: the file is not a readable PNG")
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    stride = image.bytesPerLine() // 4
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32, count=stride * height)
    pixels = pixels.reshape(height, stride)[:, :width]
    colours, counts = np.unique(pixels, return_counts=True)
    drawn = 1.0 - counts.max() / pixels.size
    picture = Picture(path, width, height, float(drawn), len(colours))
    if drawn < MIN_DRAWN_SHARE or len(colours) < 3:
        raise SelfTestFailed(
            f"{path.name}: {width}x{height} holds only the background "
            f"({drawn:.2%} drawn, {len(colours)} colours)"
        )
    return picture


def _quiet_offscreen_noise() -> None:
    """The offscreen platform warns once per window that it cannot propagate size hints;
    that says nothing about the installation, every other Qt message still prints."""
    from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

    def handler(_kind: QtMsgType, _context: QMessageLogContext, text: str) -> None:
        if "propagateSizeHints" not in text:
            sys.stderr.write(text + "\n")

    qInstallMessageHandler(handler)


def run(output: Path) -> str:
    """Open, step, export and check; return a one-paragraph summary or raise SelfTestFailed."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.document.files import examples_dir
    from explorer.installation import engine_build
    from explorer.ui.app import create_app
    from explorer.ui.main_window import MainWindow
    from explorer.ui.panels.export import export_widget
    from explorer.ui.settings import Preferences

    folder = examples_dir()
    if folder is None or not (folder / EXAMPLE).is_file():
        raise SelfTestFailed(f"the bundled example {EXAMPLE} is not installed (looked in {folder})")
    _quiet_offscreen_noise()
    app = create_app()
    if app.windowIcon().isNull():
        raise SelfTestFailed("the application icon (resources/icons) is not installed")
    # Settings in the output folder: the self-test never touches the user's recent files.
    prefs = Preferences(QSettings(str(output / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(prefs)
    window.resize(1400, 900)
    window.show()
    try:
        if not window.files.open_example(folder / EXAMPLE):
            boxes = "; ".join(b.informativeText() for b in window.prompts.boxes)
            raise SelfTestFailed(f"{EXAMPLE} did not open: {boxes or 'no reason given'}")
        app.processEvents()
        workspace = window.workspace
        if workspace is None:
            raise SelfTestFailed(f"{EXAMPLE} opened but no document is shown")
        if workspace.simulation is None:
            raise SelfTestFailed(
                f"the simulation panes did not start: {workspace.startup_problem or 'unknown'}"
            )
        session = workspace.simulation.session
        start = session.now
        steps = 0
        while (steps < MIN_STEPS or len(session.sim.runs) < MIN_RUNS) and steps < MAX_STEPS:
            if session.step_next() is None:
                break
            steps += 1
        app.processEvents()
        runs = len(session.sim.runs)
        if runs < MIN_RUNS or session.now <= start:
            raise SelfTestFailed(
                f"{steps} clock steps made {runs} runs (at least {MIN_RUNS} expected), "
                f"clock at {session.now.isoformat()}"
            )
        pictures = [
            inspect_picture(workspace.simulation.bench.export_timeline(output / "timeline.png")),
            inspect_picture(export_widget(workspace.view, output / "canvas.png")),
        ]
    finally:
        window.close()
        window.deleteLater()
        QApplication.processEvents()
    drawn = ", ".join(
        f"{p.path.name} {p.width}x{p.height} ({p.drawn_share:.0%} drawn)" for p in pictures
    )
    return (
        f"self-test passed: opened {EXAMPLE} offscreen, {steps} clock steps to "
        f"{session.now.isoformat()} ({runs} runs), exported {drawn}; "
        f"engine: {engine_build()}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="explorer --self-test",
        description="Open the app offscreen on a bundled example, step the clock, export "
        "pictures and check them; exit 0 when all of it works.",
    )
    parser.add_argument(
        "--output", type=Path, help="keep the pictures in this folder (default: a temp folder)"
    )
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    # Offscreen whatever the session has: the self-test must pass with no display (CI, ssh).
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    try:
        if args.output is not None:
            args.output.mkdir(parents=True, exist_ok=True)
            print(run(args.output))
        else:
            with tempfile.TemporaryDirectory(prefix="schedule-explorer-selftest-") as tmp:
                print(run(Path(tmp)))
    except SelfTestFailed as exc:
        sys.stderr.write(f"self-test FAILED: {exc}\n")
        return 1
    except Exception as exc:  # anything else broken in this installation (a module left out)
        traceback.print_exc()
        sys.stderr.write(f"self-test FAILED: {type(exc).__name__}: {exc}\n")
        return 1
    return 0
