"""How long the graph layouts take on a synthetic scenario.

Usage::

    python benchmarks/bench_layout.py [--nodes N] [--seed S] [--repeat R] [--force-repeat F]

The scenario is ``explorer.graph.generate.synthetic_scenario(N, S)`` (its
graph, tasks as nodes, has exactly N nodes). Figures, in milliseconds of
wall time (``time.perf_counter``), each the median of its runs:

* ``graph_build_ms_<N>_nodes``: ``scenario_graph`` (R runs);
* ``layout_ms_<N>_nodes``: the layered layout, the GUI's default (R runs);
* ``spring_ms_<N>_nodes``: the spring layout, 50 iterations in 5 chunks (F runs);
* ``kamada_kawai_ms_<N>_nodes``: the Kamada-Kawai layout (F runs);
* ``focus_around_ms_<N>_nodes`` / ``focus_name_ms_<N>_nodes``: the canvas filter's
  visible set (``explorer.graph.focus``) for one DAG with its upstream and
  downstream (the middle DAG of the file), and for a name filter (R runs).

Nothing is asserted; the tests check correctness, never timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.graph.focus import Focus, visible_nodes
from explorer.graph.generate import synthetic_scenario
from explorer.graph.layout import kamada_kawai_layout, layered_layout, spring_layout
from explorer.graph.model import scenario_graph


def median_ms(run: Callable[[], Any], times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="runs of the fast figures")
    parser.add_argument("--force-repeat", type=int, default=1, help="runs of the force layouts")
    args = parser.parse_args(argv)

    scenario = synthetic_scenario(args.nodes, args.seed)
    graph = scenario_graph(scenario)
    n = len(graph)
    print(f"nodes={n} edges={graph.number_of_edges()} dags={len(scenario.dags)} seed={args.seed}")
    figures = {
        "graph_build": median_ms(lambda: scenario_graph(scenario), args.repeat),
        "layout": median_ms(lambda: layered_layout(graph), args.repeat),
        "spring": median_ms(lambda: spring_layout(graph), args.force_repeat),
        "kamada_kawai": median_ms(lambda: kamada_kawai_layout(graph), args.force_repeat),
    }
    middle = scenario.dags[len(scenario.dags) // 2].dag_id
    figures["focus_around"] = median_ms(
        lambda: visible_nodes(graph, Focus(around=middle)), args.repeat
    )
    figures["focus_name"] = median_ms(lambda: visible_nodes(graph, Focus(text="mart")), args.repeat)
    for name, ms in figures.items():
        print(f"{name}_ms_{n}_nodes={ms:.1f}")


if __name__ == "__main__":
    main()
