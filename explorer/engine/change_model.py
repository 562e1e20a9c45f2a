"""The words of a deploy mark: what a deployment change did, as plain values.

:class:`DeployChange` is one instant's change actions, :class:`ChangeMark` one thing
they did to one DAG's runs (kind, span, DEP rule, a sentence), :class:`DeployReport`
all of them. :mod:`explorer.engine.change_marks` makes them from two simulations;
:mod:`explorer.engine.change_reading` reads the diff into them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from explorer.engine.diff import RunChange

__all__ = [
    "ChangeMark",
    "DeployChange",
    "DeployReport",
    "Formatter",
    "MarkKind",
    "change_before",
    "marks_between",
    "utc_format",
]

MarkKind = Literal[
    "skipped",
    "run_twice",
    "shifted",
    "catchup",
    "added",
    "removed",
    "events_dropped",
    "events_kept",
    "stale",
]


Formatter = Callable[[datetime], str]


def utc_format(value: datetime) -> str:
    """``2024-06-04 12:00Z``: the default way marks write an instant."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M") + "Z"


# ----------------------------------------------------------------------------- the changes
@dataclass(frozen=True, slots=True)
class DeployChange:
    """The change actions of one instant: what was deployed, removed or set."""

    at: datetime
    deployed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    #: ``[section] key = value`` of each option set.
    options: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``deploy daily_sync · [scheduler] create_cron_data_intervals = False``."""
        parts = [f"deploy {', '.join(self.deployed)}"] if self.deployed else []
        parts += [f"remove {', '.join(self.removed)}"] if self.removed else []
        parts += list(self.options)
        return " · ".join(parts)

    def touches(self, dag_id: str) -> bool:
        """Whether the change can reach ``dag_id`` (an option reaches every DAG, DEP-7)."""
        return bool(self.options) or dag_id in self.deployed or dag_id in self.removed


# ----------------------------------------------------------------------------- the marks
@dataclass(frozen=True, slots=True)
class ChangeMark:
    """One thing a change did, on one DAG's lane, between ``start`` and ``end``."""

    kind: MarkKind
    dag_id: str
    start: datetime
    end: datetime
    change: DeployChange
    rule: str
    #: Short words for the mark itself ("skipped 12 h").
    label: str
    #: ``(format) -> sentence``: what the change did and why, instants in the caller's zone.
    explain: Callable[[Formatter], str] = field(compare=False, repr=False)
    #: When the mark becomes true on the simulated clock (a run created, a deploy parsed).
    known_at: datetime = field(default=datetime.min.replace(tzinfo=UTC))
    #: The run of the deployment as written (after) this mark is about, if any.
    run_id: str | None = None
    #: The run of the deployment without the change (before), if any.
    before_run_id: str | None = None
    #: Where the after side is (the run_after of ``run_id``): an arrow points there.
    toward: datetime | None = None

    def text(self, fmt: Formatter = utc_format) -> str:
        """The sentence, ending with the rule id."""
        return f"{self.explain(fmt)} ({self.rule})"

    def title(self) -> str:
        return f"{_KIND_WORDS[self.kind]} · {self.dag_id}"


_KIND_WORDS: dict[str, str] = {
    "skipped": "Skipped",
    "run_twice": "Run twice",
    "shifted": "Shifted",
    "catchup": "Created at the change",
    "added": "New run",
    "removed": "Run no longer made",
    "events_dropped": "Queued events dropped",
    "events_kept": "Queued events kept",
    "stale": "DAG frozen (file removed)",
}


@dataclass(frozen=True, slots=True)
class DeployReport:
    """The changes of a script and the marks they leave, with the diff they come from."""

    changes: tuple[DeployChange, ...]
    marks: tuple[ChangeMark, ...]
    runs: tuple[RunChange, ...] = ()

    def marks_of_run(self, dag_id: str, run_id: str) -> list[ChangeMark]:
        return [m for m in self.marks if m.dag_id == dag_id and m.run_id == run_id]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for mark in self.marks:
            out[mark.kind] += 1
        return dict(out)


def marks_between(marks: Sequence[ChangeMark], until: datetime) -> list[ChangeMark]:
    """The marks already true at ``until`` (the timeline shows what the clock has seen)."""
    return [m for m in marks if m.known_at <= until]


def change_before(
    changes: Sequence[DeployChange], dag_id: str, at: datetime
) -> DeployChange | None:
    """The latest change that touches ``dag_id`` at or before ``at``."""
    found = None
    for change in changes:
        if change.at <= at and change.touches(dag_id):
            found = change
    return found
