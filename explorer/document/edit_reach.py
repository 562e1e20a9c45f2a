"""How far back in simulated time an edit of the scenario can reach.

An edit answers instantly only if the GUI re-simulates no more than the edit
can change. Three kinds of edit:

* a *layout* edit (a node moved, a layout applied, the description, import
  provenance) changes nothing the engine reads: the simulation is kept as it is;
* a *view* edit (``clock.until``, the alerts' tuning, expectations, the name)
  changes what the panes show, not the record: the simulation is kept, the
  panes redraw;
* any other edit changes the record from some instant on: :func:`engine_reach`
  gives the first instant it can affect, and the session continues from the
  old simulation's checkpoint before it
  (:meth:`~explorer.engine.simulation.Simulation.adopt`).

Being conservative is always correct (an earlier instant only costs time); a
field this module does not know about counts as a change from clock.start.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from explorer.engine import actions as act
from explorer.scenario.build import EngineInputs
from explorer.scenario.model import Scenario

__all__ = ["EngineReach", "edit_kind", "engine_reach", "moved_only"]

#: Scenario fields the engine never reads and no pane shows from the record.
_LAYOUT_FIELDS = frozenset({"layout", "description", "import_info"})
#: Scenario fields that change what panes show, not the simulation.
_VIEW_FIELDS = frozenset({"name", "alerts", "expectations"})
#: Scenario fields whose difference :func:`engine_reach` locates in time.
_LOCATED_FIELDS = frozenset({"dags", "script", "clock"})


def _differing(old: Scenario, new: Scenario) -> set[str]:
    return {
        f.name
        for f in dataclasses.fields(Scenario)
        if getattr(old, f.name) is not getattr(new, f.name)
        and getattr(old, f.name) != getattr(new, f.name)
    }


def edit_kind(old: Scenario, new: Scenario) -> str:
    """``"none"``, ``"layout"``, ``"view"`` or ``"engine"`` (see the module docstring).

    Cheap on purpose (a node drag asks it on every move): fields are compared
    by identity first, and an edit shares every field it does not change.
    """
    if old is new:
        return "none"
    fields = _differing(old, new)
    if not fields:
        return "none"
    if fields <= _LAYOUT_FIELDS:
        return "layout"
    if "clock" in fields and dataclasses.replace(old.clock, until=new.clock.until) == new.clock:
        fields.discard("clock")  # only the horizon moved
        fields.add("until")
    if fields <= _LAYOUT_FIELDS | _VIEW_FIELDS | {"until"}:
        return "view"
    return "engine"


def moved_only(old: Scenario, new: Scenario) -> bool:
    """Only node positions differ (a drag, a layout): what is drawn stays, only where."""
    return old is not new and _differing(old, new) == {"layout"}


@dataclass(frozen=True, slots=True)
class EngineReach:
    """From which instant an edit can change the record, and which DAGs' specs it changed.

    ``since`` None: from clock.start (nothing of the old simulation can be kept).
    """

    since: datetime | None
    changed_dags: tuple[str, ...] = ()


def engine_reach(
    old: Scenario,
    new: Scenario,
    old_inputs: EngineInputs,
    new_inputs: EngineInputs,
    old_script: Sequence[act.Action],
    new_script: Sequence[act.Action],
) -> EngineReach:
    """The first instant ``new`` can simulate differently from ``old``.

    ``old_script`` and ``new_script`` are the engines' scripts (the first
    deployment included). A script edit reaches back to the first action that
    differs; a DAG edit to the DAG's first parse (before it, the scheduler
    never reads the DAG). Anything else (scheduler settings, assets,
    ``@asset`` definitions, the seed, clock.start, DAGs added, removed or
    reordered) reaches clock.start.
    """
    full = EngineReach(None)
    fields = _differing(old, new) - _LAYOUT_FIELDS - _VIEW_FIELDS
    if not fields <= _LOCATED_FIELDS:
        return full
    if old.clock.start != new.clock.start or old_inputs.start != new_inputs.start:
        return full
    same = ("loop_interval", "parse_interval", "declared_assets", "watchers", "seed")
    if any(getattr(old_inputs, name) != getattr(new_inputs, name) for name in same):
        return full
    if [d.dag_id for d in old_inputs.dags] != [d.dag_id for d in new_inputs.dags]:
        return full
    if [d.dag_id for d in old.dags] != [d.dag_id for d in new.dags]:
        return full
    changed = tuple(a.dag_id for a, b in zip(old.dags, new.dags, strict=True) if a != b)
    since = _first_difference(old_script, new_script)
    for dag_id in changed:
        for script in (old_script, new_script):
            parse = _first_parse(script, dag_id)
            if parse is None:
                return full  # never parsed in one of them: be safe
            since = parse if since is None else min(since, parse)
    if since is None or since <= new_inputs.start:
        return full
    return EngineReach(since, changed)


def _first_difference(old: Sequence[act.Action], new: Sequence[act.Action]) -> datetime | None:
    """The instant of the first action that differs between two sorted scripts."""
    for a, b in zip(old, new, strict=False):
        if a != b:
            return min(a.at, b.at)
    if len(old) != len(new):
        longer = old if len(old) > len(new) else new
        return longer[min(len(old), len(new))].at
    return None


def _first_parse(script: Sequence[act.Action], dag_id: str) -> datetime | None:
    return next(
        (
            a.at
            for a in script
            if isinstance(a, act.Deploy) and (a.dag_ids is None or dag_id in a.dag_ids)
        ),
        None,
    )
