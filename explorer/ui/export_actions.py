"""File > Export: pictures of the canvas and the timeline, Copy image, the review report.

Registered on the main window's action registry (so they show in the File menu, the
canvas's right-click menu and carry shortcuts) and added to the timeline's right-click
menu. Every picture comes from :mod:`explorer.ui.pictures`, the drawing path the
``explorer report`` command uses too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from explorer.ui.pictures import (
    Which,
    copy_to_clipboard,
    export_picture,
    scenario_svgs,
    window_picture,
)

if TYPE_CHECKING:
    from explorer.document.timeline.picking import TimelineTarget
    from explorer.ui.actions import ActionRegistry

__all__ = ["ExportActions"]

PICTURE_FILTER = "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"
REPORT_FILTER = "Review report (*.html)"
WHAT = {"canvas": "canvas", "timeline": "timeline", "both": "canvas and timeline"}


class ExportActions(QObject):
    """The export commands of one main window; ``ask_path`` is replaceable (tests)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.ask_path: Callable[[str, str, str], Path | None] = self._dialog
        self.last_path: Path | None = None

    def register(self, registry: ActionRegistry) -> None:
        registry.register(
            "file.export.canvas",
            "Export &Canvas Picture…",
            lambda: self.export("canvas"),
            tip="Save the canvas as PNG, SVG or PDF, with a title and the clock",
        )
        registry.register(
            "file.export.timeline",
            "Export &Timeline Picture…",
            lambda: self.export("timeline"),
            tip="Save the timeline as PNG, SVG or PDF, with its legend, zone and clock",
        )
        registry.register(
            "file.export.both",
            "Export Canvas &and Timeline…",
            lambda: self.export("both"),
            shortcut="Ctrl+Shift+E",
            tip="Save the canvas above the timeline as one picture",
        )
        registry.register(
            "file.copy_image",
            "Copy &Image",
            lambda: self.copy("both"),
            shortcut="Ctrl+Shift+C",
            tip="Copy the canvas and the timeline as one picture",
        )
        registry.register(
            "file.export.report",
            "Export &Review Report…",
            self.export_report,
            tip="One self-contained HTML file: pictures, runs, DST days, alerts, expectations",
        )

    # ------------------------------------------------------------------ commands
    def _suggested(self, suffix: str) -> str:
        workspace = getattr(self.window, "workspace", None)
        document = workspace.document if workspace is not None else None
        prefs = getattr(self.window, "prefs", None)
        folder = Path(prefs.last_directory()) if prefs is not None else Path.home()
        if document is not None and document.path is not None:
            return str(folder / Path(document.path).with_suffix(suffix).name)
        return str(folder / f"schedule{suffix}")

    def _dialog(self, caption: str, suggested: str, filters: str) -> Path | None:
        name, _ = QFileDialog.getSaveFileName(self.window, caption, suggested, filters)
        if not name:
            return None
        prefs = getattr(self.window, "prefs", None)
        if prefs is not None:
            prefs.set_last_directory(Path(name).parent)
        return Path(name)

    def _say(self, text: str) -> None:
        show = getattr(self.window, "show_message", None)
        if callable(show):
            show(text)

    def export(self, which: Which, path: Path | None = None) -> Path | None:
        picture = window_picture(self.window, which)  # type: ignore[arg-type]
        if picture is None:
            self._say("Open a scenario to export its picture")
            return None
        target = path or self.ask_path(
            f"Export {WHAT[which]} picture", self._suggested(".png"), PICTURE_FILTER
        )
        if target is None:
            return None
        if target.suffix.lower() not in (".png", ".svg", ".pdf"):
            target = target.with_suffix(".png")
        export_picture(picture, target)
        self.last_path = target
        self._say(f"Exported the {WHAT[which]} to {target}")
        return target

    def copy(self, which: Which) -> QImage | None:
        picture = window_picture(self.window, which)  # type: ignore[arg-type]
        if picture is None:
            return None
        image = copy_to_clipboard(picture)
        self._say(f"Copied the {WHAT[which]} as an image")
        return image

    def export_report(self, path: Path | None = None) -> Path | None:
        workspace = getattr(self.window, "workspace", None)
        panes = workspace.simulation if workspace is not None else None
        if workspace is None or panes is None:
            self._say("Open a scenario (one the engine accepts) to export its report")
            return None
        target = path or self.ask_path(
            "Export review report", self._suggested(".html"), REPORT_FILTER
        )
        if target is None:
            return None
        from explorer.analysis.commands import simulate_scenario, write_report

        scenario = workspace.document.scenario
        source = str(workspace.document.path or scenario.name)
        done = simulate_scenario(scenario, source, panes.session.until)
        pictures = scenario_svgs(
            scenario,
            done.until,
            source=source,
            scene=workspace.scene,
            zone=panes.bench.timeline.display_zone,
        )
        write_report(done, target, pictures)
        self.last_path = target
        self._say(f"Wrote the review report to {target}")
        return target

    # ------------------------------------------------------------------ timeline menu
    def timeline_items(self, menu: QMenu, _target: TimelineTarget) -> None:
        menu.addSeparator()
        menu.addAction("Export Timeline Picture…", lambda: self.export("timeline"))
        menu.addAction("Export Canvas and Timeline…", lambda: self.export("both"))
        menu.addAction("Copy Timeline Image", lambda: self.copy("timeline"))
