"""The timeline: runs, asset events, window members and DST days on one time axis.

Qt-free parts live in :mod:`explorer.document.timeline`.
Widgets: :class:`TimelinePane`, :class:`RunsTable` (and :func:`link_selection`).
"""

from explorer.ui.timeline.pane import TimelinePane, TimelineTarget
from explorer.ui.timeline.runs_table import RunsTable, link_selection

__all__ = ["RunsTable", "TimelinePane", "TimelineTarget", "link_selection"]
