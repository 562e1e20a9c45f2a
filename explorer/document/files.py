"""Scenario files for the app: read, write (never over a newer format), and the examples.

No Qt. Reading is the scenario layer's (``load_scenario``: every problem a
:class:`ScenarioError` with a JSON path, never a traceback); writing is its
atomic ``save_scenario``. The app adds one rule: it never overwrites a file
written by a newer format version, whose contents it cannot know it keeps.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from explorer.scenario import FORMAT_VERSION, Scenario, load_scenario, save_scenario

__all__ = [
    "Example",
    "FileRefused",
    "check_can_write",
    "examples",
    "examples_dir",
    "file_format_version",
    "is_installed_example",
    "read",
    "resources_dir",
    "write",
]

_FORMAT = re.compile(r"schedule-explorer/(\d+)\Z")


class FileRefused(Exception):
    """A save the app refuses (the message says why and what to do instead)."""


def read(path: Path) -> Scenario:
    """The scenario in ``path``; a bad file raises :class:`ScenarioError`."""
    return load_scenario(path)


def file_format_version(path: Path) -> int | None:
    """The ``N`` of the file's ``"format": "schedule-explorer/N"``, or None if unknown."""
    try:
        with open(path, encoding="utf-8-sig") as stream:
            document = json.load(stream)
    except (OSError, ValueError):
        return None
    value = document.get("format") if isinstance(document, dict) else None
    match = _FORMAT.match(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def check_can_write(path: Path) -> None:
    """Refuse to overwrite a scenario file of a newer format version."""
    if not path.exists():
        return
    version = file_format_version(path)
    if version is not None and version > FORMAT_VERSION:
        raise FileRefused(
            f"{path.name} was written by a newer version of Schedule Explorer "
            f"(format schedule-explorer/{version}; this version writes "
            f"schedule-explorer/{FORMAT_VERSION}). Overwriting it could lose what it holds: "
            "save under another name instead."
        )


def write(scenario: Scenario, path: Path) -> None:
    """Save atomically (``save_scenario``), after :func:`check_can_write`."""
    check_can_write(path)
    save_scenario(scenario, path)


# ----------------------------------------------------------------------------- examples


@dataclass(frozen=True)
class Example:
    path: Path
    name: str
    description: str
    dags: int
    assets: int


def resources_dir(part: str) -> Path | None:
    """``resources/<part>`` (``scenarios``, ``icons``) wherever this installation keeps it:
    inside a PyInstaller bundle, next to the package in a checkout (or an editable
    install), or under ``<prefix>/share/schedule-explorer`` where pip or pipx installed
    the wheel (pyproject's data-files)."""
    candidates = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        candidates.append(Path(bundle) / "resources" / part)
    candidates.append(Path(__file__).resolve().parents[2] / "resources" / part)
    candidates.append(Path(sys.prefix) / "share" / "schedule-explorer" / part)
    return next((c for c in candidates if c.is_dir()), None)


def examples_dir() -> Path | None:
    """``$EXPLORER_EXAMPLES``, else the installation's ``resources/scenarios``."""
    if os.environ.get("EXPLORER_EXAMPLES"):
        chosen = Path(os.environ["EXPLORER_EXAMPLES"])
        if chosen.is_dir():
            return chosen
    return resources_dir("scenarios")


def is_installed_example(path: Path) -> bool:
    """Is ``path`` in the installed examples' folder (read-only for the app: an example
    opens as a copy, and Save asks for a new name)?"""
    folder = examples_dir()
    if folder is None:
        return False
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def examples() -> list[Example]:
    """The bundled example scenarios, by name.

    Only the name, description and counts are read (plain JSON, no checks):
    the gallery must not delay the first window; opening one loads it fully.
    """
    folder = examples_dir()
    if folder is None:
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8-sig"))
        except (OSError, ValueError):
            continue
        if not isinstance(document, dict) or not isinstance(document.get("name"), str):
            continue
        dags = document.get("dags")
        assets = document.get("assets")
        found.append(
            Example(
                path,
                document["name"],
                str(document.get("description") or ""),
                len(dags) if isinstance(dags, list) else 0,
                len(assets) if isinstance(assets, list) else 0,
            )
        )
    return sorted(found, key=lambda e: e.name.lower())
