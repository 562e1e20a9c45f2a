"""Node positions for a scenario graph: layered (the default), spring and Kamada-Kawai.

Positions are scene coordinates (Qt's: x to the right, y down) in the units
of :class:`Spacing`; the top-left of the drawing is near ``(0, 0)``. Every
layout is deterministic: the same graph (same nodes and edges, in the same
insertion order) gives the same positions.

All three lay out each weakly connected component on its own: DAGs linked
by assets are drawn together, a group per component. Isolated nodes (a DAG
without asset links, an asset nothing uses) are grouped apart, in grids: one
per folder of the DAGs' source files (the ``file`` node attribute an import
gives them, ADR 0007), the DAGs without a file together, then the unused
assets. The groups are packed in reading order onto shelves about
:data:`ASPECT` times as wide as they are tall (the biggest components first,
then the folders by name), so that a project of hundreds of DAGs fills a
screen-shaped area instead of a column a hundred screens tall. Given
``sizes`` (each node's width and height), nodes of a layer or a grid are
kept a ``node_margin`` apart, however tall they are. The layered layout
decides each group's box; the force-directed ones fit the component into
the same box, so switching layouts keeps every pipeline where it was.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import networkx as nx

__all__ = [
    "ASPECT",
    "SPACING",
    "SPRING_CHUNK",
    "SPRING_ITERATIONS",
    "SWEEPS",
    "Cancel",
    "Layout",
    "LayoutCancelled",
    "Point",
    "Progress",
    "Sizes",
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
#: Node id -> (width, height) of what is drawn for it; a node left out is a point.
Sizes = Mapping[str, tuple[float, float]]


@dataclass(frozen=True, slots=True)
class Spacing:
    """Distances of the layered layout, in scene units."""

    #: From one layer (column) to the next.
    layer_gap: float = 220.0
    #: From one node to the next in a layer.
    node_gap: float = 80.0
    #: Between two groups (components, folders).
    component_gap: float = 120.0
    #: Free space kept between two sized nodes of one layer or grid column.
    node_margin: float = 24.0


SPACING = Spacing()
#: Width over height of the area the groups are packed into (a screen's).
ASPECT = 1.6
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
    sizes: Sizes | None = None,
    aspect: float = ASPECT,
    cancel: Cancel | None = None,
    progress: Progress | None = None,
) -> Layout:
    """Left-to-right layers by topological generation (see the module docstring);
    ``aspect``: width over height of the area the groups are packed into."""
    blocks = _blocks(graph, spacing, cancel, sizes or {}, aspect)
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
    sizes: Sizes | None = None,
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

    return _force_layout(graph, spacing, sizes or {}, solve, lambda n: n, cancel, progress)


def kamada_kawai_layout(
    graph: Any,
    *,
    spacing: Spacing = SPACING,
    sizes: Sizes | None = None,
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

    return _force_layout(graph, spacing, sizes or {}, solve, lambda n: n * n, cancel, progress)


# ----------------------------------------------------------------------------- blocks


@dataclass(slots=True)
class _Block:
    """A component (or a grid of isolated nodes) and its place in the drawing."""

    nodes: list[str]
    #: Layered positions (node centres): the first column at x 0, the box's top at y 0.
    local: dict[str, Point]
    #: From the first column to the last, and from the top to the bottom of the box.
    width: float
    height: float
    #: Half the widest node: how far the box reaches left of the first column (and right
    #: of the last).
    pad: float = 0.0
    #: A grid of isolated nodes (no edges: nothing for a force-directed layout to do).
    grid: bool = False
    left: float = 0.0
    top: float = 0.0

    def placed(self, local: dict[str, Point]) -> Layout:
        return {n: (x + self.left, y + self.top) for n, (x, y) in local.items()}


def _blocks(
    graph: Any, spacing: Spacing, cancel: Cancel | None, sizes: Sizes, aspect: float = ASPECT
) -> list[_Block]:
    """The layered components and the isolated nodes' grids, packed on shelves."""
    order = {node: index for index, node in enumerate(graph)}
    components = [
        sorted(component, key=order.__getitem__)
        for component in nx.weakly_connected_components(graph)
    ]
    # the biggest pipelines first, ties in graph order
    components.sort(key=lambda nodes: (-len(nodes), order[nodes[0]]))
    blocks: list[_Block] = []
    isolated: list[str] = []
    for nodes in components:
        _check(cancel)
        if len(nodes) == 1:
            isolated.append(nodes[0])
        else:
            blocks.append(_layered_block(graph, nodes, spacing, sizes))
    isolated.sort(key=order.__getitem__)
    for group in _isolated_groups(graph, isolated):
        blocks.append(_grid_block(group, spacing, sizes))
    _pack(blocks, spacing, aspect)
    return blocks


def _isolated_groups(graph: Any, nodes: list[str]) -> list[list[str]]:
    """Isolated DAGs by the folder of their source file (by name), those without a file,
    then the other isolated nodes (assets nothing uses)."""
    folders: dict[str, list[str]] = {}
    no_file: list[str] = []
    others: list[str] = []
    for node in nodes:
        data = graph.nodes[node]
        if data.get("kind") != "dag":
            others.append(node)
            continue
        file = data.get("file")
        if isinstance(file, str):
            folder = file.replace("\\", "/").rpartition("/")[0]
            folders.setdefault(folder, []).append(node)
        else:
            no_file.append(node)
    groups = [folders[f] for f in sorted(folders)]
    return [g for g in (*groups, no_file, others) if g]


def _pack(blocks: list[_Block], spacing: Spacing, aspect: float) -> None:
    """Shelves left to right, top to bottom, about ``aspect`` times as wide as tall."""
    if not blocks:
        return
    gap = spacing.component_gap
    area = sum((b.width + 2 * b.pad + gap) * (b.height + gap) for b in blocks)
    shelf_width = max(max(b.width + 2 * b.pad for b in blocks), math.sqrt(area * aspect))
    right = top = shelf_height = 0.0  # right: where the shelf's last box ends
    first = True
    for block in blocks:
        left = _on_grid(right + gap + block.pad, spacing.layer_gap) if not first else block.pad
        if not first and left + block.width + block.pad > shelf_width:
            top += shelf_height + gap
            left, shelf_height = block.pad, 0.0
        first = False
        block.left, block.top = left, top
        right = left + block.width + block.pad
        shelf_height = max(shelf_height, block.height)


def _on_grid(x: float, step: float) -> float:
    """``x`` rounded up to a multiple of ``step``: columns of every group stay aligned."""
    return math.ceil(x / step - 1e-9) * step


def _grid_block(nodes: list[str], spacing: Spacing, sizes: Sizes) -> _Block:
    columns = math.ceil(math.sqrt(len(nodes)))
    rows = math.ceil(len(nodes) / columns)
    height_of = [
        max(_size(sizes, n)[1] for n in nodes[r * columns : (r + 1) * columns]) for r in range(rows)
    ]
    y_of: list[float] = []
    y = height_of[0] / 2
    for row in range(rows):
        if row:
            y += max(
                spacing.node_gap, (height_of[row - 1] + height_of[row]) / 2 + spacing.node_margin
            )
        y_of.append(y)
    half_w = max(_size(sizes, n)[0] for n in nodes) / 2
    local = {
        node: ((i % columns) * spacing.layer_gap, y_of[i // columns])
        for i, node in enumerate(nodes)
    }
    width = (min(columns, len(nodes)) - 1) * spacing.layer_gap
    height = y_of[-1] + height_of[-1] / 2
    return _Block(nodes, local, width, height, grid=True, pad=half_w)


def _size(sizes: Sizes, node: str) -> tuple[float, float]:
    return sizes.get(node, (0.0, 0.0))


# ----------------------------------------------------------------------------- layered


@dataclass(frozen=True, slots=True, eq=False)
class _Virtual:
    """A virtual node where a long edge crosses a layer (each one distinct: identity hash)."""

    edge: int
    layer: int


_Node = str | _Virtual


def _layered_block(graph: Any, nodes: list[str], spacing: Spacing, sizes: Sizes) -> _Block:
    edges = _acyclic_edges(graph, nodes)
    layer = _layers(nodes, edges)
    succ, pred, layer_of = _with_virtual_nodes(nodes, edges, layer)
    layers = _initial_order(nodes, succ, layer_of, max(layer.values()) + 1)
    layers = _barycenter(layers, succ, pred)
    return _coordinates(layers, edges, spacing, sizes)


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
    layers: list[list[_Node]], edges: list[tuple[str, str]], spacing: Spacing, sizes: Sizes
) -> _Block:
    """Real nodes only; each layer kept in order, moved towards its neighbours; top-left (0, 0).

    Layers start centred; then :data:`SWEEPS` sweeps (alternately left to right
    against predecessors and right to left against successors) move each node
    to its neighbours' mean height, as close as the layer's order and the gaps
    allow (least squares, :func:`_spread`), so chains run straight. Two
    neighbours of a layer are ``node_gap`` apart, or more when their ``sizes``
    need it (half of each one's height and ``node_margin``).
    """
    real = [[node for node in nodes if isinstance(node, str)] for nodes in layers]
    pred: dict[str, list[str]] = {node: [] for nodes in real for node in nodes}
    succ: dict[str, list[str]] = {node: [] for nodes in real for node in nodes}
    for u, v in edges:
        succ[u].append(v)
        pred[v].append(u)
    gaps = [
        [
            max(
                spacing.node_gap,
                (_size(sizes, a)[1] + _size(sizes, b)[1]) / 2 + spacing.node_margin,
            )
            for a, b in pairwise(nodes)
        ]
        for nodes in real
    ]
    y: dict[str, float] = {}
    for nodes, layer_gaps in zip(real, gaps, strict=True):
        offsets = _offsets(layer_gaps)
        middle = offsets[-1] / 2 if offsets else 0.0
        y.update((node, offset - middle) for node, offset in zip(nodes, offsets, strict=True))
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
            y.update(zip(real[index], _spread(desired, gaps[index]), strict=True))
    half_w = max((_size(sizes, n)[0] for nodes in real for n in nodes), default=0.0) / 2
    top = min(y[n] - _size(sizes, n)[1] / 2 for nodes in real for n in nodes)
    bottom = max(y[n] + _size(sizes, n)[1] / 2 for nodes in real for n in nodes)
    local = {
        node: (index * spacing.layer_gap, y[node] - top)
        for index, nodes in enumerate(real)
        for node in nodes
    }
    width = (len(layers) - 1) * spacing.layer_gap
    return _Block([n for nodes in real for n in nodes], local, width, bottom - top, pad=half_w)


def _offsets(gaps: list[float]) -> list[float]:
    """Cumulative positions of a layer's nodes, the first at 0, given the gaps between them."""
    out = [0.0]
    for gap in gaps:
        out.append(out[-1] + gap)
    return out


def _spread(desired: list[float], gaps: list[float]) -> list[float]:
    """The positions closest to ``desired`` (least squares) that keep its order, each node
    at least ``gaps[i]`` below the one before.

    With ``z[i] = y[i] - offset[i]`` (``offset`` the cumulative gaps) the
    constraint is ``z`` non-decreasing: an isotonic regression of
    ``desired[i] - offset[i]`` (pool adjacent violators).
    """
    offsets = _offsets(gaps)
    pools: list[tuple[float, int]] = []  # (sum, count) of merged neighbours
    for index, value in enumerate(desired):
        total, count = value - offsets[index], 1
        while pools and pools[-1][0] / pools[-1][1] > total / count:
            merged_total, merged_count = pools.pop()
            total, count = total + merged_total, count + merged_count
        pools.append((total, count))
    fitted = [total / count for total, count in pools for _ in range(count)]
    return [value + offsets[index] for index, value in enumerate(fitted)]


# ----------------------------------------------------------------------------- force-directed


def _force_layout(
    graph: Any,
    spacing: Spacing,
    sizes: Sizes,
    solve: Callable[[_Block, Callable[[float], None]], dict[str, Point]],
    cost: Callable[[int], int],
    cancel: Cancel | None,
    progress: Progress | None,
) -> Layout:
    """Run ``solve`` on each component of three nodes or more and fit it into its box.

    A component of two nodes is one edge: its layered position is already the answer.
    """
    blocks = _blocks(graph, spacing, cancel, sizes)
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
