"""Pure edits of a scenario: each takes a :class:`Scenario` and returns a new one.

No Qt. Every command of the app (:mod:`explorer.ui.commands`) is one call
here, so what a click does can be tested without a window. Nodes are named by
the graph's stable ids (:mod:`explorer.graph.model`: ``dag:<dag_id>``,
``asset:<name>``, ``alias:<name>``, ``ref:name:<n>``, ``gate:<dag_id>:<path>``),
which are also the keys of the file's ``layout``.

Edits keep the scenario whole: deleting a DAG deletes the script actions that
name it, deleting an asset deletes every reference to it, renaming reaches
every reference, so a saved file reopens. An edit the model cannot take
raises :class:`EditError` whose message is the hint shown to the user.

JSON parts (schedules, outlets) are shared between the old and the new
scenario, and the old one is still on the undo stack: they are copied, never
changed in place.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from explorer.document import conditions
from explorer.graph import alias_node, asset_node, dag_node, gate_node, ref_node
from explorer.scenario import (
    AssetDecl,
    AssetEventAction,
    BackfillAction,
    Clock,
    Dag,
    Duration,
    Instant,
    OverrideAction,
    ParseAction,
    PauseAction,
    RunOutcomeAction,
    Scenario,
    ScriptAction,
    Task,
    TaskOutcomeAction,
    TriggerAction,
    UnpauseAction,
    Watcher,
)
from explorer.scenario.model import AssetDag, DeployAction, RemoveDagAction
from explorer.scenario.values import JsonValue

__all__ = [
    "DEFAULT_TASK_DURATION",
    "EdgeRef",
    "EditError",
    "NodeRef",
    "add_alias",
    "add_asset",
    "add_dag",
    "add_ref",
    "add_task",
    "alias_names",
    "all_leaves",
    "asset_names",
    "check_airflow_id",
    "connect",
    "dag_leaves",
    "leaf_asset_name",
    "leaf_id",
    "map_all_leaves",
    "move_nodes",
    "new_scenario",
    "next_name",
    "parse_node",
    "pending_nodes",
    "remove",
    "remove_task",
    "rename_alias",
    "rename_asset",
    "rename_dag",
    "rename_ref",
    "rename_task",
    "replace_dag",
    "set_asset",
    "set_dag",
    "set_gate_op",
    "set_task",
    "set_watchers",
    "unique_id",
    "wrap_in_gate",
]

DEFAULT_TASK_DURATION = Duration(timedelta(minutes=10), "PT10M")
_AIRFLOW_ID = re.compile(r"[A-Za-z0-9_.-]+\Z")
_PENDING_PREFIXES = ("alias:", "ref:")


class EditError(ValueError):
    """An edit refused; ``str()`` is a hint that tells the user what would work."""


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A graph node id split into its kind and parts."""

    kind: str  # dag, asset, alias, ref, gate
    name: str  # dag_id, asset/alias name, ref value, or the gate's dag_id
    by: str = ""  # for refs: "name" or "uri"
    operands: tuple[int, ...] = ()  # for gates: the operand path, root (0,)

    @property
    def node_id(self) -> str:
        if self.kind == "gate":
            return gate_node(self.name, self.operands)
        if self.kind == "ref":
            return ref_node(**{self.by: self.name})
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True, slots=True)
class EdgeRef:
    """An edge of the canvas: an outlet (``task_id`` set) or a condition input (``operands``)."""

    source: str
    target: str
    task_id: str | None = None  # outlet edges: the writing task
    operands: tuple[int, ...] | None = None  # input edges: the operand's path in the condition


def parse_node(node_id: str) -> NodeRef:
    kind, _, rest = node_id.partition(":")
    if kind == "ref":
        by, _, value = rest.partition(":")
        return NodeRef("ref", value, by=by)
    if kind == "gate":
        dag_id, _, dotted = rest.rpartition(":")
        return NodeRef("gate", dag_id, operands=tuple(int(p) for p in dotted.split(".")))
    return NodeRef(kind, rest)


# ----------------------------------------------------------------------------- names


def unique_id(base: str, taken: Iterable[str]) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is free."""
    used = set(taken)
    if base not in used:
        return base
    n = 2
    while f"{base}_{n}" in used:
        n += 1
    return f"{base}_{n}"


def next_name(prefix: str, taken: Iterable[str]) -> str:
    """``prefix_1``, ``prefix_2``... the first one free (new DAGs, assets, tasks)."""
    used = set(taken)
    n = 1
    while f"{prefix}_{n}" in used:
        n += 1
    return f"{prefix}_{n}"


def check_airflow_id(value: str, what: str) -> None:
    """Airflow's id rule (letters, digits, ``_``, ``.``, ``-``; at most 250)."""
    if not value:
        raise EditError(f"{what} must not be empty")
    if len(value) > 250:
        raise EditError(f"{what} is longer than 250 characters")
    if not _AIRFLOW_ID.match(value):
        raise EditError(f"{what} {value!r} may only use letters, digits, '_', '.' and '-'")


def asset_names(s: Scenario) -> set[str]:
    names = {a.name for a in s.assets}
    for leaf in all_leaves(s):
        name = leaf_asset_name(leaf)
        if name is not None:
            names.add(name)
    return names


def alias_names(s: Scenario) -> set[str]:
    names = {k.removeprefix("alias:") for k in s.layout if k.startswith("alias:")}
    for leaf in all_leaves(s):
        if isinstance(leaf, dict) and isinstance(leaf.get("alias"), dict):
            name = leaf["alias"].get("name")  # type: ignore[union-attr]
            if isinstance(name, str):
                names.add(name)
    return names


# ----------------------------------------------------------------------------- walking


def dag_leaves(dags: Iterable[Dag]) -> Iterable[JsonValue]:
    """Every asset node some DAGs write: conditions, outlets, alias events."""
    for dag in dags:
        for leaf in conditions.leaves(dag.schedule):
            yield leaf.node
        for task in dag.tasks:
            yield from task.outlets
            for event in task.alias_events:
                yield event.asset


def all_leaves(s: Scenario) -> Iterable[JsonValue]:
    """Every asset node the scenario writes: DAGs and the script."""
    yield from dag_leaves(s.dags)
    for action in s.script:
        if isinstance(action, AssetEventAction):
            yield action.asset
        if isinstance(action, TaskOutcomeAction):
            for event in action.alias_events or ():
                yield event.asset


def leaf_asset_name(node: JsonValue) -> str | None:
    """The asset name (its graph id's part) of an ``{"asset": ...}`` node."""
    if not isinstance(node, dict) or "asset" not in node:
        return None
    body = node["asset"]
    if isinstance(body, str):
        return body
    if isinstance(body, dict):
        name, uri = body.get("name"), body.get("uri")
        value = name if isinstance(name, str) else uri
        return value if isinstance(value, str) else None
    return None


def leaf_id(node: JsonValue) -> str | None:
    """The graph node id an asset node of the scenario is drawn as."""
    if not isinstance(node, dict):
        return None
    name = leaf_asset_name(node)
    if name is not None:
        return asset_node(name)
    alias = node.get("alias")
    if isinstance(alias, dict) and isinstance(alias.get("name"), str):
        return alias_node(str(alias["name"]))
    ref = node.get("asset_ref")
    if isinstance(ref, dict) and len(ref) >= 1:
        for by in ("name", "uri"):
            if isinstance(ref.get(by), str):
                return ref_node(**{by: str(ref[by])})
    return None


def _map_script_dag_ids(action: ScriptAction, change: Callable[[str], str]) -> ScriptAction:
    match action:
        case ParseAction():
            if action.dag_ids is None:
                return action
            return dataclasses.replace(action, dag_ids=tuple(change(d) for d in action.dag_ids))
        case (
            PauseAction() | UnpauseAction() | TriggerAction() | BackfillAction() | RemoveDagAction()
        ):
            return dataclasses.replace(action, dag_id=change(action.dag_id))
        case DeployAction():  # the new file of that DAG (DEP-1)
            return dataclasses.replace(
                action, dag=dataclasses.replace(action.dag, dag_id=change(action.dag.dag_id))
            )
        case TaskOutcomeAction() | OverrideAction() | RunOutcomeAction():
            run = dataclasses.replace(action.run, dag_id=change(action.run.dag_id))
            return dataclasses.replace(action, run=run)
    return action


def _script_dag_ids(action: ScriptAction) -> set[str]:
    match action:
        case ParseAction():
            return set(action.dag_ids or ())
        case (
            PauseAction() | UnpauseAction() | TriggerAction() | BackfillAction() | RemoveDagAction()
        ):
            return {action.dag_id}
        case DeployAction():
            return {action.dag.dag_id}
        case TaskOutcomeAction() | OverrideAction() | RunOutcomeAction():
            return {action.run.dag_id}
    return set()


def replace_dag(s: Scenario, dag_id: str, new: Dag) -> Scenario:
    dags = tuple(new if d.dag_id == dag_id else d for d in s.dags)
    return dataclasses.replace(s, dags=dags)


def replace_asset_dag(s: Scenario, dag_id: str, new: AssetDag) -> Scenario:
    """The ``@asset`` entry standing for ``dag_id`` replaced by ``new``."""
    if not any(e.dag_id == dag_id for e in s.asset_dags):
        raise EditError(f"there is no @asset entry {dag_id!r}")
    entries = tuple(new if e.dag_id == dag_id else e for e in s.asset_dags)
    return dataclasses.replace(s, asset_dags=entries)


def _dag(s: Scenario, dag_id: str) -> Dag:
    for dag in s.dags:
        if dag.dag_id == dag_id:
            return dag
    raise EditError(f"there is no DAG {dag_id!r}")


def map_all_leaves(s: Scenario, change: Callable[[JsonValue], JsonValue | None]) -> Scenario:
    """Every asset node of the scenario passed through ``change`` (None: keep it)."""

    def one(node: JsonValue) -> JsonValue:
        new = change(node)
        return node if new is None else new

    def event(e: Any) -> Any:
        new = change(e.asset)
        return e if new is None else dataclasses.replace(e, asset=new)

    dags = []
    for dag in s.dags:
        tasks = tuple(
            dataclasses.replace(
                t,
                outlets=tuple(one(o) for o in t.outlets),
                alias_events=tuple(event(e) for e in t.alias_events),
            )
            for t in dag.tasks
        )
        schedule = conditions.map_leaves(dag.schedule, change)
        dags.append(dataclasses.replace(dag, schedule=schedule, tasks=tasks))
    script: list[ScriptAction] = []
    for action in s.script:
        if isinstance(action, AssetEventAction):
            action = dataclasses.replace(action, asset=one(action.asset))
        elif isinstance(action, TaskOutcomeAction) and action.alias_events:
            action = dataclasses.replace(
                action, alias_events=tuple(event(e) for e in action.alias_events)
            )
        script.append(action)
    return dataclasses.replace(s, dags=tuple(dags), script=tuple(script))


def _rename_layout(
    layout: Mapping[str, tuple[float, float]], change: Callable[[str], str]
) -> dict[str, tuple[float, float]]:
    return {change(k): v for k, v in layout.items()}


def _point(position: tuple[float, float]) -> tuple[float, float]:
    """Positions are stored rounded to whole scene units: files stay small and stable."""
    return (round(position[0]), round(position[1]))


# ----------------------------------------------------------------------------- creation


def new_scenario(start: Instant, name: str = "Untitled scenario") -> Scenario:
    """An empty scenario deployed at ``start``."""
    return Scenario(name=name, clock=Clock(start=start))


def add_dag(
    s: Scenario,
    position: tuple[float, float],
    dag_id: str | None = None,
    *,
    schedule: JsonValue = None,
    tasks: tuple[Task, ...] | None = None,
) -> tuple[Scenario, str]:
    """A new DAG (one task, ``task_1``, 10 minutes, unless given) at ``position``."""
    taken = {d.dag_id for d in s.dags}
    dag_id = dag_id or next_name("dag", taken)
    if dag_id in taken:
        raise EditError(f"a DAG with dag_id {dag_id!r} already exists")
    check_airflow_id(dag_id, "dag_id")
    if tasks is None:
        tasks = (Task(task_id="task_1", duration=DEFAULT_TASK_DURATION),)
    start = s.clock.start
    dag = Dag(dag_id=dag_id, schedule=schedule, start_date=start, tasks=tasks)
    node = dag_node(dag_id)
    layout = {**s.layout, node: _point(position)}
    return dataclasses.replace(s, dags=(*s.dags, dag), layout=layout), node


def add_asset(
    s: Scenario, position: tuple[float, float], name: str | None = None, uri: str | None = None
) -> tuple[Scenario, str]:
    """A new declared asset at ``position``."""
    taken = asset_names(s)
    name = name or next_name("asset", taken)
    if name in taken:
        raise EditError(f"an asset named {name!r} already exists")
    node = asset_node(name)
    layout = {**s.layout, node: _point(position)}
    assets = (*s.assets, AssetDecl(name=name, uri=uri))
    return dataclasses.replace(s, assets=assets, layout=layout), node


def add_alias(
    s: Scenario, position: tuple[float, float], name: str | None = None
) -> tuple[Scenario, str]:
    """A new ``AssetAlias``: only its place, until a task writes through it or a DAG waits on it.

    An alias exists in a scenario only where it is used; the one the user
    has just placed lives in ``layout`` (its key is its node id) until then.
    """
    taken = alias_names(s)
    name = name or next_name("alias", taken)
    if name in taken:
        raise EditError(f"an alias named {name!r} already exists")
    node = alias_node(name)
    return dataclasses.replace(s, layout={**s.layout, node: _point(position)}), node


def add_ref(
    s: Scenario, position: tuple[float, float], *, name: str | None = None, uri: str | None = None
) -> tuple[Scenario, str]:
    """A new ``Asset.ref(name=...)``/``Asset.ref(uri=...)``, placed like an alias until used."""
    if name is None and uri is None:
        taken = {k.removeprefix("ref:name:") for k in s.layout if k.startswith("ref:name:")}
        name = next_name("asset_ref", taken)
    node = ref_node(name=name) if name is not None else ref_node(uri=uri)
    if node in s.layout:
        raise EditError("that Asset.ref is already on the canvas")
    return dataclasses.replace(s, layout={**s.layout, node: _point(position)}), node


def add_task(s: Scenario, dag_id: str, task_id: str | None = None) -> Scenario:
    dag = _dag(s, dag_id)
    taken = {t.task_id for t in dag.tasks}
    task_id = task_id or next_name("task", taken)
    if task_id in taken:
        raise EditError(f"DAG {dag_id!r} already has a task {task_id!r}")
    check_airflow_id(task_id, "task_id")
    task = Task(task_id=task_id, duration=DEFAULT_TASK_DURATION)
    return replace_dag(s, dag_id, dataclasses.replace(dag, tasks=(*dag.tasks, task)))


# ----------------------------------------------------------------------------- connecting


def _node_json(s: Scenario, ref: NodeRef) -> JsonValue:
    """How the scenario writes a reference to this node (an outlet or a condition input)."""
    if ref.kind == "asset":
        if any(a.name == ref.name for a in s.assets):
            return {"asset": ref.name}
        for leaf in all_leaves(s):
            if leaf_asset_name(leaf) == ref.name and isinstance(leaf, dict):
                return copy.deepcopy(leaf)
        return {"asset": ref.name}
    if ref.kind == "alias":
        return {"alias": {"name": ref.name}}
    if ref.kind == "ref":
        return {"asset_ref": {ref.by: ref.name}}
    raise EditError(f"a {ref.kind} is not an asset")


def connect(s: Scenario, source: str, target: str, *, task_id: str | None = None) -> Scenario:
    """The edge ``source -> target`` made in the model, as a drag from a port means it.

    - a task's outlet (``source`` a DAG and ``task_id``) into an asset, alias
      or ``Asset.ref``: the task gains the outlet;
    - an asset, alias or ``Asset.ref`` into a DAG: it joins the DAG's
      schedule (see :func:`explorer.document.conditions.add_input`);
    - into a gate: it joins that gate.
    Anything else is refused with a hint.
    """
    src, dst = parse_node(source), parse_node(target)
    if src.kind == "dag":
        return _connect_outlet(s, src.name, task_id, dst)
    if src.kind in ("asset", "alias", "ref"):
        return _connect_input(s, src, dst)
    if src.kind == "gate":
        raise EditError(
            "a gate belongs to its consumer's condition: drag assets into the gate instead"
        )
    raise EditError(f"nothing can be connected from a {src.kind}")


def _connect_outlet(s: Scenario, dag_id: str, task_id: str | None, dst: NodeRef) -> Scenario:
    if dst.kind not in ("asset", "alias", "ref"):
        what = "a DAG" if dst.kind == "dag" else f"a {dst.kind}"
        raise EditError(
            f"a task's outlet goes into an asset, an alias or an Asset.ref, not {what}; "
            "to schedule a DAG on an asset, drag from the asset into the DAG"
        )
    dag = _dag(s, dag_id)
    if task_id is None:
        if len(dag.tasks) != 1:
            raise EditError(
                f"DAG {dag_id!r} has {len(dag.tasks)} tasks: drag from the port of the task "
                "that writes the asset"
            )
        task_id = dag.tasks[0].task_id
    task = next((t for t in dag.tasks if t.task_id == task_id), None)
    if task is None:
        raise EditError(f"DAG {dag_id!r} has no task {task_id!r}")
    if any(leaf_id(o) == dst.node_id for o in task.outlets):
        raise EditError(f"{task_id} already writes {dst.name}")
    new_task = dataclasses.replace(task, outlets=(*task.outlets, _node_json(s, dst)))
    return set_task(s, dag_id, task_id, new_task)


def _connect_input(s: Scenario, src: NodeRef, dst: NodeRef) -> Scenario:
    node = _node_json(s, src)
    if dst.kind == "dag":
        dag = _dag(s, dst.name)
        if any(leaf_id(leaf.node) == src.node_id for leaf in _root_inputs(dag.schedule)):
            raise EditError(f"{dst.name} already waits on {src.name}")
        schedule = conditions.add_input(dag.schedule, node)
        return replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule=schedule))
    if dst.kind == "gate":
        dag = _dag(s, dst.name)
        gate = conditions.part_at(dag.schedule, dst.operands)
        if not isinstance(gate, conditions.Gate):
            raise EditError("that gate is no longer in the condition")
        if any(
            isinstance(c, conditions.Leaf) and leaf_id(c.node) == src.node_id for c in gate.children
        ):
            raise EditError(f"this gate already has {src.name} as an input")
        schedule = conditions.add_input(dag.schedule, node, gate.path)
        return replace_dag(s, dag.dag_id, dataclasses.replace(dag, schedule=schedule))
    if dst.kind in ("asset", "alias", "ref"):
        raise EditError(
            "assets do not feed assets: connect an asset into a DAG (its schedule) or a "
            "condition gate; a task's outlet port writes an asset"
        )
    raise EditError(f"nothing can be connected into a {dst.kind}")


def _root_inputs(schedule: JsonValue) -> list[conditions.Leaf]:
    """The leaves directly under the condition's root (or the root leaf itself)."""
    root = conditions.tree(schedule)
    if root is None:
        return []
    if isinstance(root, conditions.Leaf):
        return [root]
    return [c for c in root.children if isinstance(c, conditions.Leaf)]


# ----------------------------------------------------------------------------- removing


def remove(s: Scenario, nodes: Iterable[str] = (), edges: Iterable[EdgeRef] = ()) -> Scenario:
    """Nodes and edges removed together, with everything that refers to them."""
    node_refs = [parse_node(n) for n in nodes]
    gone_dags = {r.name for r in node_refs if r.kind == "dag"}
    gone_leaves = {r.node_id for r in node_refs if r.kind in ("asset", "alias", "ref")}
    # An ``@asset`` DAG goes with its entry; the asset only that entry declared goes
    # too, so no consumer is left naming an asset that no longer exists.
    declared = {a.name for a in s.assets}
    for entry in s.asset_dags:
        if entry.dag_id in gone_dags and entry.multi is None and entry.name not in declared:
            gone_leaves.add(asset_node(entry.dag_id))
    parts: dict[str, list[tuple[int, ...]]] = {}
    for r in node_refs:
        if r.kind == "gate":
            parts.setdefault(r.name, []).append(r.operands)
    outlets: set[tuple[str, str, str]] = set()
    for e in edges:
        if e.task_id is not None:
            outlets.add((parse_node(e.source).name, e.task_id, e.target))
        elif e.operands is not None:
            parts.setdefault(parse_node(e.target).name, []).append(e.operands)

    def doomed_leaf(node: JsonValue) -> bool:
        return leaf_id(node) in gone_leaves

    dags: list[Dag] = []
    for dag in s.dags:
        if dag.dag_id in gone_dags:
            continue
        schedule = conditions.remove_parts(dag.schedule, parts.get(dag.dag_id, []))
        schedule = conditions.remove_leaves(schedule, doomed_leaf)
        tasks = tuple(
            dataclasses.replace(
                t,
                outlets=tuple(
                    o
                    for o in t.outlets
                    if not doomed_leaf(o) and (dag.dag_id, t.task_id, leaf_id(o)) not in outlets
                ),
                inlets=tuple(i for i in t.inlets if not doomed_leaf(i)),
                alias_events=tuple(
                    e
                    for e in t.alias_events
                    if alias_node(e.alias) not in gone_leaves and not doomed_leaf(e.asset)
                ),
            )
            for t in dag.tasks
        )
        dags.append(dataclasses.replace(dag, schedule=schedule, tasks=tasks))
    script = tuple(
        a
        for a in s.script
        if not (_script_dag_ids(a) & gone_dags)
        and not (isinstance(a, AssetEventAction) and doomed_leaf(a.asset))
    )
    assets = tuple(a for a in s.assets if asset_node(a.name) not in gone_leaves)
    layout = {
        k: v
        for k, v in s.layout.items()
        if k not in gone_leaves
        and not any(k == dag_node(d) or k.startswith(f"gate:{d}:") for d in gone_dags)
    }
    asset_dags = tuple(
        dataclasses.replace(e, schedule=conditions.remove_leaves(e.schedule, doomed_leaf))
        for e in s.asset_dags
        if e.dag_id not in gone_dags
    )
    out = dataclasses.replace(
        s, dags=tuple(dags), script=script, assets=assets, layout=layout, asset_dags=asset_dags
    )
    return _drop_stale_gates(out, s)


def _drop_stale_gates(new: Scenario, old: Scenario) -> Scenario:
    """Forget the places of gates that no longer exist (their ids would mean another gate)."""
    alive = {
        gate_node(d.dag_id, g.operands) for d in new.dags for g in conditions.gates(d.schedule)
    }
    layout = {k: v for k, v in new.layout.items() if not k.startswith("gate:") or k in alive}
    if len(layout) == len(new.layout):
        return new
    return dataclasses.replace(new, layout=layout)


def remove_task(s: Scenario, dag_id: str, task_id: str) -> Scenario:
    dag = _dag(s, dag_id)
    tasks = tuple(t for t in dag.tasks if t.task_id != task_id)
    script = tuple(
        a
        for a in s.script
        if not (
            isinstance(a, TaskOutcomeAction | OverrideAction)
            and a.run.dag_id == dag_id
            and a.task_id == task_id
        )
    )
    return dataclasses.replace(
        replace_dag(s, dag_id, dataclasses.replace(dag, tasks=tasks)), script=script
    )


# ----------------------------------------------------------------------------- renaming


def rename_dag(s: Scenario, old: str, new: str) -> Scenario:
    """``dag_id`` changed everywhere: the DAG, the script, the layout."""
    if old == new:
        return s
    check_airflow_id(new, "dag_id")
    if any(d.dag_id == new for d in s.dags):
        raise EditError(f"a DAG with dag_id {new!r} already exists")
    dag = _dag(s, old)
    change = lambda d: new if d == old else d  # noqa: E731
    script = tuple(_map_script_dag_ids(a, change) for a in s.script)

    def key(k: str) -> str:
        if k == dag_node(old):
            return dag_node(new)
        if k.startswith(f"gate:{old}:"):
            return f"gate:{new}:" + k.removeprefix(f"gate:{old}:")
        return k

    out = replace_dag(s, old, dataclasses.replace(dag, dag_id=new))
    return dataclasses.replace(out, script=script, layout=_rename_layout(s.layout, key))


def rename_task(s: Scenario, dag_id: str, old: str, new: str) -> Scenario:
    if old == new:
        return s
    check_airflow_id(new, "task_id")
    dag = _dag(s, dag_id)
    if any(t.task_id == new for t in dag.tasks):
        raise EditError(f"DAG {dag_id!r} already has a task {new!r}")
    tasks = tuple(dataclasses.replace(t, task_id=new) if t.task_id == old else t for t in dag.tasks)
    script = tuple(
        dataclasses.replace(a, task_id=new)
        if isinstance(a, TaskOutcomeAction | OverrideAction)
        and a.run.dag_id == dag_id
        and a.task_id == old
        else a
        for a in s.script
    )
    out = replace_dag(s, dag_id, dataclasses.replace(dag, tasks=tasks))
    return dataclasses.replace(out, script=script)


def rename_asset(s: Scenario, old: str, new: str) -> Scenario:
    """An asset's name changed in its declaration and every reference.

    A declared asset is referred to by name (``{"asset": "orders"}``); an
    asset written out in place (``{"asset": {"name": ...}}``) is rewritten
    where it is written, keeping its URI (which defaulted to the old name,
    URI-1, if it had none).
    """
    if old == new:
        return s
    if not new:
        raise EditError("an asset needs a name")
    if new in asset_names(s):
        raise EditError(f"an asset named {new!r} already exists")

    def change(node: JsonValue) -> JsonValue | None:
        if leaf_asset_name(node) != old or not isinstance(node, dict):
            return None
        body = node["asset"]
        if isinstance(body, str):
            return {**node, "asset": new}
        assert isinstance(body, dict)
        uri = body.get("uri", body.get("name"))
        return {**node, "asset": {**body, "name": new, "uri": uri}}

    out = map_all_leaves(s, change)
    assets = tuple(dataclasses.replace(a, name=new) if a.name == old else a for a in s.assets)
    layout = _rename_layout(s.layout, lambda k: asset_node(new) if k == asset_node(old) else k)
    return dataclasses.replace(out, assets=assets, layout=layout)


def rename_alias(s: Scenario, old: str, new: str) -> Scenario:
    if old == new:
        return s
    if not new:
        raise EditError("an alias needs a name")
    if new in alias_names(s):
        raise EditError(f"an alias named {new!r} already exists")

    def change(node: JsonValue) -> JsonValue | None:
        if isinstance(node, dict) and isinstance(node.get("alias"), dict):
            body = node["alias"]
            assert isinstance(body, dict)
            if body.get("name") == old:
                return {**node, "alias": {**body, "name": new}}
        return None

    out = map_all_leaves(s, change)
    dags = tuple(
        dataclasses.replace(
            d,
            tasks=tuple(
                dataclasses.replace(
                    t,
                    alias_events=tuple(
                        dataclasses.replace(e, alias=new) if e.alias == old else e
                        for e in t.alias_events
                    ),
                )
                for t in d.tasks
            ),
        )
        for d in out.dags
    )
    layout = _rename_layout(s.layout, lambda k: alias_node(new) if k == alias_node(old) else k)
    return dataclasses.replace(out, dags=dags, layout=layout)


# ----------------------------------------------------------------------------- fields


def set_dag(s: Scenario, dag_id: str, **changes: Any) -> Scenario:
    """Fields of one DAG replaced (``schedule``, ``catchup``, ``max_active_runs``...)."""
    if "dag_id" in changes:
        raise EditError("use rename_dag to change a dag_id")
    dag = _dag(s, dag_id)
    return replace_dag(s, dag_id, dataclasses.replace(dag, **changes))


def set_task(s: Scenario, dag_id: str, task_id: str, task: Task) -> Scenario:
    dag = _dag(s, dag_id)
    if not any(t.task_id == task_id for t in dag.tasks):
        raise EditError(f"DAG {dag_id!r} has no task {task_id!r}")
    tasks = tuple(task if t.task_id == task_id else t for t in dag.tasks)
    return replace_dag(s, dag_id, dataclasses.replace(dag, tasks=tasks))


def set_asset(s: Scenario, name: str, *, uri: str | None) -> Scenario:
    """An asset's URI changed where it is declared, or wherever it is written out."""
    if any(a.name == name for a in s.assets):
        assets = tuple(dataclasses.replace(a, uri=uri) if a.name == name else a for a in s.assets)
        return dataclasses.replace(s, assets=assets)

    def change(node: JsonValue) -> JsonValue | None:
        if leaf_asset_name(node) != name or not isinstance(node, dict):
            return None
        body = node["asset"]
        if not isinstance(body, dict):
            return None
        new_body = {**body, "name": name}
        if uri is None:
            new_body.pop("uri", None)
        else:
            new_body["uri"] = uri
        return {**node, "asset": new_body}

    return map_all_leaves(s, change)


def set_watchers(s: Scenario, name: str, watchers: tuple[Watcher, ...]) -> Scenario:
    """A declared asset's AssetWatchers replaced (names unique on the asset)."""
    decl = next((a for a in s.assets if a.name == name), None)
    if decl is None:
        raise EditError(
            f"asset {name!r} is written inline in a DAG: a watcher needs a declared asset "
            "(declare it in the scenario's assets)"
        )
    names = [w.name for w in watchers]
    if len(set(names)) != len(names):
        raise EditError("two watchers of one asset cannot share a name")
    assets = tuple(
        dataclasses.replace(a, watchers=watchers) if a.name == name else a for a in s.assets
    )
    return dataclasses.replace(s, assets=assets)


def set_gate_op(s: Scenario, gate: str, op: str) -> Scenario:
    """A gate made an AND (``all``) or an OR (``any``); its id and place stay."""
    ref = parse_node(gate)
    dag = _dag(s, ref.name)
    part = conditions.part_at(dag.schedule, ref.operands)
    if not isinstance(part, conditions.Gate):
        raise EditError("that gate is no longer in the condition")
    if op not in ("all", "any"):
        raise EditError(f"a gate is 'all' (AND) or 'any' (OR), not {op!r}")
    schedule = conditions.set_gate_kind(dag.schedule, part.path, op)  # type: ignore[arg-type]
    return set_dag(s, dag.dag_id, schedule=schedule)


def wrap_in_gate(s: Scenario, dag_id: str, operands: tuple[int, ...], op: str) -> Scenario:
    """The condition part at ``operands`` put into a new AND/OR gate (how nesting is made)."""
    dag = _dag(s, dag_id)
    part = conditions.part_at(dag.schedule, operands)
    if part is None:
        raise EditError(f"DAG {dag_id!r} has no condition to group")
    if op not in ("all", "any"):
        raise EditError(f"a gate is 'all' (AND) or 'any' (OR), not {op!r}")
    schedule = conditions.wrap_in_gate(dag.schedule, part.path, op)  # type: ignore[arg-type]
    # The part moved one level down: so did the gates inside it, and their places.
    old_prefix = gate_node(dag_id, operands)
    new_prefix = gate_node(dag_id, (*operands, 0))

    def key(k: str) -> str:
        if k == old_prefix or k.startswith(old_prefix + "."):
            return new_prefix + k.removeprefix(old_prefix)
        return k

    out = set_dag(s, dag_id, schedule=schedule)
    return dataclasses.replace(out, layout=_rename_layout(s.layout, key))


def rename_ref(s: Scenario, node: str, by: str, value: str) -> Scenario:
    """An ``Asset.ref`` pointed at another name or URI, everywhere it is written."""
    old = parse_node(node)
    if by not in ("name", "uri"):
        raise EditError("Asset.ref takes a name or a uri")
    if not value:
        raise EditError(f"Asset.ref needs a non-empty {by}")
    new_id = ref_node(**{by: value})
    if new_id == node:
        return s

    def change(leaf: JsonValue) -> JsonValue | None:
        if leaf_id(leaf) == node and isinstance(leaf, dict):
            return {**leaf, "asset_ref": {by: value}}
        return None

    out = map_all_leaves(s, change)
    layout = _rename_layout(s.layout, lambda k: new_id if k == old.node_id else k)
    return dataclasses.replace(out, layout=layout)


def move_nodes(s: Scenario, positions: Mapping[str, tuple[float, float]]) -> Scenario:
    """Nodes placed at new positions (a drag, a nudge, a layout)."""
    layout = dict(s.layout)
    for node, xy in positions.items():
        layout[node] = _point(xy)
    if layout == s.layout:
        return s
    return dataclasses.replace(s, layout=layout)


def pending_nodes(s: Scenario) -> list[str]:
    """Aliases and ``Asset.ref`` nodes placed by the user (they live in ``layout`` until used)."""
    return [k for k in s.layout if k.startswith(_PENDING_PREFIXES)]
