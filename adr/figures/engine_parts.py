"""Draw the two pictures of adr/0011-engine-parts.md as SVG (no drawing library needed).

- ``adr/figures/0011-parts.svg``: the engine's parts and the imports between their
  modules, read from the source by the same ast walk as
  ``tests/engine/test_import_graph.py``; layered by networkx's topological generations
  (possible only because the graph has no cycle), callers above what they call.
- ``adr/figures/0011-tick.svg``: one instant and one scheduler tick, in order, each
  step with the part that owns it.

Run from the repository root: ``python adr/figures/engine_parts.py``.
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.engine.test_import_graph import import_graph  # noqa: E402

OUT = Path(__file__).resolve().parent

#: module (under explorer.engine) -> part; the modules drawn.
PARTS: dict[str, str] = {
    "simulation": "facade",
    "host": "interfaces",
    "state": "interfaces",
    "config": "interfaces",
    "loop": "loop (SCH-1)",
    "dagschedule": "DAG state + next-run cache",
    "dagstate": "DAG state + next-run cache",
    "lifecycle": "run creation + run log",
    "runlog": "run creation + run log",
    "script": "script + overrides",
    "overrides": "script + overrides",
    "selection": "script + overrides",
    "backfill": "backfills",
    "assets.scheduling": "asset queues",
    "assets.orphanage": "asset queues",
    "assets.listeners": "asset queues",
    "assets.store": "asset queues",
    "assets.partitioned": "partition requests",
    "assets.partition_requests": "partition requests",
    "assets.watching": "watchers",
    "assets.watchers": "watchers",
    "deployment": "deployments",
    "deployment_state": "deployments",
    "record": "record",
    "alerts": "record sections",
    "pending": "record sections",
    "partition_waits": "record sections",
}

COLOURS = {
    "facade": "#d9d9d9",
    "interfaces": "#fff2cc",
    "loop (SCH-1)": "#f4cccc",
    "DAG state + next-run cache": "#d9ead3",
    "run creation + run log": "#cfe2f3",
    "script + overrides": "#ead1dc",
    "backfills": "#fce5cd",
    "asset queues": "#d0e0e3",
    "partition requests": "#c9daf8",
    "watchers": "#e6b8af",
    "deployments": "#d9d2e9",
    "record": "#eeeeee",
    "record sections": "#f3f3f3",
}

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 150, 34, 18, 70, 30


def parts_svg() -> str:
    full = import_graph()
    names = {f"explorer.engine.{m}": m for m in PARTS}
    graph = nx.DiGraph()
    graph.add_nodes_from(PARTS)
    for a, b in full.edges:
        if a in names and b in names:
            graph.add_edge(names[a], names[b])
    layers = [sorted(layer) for layer in nx.topological_generations(graph)]
    width = max(len(layer) for layer in layers) * (BOX_W + GAP_X) + 2 * MARGIN + 230
    height = len(layers) * (BOX_H + GAP_Y) + 2 * MARGIN
    pos: dict[str, tuple[float, float]] = {}
    for row, layer in enumerate(layers):
        span = len(layer) * (BOX_W + GAP_X) - GAP_X
        x0 = MARGIN + (width - 230 - 2 * MARGIN - span) / 2
        for col, module in enumerate(layer):
            pos[module] = (x0 + col * (BOX_W + GAP_X), MARGIN + row * (BOX_H + GAP_Y))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        'font-family="DejaVu Sans, sans-serif" font-size="11">',
        '<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker></defs>',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
    ]
    for a, b in sorted(graph.edges):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        out.append(
            f'<line x1="{xa + BOX_W / 2:.0f}" y1="{ya + BOX_H:.0f}" x2="{xb + BOX_W / 2:.0f}" '
            f'y2="{yb:.0f}" stroke="#999" stroke-width="0.8" marker-end="url(#a)"/>'
        )
    for module, (x, y) in pos.items():
        fill = COLOURS[PARTS[module]]
        out.append(
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" height="{BOX_H}" rx="5" '
            f'fill="{fill}" stroke="#444"/>'
            f'<text x="{x + BOX_W / 2:.0f}" y="{y + 21:.0f}" text-anchor="middle">'
            f"{escape(module)}</text>"
        )
    lx = width - 220
    out.append(f'<text x="{lx}" y="{MARGIN}" font-weight="bold">parts</text>')
    for i, (part, fill) in enumerate(COLOURS.items()):
        y = MARGIN + 12 + i * 20
        out.append(
            f'<rect x="{lx}" y="{y}" width="14" height="14" fill="{fill}" stroke="#444"/>'
            f'<text x="{lx + 20}" y="{y + 11}">{escape(part)}</text>'
        )
    out.append(
        f'<text x="{MARGIN}" y="{height - 8:.0f}" fill="#555">An arrow: the upper module '
        "imports the lower one (any import, TYPE_CHECKING included). No arrow points up: "
        "no cycle.</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


#: (step, what happens, owner module): one instant, then one scheduler tick.
TICK: list[tuple[str, str, str]] = [
    ("instant t", "rotation catch-up for skipped loops (RND-6)", "loop"),
    ("", "orphanage housekeeping: aliases' assets activate (AS-9)", "assets.orphanage"),
    ("1", "task outcomes due at t (timers heap)", "lifecycle"),
    ("1b", "bundle refreshes due (DEP-6)", "deployment"),
    ("2", "script actions at t, in order (Tick -> a loop here)", "script"),
    ("3", "watcher polls due (WA-2..WA-4)", "assets.watching"),
    ("4", "a loop, if t is on the grid and something may change", "loop"),
    ("tick 1", "partition requests fire (PT-4)", "assets.partitioned"),
    ("tick 2", "scheduled + asset runs, <= 10 DAGs (SCH-2, TT-15)", "loop -> dagschedule"),
    ("", "  new runs: overrides applied (one path)", "lifecycle -> overrides"),
    ("tick 4", "queued -> running, <= 20, max_active_runs (SCH-5)", "loop"),
    ("", "tasks start, timers set (SCH-10)", "loop -> lifecycle"),
    ("tick 5", "<= 20 running runs examined; done ones end (RND-6)", "loop -> lifecycle"),
    ("", "  run ends: flag, backfill completion, packed", "lifecycle -> backfill"),
]


def tick_svg() -> str:
    row_h, width = 30, 860
    height = MARGIN * 2 + row_h * len(TICK) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="DejaVu Sans, sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{MARGIN}" y="{MARGIN - 8}" font-weight="bold">one instant t '
        "(loop.process_instant), then one scheduler tick (loop.tick)</text>",
    ]
    for i, (step, what, owner) in enumerate(TICK):
        y = MARGIN + i * row_h
        part = PARTS.get(owner.split(" ")[0], "loop (SCH-1)")
        in_tick = step.startswith("tick") or (not step and i > 6)
        x = MARGIN + (40 if in_tick else 0)
        out.append(
            f'<rect x="{x}" y="{y}" width="{width - 2 * MARGIN - (x - MARGIN)}" '
            f'height="{row_h - 6}" rx="4" fill="{COLOURS[part]}" stroke="#444"/>'
            f'<text x="{x + 8}" y="{y + 16}" font-weight="bold">{escape(step)}</text>'
            f'<text x="{x + 70}" y="{y + 16}">{escape(what)}</text>'
            f'<text x="{width - MARGIN - 8}" y="{y + 16}" text-anchor="end" '
            f'fill="#333">{escape(owner)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    (OUT / "0011-parts.svg").write_text(parts_svg(), encoding="utf-8")
    (OUT / "0011-tick.svg").write_text(tick_svg(), encoding="utf-8")


if __name__ == "__main__":
    main()
