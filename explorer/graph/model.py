"""A scenario as a directed graph of DAGs, tasks, assets and condition gates.

:func:`scenario_graph` reads a :class:`~explorer.scenario.model.Scenario`,
valid or not (the GUI rebuilds the graph while the user edits), into a
``networkx.DiGraph``. Nothing here raises on a bad scenario: whatever cannot
be read becomes a node of kind ``"unresolved"`` and the problem is kept in
its ``problems``; the validator (``explorer.scenario.checks``) remains the
judge of what the engine accepts. Conditions are therefore walked here, not
read with ``condition_from_spec`` (which refuses a whole condition for one
bad leaf and keeps no positions); asset identities still come from the
engine's ``asset_key`` (Airflow's defaults and URI rules, URI-1 .. URI-4).

Node ids are strings that stay the same from one build to the next, so the
GUI and the file's ``layout`` can key positions by them:

=====================================  ==========================================
``dag:<dag_id>``                       a DAG
``task:<dag_id>.<task_id>``            a task (not made when ``fold_tasks=True``)
``asset:<name>``                       an asset, declared or written inline (its
                                       name defaults to its URI, URI-1)
``alias:<name>``                       an ``AssetAlias``
``ref:name:<name>``, ``ref:uri:<uri>`` an ``Asset.ref(...)``
``gate:<dag_id>:<path>``               an ``all``/``any`` of a DAG's condition
``unresolved:<scope>:<where>``         something that cannot be read
=====================================  ==========================================

A gate's ``<path>`` is its position in the condition tree: the root is
``0`` and operand ``i`` of gate ``p`` is ``p.i``. A bare list and
``{"all": [...]}`` are the same gate, and the operator key is not part of the
path, so switching a gate between ``all`` and ``any`` keeps its id (and its
place on the canvas). The condition of ``AssetOrTimeSchedule`` and
``PartitionedAssetTimetable`` is their ``args.assets``; its root is ``0`` too.
``unresolved`` ids name where the thing is written: ``<scope>`` is
``dag:<dag_id>`` (its schedule; ``<where>`` a gate path) or
``task:<dag_id>.<task_id>`` (``<where>`` e.g. ``outlets.1``). An asset named
``{"asset": "<name>"}`` but not declared keeps the id ``asset:<name>`` with
kind ``unresolved``, so that declaring it later keeps its place.

Tasks are nodes by default because outlets, outcomes and overrides are per
task in a scenario; ``fold_tasks=True`` draws Airflow's coarser asset graph
instead (DAG -> asset, the writing task ids in the edge's ``tasks``). A dag
id and a task id that both contain dots can in principle give one task id
to two tasks (``a.b`` + ``c`` and ``a`` + ``b.c``); they then share a node.

Node attributes: ``kind`` (:data:`NodeKind`), ``label``, ``problems`` (a
tuple of messages, empty when none) and, by kind: ``dag``: ``dag_id``,
``schedule_kind`` (:func:`schedule_kind`), ``tasks`` (task ids), ``tags`` and
``file`` (the source file an import found it in, or None; ADR 0007); ``task``:
``dag_id``, ``task_id``; ``asset``: ``name``, ``uri``, ``declared``;
``alias``: ``name``; ``ref``: ``by`` (``"name"``/``"uri"``), ``value``;
``gate``: ``op`` (``"all"``/``"any"``), ``dag_id``, ``path``;
``unresolved``: ``expected`` (what should have been there).

Edges point the way events flow, and have a ``kind`` (:data:`EdgeKind`):
``owns`` dag -> task; ``outlet`` task (or folded dag) -> asset/alias/ref;
``input`` asset/alias/ref/gate -> gate or consumer dag (``position``: the
operand's index); ``emits`` alias -> asset a task declares it adds through
the alias (``alias_events``, AS-9); ``resolves`` asset -> ``Asset.ref`` that
matches it (AS-10). The script's actions (external events, alias events of
a ``task_success``) are not part of the graph.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import networkx as nx

from explorer.engine.assets.condition import RefNode
from explorer.engine.assets.spec import asset_key
from explorer.engine.errors import EngineError
from explorer.scenario.asset_dags import expand
from explorer.scenario.assets import without_extras
from explorer.scenario.model import AssetDecl, Dag, Scenario, Task
from explorer.scenario.values import JsonValue

__all__ = [
    "EdgeKind",
    "NodeKind",
    "alias_node",
    "asset_node",
    "dag_node",
    "gate_node",
    "names_assets",
    "ref_node",
    "scenario_graph",
    "schedule_kind",
    "task_node",
]

NodeKind = Literal["dag", "task", "asset", "alias", "ref", "gate", "unresolved"]
EdgeKind = Literal["owns", "outlet", "input", "emits", "resolves"]

#: Timetable classes whose ``args.assets`` is an asset condition.
_CONDITION_TIMETABLES = frozenset({"AssetOrTimeSchedule", "PartitionedAssetTimetable"})
_LABEL_MAX = 40


def dag_node(dag_id: str) -> str:
    return f"dag:{dag_id}"


def task_node(dag_id: str, task_id: str) -> str:
    return f"task:{dag_id}.{task_id}"


def asset_node(name: str) -> str:
    return f"asset:{name}"


def alias_node(name: str) -> str:
    return f"alias:{name}"


def ref_node(*, name: str | None = None, uri: str | None = None) -> str:
    """``ref:name:<name>`` or ``ref:uri:<uri>``; give exactly one."""
    if (name is None) == (uri is None):
        raise ValueError("Asset.ref takes exactly one of name or uri")
    return f"ref:name:{name}" if name is not None else f"ref:uri:{uri}"


def gate_node(dag_id: str, path: Sequence[int]) -> str:
    """The gate at ``path`` (``(0,)`` is the root) of ``dag_id``'s condition."""
    return f"gate:{dag_id}:{_dotted(path)}"


def schedule_kind(schedule: JsonValue) -> str:
    """What drives a DAG: ``none``, ``cron``, ``once``, ``continuous``, ``delta``,
    ``assets``, ``partitioned``, ``timetable:<Class>`` or ``invalid`` (TT-1)."""
    value = without_extras(schedule)
    if value is None:
        return "none"
    if isinstance(value, str):
        return {"@once": "once", "@continuous": "continuous"}.get(value, "cron")
    if isinstance(value, list):
        return "assets"
    if not isinstance(value, dict):
        return "invalid"
    if "timetable" in value:
        name = value["timetable"]
        if not isinstance(name, str):
            return "invalid"
        return "partitioned" if name == "PartitionedAssetTimetable" else f"timetable:{name}"
    if "timedelta" in value or "relativedelta" in value:
        return "delta"
    if len(value) == 1 and next(iter(value)) in ("asset", "asset_ref", "alias", "all", "any"):
        return "assets"
    return "invalid"


def scenario_graph(scenario: Scenario, *, fold_tasks: bool = False) -> Any:
    """The scenario's ``networkx.DiGraph`` (see the module docstring); never raises.

    Nodes come in file order: each DAG, its tasks and what they write, its
    condition; then the declared assets nothing names.
    """
    # ``@asset`` / ``@asset.multi`` entries are DAGs too: draw them expanded.
    expanded, _ = expand(scenario)
    graph = _Builder(expanded, fold_tasks=fold_tasks).build(expanded)
    for entry in scenario.asset_dags:
        node = dag_node(entry.dag_id)
        if node in graph:
            graph.nodes[node]["shorthand"] = "@asset.multi" if entry.multi else "@asset"
    return graph


def _dotted(path: Sequence[int | str]) -> str:
    return ".".join(str(step) for step in path)


def _short(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _LABEL_MAX else text[: _LABEL_MAX - 1] + "…"


def names_assets(schedule: JsonValue) -> bool:
    """Whether a schedule holds an asset condition (the graph draws it as input edges)."""
    return _condition_of(schedule)[0]


def _condition_of(schedule: JsonValue) -> tuple[bool, JsonValue]:
    """``(True, condition)`` when the schedule holds an asset condition, else ``(False, None)``."""
    value = without_extras(schedule)
    if isinstance(value, list):
        return True, value
    if not isinstance(value, dict) or "timedelta" in value or "relativedelta" in value:
        return False, None
    if "timetable" in value:
        args = value.get("args")
        name = value["timetable"]
        if (
            isinstance(name, str)
            and name in _CONDITION_TIMETABLES
            and isinstance(args, dict)
            and "assets" in args
        ):
            return True, args["assets"]
        return False, None
    return True, value


class _Builder:
    def __init__(self, scenario: Scenario, *, fold_tasks: bool) -> None:
        self.graph: Any = nx.DiGraph(fold_tasks=fold_tasks)
        self.fold_tasks = fold_tasks
        self.declared: dict[str, AssetDecl] = {}
        for decl in scenario.assets:
            self.declared.setdefault(decl.name, decl)

    def build(self, scenario: Scenario) -> Any:
        for dag in scenario.dags:
            self.dag(dag)
        for decl in self.declared.values():
            self.declared_asset(decl)
        self.resolve_refs()
        for _, data in self.graph.nodes(data=True):
            data["problems"] = tuple(data["problems"])
        for _, _, data in self.graph.edges(data=True):
            if "tasks" in data:
                data["tasks"] = tuple(data["tasks"])
        return self.graph

    # ----------------------------------------------------------------- nodes and edges

    def node(
        self, node_id: str, kind: NodeKind, label: str, problem: str | None = None, **attrs: Any
    ) -> str:
        """Add a node, or meet it again: a real definition replaces an unresolved one."""
        nodes = self.graph.nodes
        if node_id not in nodes:
            self.graph.add_node(node_id, kind=kind, label=label, problems=[], **attrs)
        elif nodes[node_id]["kind"] == "unresolved" and kind != "unresolved":
            problems = nodes[node_id]["problems"]
            nodes[node_id].clear()
            nodes[node_id].update(kind=kind, label=label, problems=problems, **attrs)
        if problem is not None and problem not in nodes[node_id]["problems"]:
            nodes[node_id]["problems"].append(problem)
        return node_id

    def edge(self, source: str, target: str, kind: EdgeKind, **attrs: Any) -> None:
        if not self.graph.has_edge(source, target):
            self.graph.add_edge(source, target, kind=kind, **attrs)

    def unresolved(
        self, scope: str, where: str, value: JsonValue, problem: str, *, expected: str
    ) -> str:
        node_id = f"unresolved:{scope}:{where}"
        return self.node(node_id, "unresolved", _short(value), problem, expected=expected)

    # ----------------------------------------------------------------- DAGs and tasks

    def dag(self, dag: Dag) -> None:
        dag_id = str(dag.dag_id)
        me = dag_node(dag_id)
        if me in self.graph:
            problem = f"dag_id {dag_id!r} is repeated: only its first definition is drawn"
            self.node(me, "dag", dag_id, problem)
            return
        task_ids = tuple(str(task.task_id) for task in dag.tasks)
        self.node(
            me,
            "dag",
            dag_id,
            dag_id=dag_id,
            schedule_kind=schedule_kind(dag.schedule),
            tasks=task_ids,
            tags=tuple(dag.tags),
            file=dag.source.file if dag.source is not None else None,
        )
        for task in dag.tasks:
            self.task(dag_id, task)
        has_condition, condition = _condition_of(dag.schedule)
        if has_condition:
            self.edge(self.condition(condition, dag_id, (0,)), me, "input", position=0)

    def task(self, dag_id: str, task: Task) -> None:
        task_id = str(task.task_id)
        scope = task_node(dag_id, task_id)
        if self.fold_tasks:
            writer = dag_node(dag_id)
        else:
            problem = None
            if scope in self.graph:
                problem = f"task_id {task_id!r} is repeated in DAG {dag_id!r}"
            writer = self.node(scope, "task", task_id, problem, dag_id=dag_id, task_id=task_id)
            self.edge(dag_node(dag_id), writer, "owns")
        for index, outlet in enumerate(task.outlets):
            target = self.leaf(outlet, scope, f"outlets.{index}", expected="outlet")
            self.edge(writer, target, "outlet")
            if self.fold_tasks:
                writers = self.graph.edges[writer, target].setdefault("tasks", [])
                if task_id not in writers:
                    writers.append(task_id)
        for index, event in enumerate(task.alias_events):
            alias = self.alias({"name": event.alias}, scope, f"alias_events.{index}.alias")
            where = f"alias_events.{index}.asset"
            self.edge(alias, self.leaf(event.asset, scope, where, expected="asset"), "emits")

    # ----------------------------------------------------------------- conditions

    def condition(self, value: JsonValue, dag_id: str, path: tuple[int, ...]) -> str:
        value = without_extras(value)
        if isinstance(value, list):
            return self.gate("all", value, dag_id, path)
        if isinstance(value, dict) and len(value) == 1:
            key, body = next(iter(value.items()))
            if key in ("all", "any"):
                if isinstance(body, list):
                    return self.gate(key, body, dag_id, path)
                problem = f"{key!r} takes a list of conditions"
                return self.unresolved(
                    dag_node(dag_id), _dotted(path), value, problem, expected="gate"
                )
        return self.leaf(value, dag_node(dag_id), _dotted(path), expected="condition")

    def gate(self, op: str, operands: list[JsonValue], dag_id: str, path: tuple[int, ...]) -> str:
        me = self.node(
            gate_node(dag_id, path), "gate", op, op=op, dag_id=dag_id, path=_dotted(path)
        )
        for index, operand in enumerate(operands):
            child = self.condition(operand, dag_id, (*path, index))
            self.edge(child, me, "input", position=index)
        return me

    def leaf(self, value: JsonValue, scope: str, where: str, *, expected: str) -> str:
        """An ``asset``, ``asset_ref`` or ``alias`` node."""
        value = without_extras(value)
        if isinstance(value, dict) and len(value) == 1:
            key, body = next(iter(value.items()))
            if key == "asset":
                return self.asset(body, scope, where)
            if key == "asset_ref":
                return self.ref(body, scope, where)
            if key == "alias":
                return self.alias(body, scope, where)
        problem = (
            'expected {"asset": ...}, {"asset_ref": ...} or {"alias": ...}'
            if expected != "condition"
            else 'expected an asset condition: {"asset": ...}, {"asset_ref": ...}, '
            '{"alias": ...}, {"all": [...]}, {"any": [...]} or a list'
        )
        return self.unresolved(scope, where, value, problem, expected=expected)

    # ----------------------------------------------------------------- assets, refs, aliases

    def asset(self, body: JsonValue, scope: str, where: str) -> str:
        if isinstance(body, str):
            decl = self.declared.get(body)
            if decl is not None:
                return self.declared_asset(decl)
            problem = f"asset {body!r} is not declared in the top-level assets"
            return self.node(asset_node(body), "unresolved", body, problem, expected="asset")
        if not isinstance(body, dict):
            problem = 'an asset is {"name": ..., "uri": ...} or a declared name'
            return self.unresolved(scope, where, {"asset": body}, problem, expected="asset")
        name, uri = body.get("name"), body.get("uri")
        try:
            key = asset_key(body)
        except (EngineError, TypeError, ValueError) as exc:
            fallback = next((v for v in (name, uri) if isinstance(v, str) and v), None)
            if fallback is None:
                return self.unresolved(scope, where, {"asset": body}, str(exc), expected="asset")
            text_uri = uri if isinstance(uri, str) else fallback
            return self.add_asset(fallback, text_uri, declared=False, problem=str(exc))
        return self.add_asset(key.name, key.uri, declared=False)

    def declared_asset(self, decl: AssetDecl) -> str:
        try:
            key = asset_key({"name": decl.name, "uri": decl.uri})
        except (EngineError, TypeError, ValueError) as exc:
            uri = decl.uri if decl.uri is not None else decl.name
            return self.add_asset(decl.name, uri, declared=True, problem=str(exc))
        return self.add_asset(key.name, key.uri, declared=True)

    def add_asset(self, name: str, uri: str, *, declared: bool, problem: str | None = None) -> str:
        node_id = asset_node(name)
        before = self.graph.nodes[node_id] if node_id in self.graph else None
        if before is not None and before["kind"] == "asset":
            before["declared"] = before["declared"] or declared
            if before["uri"] != uri:
                problem = f"asset {name!r} is written with two URIs: {before['uri']!r} and {uri!r}"
            return self.node(node_id, "asset", name, problem)
        return self.node(node_id, "asset", name, problem, name=name, uri=uri, declared=declared)

    def ref(self, body: JsonValue, scope: str, where: str) -> str:
        if isinstance(body, dict) and len(body) == 1:
            by, value = next(iter(body.items()))
            if by in ("name", "uri") and isinstance(value, str) and value:
                ref = RefNode(name=value) if by == "name" else RefNode(uri=value)
                node_id = ref_node(name=ref.name, uri=ref.uri)
                return self.node(node_id, "ref", ref.label(), by=by, value=value)
        problem = "Asset.ref takes exactly one of name or uri, a non-empty string"
        return self.unresolved(scope, where, {"asset_ref": body}, problem, expected="ref")

    def alias(self, body: JsonValue, scope: str, where: str) -> str:
        name = body.get("name") if isinstance(body, dict) else None
        if isinstance(name, str) and name:
            return self.node(alias_node(name), "alias", name, name=name)
        problem = 'an alias is {"name": ...}'
        return self.unresolved(scope, where, {"alias": body}, problem, expected="alias")

    def resolve_refs(self) -> None:
        """Link each ``Asset.ref`` to the assets it matches by name or by URI (AS-10)."""
        nodes = self.graph.nodes
        assets = [n for n in nodes if nodes[n]["kind"] == "asset"]
        refs = [n for n in nodes if nodes[n]["kind"] == "ref"]
        for ref in refs:
            by, value = nodes[ref]["by"], nodes[ref]["value"]
            matches = [a for a in assets if nodes[a][by] == value]
            for asset in matches:
                self.edge(asset, ref, "resolves")
            if not matches:
                problem = f"{nodes[ref]['label']} matches no asset of the scenario: it never fires"
                self.node(ref, "ref", nodes[ref]["label"], problem)
