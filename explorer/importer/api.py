"""``import_paths``: DAG files and folders in, a scenario and its report out."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from os import PathLike
from pathlib import Path

from explorer.importer.project import run_import
from explorer.importer.result import (
    DEFAULT_TASK_DURATION,
    Cancel,
    ImportCancelled,
    ImportResult,
    Progress,
)

__all__ = ["DEFAULT_TASK_DURATION", "ImportCancelled", "ImportResult", "import_paths"]


def import_paths(
    paths: Sequence[str | PathLike[str]],
    *,
    parsed_at: datetime,
    task_duration: timedelta = DEFAULT_TASK_DURATION,
    base_dir: str | PathLike[str] | None = None,
    name: str | None = None,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> ImportResult:
    """Read every DAG file under ``paths`` statically into one scenario (see the package doc).

    ``base_dir``: the folder the scenario will be saved in; ``import.roots``
    are written relative to it where possible (absolute otherwise).
    """
    return run_import(
        [Path(p) for p in paths],
        parsed_at=parsed_at,
        task_duration=task_duration,
        base_dir=None if base_dir is None else Path(base_dir),
        name=name,
        progress=progress,
        cancel=cancel,
    )
