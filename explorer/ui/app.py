"""Start the desktop app: ``explorer`` (no arguments) or ``python -m explorer.ui.app [FILE]``.

Without a file the welcome gallery opens; with one (an argument, or the
``EXPLORER_OPEN`` environment variable, handy for screenshots) that file
opens at once. High-DPI rendering uses Qt 6's defaults with fractional scale
factors passed through; the theme follows the desktop unless the user chose
one. Settings live under one organization/app name (``settings.py``), and
autosaved work in the app's data folder, offered back after a crash.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from explorer import __version__
from explorer.document.files import resources_dir
from explorer.ui.main_window import MainWindow
from explorer.ui.settings import APPLICATION, ORGANIZATION, Preferences
from explorer.ui.theme import apply_theme

__all__ = ["APP_ID", "app_icon", "create_app", "launch", "main", "recovery_folder"]

#: The freedesktop/AppStream id: the .desktop file, the metainfo and the icon are named after
#: it (packaging/), so a Wayland compositor can match the window to its launcher and icon.
APP_ID = "org.schedule_explorer.ScheduleExplorer"


def recovery_folder() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base) / "recovery"


def app_icon() -> QIcon:
    """The application icon: every PNG size of ``resources/icons`` plus the SVG."""
    icon = QIcon()
    folder = resources_dir("icons")
    if folder is not None:
        for path in sorted(folder.glob(f"hicolor/*/apps/{APP_ID}.*")):
            icon.addFile(str(path))
    return icon


def create_app(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication, made once, with names, DPI policy and theme set."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    QApplication.setOrganizationName(ORGANIZATION)
    QApplication.setApplicationName(APPLICATION)
    QApplication.setApplicationDisplayName("Schedule Explorer")
    QApplication.setApplicationVersion(__version__)
    QGuiApplication.setDesktopFileName(APP_ID)
    app = QApplication(list(argv) if argv is not None else [sys.argv[0]])
    app.setWindowIcon(app_icon())
    return app


def launch(
    args: Sequence[str],
    *,
    prefs: Preferences | None = None,
    recovery_dir: Path | None = None,
) -> MainWindow:
    """Show the main window; open the file named by ``args`` or ``EXPLORER_OPEN``, or offer
    to recover autosaved work after a crash (the gallery shows otherwise)."""
    window = MainWindow(prefs or Preferences(), recovery_dir=recovery_dir)
    window.show()
    target = args[0] if args else os.environ.get("EXPLORER_OPEN")
    if target:
        window.open_file(Path(target))
    elif recovery_dir is not None:
        window.files.offer_recovery(recovery_dir)
    return window


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    app = create_app([sys.argv[0]])
    prefs = Preferences()
    apply_theme(app, prefs.theme())
    window = launch(args, prefs=prefs, recovery_dir=recovery_folder())
    code = app.exec()
    del window
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
