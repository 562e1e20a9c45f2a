"""What an import found, file by file and DAG by DAG, as data and as the JSON report.

The report is the honest half of an import: every DAG file that was skipped,
every value that could not be read statically, every parse-time value resolved
against the deployment instant, each with the file and line it came from. The
JSON spelling is ``{"dags": [...], "files": [...]}`` plus how the
import was made (``task_duration``, ``parsed_at``, ``roots``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from explorer.document.wording import count
from explorer.scenario.printable import printable_line
from explorer.scenario.values import JsonObject

__all__ = [
    "DagReport",
    "DagStatus",
    "FileReport",
    "FileStatus",
    "ImportReport",
    "Unresolved",
]

DagStatus = Literal["imported", "partial", "skipped"]
#: ``parsed``: read, its DAGs listed; ``skipped``: not read (safe mode, ``.airflowignore``, a
#: symlink leaving the root, too large); ``error``: unreadable (syntax error, not UTF-8).
FileStatus = Literal["parsed", "skipped", "error"]


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A value the import could not read statically, or resolved with a caveat.

    ``field`` names the DAG argument (``schedule``, ``start_date``, ...) or the
    task part (``tasks.<task_id>.outlets``); ``parse_time`` marks a value read
    against the deployment instant (``datetime.now()``...) rather than left out.
    """

    field: str
    file: str
    line: int
    reason: str
    parse_time: bool = False

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "field": self.field,
            "file": self.file,
            "line": self.line,
            "reason": self.reason,
        }
        if self.parse_time:
            out["parse_time"] = True
        return out


@dataclass(frozen=True, slots=True)
class DagReport:
    """One DAG the files define: ``imported`` exactly, ``partial`` (see ``unresolved``),
    or ``skipped`` (not in the scenario; ``reason`` says why)."""

    dag_id: str
    file: str
    line: int
    status: DagStatus
    unresolved: tuple[Unresolved, ...] = ()
    reason: str | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "dag_id": self.dag_id,
            "file": self.file,
            "line": self.line,
            "status": self.status,
            "unresolved": [u.to_json() for u in self.unresolved],
        }
        if self.reason is not None:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class FileReport:
    """One file met under an imported root, and what became of it."""

    file: str
    status: FileStatus
    reason: str | None = None
    #: DAG ids the file defines (``parsed`` files only).
    dag_ids: tuple[str, ...] = ()
    #: Modules the file needs beyond Python and Airflow 3.3.2's own distributions
    #: (``pandas``, a provider package): the import cannot judge them, Airflow's
    #: environment must have them.
    needs: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        return {
            "file": self.file,
            "status": self.status,
            "reason": self.reason,
            "dag_ids": list(self.dag_ids),
            "needs": list(self.needs),
        }


@dataclass(frozen=True, slots=True)
class ImportReport:
    """Everything an import says besides the scenario itself."""

    dags: tuple[DagReport, ...]
    files: tuple[FileReport, ...]
    #: The stated default duration of every task (ISO-8601), since DAG files say nothing of it.
    task_duration: str
    #: The deployment instant parse-time values were resolved against (ISO-8601).
    parsed_at: str
    roots: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def imported(self) -> int:
        return sum(1 for d in self.dags if d.status != "skipped")

    def to_json(self) -> JsonObject:
        return {
            "dags": [d.to_json() for d in self.dags],
            "files": [f.to_json() for f in self.files],
            "task_duration": self.task_duration,
            "parsed_at": self.parsed_at,
            "roots": list(self.roots),
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """A few lines for a person: counts, then every unresolved item as file:line."""
        by_status = {
            s: sum(1 for d in self.dags if d.status == s)
            for s in ("imported", "partial", "skipped")
        }
        files = {
            s: sum(1 for f in self.files if f.status == s) for s in ("parsed", "skipped", "error")
        }
        lines = [
            f"{len(self.files)} files: {files['parsed']} parsed, {files['skipped']} skipped, "
            f"{files['error']} unreadable",
            f"{count(len(self.dags), 'DAG')}: {by_status['imported']} imported, "
            f"{by_status['partial']} partial, "
            f"{by_status['skipped']} skipped",
            f"every task lasts {self.task_duration} (the stated default; change it per task); "
            f"parse-time values read at {self.parsed_at}",
        ]
        for f in self.files:
            if f.status == "error":
                lines.append(f"  {f.file}: unreadable: {f.reason}")
            if f.needs:
                listed = ", ".join(f"`{n}`" for n in f.needs)
                lines.append(f"  {f.file}: needs {listed} where Airflow parses it")
        for d in self.dags:
            if d.status == "skipped":
                lines.append(f"  {d.file}:{d.line}: {d.dag_id}: skipped: {d.reason}")
            for u in d.unresolved:
                lines.append(f"  {u.file}:{u.line}: {d.dag_id}.{u.field}: {u.reason}")
        lines.extend(f"  note: {n}" for n in self.notes)
        # names and reasons come from other people's files: one line each, no escapes
        return "\n".join(printable_line(line) for line in lines)
