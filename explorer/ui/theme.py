"""Light and dark palettes, and the canvas colours derived from the active palette.

The app uses Qt's Fusion style everywhere (it follows the palette fully, on
every platform) with the system colour scheme by default; a preference can
force light or dark. Canvas colours are never hard-coded in items: they come
from :func:`canvas_colors` for the palette in use, so nodes stay readable in
both schemes (text is the palette's text colour on a fill close to its base).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

__all__ = ["CanvasColors", "apply_theme", "canvas_colors", "is_dark"]


@dataclass(frozen=True)
class CanvasColors:
    background: QColor
    grid: QColor
    text: QColor
    muted: QColor
    fill: QColor
    header: QColor
    border: QColor
    selection: QColor
    edge: QColor
    problem: QColor
    chip_fill: QColor
    chip_text: QColor
    port: QColor
    #: Accent per node kind: dag, asset, alias, ref, gate, unresolved.
    accents: dict[str, QColor]

    def accent(self, kind: str) -> QColor:
        return self.accents.get(kind, self.border)

    def live_tone(self, tone: str) -> QColor:
        """Fill of a live-state badge (the text colour is chosen by its lightness)."""
        dark = self.background.lightness() < 128
        tones = _DARK_TONES if dark else _LIGHT_TONES
        return tones.get(tone, self.muted)


#: Live-state badge fills: saturated in the light theme (white text), light in the dark (dark
#: text). "ok" is teal and "failed" vermillion: told apart with red-green colour blindness
#: and on a dimmed projector (``tests/ui/test_palette.py``); the badge says its state too.
_LIGHT_TONES = {
    "running": QColor("#1f5fbf"),
    "failed": QColor("#d84315"),
    "waiting": QColor("#b06d00"),
    "ok": QColor("#067a70"),
    "idle": QColor("#5b6778"),
}
_DARK_TONES = {
    "running": QColor("#6ea8fe"),
    "failed": QColor("#ff8a65"),
    "waiting": QColor("#ffc266"),
    "ok": QColor("#4fd1c5"),
    "idle": QColor("#aab4c0"),
}


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def canvas_colors(palette: QPalette) -> CanvasColors:
    dark = is_dark(palette)
    text = palette.color(QPalette.ColorRole.Text)
    base = palette.color(QPalette.ColorRole.Base)
    window = palette.color(QPalette.ColorRole.Window)
    if dark:
        accents = {
            "dag": QColor("#6ea8fe"),
            "asset": QColor("#4fd1a5"),
            "alias": QColor("#d6a2ff"),
            "ref": QColor("#9fc3c1"),
            "gate": QColor("#ffc266"),
            "unresolved": QColor("#ff7b72"),
        }
        return CanvasColors(
            background=window.darker(115),
            grid=window.lighter(135),
            text=text,
            muted=QColor("#b0b6bf"),
            fill=base.lighter(140),
            header=base.lighter(175),
            border=QColor("#7d8590"),
            selection=QColor("#f0b429"),
            edge=QColor("#aab4c0"),
            problem=QColor("#ff7b72"),
            chip_fill=QColor("#2d3a4d"),
            chip_text=QColor("#dbe7ff"),
            port=QColor("#e6edf3"),
            accents=accents,
        )
    accents = {
        "dag": QColor("#1f5fbf"),
        "asset": QColor("#11805c"),
        "alias": QColor("#8144c2"),
        "ref": QColor("#3d6f6c"),
        "gate": QColor("#b06d00"),
        "unresolved": QColor("#c62828"),
    }
    return CanvasColors(
        background=QColor("#f4f6f9"),
        grid=QColor("#dde2ea"),
        text=text,
        muted=QColor("#4a5361"),
        fill=QColor("#ffffff"),
        header=QColor("#eef3fb"),
        border=QColor("#8592a3"),
        selection=QColor("#e08a00"),
        edge=QColor("#5b6778"),
        problem=QColor("#c62828"),
        chip_fill=QColor("#e3ecfa"),
        chip_text=QColor("#1b3a6b"),
        port=QColor("#26313f"),
        accents=accents,
    )


def _dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor(37, 40, 45), QColor(28, 30, 34), QColor(230, 232, 235)
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor(44, 47, 53),
        QPalette.ColorRole.ToolTipBase: QColor(50, 54, 60),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor(150, 155, 162),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor(48, 52, 58),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff7b72"),
        QPalette.ColorRole.Link: QColor("#6ea8fe"),
        QPalette.ColorRole.Highlight: QColor("#3d6fb6"),
        QPalette.ColorRole.HighlightedText: QColor(255, 255, 255),
        QPalette.ColorRole.Light: QColor(70, 74, 80),
        QPalette.ColorRole.Midlight: QColor(60, 64, 70),
        QPalette.ColorRole.Mid: QColor(45, 48, 54),
        QPalette.ColorRole.Dark: QColor(20, 22, 25),
        QPalette.ColorRole.Shadow: QColor(0, 0, 0),
    }
    for role, color in roles.items():
        p.setColor(role, color)
    disabled = QColor(128, 132, 138)
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def _light_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor(240, 242, 245), QColor(255, 255, 255), QColor(25, 28, 33)
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor(245, 247, 250),
        QPalette.ColorRole.ToolTipBase: QColor(255, 255, 240),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor(110, 116, 125),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor(233, 236, 240),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#c62828"),
        QPalette.ColorRole.Link: QColor("#1f5fbf"),
        QPalette.ColorRole.Highlight: QColor("#2f6fd0"),
        QPalette.ColorRole.HighlightedText: QColor(255, 255, 255),
    }
    for role, color in roles.items():
        p.setColor(role, color)
    return p


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Fusion with a light or dark palette (``system`` follows the desktop's scheme)."""
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    dark = theme == "dark"
    if theme == "system":
        scheme = QGuiApplication.styleHints().colorScheme()
        dark = scheme == Qt.ColorScheme.Dark
    app.setPalette(_dark_palette() if dark else _light_palette())
