"""Export any widget (the timeline, the canvas) as PNG, SVG or PDF.

The widget paints itself into the target device: a ``QImage`` (PNG, at
``scale`` times the screen size for crisp slides), a ``QSvgGenerator`` whose
resolution is the widget's DPI, or a ``QPdfWriter`` with a page the widget's
size. pyqtgraph's own SVG exporter is not used: it fails on Qt 6.11
(pyqtgraph bug #3495, ``stack-notes.md``). The timeline's items paint in
device pixels, so the six significant digits ``QSvgGenerator`` writes do not
move its bars.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6 import QtCore, QtGui, QtSvg, QtWidgets

__all__ = ["FORMATS", "export_widget"]

FORMATS = (".png", ".svg", ".pdf")


def export_widget(
    widget: QtWidgets.QWidget, path: str | Path, *, scale: float = 2.0, title: str = ""
) -> Path:
    """Write ``widget`` to ``path``; the suffix (.png, .svg, .pdf) picks the format."""
    target = Path(path)
    suffix = target.suffix.lower()
    size = widget.size()
    if size.width() <= 0 or size.height() <= 0:
        raise ValueError("the widget has no size yet: show it (or resize it) before exporting")
    if suffix == ".png":
        _png(widget, target, size, scale)
    elif suffix == ".svg":
        _svg(widget, target, size, title)
    elif suffix == ".pdf":
        with _without_gradient_warnings():
            _pdf(widget, target, size, title)
    else:
        raise ValueError(f"cannot export {target.name}: use one of {', '.join(FORMATS)}")
    return target


@contextmanager
def _without_gradient_warnings() -> Iterator[None]:
    """Qt's PDF engine warns for each style gradient mixing colour specs and draws it solid;
    that noise says nothing about the export. Other messages pass through."""
    previous: object = None

    def handler(kind: QtCore.QtMsgType, context: QtCore.QMessageLogContext, text: str) -> None:
        if "unable to create a gradient" in text:
            return
        if callable(previous):
            previous(kind, context, text)
        else:
            sys.stderr.write(text + "\n")

    previous = QtCore.qInstallMessageHandler(handler)
    try:
        yield
    finally:
        QtCore.qInstallMessageHandler(previous)


def _render(widget: QtWidgets.QWidget, painter: QtGui.QPainter) -> None:
    """``QWidget.render`` (a ``QGraphicsView`` overrides ``render`` to draw its scene only)."""
    scene = getattr(widget, "scene", None)
    prepare = getattr(scene() if callable(scene) else None, "prepareForPaint", None)
    if callable(prepare):
        prepare()  # pyqtgraph lays out pending items before a paint
    QtWidgets.QWidget.render(
        widget,
        painter,
        QtCore.QPoint(0, 0),
        QtGui.QRegion(),
        QtWidgets.QWidget.RenderFlag.DrawWindowBackground
        | QtWidgets.QWidget.RenderFlag.DrawChildren,
    )


def _png(widget: QtWidgets.QWidget, target: Path, size: QtCore.QSize, scale: float) -> None:
    image = QtGui.QImage(
        int(size.width() * scale),
        int(size.height() * scale),
        QtGui.QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.setDevicePixelRatio(scale)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
    _render(widget, painter)
    painter.end()
    if not image.save(str(target)):  # the format follows the .png suffix
        raise OSError(f"could not write {target}")


def _svg(widget: QtWidgets.QWidget, target: Path, size: QtCore.QSize, title: str) -> None:
    generator = QtSvg.QSvgGenerator()
    generator.setFileName(str(target))
    generator.setSize(size)
    generator.setViewBox(QtCore.QRect(QtCore.QPoint(0, 0), size))
    generator.setResolution(max(1, widget.logicalDpiX()))
    generator.setTitle(title or "Schedule Explorer")
    generator.setDescription("Exported by Schedule Explorer")
    painter = QtGui.QPainter(generator)
    _render(widget, painter)
    painter.end()


def _pdf(widget: QtWidgets.QWidget, target: Path, size: QtCore.QSize, title: str) -> None:
    writer = QtGui.QPdfWriter(str(target))
    dpi = max(1, widget.logicalDpiX())
    writer.setResolution(dpi)
    points = QtCore.QSizeF(size.width() * 72 / dpi, size.height() * 72 / dpi)
    writer.setPageSize(QtGui.QPageSize(points, QtGui.QPageSize.Unit.Point, "widget"))
    writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
    writer.setTitle(title or "Schedule Explorer")
    writer.setCreator("Schedule Explorer")
    painter = QtGui.QPainter(writer)
    if not painter.isActive():
        raise OSError(f"could not write {target}")
    page = painter.viewport()
    factor = min(page.width() / size.width(), page.height() / size.height())
    painter.scale(factor, factor)
    _render(widget, painter)
    painter.end()
