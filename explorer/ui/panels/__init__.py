"""Panes around the timeline: explain and alerts, next runs, compare,
failure injection, presentation mode, export, and the wired :class:`Workbench`.

Qt-free helpers live in :mod:`explorer.document.panels`.
Mounting instructions: :mod:`explorer.ui.session`.
"""

from explorer.ui.panels.compare import ComparePane
from explorer.ui.panels.explain import ExplainPane
from explorer.ui.panels.export import export_widget
from explorer.ui.panels.injection import InjectionMenus
from explorer.ui.panels.next_runs import NextRunsPane
from explorer.ui.panels.presentation import PresentationMode
from explorer.ui.panels.workbench import Workbench, WorkbenchWindow

__all__ = [
    "ComparePane",
    "ExplainPane",
    "InjectionMenus",
    "NextRunsPane",
    "PresentationMode",
    "Workbench",
    "WorkbenchWindow",
    "export_widget",
]
