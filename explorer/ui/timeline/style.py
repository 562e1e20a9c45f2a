"""Colours and sizes of the timeline, for the normal and the presentation look.

One place, so that the legend, the table's state colours and the drawing
agree, and so that presentation mode is a different :class:`TimelineStyle`
rather than ``if presenting`` scattered through the paint code.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6 import QtCore, QtGui

__all__ = ["FAILED_HATCH", "NORMAL", "PRESENTATION", "TimelineStyle", "failed_hatch", "qcolor"]

#: The pattern drawn over a failed run's execution bar (and its legend swatch).
FAILED_HATCH = QtCore.Qt.BrushStyle.BDiagPattern


def qcolor(spec: str) -> QtGui.QColor:
    """A colour from CSS-style ``#rrggbb`` or ``#rrggbbaa``.

    Qt reads eight hex digits as ``#aarrggbb``; the styles here are written the
    way designers and pyqtgraph write them, alpha last.
    """
    if len(spec) == 9 and spec.startswith("#"):
        colour = QtGui.QColor(spec[:7])
        colour.setAlpha(int(spec[7:], 16))
        return colour
    return QtGui.QColor(spec)


def failed_hatch() -> QtGui.QBrush:
    """White diagonal stripes, drawn over the failed colour: failed reads as a pattern too."""
    return QtGui.QBrush(QtGui.QColor(255, 255, 255, 200), FAILED_HATCH)


@dataclass(frozen=True, slots=True)
class TimelineStyle:
    background: str
    foreground: str
    stripe: str
    grid: str
    #: interval bar fill per run type (scheduled, manual, asset_triggered, backfill)
    type_colours: tuple[str, str, str, str]
    #: execution bar fill per state (queued, running, success, failed): indigo, teal and
    #: vermillion stay apart for red-green colour blindness and on a dimmed projector
    #: (``tests/ui/test_palette.py`` checks them under Machado 2009's deuteranopia and
    #: protanopia); a failed bar is hatched as well (:data:`FAILED_HATCH`), so the
    #: difference never rests on colour alone.
    state_colours: tuple[str, str, str, str]
    logical: str
    run_after: str
    created: str
    no_interval: str
    #: runs without task instances (RND-1: logical date outside start_date .. end_date)
    no_task_instances: str
    #: event marks per source (task, rest_api, watcher), and events that wrote nothing
    source_colours: tuple[str, str, str]
    no_data: str
    ghost: str
    dst_band: str
    dst_line: str
    dst_text: str
    clock: str
    selection: str
    link: str
    box_colours: tuple[str, str, str]  # arrived, pending, never
    mark_px: float
    clock_px: float
    font_pt: int
    axis_font_pt: int
    lane_px: int

    def qcolor(self, name: str) -> QtGui.QColor:
        return qcolor(name)


NORMAL = TimelineStyle(
    background="#ffffff",
    foreground="#1f2328",
    stripe="#f3f5f8",
    grid="#d8dde3",
    type_colours=("#9dbbe0", "#cfa8e6", "#c8b6ea", "#9ed8c8"),
    state_colours=("#b4b8be", "#3024b3", "#068379", "#f75207"),
    logical="#13233f",
    run_after="#f08c00",
    created="#6b6f76",
    no_interval="#7b4fb8",
    no_task_instances="#e8590c",
    source_colours=("#0f8b8d", "#8e44ad", "#a0522d"),
    no_data="#b7bcc3",
    ghost="#7d8590",
    dst_band="#ffd54a38",
    dst_line="#d99a00",
    dst_text="#7a5a00",
    clock="#e8175d",
    selection="#111111",
    link="#8e44ad",
    box_colours=("#068379", "#e0a800", "#f75207"),
    mark_px=2.0,
    clock_px=2.0,
    font_pt=9,
    axis_font_pt=9,
    lane_px=46,
)

PRESENTATION = TimelineStyle(
    background="#ffffff",
    foreground="#000000",
    stripe="#eceff3",
    grid="#b9c0c8",
    type_colours=("#6f9bd6", "#b57ed9", "#a58be0", "#5fc2a6"),
    state_colours=("#a9adb3", "#2a1fa0", "#006b63", "#e04a00"),
    logical="#000000",
    run_after="#e06c00",
    created="#404040",
    no_interval="#5a2a9e",
    no_task_instances="#c43c00",
    source_colours=("#006f71", "#6c1f8f", "#7a3a12"),
    no_data="#9aa1aa",
    ghost="#3d434b",
    dst_band="#ffc40055",
    dst_line="#b37d00",
    dst_text="#4d3900",
    clock="#d1004b",
    selection="#000000",
    link="#6c1f8f",
    box_colours=("#006b63", "#d99a00", "#e04a00"),
    mark_px=4.0,
    clock_px=4.0,
    font_pt=15,
    axis_font_pt=14,
    lane_px=78,
)
