"""Asset conditions inside a DAG's ``schedule``, as trees the canvas can draw and edit.

No Qt. A condition is kept in the scenario as Airflow's JSON (``{"all": [...]}``,
``{"any": [...]}``, asset nodes, a bare list meaning all); this module reads it
into gates and leaves addressed by *paths* (steps from the ``schedule`` value
down to the part) and returns edited copies. It never mutates its input: the
old schedule is still held by the undo stack.

A condition lives at the schedule's root, or under ``args.assets`` of
``AssetOrTimeSchedule`` and ``PartitionedAssetTimetable`` (Airflow's two
timetables that hold one).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from explorer.scenario.values import JsonValue

__all__ = [
    "ASSET_HOLDING_TIMETABLES",
    "Gate",
    "Leaf",
    "Path",
    "add_input",
    "condition_root",
    "find_gate",
    "gates",
    "get_at",
    "is_condition",
    "leaf_kind",
    "leaves",
    "map_leaves",
    "part_at",
    "read_condition",
    "remove_at",
    "remove_leaves",
    "remove_parts",
    "set_gate_kind",
    "tree",
    "wrap_in_gate",
]

#: Steps (object keys and list indexes) from a ``schedule`` value down to a part of it.
Path = tuple[str | int, ...]
GateKind = Literal["all", "any"]
LeafKind = Literal["asset", "asset_ref", "alias"]

#: Airflow timetables whose ``assets`` argument holds a condition.
ASSET_HOLDING_TIMETABLES = ("AssetOrTimeSchedule", "PartitionedAssetTimetable")
_LEAF_KEYS: tuple[LeafKind, ...] = ("asset", "asset_ref", "alias")


@dataclass(frozen=True, slots=True)
class Leaf:
    """An asset node of a condition: ``{"asset": ...}``, ``{"asset_ref": ...}`` or an alias."""

    path: Path
    kind: LeafKind
    node: JsonValue
    #: Operand indexes from the root (the root is ``(0,)``): the graph's gate-id scheme.
    operands: tuple[int, ...] = (0,)


@dataclass(frozen=True, slots=True)
class Gate:
    """``{"all": [...]}`` / ``{"any": [...]}``; ``bare`` for a list (Airflow reads it as all)."""

    path: Path
    kind: GateKind
    children: tuple[Gate | Leaf, ...]
    bare: bool = False
    #: Operand indexes from the root (the root is ``(0,)``): ``explorer.graph.gate_node``'s path.
    operands: tuple[int, ...] = (0,)

    @property
    def list_path(self) -> Path:
        """Where the children list is (the gate itself for a bare list)."""
        return self.path if self.bare else (*self.path, self.kind)


Node = Gate | Leaf


def is_condition(value: JsonValue) -> bool:
    """True for the JSON forms that are a condition (not a cron, delta or timetable)."""
    if isinstance(value, list):
        return True
    return (
        isinstance(value, dict)
        and len([k for k in value if not k.startswith("x-")]) == 1
        and any(k in value for k in (*_LEAF_KEYS, "all", "any"))
    )


def leaf_kind(value: JsonValue) -> LeafKind | None:
    if isinstance(value, dict):
        for key in _LEAF_KEYS:
            if key in value:
                return key
    return None


def condition_root(schedule: JsonValue) -> Path | None:
    """Where the condition of ``schedule`` is, or None if it has none."""
    if is_condition(schedule):
        return ()
    if (
        isinstance(schedule, dict)
        and schedule.get("timetable") in ASSET_HOLDING_TIMETABLES
        and isinstance(schedule.get("args"), dict)
        and "assets" in schedule["args"]  # type: ignore[operator]
    ):
        return ("args", "assets")
    return None


def get_at(value: JsonValue, path: Path) -> JsonValue:
    node = value
    for step in path:
        node = node[step]  # type: ignore[index]
    return node


def _set_at(value: JsonValue, path: Path, new: JsonValue) -> JsonValue:
    """A copy of ``value`` with the part at ``path`` replaced by ``new``."""
    if not path:
        return copy.deepcopy(new)
    out = copy.deepcopy(value)
    parent = get_at(out, path[:-1])
    parent[path[-1]] = copy.deepcopy(new)  # type: ignore[index]
    return out


def read_condition(value: JsonValue, path: Path = (), operands: tuple[int, ...] = (0,)) -> Node:
    """The tree of the condition ``value`` found at ``path``."""
    if isinstance(value, list):
        children = tuple(read_condition(v, (*path, i), (*operands, i)) for i, v in enumerate(value))
        return Gate(path, "all", children, bare=True, operands=operands)
    kind = leaf_kind(value)
    if kind is not None:
        return Leaf(path, kind, value, operands)
    assert isinstance(value, dict)
    gate: GateKind = "all" if "all" in value else "any"
    body = value[gate]
    assert isinstance(body, list)
    children = tuple(
        read_condition(v, (*path, gate, i), (*operands, i)) for i, v in enumerate(body)
    )
    return Gate(path, gate, children, operands=operands)


def tree(schedule: JsonValue) -> Node | None:
    """The condition of a schedule as a tree (paths from the schedule), or None."""
    root = condition_root(schedule)
    if root is None:
        return None
    return read_condition(get_at(schedule, root), root)


def leaves(schedule: JsonValue) -> Iterator[Leaf]:
    node = tree(schedule)
    if node is not None:
        yield from _leaves(node)


def _leaves(node: Node) -> Iterator[Leaf]:
    if isinstance(node, Leaf):
        yield node
    else:
        for child in node.children:
            yield from _leaves(child)


def find_gate(schedule: JsonValue, path: Path) -> Gate | None:
    """The gate whose JSON path is ``path``."""
    node = tree(schedule)
    found = [g for g in _gates(node) if g.path == path] if node is not None else []
    return found[0] if found else None


def part_at(schedule: JsonValue, operands: tuple[int, ...]) -> Node | None:
    """The gate or leaf at operand path ``operands`` (``(0,)``: the root), or None."""
    node = tree(schedule)
    if node is None or not operands or operands[0] != 0:
        return None
    for index in operands[1:]:
        if not isinstance(node, Gate) or not 0 <= index < len(node.children):
            return None
        node = node.children[index]
    return node


def gates(schedule: JsonValue) -> list[Gate]:
    node = tree(schedule)
    return list(_gates(node)) if node is not None else []


def _gates(node: Node) -> Iterator[Gate]:
    if isinstance(node, Gate):
        yield node
        for child in node.children:
            yield from _gates(child)


def add_input(schedule: JsonValue, node: JsonValue, gate: Path | None = None) -> JsonValue:
    """``schedule`` with the asset node ``node`` added as an input.

    Into the gate at ``gate`` if given; else, as a user connecting an asset to
    a DAG means it: no schedule becomes the asset; a single asset becomes an
    AND of both (Airflow's ``[a, b]``); a gate at the root gains an input; a
    time-based schedule becomes ``AssetOrTimeSchedule`` (runs on its time
    schedule *or* when the assets update), and a timetable already holding a
    condition gains the input in its condition.
    """
    if gate is not None:
        target = find_gate(schedule, gate)
        if target is None:
            raise KeyError(f"no gate at {gate!r}")
        items = get_at(schedule, target.list_path)
        assert isinstance(items, list)
        return _set_at(schedule, target.list_path, [*items, node])
    root = condition_root(schedule)
    if schedule is None:
        return copy.deepcopy(node)
    if root is None:
        return {
            "timetable": "AssetOrTimeSchedule",
            "args": {"timetable": _as_timetable(schedule), "assets": copy.deepcopy(node)},
        }
    current = read_condition(get_at(schedule, root), root)
    if isinstance(current, Gate):
        return add_input(schedule, node, current.path)
    return _set_at(schedule, root, {"all": [get_at(schedule, root), node]})


def _as_timetable(schedule: JsonValue) -> JsonValue:
    """A time-based schedule spelled as the timetable object AssetOrTimeSchedule needs."""
    if isinstance(schedule, dict) and "timetable" in schedule:
        return copy.deepcopy(schedule)
    if isinstance(schedule, dict) and "timedelta" in schedule:
        return {"timetable": "DeltaTriggerTimetable", "args": {"delta": schedule["timedelta"]}}
    if isinstance(schedule, dict) and "relativedelta" in schedule:
        return {"timetable": "DeltaTriggerTimetable", "args": {"delta": copy.deepcopy(schedule)}}
    if schedule == "@once":
        return {"timetable": "OnceTimetable"}
    if schedule == "@continuous":
        return {"timetable": "ContinuousTimetable"}
    return {"timetable": "CronTriggerTimetable", "args": {"cron": schedule}}


def remove_at(schedule: JsonValue, path: Path) -> JsonValue:
    """``schedule`` without the part at ``path``; gates left empty go too.

    Removing the whole condition leaves no schedule (``None``) or, for
    ``AssetOrTimeSchedule``, its time-based timetable alone.
    """
    root = condition_root(schedule)
    if root is None or path[: len(root)] != root:
        raise KeyError(f"no condition part at {path!r}")
    if path == root:
        if (
            root
            and isinstance(schedule, dict)
            and schedule.get("timetable") == "AssetOrTimeSchedule"
        ):
            args = schedule["args"]
            assert isinstance(args, dict)
            return copy.deepcopy(args["timetable"])
        return None
    parent_path, index = path[:-1], path[-1]
    items = get_at(schedule, parent_path)
    assert isinstance(items, list) and isinstance(index, int)
    rest = [item for i, item in enumerate(items) if i != index]
    if rest:
        return _set_at(schedule, parent_path, rest)
    # The list is empty: drop its gate (a bare list is the gate itself).
    gate_path = parent_path if parent_path == root else parent_path[:-1]
    return remove_at(schedule, gate_path)


def set_gate_kind(schedule: JsonValue, path: Path, kind: GateKind) -> JsonValue:
    """The gate at ``path`` turned into an AND (``all``) or an OR (``any``)."""
    gate = find_gate(schedule, path)
    if gate is None:
        raise KeyError(f"no gate at {path!r}")
    if gate.kind == kind and not gate.bare:
        return copy.deepcopy(schedule)
    items = get_at(schedule, gate.list_path)
    return _set_at(schedule, path, {kind: copy.deepcopy(items)})


def wrap_in_gate(schedule: JsonValue, path: Path, kind: GateKind) -> JsonValue:
    """The part at ``path`` put inside a new gate of its own (to nest AND/OR)."""
    part = get_at(schedule, path)
    return _set_at(schedule, path, {kind: [copy.deepcopy(part)]})


def map_leaves(schedule: JsonValue, change: Callable[[JsonValue], JsonValue | None]) -> JsonValue:
    """``schedule`` with each leaf for which ``change`` returns a node replaced by it.

    Renames use it: a rename must reach every reference, at any depth.
    """
    out = schedule
    for leaf in list(leaves(schedule)):
        new = change(leaf.node)
        if new is not None:
            out = _set_at(out, leaf.path, new)
    return out


def remove_parts(schedule: JsonValue, operand_paths: list[tuple[int, ...]]) -> JsonValue:
    """``schedule`` without the parts at several operand paths (one edit, any order given).

    Later operands go first, so removing one never shifts the path of one
    still to remove; a part inside another one already removed is skipped.
    """
    out = schedule
    done: list[tuple[int, ...]] = []
    for operands in sorted(set(operand_paths), reverse=True):
        if any(operands[: len(d)] == d for d in done):
            continue
        part = part_at(out, operands)
        if part is not None:
            out = remove_at(out, part.path)
            done.append(operands)
    return out


def remove_leaves(schedule: JsonValue, doomed: Callable[[JsonValue], bool]) -> JsonValue:
    """``schedule`` without every leaf for which ``doomed(node)`` is true."""
    return remove_parts(schedule, [leaf.operands for leaf in leaves(schedule) if doomed(leaf.node)])
