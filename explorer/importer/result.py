"""The values an import hands back, and how a caller steers it (progress, cancel)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from explorer.importer.report import ImportReport
from explorer.scenario.model import Scenario

__all__ = ["DEFAULT_TASK_DURATION", "Cancel", "ImportCancelled", "ImportResult", "Progress"]

#: Every task's duration unless the caller states another (a DAG file says nothing of it).
DEFAULT_TASK_DURATION = timedelta(minutes=10)

#: ``progress(done, total, file)``: called after each file is read.
Progress = Callable[[int, int, str], None]
#: ``cancel()``: polled between files; True stops the import (ImportCancelled).
Cancel = Callable[[], bool]


class ImportCancelled(Exception):
    """``cancel()`` returned True: the import stopped between two files, nothing returned."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """The scenario the files make and what the import has to say about them."""

    scenario: Scenario
    report: ImportReport

    @property
    def dag_count(self) -> int:
        return len(self.scenario.dags) + len(self.scenario.asset_dags)
