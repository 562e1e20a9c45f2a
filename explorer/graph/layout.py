"""Node positions for a scenario graph: layered (the default), spring and Kamada-Kawai.

Positions are scene coordinates (Qt's: x to the right, y down) in the units
of :class:`Spacing`; the top-left of the drawing is near ``(0, 0)``. Every
layout is deterministic: the same graph (same nodes and edges, in the same
insertion order) gives the same positions.

All three lay out each weakly connected component on its own and stack the
components top to bottom in graph order (the order of their first node);
isolated nodes share one grid at the bottom. The layered layout decides each
component's box; the force-directed ones fit the component into the same
box, so switching layouts keeps every pipeline where it was.

**Layered** (Sugiyama style, left to right): cycles are the strongly
connected components (what ``networkx.condensation`` would collapse to one
node); rather than stacking a whole cycle in one column, the back edges of a
depth-first search inside each (from the member first in graph order) are
set aside, so a cycle is drawn left to right with one edge pointing back. Layers
are ``networkx.topological_generations`` of what remains (a node sits right
of everything feeding it), then every source is pulled right to just before
its nearest successor (an asset nobody writes sits next to its consumer, not
in the first column). Long edges get virtual nodes in the layers they cross;
:data:`SWEEPS` barycenter sweeps (alternately left to right and right to
left) order each layer, keeping the order with the fewest crossings between
adjacent layers. Then, in as many sweeps, each node moves towards the mean
height of its neighbours as far as its layer's order and spacing allow, so
that chains run straight.

**Spring** (Fruchterman-Reingold) and **Kamada-Kawai** are networkx's, run
on the undirected component, then turned so that the component's principal
axis lies along the box's long side and edges point right (and down) on
average, then scaled uniformly into the box. networkx cannot be interrupted
inside a call, so ``cancel`` is polled and ``progress`` reported between
calls: the spring layout runs in chunks of :data:`SPRING_CHUNK` iterations,
each chunk warm-started (``pos=``) from the previous one, with progress the
share of node-iterations done. Each chunk restarts networkx's cooling
schedule, so the result differs from one 50-iteration call, but not from run
to run. Kamada-Kawai is one scipy minimisation per component, warm-started
from the layered positions; its progress is the share of the components'
``n**2`` cost done, so a single big component reports only 0 and 1. A
cancelled layout raises :class:`LayoutCancelled`.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import networkx as nx

__all__ = [
    "SPACING",
    "SPRING_CHUNK",
    "SPRING_ITERATIONS",
    "SWEEPS",
    "Cancel",
    "Layout",
    "LayoutCancelled",
    "Point",
    "Progress",
    "Spacing",
    "kamada_kawai_layout",
    "layered_layout",
    "spring_layout",
]

Point = tuple[float, float]
#: Node id -> position.
Layout = dict[str, Point]
#: Polled between steps; True stops the layout (:class:`LayoutCancelled`).
Cancel = Callable[[], bool]
#: Called with the share done, 0.0 to 1.0, never decreasing; 1.0 once, at the end.
Progress = Callable[[float], None]


@dataclass(frozen=True, slots=True)
class Spacing:
    """Distances of the layered layout, in scene units."""

    #: From one layer (column) to the next.
    layer_gap: float = 220.0
    #: From one node to the next in a layer.
    node_gap: float = 80.0
    #: Between two stacked components.
    component_gap: float = 120.0


SPACING = Spacing()
#: Barycenter sweeps of the layered layout (one left-to-right pass is one sweep).
SWEEPS = 4
#: Iterations of the spring layout, and how many run per networkx call.
SPRING_ITERATIONS = 50
SPRING_CHUNK = 10


class LayoutCancelled(Exception):
    """``cancel()`` returned True before the layout was done."""


# ----------------------------------------------------------------------------- public API


def layered_layout(
    graph: Any,
    *,
    spacing: Spacing = SPACING,
    cancel: Cancel | None = None,
    progress: Progress | None = None,
) -> Layout:
    """Left-to-right layers by topological generation (see the module docstring)."""
    blocks = _blocks(graph, spacing, cancel)
    layout: Layout = {}
    for block in blocks:
        layout.update(block.placed(block.local))
    _report(progress, 1.0)
    return layout


def spring_layout(
    graph: Any,
    *,
    seed: int = 0,
    iterations: int = SPRING_ITERATIONS,
    spacing: Spacing = SPACING,
    cancel: Cancel | None = None,
    progress: Progress | None = None,
) -> Layout:
    """networkx's spring layout per component, fitted into the layered layout's boxes."""

    def solve(block: _Block, report: Callable[[float], None]) -> dict[str, Point]:
        undirected = _undirected(graph, block.nodes)
        pos: Any = None
        done = 0
        while done < iterations:
            _check(cancel)
            step = min(SPRING_CHUNK, iterations - done)
            pos = nx.spring_layout(undirected, pos=pos, iterations=step, seed=seed, scale=None)
            done += step
            report(done / iterations)
        return _points(pos) if pos is not None else dict(block.local)

    return _force_layout(graph, spacing, solve, lambda n: n, cancel, progress)


def kamada_kawai_layout(
    graph: Any,
    *,
    spacing: Spacing = SPACING,
    cancel: Cancel | None = None,
    progress: Progress | None = None,
) -> Layout:
    """networkx's Kamada-Kawai layout per component, fitted into the layered layout's boxes."""

    def solve(block: _Block, report: Callable[[float], None]) -> dict[str, Point]:
        _check(cancel)
        undirected = _undirected(graph, block.nodes)
        unit = spacing.node_gap  # neighbours in a layer start one graph step apart
        start = {n: (x / unit, y / unit) for n, (x, y) in block.local.items()}
        pos = nx.kamada_kawai_layout(undirected, pos=start)
        report(1.0)
        return _points(pos)

    return _force_layout(graph, spacing, solve, lambda n: n * n, cancel, progress)


# ----------------------------------------------------------------------------- blocks


@dataclass(slots=True)
class _Block:
    """A component (or the grid of isolated nodes) and its place in the drawing."""

    nodes: list[str]
    #: Layered positions, the box's top-left at (0, 0).
    local: dict[str, Point]
    width: float
    height: float
    #: The isolated nodes' grid (no edges: nothing for a force-directed layout to do).
    grid: bool = False
    top: float = 0.0

    def placed(self, local: dict[str, Point]) -> Layout:
        return {n: (x, y + self.top) for n, (x, y) in local.items()}


def _blocks(graph: Any, spacing: Spacing, cancel: Cancel | None) -> list[_Block]:
    """The layered components and the isolated nodes' grid, stacked top to bottom."""
    order = {node: index for index, node in enumerate(graph)}
    components = [
        sorted(component, key=order.__getitem__)
        for component in nx.weakly_connected_components(graph)
    ]
    components.sort(key=lambda nodes: order[nodes[0]])
    blocks: list[_Block] = []
    isolated: list[str] = []
    for nodes in components:
        _check(cancel)
        if len(nodes) == 1:
            isolated.append(nodes[0])
        else:
            blocks.append(_layered_block(graph, nodes, spacing))
    if isolated:
        blocks.append(_grid_block(isolated, spacing))
    top = 0.0
    for block in blocks:
        block.top = top
        top += block.height + spacing.component_gap
    return blocks


def _grid_block(nodes: list[str], spacing: Spacing) -> _Block:
    columns = math.ceil(math.sqrt(len(nodes)))
    rows = math.ceil(len(nodes) / columns)
    local = {
        node: ((i % columns) * spacing.layer_gap, (i // columns) * spacing.node_gap)
        for i, node in enumerate(nodes)
    }
    width = (min(columns, len(nodes)) - 1) * spacing.layer_gap
    return _Block(nodes, local, width, (rows - 1) * spacing.node_gap, grid=True)


# ----------------------------------------------------------------------------- layered


@dataclass(frozen=True, slots=True, eq=False)
class _Virtual:
    """A virtual node where a long edge crosses a layer (each one distinct: identity hash)."""

    edge: int
    layer: int


_Node = str | _Virtual


def _layered_block(graph: Any, nodes: list[str], spacing: Spacing) -> _Block:
    edges = _acyclic_edges(graph, nodes)
    layer = _layers(nodes, edges)
    succ, pred, layer_of = _with_virtual_nodes(nodes, edges, layer)
    layers = _initial_order(nodes, succ, layer_of, max(layer.values()) + 1)
    layers = _barycenter(layers, succ, pred)
    return _coordinates(layers, edges, spacing)


def _acyclic_edges(graph: Any, nodes: list[str]) -> list[tuple[str, str]]:
    """The component's edges minus self-loops and the DFS back edges inside each cycle."""
    edges = [(u, v) for u, v in _edges(graph, nodes) if u != v]
    sub: Any = nx.DiGraph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from(edges)
    order = {node: index for index, node in enumerate(nodes)}
    back: set[tuple[str, str]] = set()
    for members in nx.strongly_connected_components(sub):
        if len(members) > 1:
            back |= _back_edges(sorted(members, key=order.__getitem__), sub)
    return [edge for edge in edges if edge not in back]


def _edges(graph: Any, nodes: list[str]) -> list[tuple[str, str]]:
    """The edges out of ``nodes``, a weakly connected component (so all inside it).

    Cheaper than a ``graph.subgraph`` view, whose neighbour lists filter the whole graph.
    """
    return [(u, v) for u in nodes for v in graph.successors(u)]


def _back_edges(members: list[str], graph: Any) -> set[tuple[str, str]]:
    """Edges to a node still on the stack of a depth-first search within ``members``."""
    inside = set(members)
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    back: set[tuple[str, str]] = set()
    for root in members:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(list(graph.successors(root))))]
        while stack:
            node, successors = stack[-1]
            for nxt in successors:
                if nxt not in inside or nxt == node:
                    continue
                if nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(list(graph.successors(nxt)))))
                    break
                if state[nxt] == 1:
                    back.add((node, nxt))
            else:
                state[node] = 2
                stack.pop()
    return back


def _layers(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Topological generations, then each source pulled right next to its nearest successor."""
    dag: Any = nx.DiGraph()
    dag.add_nodes_from(nodes)
    dag.add_edges_from(edges)
    layer: dict[str, int] = {}
    for index, generation in enumerate(nx.topological_generations(dag)):
        for node in generation:
            layer[node] = index
    for node in nodes:
        if dag.in_degree(node) == 0 and dag.out_degree(node) > 0:
            layer[node] = min(layer[s] for s in dag.successors(node)) - 1
    lowest = min(layer.values())
    return {node: value - lowest for node, value in layer.items()}


def _with_virtual_nodes(
    nodes: list[str], edges: list[tuple[str, str]], layer: dict[str, int]
) -> tuple[dict[_Node, list[_Node]], dict[_Node, list[_Node]], dict[_Node, int]]:
    """Adjacency between neighbouring layers only: long edges go through virtual nodes."""
    succ: dict[_Node, list[_Node]] = {node: [] for node in nodes}
    pred: dict[_Node, list[_Node]] = {node: [] for node in nodes}
    layer_of: dict[_Node, int] = {node: value for node, value in layer.items()}
    for index, (u, v) in enumerate(edges):
        previous: _Node = u
        for crossed in range(layer[u] + 1, layer[v]):
            virtual = _Virtual(index, crossed)
            succ[virtual], pred[virtual], layer_of[virtual] = [], [], crossed
            succ[previous].append(virtual)
            pred[virtual].append(previous)
            previous = virtual
        succ[previous].append(v)
        pred[v].append(previous)
    return succ, pred, layer_of


def _initial_order(
    nodes: list[str], succ: dict[_Node, list[_Node]], layer_of: dict[_Node, int], count: int
) -> list[list[_Node]]:
    """Depth-first discovery order from the sources (in graph order), per layer."""
    has_pred = {m for targets in succ.values() for m in targets}
    roots = [n for n in nodes if n not in has_pred] + [n for n in nodes if n in has_pred]
    layers: list[list[_Node]] = [[] for _ in range(count)]
    seen: set[_Node] = set()
    for root in roots:
        stack: list[_Node] = [root]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            layers[layer_of[node]].append(node)
            stack.extend(reversed(succ[node]))
    return layers


def _barycenter(
    layers: list[list[_Node]], succ: dict[_Node, list[_Node]], pred: dict[_Node, list[_Node]]
) -> list[list[_Node]]:
    """Sort each layer by its neighbours' mean position; keep the fewest-crossings order."""
    layers = [list(nodes) for nodes in layers]
    best, fewest = [list(nodes) for nodes in layers], _crossings(layers, succ)
    for sweep in range(SWEEPS):
        forward = sweep % 2 == 0
        indices = range(1, len(layers)) if forward else range(len(layers) - 2, -1, -1)
        neighbours = pred if forward else succ
        for index in indices:
            fixed = _centred(layers[index - 1 if forward else index + 1])
            own = _centred(layers[index])
            keys = {
                node: (
                    sum(fixed[m] for m in neighbours[node]) / len(neighbours[node])
                    if neighbours[node]
                    else own[node]
                )
                for node in layers[index]
            }
            layers[index].sort(key=keys.__getitem__)
        crossings = _crossings(layers, succ)
        if crossings < fewest:
            best, fewest = [list(nodes) for nodes in layers], crossings
    return best


def _centred(nodes: Sequence[_Node]) -> dict[_Node, float]:
    middle = (len(nodes) - 1) / 2
    return {node: index - middle for index, node in enumerate(nodes)}


def _crossings(layers: list[list[_Node]], succ: dict[_Node, list[_Node]]) -> int:
    """Edge crossings between each pair of neighbouring layers (inversions of the targets)."""
    total = 0
    for left, right in pairwise(layers):
        at = {node: index for index, node in enumerate(right)}
        pairs = sorted((i, at[v]) for i, u in enumerate(left) for v in succ[u])
        seen: list[int] = []
        for _, target in pairs:
            total += len(seen) - bisect_right(seen, target)
            insort(seen, target)
    return total


def _coordinates(
    layers: list[list[_Node]], edges: list[tuple[str, str]], spacing: Spacing
) -> _Block:
    """Real nodes only; each layer kept in order, moved towards its neighbours; top-left (0, 0).

    Layers start centred; then :data:`SWEEPS` sweeps (alternately left to right
    against predecessors and right to left against successors) move each node
    to its neighbours' mean height, as close as the layer's order and
    ``node_gap`` allow (least squares, :func:`_spread`), so chains run straight.
    """
    real = [[node for node in nodes if isinstance(node, str)] for nodes in layers]
    pred: dict[str, list[str]] = {node: [] for nodes in real for node in nodes}
    succ: dict[str, list[str]] = {node: [] for nodes in real for node in nodes}
    for u, v in edges:
        succ[u].append(v)
        pred[v].append(u)
    gap = spacing.node_gap
    y = {
        node: (rank - (len(nodes) - 1) / 2) * gap
        for nodes in real
        for rank, node in enumerate(nodes)
    }
    for sweep in range(SWEEPS):
        forward = sweep % 2 == 0
        indices = range(1, len(real)) if forward else range(len(real) - 2, -1, -1)
        neighbours = pred if forward else succ
        for index in indices:
            desired = [
                sum(y[m] for m in neighbours[node]) / len(neighbours[node])
                if neighbours[node]
                else y[node]
                for node in real[index]
            ]
            y.update(zip(real[index], _spread(desired, gap), strict=True))
    top = min(y.values())
    local = {
        node: (index * spacing.layer_gap, y[node] - top)
        for index, nodes in enumerate(real)
        for node in nodes
    }
    width = (len(layers) - 1) * spacing.layer_gap
    return _Block([n for nodes in real for n in nodes], local, width, max(y.values()) - top)


def _spread(desired: list[float], gap: float) -> list[float]:
    """The positions closest to ``desired`` (least squares) that keep its order ``gap`` apart.

    With ``z[i] = y[i] - i * gap`` the constraint is ``z`` non-decreasing: an
    isotonic regression of ``desired[i] - i * gap`` (pool adjacent violators).
    """
    pools: list[tuple[float, int]] = []  # (sum, count) of merged neighbours
    for index, value in enumerate(desired):
        total, count = value - index * gap, 1
        while pools and pools[-1][0] / pools[-1][1] > total / count:
            merged_total, merged_count = pools.pop()
            total, count = total + merged_total, count + merged_count
        pools.append((total, count))
    fitted = [total / count for total, count in pools for _ in range(count)]
    return [value + index * gap for index, value in enumerate(fitted)]


# ----------------------------------------------------------------------------- force-directed


def _force_layout(
    graph: Any,
    spacing: Spacing,
    solve: Callable[[_Block, Callable[[float], None]], dict[str, Point]],
    cost: Callable[[int], int],
    cancel: Cancel | None,
    progress: Progress | None,
) -> Layout:
    """Run ``solve`` on each component of three nodes or more and fit it into its box.

    A component of two nodes is one edge: its layered position is already the answer.
    """
    blocks = _blocks(graph, spacing, cancel)
    work = [0 if b.grid or len(b.nodes) <= 2 else cost(len(b.nodes)) for b in blocks]
    total = sum(work) or 1
    done = 0
    layout: Layout = {}
    for block, weight in zip(blocks, work, strict=True):
        _check(cancel)
        if weight == 0:
            layout.update(block.placed(block.local))
            continue
        base = done

        def report(share: float, base: int = base, weight: int = weight) -> None:
            _report(progress, min((base + share * weight) / total, 1.0 - 1e-9))

        raw = solve(block, report)
        edges = [(u, v) for u, v in _edges(graph, block.nodes) if u != v]
        layout.update(block.placed(_fit(raw, edges, block, spacing)))
        done += weight
    _report(progress, 1.0)
    return layout


def _fit(
    raw: dict[str, Point], edges: Iterable[tuple[str, str]], block: _Block, spacing: Spacing
) -> dict[str, Point]:
    """Turn ``raw`` to the box's long side, edges pointing right/down, and scale it in."""
    turned = _principal(raw, tall=block.height > block.width)
    edge_list = list(edges)
    flip_x = sum(turned[v][0] - turned[u][0] for u, v in edge_list) < 0
    flip_y = sum(turned[v][1] - turned[u][1] for u, v in edge_list) < 0
    turned = {n: (-x if flip_x else x, -y if flip_y else y) for n, (x, y) in turned.items()}
    xs = [x for x, _ in turned.values()]
    ys = [y for _, y in turned.values()]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    box_w, box_h = max(block.width, spacing.node_gap), max(block.height, spacing.node_gap)
    ratios = [box / extent for box, extent in ((box_w, w), (box_h, h)) if extent > 1e-12]
    scale = min(ratios) if ratios else 1.0
    mid_x, mid_y = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    return {
        n: (block.width / 2 + (x - mid_x) * scale, block.height / 2 + (y - mid_y) * scale)
        for n, (x, y) in turned.items()
    }


def _principal(points: dict[str, Point], *, tall: bool) -> dict[str, Point]:
    """``points`` centred and rotated so the principal axis is x (or y when ``tall``)."""
    n = len(points)
    cx = sum(x for x, _ in points.values()) / n
    cy = sum(y for _, y in points.values()) / n
    sxx = sum((x - cx) ** 2 for x, _ in points.values())
    syy = sum((y - cy) ** 2 for _, y in points.values())
    sxy = sum((x - cx) * (y - cy) for x, y in points.values())
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy) + (math.pi / 2 if tall else 0.0)
    cos, sin = math.cos(angle), math.sin(angle)
    return {
        node: ((x - cx) * cos + (y - cy) * sin, -(x - cx) * sin + (y - cy) * cos)
        for node, (x, y) in points.items()
    }


# ----------------------------------------------------------------------------- helpers


def _undirected(graph: Any, nodes: list[str]) -> Any:
    """The component as an undirected ``networkx.Graph``, nodes in graph order."""
    undirected = nx.Graph()
    undirected.add_nodes_from(nodes)
    undirected.add_edges_from((u, v) for u, v in _edges(graph, nodes) if u != v)
    return undirected


def _points(pos: Any) -> dict[str, Point]:
    return {node: (float(xy[0]), float(xy[1])) for node, xy in pos.items()}


def _check(cancel: Cancel | None) -> None:
    if cancel is not None and cancel():
        raise LayoutCancelled("layout cancelled")


def _report(progress: Progress | None, share: float) -> None:
    if progress is not None:
        progress(share)
