"""Pictures that explain themselves: the canvas, the timeline, or both stacked.

A picture pasted into a design document or a review report must say what it shows
without the app beside it, so every picture carries a title, the display zone and
the simulated clock instant in a header and the timeline's legend in a footer.

One drawing path serves File > Export picture, the right-click exports, Copy image,
and ``explorer report`` (which loads this module lazily, offscreen: the contract's
one exception to a Qt-free command line, named in pyproject's import-linter config).
Everything paints through a ``QPainter``: into a ``QImage`` (PNG, clipboard), a
``QSvgGenerator`` (pyqtgraph's own SVG exporter fails on Qt 6.11, stack-notes) or a
``QPdfWriter``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from PySide6 import QtCore, QtGui, QtSvg, QtWidgets

from explorer.ui.timeline.bands import BOTTOM_STRIP, TOP_STRIP
from explorer.ui.timeline.style import NORMAL

if TYPE_CHECKING:
    from explorer.scenario.model import Scenario
    from explorer.ui.session import SimulationSession
    from explorer.ui.timeline.pane import TimelinePane

__all__ = [
    "FORMATS",
    "Caption",
    "Parts",
    "Picture",
    "copy_to_clipboard",
    "export_picture",
    "picture_image",
    "picture_svg",
]

FORMATS = (".png", ".svg", ".pdf")
Which = Literal["canvas", "timeline", "both"]

_MARGIN = 16
_GAP = 10


@dataclass(frozen=True, slots=True)
class Caption:
    """What the header says: the title, the zone the times are shown in, the clock."""

    title: str
    zone: str
    clock: datetime
    subtitle: str = ""

    def clock_text(self) -> str:
        from explorer.document.timeline.timebase import fmt_local, fmt_utc, zone_of

        return f"{fmt_local(self.clock, zone_of(self.zone))} ({fmt_utc(self.clock)})"


@dataclass(slots=True)
class Parts:
    """The sources a picture is drawn from (either may be absent)."""

    canvas: QtWidgets.QGraphicsScene | None = None
    timeline: QtWidgets.QWidget | None = None
    #: The timeline's legend as rich text (``timeline.pane.legend_html``).
    legend: str = ""
    #: A widget drawn only for this picture (kept alive while the picture is).
    keep: object = None


def _legend_default() -> str:
    from explorer.ui.timeline.pane import legend_html

    return legend_html(NORMAL)


class Picture:
    """Lays out header, canvas, timeline and legend at a width; paints into any device."""

    def __init__(self, parts: Parts, caption: Caption, which: Which = "both", width: int = 1400):
        self.parts = parts
        self.caption = caption
        self.which = which
        self.width = width
        self.font = QtGui.QFont("DejaVu Sans", 10)
        self.title_font = QtGui.QFont("DejaVu Sans", 14, QtGui.QFont.Weight.Bold)
        inner = width - 2 * _MARGIN
        self.header_h = 58
        self.canvas_h = 0
        self.source = QtCore.QRectF()
        if self.show_canvas and parts.canvas is not None:
            self.source = parts.canvas.itemsBoundingRect().adjusted(-20, -20, 20, 20)
            if self.source.width() > 0:
                ratio = self.source.height() / self.source.width()
                self.canvas_h = int(min(max(inner * ratio, 160), 720))
        self.timeline_h = 0
        if self.show_timeline and parts.timeline is not None:
            size = parts.timeline.size()
            self.timeline_h = int(inner * size.height() / max(1, size.width()))
        self.legend_doc = QtGui.QTextDocument()
        self.legend_doc.setDefaultFont(QtGui.QFont("DejaVu Sans", 9))
        self.legend_doc.setHtml(parts.legend or _legend_default())
        self.legend_doc.setTextWidth(inner)
        self.legend_h = int(self.legend_doc.size().height()) if self.show_timeline else 0
        blocks = [self.header_h, self.canvas_h, self.timeline_h, self.legend_h]
        self.height = 2 * _MARGIN + sum(blocks) + _GAP * (sum(1 for b in blocks if b) - 1)

    @property
    def show_canvas(self) -> bool:
        return self.which in ("canvas", "both")

    @property
    def show_timeline(self) -> bool:
        return self.which in ("timeline", "both")

    def size(self) -> QtCore.QSize:
        return QtCore.QSize(self.width, self.height)

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QtGui.QPainter) -> None:
        painter.fillRect(QtCore.QRect(0, 0, self.width, self.height), QtGui.QColor("white"))
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        inner = self.width - 2 * _MARGIN
        y = _MARGIN
        self._header(painter, QtCore.QRect(_MARGIN, y, inner, self.header_h))
        y += self.header_h + _GAP
        if self.canvas_h and self.parts.canvas is not None:
            target = QtCore.QRectF(_MARGIN, y, inner, self.canvas_h)
            painter.setPen(QtGui.QPen(QtGui.QColor("#c0c4cc")))
            painter.drawRect(target)
            self.parts.canvas.render(
                painter, target, self.source, QtCore.Qt.AspectRatioMode.KeepAspectRatio
            )
            y += self.canvas_h + _GAP
        if self.timeline_h and self.parts.timeline is not None:
            widget = self.parts.timeline
            painter.save()
            painter.translate(_MARGIN, y)
            factor = inner / max(1, widget.width())
            painter.scale(factor, factor)
            _render_widget(widget, painter)
            painter.restore()
            y += self.timeline_h + _GAP
            painter.save()
            painter.translate(_MARGIN, y)
            self.legend_doc.drawContents(painter)
            painter.restore()

    def _header(self, painter: QtGui.QPainter, rect: QtCore.QRect) -> None:
        painter.setPen(QtGui.QColor("#1a1a1a"))
        painter.setFont(self.title_font)
        metrics = QtGui.QFontMetrics(self.title_font)
        title = metrics.elidedText(
            self.caption.title, QtCore.Qt.TextElideMode.ElideRight, rect.width()
        )
        painter.drawText(rect.x(), rect.y() + metrics.ascent(), title)
        painter.setFont(self.font)
        line = f"Times in {self.caption.zone} · clock at {self.caption.clock_text()}"
        if self.caption.subtitle:
            line += f" · {self.caption.subtitle}"
        small = QtGui.QFontMetrics(self.font)
        painter.setPen(QtGui.QColor("#444"))
        painter.drawText(
            rect.x(),
            rect.y() + metrics.height() + 6 + small.ascent(),
            small.elidedText(line, QtCore.Qt.TextElideMode.ElideRight, rect.width()),
        )
        painter.setPen(QtGui.QPen(QtGui.QColor("#c0c4cc")))
        painter.drawLine(rect.left(), rect.bottom(), rect.right(), rect.bottom())


def _render_widget(widget: QtWidgets.QWidget, painter: QtGui.QPainter) -> None:
    """``QWidget.render`` with its children (a view's own ``render`` draws its scene only)."""
    scene = getattr(widget, "scene", None)
    prepare = getattr(scene() if callable(scene) else None, "prepareForPaint", None)
    if callable(prepare):
        prepare()
    QtWidgets.QWidget.render(
        widget,
        painter,
        QtCore.QPoint(0, 0),
        QtGui.QRegion(),
        QtWidgets.QWidget.RenderFlag.DrawWindowBackground
        | QtWidgets.QWidget.RenderFlag.DrawChildren,
    )


# ---------------------------------------------------------------------- outputs
def picture_image(picture: Picture, scale: float = 2.0) -> QtGui.QImage:
    size = picture.size()
    image = QtGui.QImage(
        int(size.width() * scale),
        int(size.height() * scale),
        QtGui.QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.setDevicePixelRatio(scale)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    picture.paint(painter)
    painter.end()
    return image


def _svg_to(generator: QtSvg.QSvgGenerator, picture: Picture) -> None:
    size = picture.size()
    generator.setSize(size)
    generator.setViewBox(QtCore.QRect(QtCore.QPoint(0, 0), size))
    generator.setResolution(96)
    generator.setTitle(picture.caption.title)
    generator.setDescription(
        f"Schedule Explorer · times in {picture.caption.zone} · clock at "
        f"{picture.caption.clock_text()}"
    )
    painter = QtGui.QPainter(generator)
    picture.paint(painter)
    painter.end()


def picture_svg(picture: Picture) -> bytes:
    """The picture as an SVG document (inlined by the review report)."""
    buffer = QtCore.QBuffer()
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    generator = QtSvg.QSvgGenerator()
    generator.setOutputDevice(buffer)
    _svg_to(generator, picture)
    buffer.close()
    return bytes(buffer.data().data())


def export_picture(picture: Picture, path: str | os.PathLike[str]) -> Path:
    """Write the picture; the suffix (.png, .svg, .pdf) picks the format."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".png":
        if not picture_image(picture).save(str(target)):  # the .png suffix picks the format
            raise OSError(f"could not write {target}")
    elif suffix == ".svg":
        generator = QtSvg.QSvgGenerator()
        generator.setFileName(str(target))
        _svg_to(generator, picture)
    elif suffix == ".pdf":
        writer = QtGui.QPdfWriter(str(target))
        writer.setResolution(96)
        size = picture.size()
        points = QtCore.QSizeF(size.width() * 72 / 96, size.height() * 72 / 96)
        writer.setPageSize(QtGui.QPageSize(points, QtGui.QPageSize.Unit.Point, "picture"))
        writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
        writer.setTitle(picture.caption.title)
        writer.setCreator("Schedule Explorer")
        painter = QtGui.QPainter(writer)
        if not painter.isActive():
            raise OSError(f"could not write {target}")
        page = painter.viewport()
        factor = min(page.width() / size.width(), page.height() / size.height())
        painter.scale(factor, factor)
        picture.paint(painter)
        painter.end()
    else:
        raise ValueError(f"cannot export {target.name}: use one of {', '.join(FORMATS)}")
    return target


def copy_to_clipboard(picture: Picture) -> QtGui.QImage:
    image = picture_image(picture)
    QtWidgets.QApplication.clipboard().setImage(image)
    return image


# ---------------------------------------------------------------------- offscreen
def scenario_pictures(
    path: str | os.PathLike[str], until: datetime, *, title: str | None = None
) -> dict[str, bytes]:
    """SVG of the canvas and of the timeline of ``path`` simulated to ``until``, drawn
    offscreen by the same widgets the app shows (``explorer report`` calls this)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if QtWidgets.QApplication.instance() is None:
        QtWidgets.QApplication(["explorer-report"])
    from explorer.scenario import load_scenario

    def quiet(kind: QtCore.QtMsgType, context: QtCore.QMessageLogContext, text: str) -> None:
        # The offscreen platform's note for every shown window says nothing to a report user.
        if "propagateSizeHints" not in text:
            sys.stderr.write(text + "\n")

    previous = QtCore.qInstallMessageHandler(quiet)
    try:
        return scenario_svgs(load_scenario(path), until, source=str(path), title=title)
    finally:
        QtCore.qInstallMessageHandler(previous)


def scenario_svgs(
    scenario: Scenario,
    until: datetime,
    *,
    source: str = "<scenario>",
    title: str | None = None,
    scene: QtWidgets.QGraphicsScene | None = None,
    zone: str | None = None,
) -> dict[str, bytes]:
    """The report's two pictures of ``scenario`` at ``until``: the canvas (``scene`` when the
    app passes its own, else a new one) and a timeline drawn for the whole horizon."""
    from explorer.ui.canvas.scene import ScenarioScene
    from explorer.ui.document import ScenarioDocument
    from explorer.ui.session import SimulationSession
    from explorer.ui.timeline.pane import TimelinePane

    own_scene = None
    if scene is None:
        document = ScenarioDocument(scenario, None)
        own_scene = ScenarioScene(document, QtWidgets.QApplication.palette())
        scene = own_scene
    session = SimulationSession(scenario, source=source, publish_badges=False)
    session.sim.advance_to(until)
    timeline = TimelinePane()
    timeline.set_horizon(session.start, session.until)
    lanes = len(session.sim.dags) + len(scenario.assets) + 1
    timeline.resize(1400, 140 + 44 * lanes)
    timeline.show()
    timeline.show_simulation(session.sim)
    if zone is not None:
        timeline.set_display_zone(zone)
    QtWidgets.QApplication.processEvents()
    timeline.fit()
    QtWidgets.QApplication.processEvents()
    parts = Parts(scene, timeline.plot, "")
    caption = Caption(title or scenario.name, timeline.display_zone, until)
    out = {
        "canvas": picture_svg(Picture(parts, caption, "canvas", width=1100)),
        "timeline": picture_svg(Picture(parts, caption, "timeline", width=1100)),
    }
    timeline.hide()
    timeline.deleteLater()
    session.deleteLater()
    if own_scene is not None:
        own_scene.deleteLater()
    return out


def window_picture(window: QtWidgets.QMainWindow, which: Which) -> Picture | None:
    """The picture of the main window's open document (None when nothing is open).

    The timeline is drawn again offscreen, tall enough for every lane the canvas
    filter shows: the docked one shows the lanes that fit its height, and the
    lanes scrolled out of it would be missing from the picture.
    """
    workspace = getattr(window, "workspace", None)
    if workspace is None:
        return None
    panes = workspace.simulation
    timeline = panes.bench.timeline if panes is not None else None
    if which == "timeline" and timeline is None:
        return None
    zone = timeline.display_zone if timeline is not None else "UTC"
    clock = panes.session.now if panes is not None else datetime.now().astimezone()
    title = workspace.document.scenario.name
    whole = None
    if timeline is not None and panes is not None and which != "canvas":
        whole = whole_timeline(timeline, panes.session)
    parts = Parts(workspace.scene, whole.plot if whole is not None else None, "", keep=whole)
    if timeline is None:
        which = "canvas"
    return Picture(parts, Caption(title, zone, clock), which)


def whole_timeline(live: TimelinePane, session: SimulationSession) -> TimelinePane:
    """A hidden copy of ``live`` (lanes, order, filter, zone, time window) with every lane
    at the style's lane height: what an exported picture of the timeline shows."""
    from explorer.ui.timeline.pane import TimelinePane

    pane = TimelinePane()
    pane.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen)
    pane.set_horizon(session.start, session.until)
    order, only = live.lane_choice()
    pane.set_lane_order(order)
    pane.set_lane_filter(only)
    width = max(live.width(), 900)
    pane.resize(width, 600)
    pane.show()
    pane.show_simulation(session.sim)
    pane.set_display_zone(live.display_zone)
    QtWidgets.QApplication.processEvents()
    # every lane plus the strips above and below them, at the style's lane height
    lanes = len(pane.lanes) + TOP_STRIP + BOTTOM_STRIP
    chrome = pane.height() - pane.viewbox.height()
    pane.resize(width, int(chrome + lanes * pane.style_.lane_px) + 2)
    QtWidgets.QApplication.processEvents()
    start, end = live.x_range()
    pane.set_x_range(start, end)
    pane.fit_all_lanes()
    return pane
