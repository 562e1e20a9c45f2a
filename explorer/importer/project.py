"""One import run: discover files, read each statically, build the scenario and report."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from explorer.importer.result import Cancel, ImportResult, Progress

__all__ = ["run_import"]


def run_import(
    paths: list[Path],
    *,
    parsed_at: datetime,
    task_duration: timedelta,
    base_dir: Path | None,
    name: str | None,
    progress: Progress | None,
    cancel: Cancel | None,
) -> ImportResult:
    raise NotImplementedError
