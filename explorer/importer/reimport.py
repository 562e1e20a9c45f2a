"""Re-import: the same roots read again, merged into the open scenario, with what changed.

A re-import must not cost the user their work: layout positions, the script,
and every value they ``supplied`` by hand stay; everything else is the files'.
The changes are listed so that a user sees what the new files mean before
simulating them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from os import PathLike
from typing import Literal

from explorer.importer.report import ImportReport
from explorer.importer.result import ImportResult
from explorer.scenario.model import Scenario

__all__ = ["Change", "ReimportResult", "merge_reimport", "reimport"]

ChangeKind = Literal["dag_added", "dag_removed", "changed"]


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the open scenario and the files."""

    kind: ChangeKind
    dag_id: str
    #: The field that changed (``changed`` only): schedule, start_date, assets, ...
    field: str | None = None
    before: str | None = None
    after: str | None = None

    def __str__(self) -> str:
        if self.kind == "dag_added":
            return f"{self.dag_id}: added"
        if self.kind == "dag_removed":
            return f"{self.dag_id}: removed"
        return f"{self.dag_id}: {self.field} changed from {self.before} to {self.after}"


@dataclass(frozen=True, slots=True)
class ReimportResult:
    scenario: Scenario
    report: ImportReport
    changes: tuple[Change, ...]


def merge_reimport(old: Scenario, fresh: ImportResult) -> ReimportResult:
    """``fresh`` with ``old``'s layout, script and supplied values; the changes between them."""
    raise NotImplementedError("lands with the format-2 model")


def reimport(
    old: Scenario,
    *,
    base_dir: str | PathLike[str] | None = None,
    parsed_at: datetime | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> ReimportResult:
    """Import ``old.import.roots`` again (``parsed_at`` defaults to the old one) and merge."""
    raise NotImplementedError("lands with the format-2 model")
