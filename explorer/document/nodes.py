"""What the canvas draws for a scenario: node and edge views, and where nodes go.

No Qt. :func:`canvas_model` reads the scenario through
:func:`explorer.graph.scenario_graph` with tasks folded into their DAG (the
canvas draws a DAG's tasks as rows with their outlet ports), adds the
aliases and ``Asset.ref`` nodes the user has placed but not used yet, and
turns every node into a small frozen :class:`NodeView`. The scene compares
views to decide which items to update, so a view holds only what is drawn.

Positions: the file's ``layout`` where it has one; otherwise next to a
placed neighbour, or from the layered layout (deterministic, so a file
saved without positions reopens looking the same).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import pairwise
from typing import Any

from explorer.document import edits, schedule_kinds
from explorer.engine.assets.uri import make_asset
from explorer.engine.errors import EngineError
from explorer.graph import Spacing, layered_layout, scenario_graph
from explorer.graph.model import dag_node, names_assets, schedule_kind
from explorer.scenario import Dag, Scenario, Watcher
from explorer.scenario.asset_dags import expand

__all__ = [
    "CANVAS_SPACING",
    "EdgeView",
    "NodeView",
    "TaskRow",
    "canvas_model",
    "canvas_model_after",
    "duration_words",
    "import_flags",
    "layout_graph",
    "node_size",
    "place",
    "separate",
    "spread",
]

#: The layered layout's distances, sized for the canvas's node items.
CANVAS_SPACING = Spacing(layer_gap=340.0, node_gap=110.0, component_gap=140.0)

# Node sizes (scene units). The items draw these; the layouts keep nodes this far apart.
DAG_WIDTH, DAG_HEADER, TASK_ROW, PARTITION_LINE = 250.0, 50.0, 24.0, 20.0
ASSET_WIDTH, ASSET_HEIGHT, WATCHER_LINE = 220.0, 54.0, 18.0
GATE_SIZE = 56.0
#: Free space kept between two nodes of one layer.
NODE_MARGIN = 24.0


@dataclass(frozen=True, slots=True)
class TaskRow:
    task_id: str
    duration: str
    outcome: str
    #: Node ids of what the task writes.
    outlets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeView:
    """Everything an item shows for one node."""

    node_id: str
    kind: str  # dag, asset, alias, ref, gate, unresolved
    title: str
    subtitle: str = ""
    chip: str = ""
    tooltip: str = ""
    tasks: tuple[TaskRow, ...] = ()
    op: str = ""  # gates: "all" / "any"
    problems: tuple[str, ...] = ()
    #: Partitioned consumers: mapper / window / wait policy in words.
    partition: str = ""
    paused: bool = False
    pending: bool = False  # placed by the user, used by nothing yet
    #: Assets: their AssetWatchers in words (``landing_scan · polls every 5 min``).
    watchers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EdgeView:
    source: str
    target: str
    kind: str  # outlet, input, emits, resolves
    task_id: str | None = None
    operands: tuple[int, ...] | None = None

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        return (self.source, self.target, self.kind, self.task_id)

    def ref(self) -> edits.EdgeRef:
        return edits.EdgeRef(self.source, self.target, self.task_id, self.operands)


@dataclass(slots=True)
class CanvasModel:
    nodes: dict[str, NodeView] = field(default_factory=dict)
    edges: list[EdgeView] = field(default_factory=list)
    graph: Any = None


def node_size(view: NodeView) -> tuple[float, float]:
    """Width and height of a node's item (its tasks make a DAG taller)."""
    if view.kind == "dag":
        rows = max(1, len(view.tasks))
        extra = PARTITION_LINE if view.partition else 0.0
        return (DAG_WIDTH, DAG_HEADER + extra + rows * TASK_ROW + 8.0)
    if view.kind == "gate":
        return (GATE_SIZE, GATE_SIZE)
    return (ASSET_WIDTH, ASSET_HEIGHT + WATCHER_LINE * len(view.watchers))


def spread(
    positions: Mapping[str, tuple[float, float]], sizes: Mapping[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """Nodes of one layer (same x) pushed apart vertically so that none overlaps the next.

    The layered layout spaces centres evenly; a DAG with many tasks is taller
    than that spacing. Order within a layer is kept; each node moves down
    only as far as the one above it requires.
    """
    layers: dict[int, list[str]] = {}
    for node, (x, _y) in positions.items():
        layers.setdefault(round(x), []).append(node)
    out = dict(positions)
    for members in layers.values():
        members.sort(key=lambda n: positions[n][1])
        for above, below in pairwise(members):
            need = (sizes.get(above, (0, 0))[1] + sizes.get(below, (0, 0))[1]) / 2 + NODE_MARGIN
            _ax, ay = out[above]
            bx, by = out[below]
            if by - ay < need:
                out[below] = (bx, ay + need)
    return out


def separate(
    positions: Mapping[str, tuple[float, float]],
    sizes: Mapping[str, tuple[float, float]],
    *,
    passes: int = 30,
) -> dict[str, tuple[float, float]]:
    """Force-directed positions with overlapping nodes pushed apart.

    networkx places points; our nodes are boxes up to 250 units wide, so two
    close points overlap. Each pass finds overlapping pairs (a sweep along x)
    and moves both boxes apart along the axis where they overlap least, half
    each. Stops early when nothing overlaps.
    """
    out = {n: (float(x), float(y)) for n, (x, y) in positions.items()}
    half = {n: (sizes.get(n, (0.0, 0.0))[0] / 2, sizes.get(n, (0.0, 0.0))[1] / 2) for n in out}
    widest = 2 * max((w for w, _ in half.values()), default=0.0) + NODE_MARGIN
    gap = NODE_MARGIN / 2
    for _ in range(passes):
        moved = False
        order = sorted(out, key=lambda n: out[n][0])
        for i, a in enumerate(order):
            ax, ay = out[a]
            for b in order[i + 1 :]:
                bx, by = out[b]
                if bx - ax > widest:
                    break
                dx = half[a][0] + half[b][0] + gap - abs(bx - ax)
                dy = half[a][1] + half[b][1] + gap - abs(by - ay)
                if dx <= 0 or dy <= 0:
                    continue
                moved = True
                if dx < dy:
                    step = dx / 2 if bx >= ax else -dx / 2
                    out[a], out[b] = (ax - step, ay), (bx + step, by)
                else:
                    step = dy / 2 if by >= ay else -dy / 2
                    out[a], out[b] = (ax, ay - step), (bx, by + step)
                ax, ay = out[a]
        if not moved:
            break
    return out


def layout_graph(scenario: Scenario) -> Any:
    """The graph the layouts place: tasks folded, placed-but-unused nodes included."""
    graph = scenario_graph(scenario, fold_tasks=True)
    for node in edits.pending_nodes(scenario):
        if node not in graph:
            graph.add_node(node, kind=node.partition(":")[0], label=node, problems=())
    return graph


def canvas_model(scenario: Scenario) -> CanvasModel:
    graph = layout_graph(scenario)
    expanded, _ = expand(scenario)  # @asset entries are DAGs too: drawn as the DAG they make
    dags = {d.dag_id: d for d in expanded.dags}
    model = CanvasModel(graph=graph)
    for node_id, data in graph.nodes(data=True):
        model.nodes[node_id] = _view(node_id, data, dags, expanded, graph)
    for source, target, data in graph.edges(data=True):
        kind = data["kind"]
        if kind == "outlet":
            for task_id in data.get("tasks", ()) or (None,):
                model.edges.append(EdgeView(source, target, kind, task_id=task_id))
        elif kind == "input":
            operands = _operands(target, data.get("position", 0))
            model.edges.append(EdgeView(source, target, kind, operands=operands))
        else:
            model.edges.append(EdgeView(source, target, kind))
    return model


def canvas_model_after(model: CanvasModel, old: Scenario, new: Scenario) -> CanvasModel:
    """:func:`canvas_model` of ``new``, from ``model`` (the canvas model of ``old``).

    An edit of a DAG's schedule, catchup or other settings (the inspector's
    usual edit) changes that DAG's node and nothing of the graph: only those
    nodes are made again, the graph and every other node and edge are ``old``'s
    (building them all again took a quarter of a second at 200 DAGs, on every
    keystroke that commits). Any edit that can change the graph (tasks,
    outlets, an asset condition, tags, another part of the scenario) builds
    the model whole.
    """
    changed = _graph_neutral_changes(old, new)
    if changed is None or model.graph is None:
        return canvas_model(new)
    if not changed:
        return model
    expanded, _ = expand(new)
    nodes = dict(model.nodes)
    for dag in changed:
        node_id = dag_node(dag.dag_id)
        data = model.graph.nodes[node_id]
        nodes[node_id] = _view(node_id, data, {dag.dag_id: dag}, expanded, model.graph)
    return CanvasModel(nodes=nodes, edges=model.edges, graph=model.graph)


def _graph_neutral_changes(old: Scenario, new: Scenario) -> list[Dag] | None:
    """The DAGs ``new`` changed without changing the canvas graph, or None when the edit
    may change the graph (or touches more than DAGs)."""
    for f in dataclasses.fields(Scenario):
        a, b = getattr(old, f.name), getattr(new, f.name)
        if f.name != "dags" and a is not b and a != b:
            return None
    if len(old.dags) != len(new.dags):
        return None
    changed = []
    for a, b in zip(old.dags, new.dags, strict=True):
        if a is b or a == b:
            continue
        if a.dag_id != b.dag_id or not _same_graph_part(a, b):
            return None
        changed.append(b)
    ids = [d.dag_id for d in new.dags]
    if len(set(ids)) != len(ids):  # a repeated dag_id draws its first definition only
        return None
    return changed


def _same_graph_part(a: Dag, b: Dag) -> bool:
    """What the graph reads of a DAG (:mod:`explorer.graph.model`) is the same in both:
    its tasks, tags, source file and schedule kind, and neither schedule names assets."""
    return (
        a.tasks == b.tasks
        and a.tags == b.tags
        and a.source == b.source
        and schedule_kind(a.schedule) == schedule_kind(b.schedule)
        and not names_assets(a.schedule)
        and not names_assets(b.schedule)
    )


def _operands(target: str, position: int) -> tuple[int, ...]:
    """The operand path of an input edge's source in its DAG's condition."""
    if target.startswith("gate:"):
        return (*edits.parse_node(target).operands, position)
    return (0,)


def _view(
    node_id: str, data: Mapping[str, Any], dags: dict[str, Dag], scenario: Scenario, graph: Any
) -> NodeView:
    kind = str(data.get("kind", "unresolved"))
    problems = tuple(data.get("problems", ()))
    label = str(data.get("label", node_id))
    pending = node_id in scenario.layout and node_id not in _used(graph, node_id)
    if kind == "dag" and label in dags:
        return _dag_view(node_id, dags[label], scenario, problems, str(data.get("shorthand", "")))
    if kind == "asset":
        decl = next((a for a in scenario.assets if a.name == data.get("name")), None)
        watchers = tuple(_watcher_words(w) for w in decl.watchers) if decl is not None else ()
        return _asset_view(node_id, data, problems, watchers)
    if kind == "gate":
        op = str(data.get("op", "all"))
        word = "AND" if op == "all" else "OR"
        tip = (
            f"{word} gate of {data.get('dag_id')}'s condition: "
            + ("all inputs must update" if op == "all" else "any input updating is enough")
            + ". Drag an asset into it to add an input; switch AND/OR in the inspector."
        )
        return NodeView(node_id, "gate", word, tooltip=tip, op=op, problems=problems)
    if kind == "alias":
        tip = (
            f"AssetAlias({label!r}): tasks write through it (outlet) and add the real "
            "assets at run time; DAGs scheduled on it run on those events (AS-9)."
        )
        if pending:
            tip += " Not used yet: connect a task's outlet to it, or it into a DAG."
        return NodeView(
            node_id, "alias", label, "AssetAlias", tooltip=tip, problems=problems, pending=pending
        )
    if kind == "ref":
        ref = edits.parse_node(node_id)
        title = f"Asset.ref({ref.by}={ref.name!r})"
        tip = f"{title}: resolves to the asset with this {ref.by} (AS-10)."
        return NodeView(
            node_id,
            "ref",
            ref.name,
            f"Asset.ref by {ref.by}",
            tooltip=tip,
            problems=problems,
            pending=pending,
        )
    expected = data.get("expected", "")
    tip = "; ".join(problems) or f"cannot be read (expected {expected})"
    return NodeView(node_id, "unresolved", label, "unresolved", tooltip=tip, problems=problems)


def _used(graph: Any, node_id: str) -> set[str]:
    """``{node_id}`` if the node has any edge (it is then used by the scenario)."""
    return {node_id} if graph.degree(node_id) else set()


def _dag_view(
    node_id: str, dag: Dag, scenario: Scenario, problems: tuple[str, ...], shorthand: str = ""
) -> NodeView:
    """A DAG node; ``shorthand`` (``@asset``, ``@asset.multi``) for the DAG such an entry makes."""
    summary = schedule_kinds.summarize(dag, scenario)
    rows = tuple(
        TaskRow(
            t.task_id,
            t.duration.text,
            t.outcome,
            tuple(o for o in (edits.leaf_id(x) for x in t.outlets) if o is not None),
        )
        for t in dag.tasks
    )
    partition = _partition_words(dag.schedule)
    lines = [
        f"DAG {dag.dag_id}"
        + (f", written as Airflow's {shorthand} shorthand" if shorthand else ""),
        f"schedule: {summary.chip}",
        f"timezone {dag.timezone}; catchup={_setting(dag.catchup)}; "
        f"max_active_runs={_setting(dag.max_active_runs)}",
    ]
    if dag.is_paused_upon_creation:
        lines.append("paused upon creation")
    if partition:
        lines.append(f"partitions: {partition}")
    if summary.problem:
        lines.append(f"problem: {summary.problem}")
    lines.append("Drag from a task's port (right) to an asset to add an outlet.")
    all_problems = (
        *problems,
        *((summary.problem,) if summary.problem else ()),
        *import_flags(dag),
    )
    lines.extend(f"import: {flag}" for flag in import_flags(dag))
    return NodeView(
        node_id,
        "dag",
        dag.dag_id,
        shorthand,
        chip=summary.chip,
        tooltip="\n".join(lines),
        tasks=rows,
        problems=all_problems,
        partition=partition,
        paused=dag.is_paused_upon_creation,
    )


def import_flags(dag: Dag) -> tuple[str, ...]:
    """What an imported DAG's node must not hide: a schedule the import could not read (the
    DAG is simulated as manual only) and values taken from a default (a Variable's, the
    environment's), until the user supplies them."""
    flags = []
    for item in dag.unresolved:
        if item.field in dag.supplied:
            continue
        if item.field == "schedule" and dag.schedule is None:
            flags.append(
                f"schedule not read ({item.reason}): simulated as manual only until you "
                "supply it in the inspector"
            )
        elif item.reason.startswith("from the default of"):
            flags.append(f"{item.field} {item.reason}: supply the deployed value if it is set")
    return tuple(flags)


def _watcher_words(watcher: Watcher) -> str:
    """``landing_scan · polls every 5 min · 5 items`` for an AssetWatcher."""
    words = f"{watcher.name} · polls every {duration_words(watcher.poll_interval.value)}"
    if watcher.source:
        words += f" · {len(watcher.source)} item{'s' if len(watcher.source) != 1 else ''}"
    return words


def duration_words(value: timedelta) -> str:
    """``5 min``, ``1 h 30 min``, ``2 d``: a duration as people say it."""
    seconds = int(value.total_seconds())
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size} {unit}")
            seconds %= size
    return " ".join(parts) or "0 s"


def _asset_view(
    node_id: str,
    data: Mapping[str, Any],
    problems: tuple[str, ...],
    watchers: tuple[str, ...] = (),
) -> NodeView:
    name, uri = str(data.get("name", "")), str(data.get("uri", ""))
    try:
        identity, _warnings = make_asset(name, uri)
        normalized = identity.uri
    except EngineError:
        normalized = uri
    declared = "declared" if data.get("declared") else "written inline"
    tip = f"Asset(name={name!r}, uri={uri!r}), {declared}"
    if normalized != uri:
        tip += f"\nAirflow stores the uri as {normalized!r}"
    if problems:
        tip += "\n" + "\n".join(problems)
    for line in watchers:
        tip += f"\nAssetWatcher {line}"
    tip += "\nDrag from its port (right) into a DAG or a gate to schedule on it."
    subtitle = normalized if normalized != name else ""
    return NodeView(
        node_id, "asset", name, subtitle, tooltip=tip, problems=problems, watchers=watchers
    )


def _partition_words(schedule: Any) -> str:
    """``RollupMapper · WeekWindow · MinimumCount(2)`` for a PartitionedAssetTimetable."""
    if not (
        isinstance(schedule, dict) and schedule.get("timetable") == "PartitionedAssetTimetable"
    ):
        return ""
    args = schedule.get("args") or {}
    spec = args.get("default_partition_mapper") if isinstance(args, dict) else None
    words = [_mapper_words(spec) if spec else "IdentityMapper"]
    per_asset = args.get("partition_mapper_config") if isinstance(args, dict) else None
    if isinstance(per_asset, list) and per_asset:
        words.append(f"{len(per_asset)} per-asset mapper(s)")
    return " · ".join(words)


def _mapper_words(spec: Any) -> str:
    if not isinstance(spec, dict):
        return str(spec)
    name = str(spec.get("mapper", "?"))
    args = spec.get("args") or {}
    parts = [name]
    if isinstance(args, dict):
        window = args.get("window")
        if isinstance(window, dict):
            parts.append(str(window.get("window")))
        policy = args.get("wait_policy")
        if isinstance(policy, dict):
            n = (policy.get("args") or {}).get("n")
            parts.append(
                f"{policy.get('policy')}({n})" if n is not None else str(policy.get("policy"))
            )
        cap = args.get("max_downstream_keys")
        if cap is not None:
            parts.append(f"cap {cap}")
    return " · ".join(parts)


def place(
    model: CanvasModel, layout: Mapping[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """A position for every node: the file's, else next to a placed neighbour, else layered."""
    out: dict[str, tuple[float, float]] = {
        n: (float(xy[0]), float(xy[1])) for n, xy in layout.items() if n in model.nodes
    }
    missing = [n for n in model.nodes if n not in out]
    if not missing:
        return out
    graph = model.graph
    sizes = {n: node_size(v) for n, v in model.nodes.items()}
    if not out:
        return _layered(graph, sizes)
    layered: dict[str, tuple[float, float]] | None = None
    for _ in range(3):  # a gate next to a gate next to a placed DAG: a few rounds suffice
        for node in list(missing):
            successors = [s for s in graph.successors(node) if s in out]
            predecessors = [p for p in graph.predecessors(node) if p in out]
            if successors:
                x, y = out[successors[0]]
                siblings = sum(1 for p in graph.predecessors(successors[0]) if p in out)
                out[node] = (x - 170.0, y + 70.0 * siblings)
            elif predecessors:
                x, y = out[predecessors[0]]
                siblings = sum(1 for s in graph.successors(predecessors[0]) if s in out)
                out[node] = (x + 280.0, y + 80.0 * siblings)
            else:
                continue
            missing.remove(node)
    if missing:
        layered = _layered(graph, sizes)
        bottom = max((y for _, y in out.values()), default=0.0) + 160.0
        for node in missing:
            x, y = layered.get(node, (0.0, 0.0))
            out[node] = (float(x), bottom + float(y))
    return out


def _layered(
    graph: Any, sizes: Mapping[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    return {
        n: (float(x), float(y))
        for n, (x, y) in layered_layout(graph, spacing=CANVAS_SPACING, sizes=sizes).items()
    }


def _setting(value: object) -> str:
    """A DAG field as written, or "unset" (the Airflow option decides, ADR 0007)."""
    return "unset" if value is None else str(value)
