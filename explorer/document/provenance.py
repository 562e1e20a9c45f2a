"""Where an imported DAG came from, what the import could not read, what the user supplied.

No Qt. Format 2 (ADR 0007) gives an imported DAG ``source`` (file, line),
``tags``, ``unresolved`` (field, line, reason) and ``supplied`` (the fields
whose value the user typed, which a re-import keeps), and the scenario an
``import`` record (roots, task duration, parse instant) for Re-import. The
import report dock and the inspector read them through this module, and
:func:`mark_supplied` is how an edit in the inspector records that the user
supplied a value the import left unresolved, inside the same undo step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from explorer.scenario import Dag, Scenario
from explorer.scenario.model import ImportInfo

__all__ = [
    "DAG_FIELDS",
    "Item",
    "import_record",
    "mark_supplied",
    "source_of",
    "supplied_of",
    "unresolved_items",
]

#: The DAG arguments an edit in the inspector can supply (task parts are ``tasks.<id>...``).
DAG_FIELDS = (
    "schedule",
    "start_date",
    "end_date",
    "timezone",
    "catchup",
    "max_active_runs",
    "is_paused_upon_creation",
)


@dataclass(frozen=True, slots=True)
class Item:
    """One unresolved value of one DAG, as the report dock lists it."""

    dag_id: str
    field: str
    file: str | None
    line: int | None
    reason: str
    supplied: bool

    @property
    def where(self) -> str:
        if self.file is None:
            return "" if self.line is None else f"line {self.line}"
        return self.file if self.line is None else f"{self.file}:{self.line}"


def source_of(dag: Dag) -> tuple[str, int | None] | None:
    """(file, line) the DAG was imported from, or None for a DAG made by hand."""
    if dag.source is None:
        return None
    return dag.source.file, dag.source.line


def supplied_of(dag: Dag) -> tuple[str, ...]:
    return dag.supplied


def unresolved_items(scenario: Scenario) -> list[Item]:
    """Every DAG's unresolved values, in file order."""
    items: list[Item] = []
    for dag in scenario.dags:
        source = source_of(dag)
        supplied = set(supplied_of(dag))
        for entry in dag.unresolved:
            file = entry.file if entry.file is not None else (source[0] if source else None)
            items.append(
                Item(
                    dag.dag_id,
                    entry.field,
                    file,
                    entry.line,
                    entry.reason,
                    entry.field in supplied,
                )
            )
    return items


def import_record(scenario: Scenario) -> ImportInfo | None:
    """The scenario's ``import`` record (how Re-import repeats it), or None."""
    info = scenario.import_info
    return info if info is not None and info.roots else None


def mark_supplied(before: Dag, after: Dag) -> Dag:
    """``after`` with every field it changes that ``before`` left unresolved listed as supplied.

    The inspector's DAG form passes every edit through this, so typing the
    value of an unresolved field is one undo step that also records, in the
    file, that a re-import must keep it.
    """
    unresolved = {u.field for u in before.unresolved}
    if not unresolved:
        return after
    supplied = list(supplied_of(before))
    for name in DAG_FIELDS:
        changed = getattr(before, name) != getattr(after, name)
        if changed and name in unresolved and name not in supplied:
            supplied.append(name)
    if tuple(supplied) == supplied_of(after):
        return after
    return dataclasses.replace(after, supplied=tuple(supplied))
