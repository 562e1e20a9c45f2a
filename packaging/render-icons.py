"""Render the application icon's PNG sizes from its SVG, with Qt's own SVG renderer.

    python packaging/render-icons.py

Reads ``resources/icons/hicolor/scalable/apps/<id>.svg`` and writes
``resources/icons/hicolor/<N>x<N>/apps/<id>.png`` for every size the freedesktop
hicolor theme, AppStream and the Windows/macOS icon formats ask for. PySide6 is
already a dependency, so no other drawing tool is needed; the PNGs are committed,
so building a package never needs to run this.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

APP_ID = "org.schedule_explorer.ScheduleExplorer"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons" / "hicolor"


def render(svg: Path, size: int) -> QImage:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication([*sys.argv[:1], "-platform", "offscreen"])
    svg = ICONS / "scalable" / "apps" / f"{APP_ID}.svg"
    for size in SIZES:
        target = ICONS / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not render(svg, size).save(str(target)):
            raise SystemExit(f"could not write {target}")
        print(target.relative_to(ICONS.parent.parent.parent))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
