"""Preferences and window state, kept with QSettings under one organization/app name.

Every read goes through :class:`Preferences`, which takes its ``QSettings``
as an argument: the app uses the platform's native store, tests pass an
INI file in a temporary folder, so a test never reads or writes the user's
real settings. The store carries a schema version and ordered migrations
(napari's habit), so a renamed key is moved, not lost.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from explorer.document.files import is_installed_example

__all__ = [
    "APPLICATION",
    "MAX_RECENT",
    "ORGANIZATION",
    "SETTINGS_VERSION",
    "Preferences",
]

ORGANIZATION = "Schedule Explorer"
APPLICATION = "schedule-explorer"
#: How many files File > Open Recent lists.
MAX_RECENT = 10
SETTINGS_VERSION = 1
THEMES = ("system", "light", "dark")

#: ``from_version -> migrate(settings)``, applied in order up to SETTINGS_VERSION.
_MIGRATIONS: dict[int, Callable[[QSettings], None]] = {}


class Preferences:
    """Typed access to the app's settings (recent files, window state, theme, autosave)."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.settings = settings if settings is not None else QSettings(ORGANIZATION, APPLICATION)
        self._migrate()

    def _migrate(self) -> None:
        version = _int(self.settings.value("settings_version", 0))
        while version < SETTINGS_VERSION:
            step = _MIGRATIONS.get(version)
            if step is not None:
                step(self.settings)
            version += 1
        self.settings.setValue("settings_version", SETTINGS_VERSION)

    # ----------------------------------------------------------------- recent files
    def recent_files(self) -> list[Path]:
        value = self.settings.value("files/recent", [])
        if isinstance(value, str):  # QSettings gives a lone string for one-item lists
            value = [value]
        if not isinstance(value, list):
            return []
        return [Path(str(v)) for v in value if v]

    def add_recent(self, path: Path) -> None:
        path = path.resolve()
        files = [p for p in self.recent_files() if p != path]
        self.settings.setValue("files/recent", [str(p) for p in [path, *files][:MAX_RECENT]])

    def remove_recent(self, path: Path) -> None:
        files = [p for p in self.recent_files() if p != path]
        self.settings.setValue("files/recent", [str(p) for p in files])

    def clear_recent(self) -> None:
        self.settings.setValue("files/recent", [])

    def last_directory(self) -> str:
        """Where Open, Save, Export and Import dialogs start: the last folder the user
        chose, else (the first time) the Documents folder, else home."""
        chosen = str(self.settings.value("files/last_directory", ""))
        if chosen and Path(chosen).is_dir():
            return chosen
        documents = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation
        )
        return documents if documents and Path(documents).is_dir() else str(Path.home())

    def set_last_directory(self, folder: Path) -> None:
        """Remember ``folder`` for the next dialog, unless it is the installed examples'
        folder (a dialog never starts there: saving into it would change an example)."""
        if is_installed_example(folder / "x.json"):
            return
        self.settings.setValue("files/last_directory", str(folder))

    # ----------------------------------------------------------------- window
    def window_geometry(self) -> QByteArray | None:
        value = self.settings.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def window_state(self) -> QByteArray | None:
        value = self.settings.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self.settings.setValue("window/geometry", geometry)
        self.settings.setValue("window/state", state)

    # ----------------------------------------------------------------- preferences
    def theme(self) -> str:
        value = str(self.settings.value("view/theme", "system"))
        return value if value in THEMES else "system"

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r}; expected one of {THEMES}")
        self.settings.setValue("view/theme", theme)

    def show_minimap(self) -> bool:
        return _bool(self.settings.value("view/minimap", True))

    def set_show_minimap(self, show: bool) -> None:
        self.settings.setValue("view/minimap", show)

    def autosave_seconds(self) -> int:
        """Seconds between autosaves of an edited document (0: never)."""
        return max(0, _int(self.settings.value("files/autosave_seconds", 30)))

    def set_autosave_seconds(self, seconds: int) -> None:
        self.settings.setValue("files/autosave_seconds", int(seconds))

    def sync(self) -> None:
        self.settings.sync()


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0


def _bool(value: object) -> bool:
    if isinstance(value, str):  # INI files give strings back
        return value.lower() in ("true", "1", "yes")
    return bool(value)
