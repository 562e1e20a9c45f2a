"""The scenario as a graph: DAGs, tasks, assets and condition gates, and their layouts.

Pure Python and networkx, no Qt: :func:`scenario_graph` reads a
:class:`~explorer.scenario.model.Scenario` (even a half-edited one) into a
``networkx.DiGraph`` whose node ids are stable strings (the keys of the
file's ``layout``); :mod:`explorer.graph.layout` places its nodes;
:mod:`explorer.graph.generate` makes large synthetic scenarios for tests and
benchmarks.
"""

from __future__ import annotations

from explorer.graph.layout import (
    SPACING,
    LayoutCancelled,
    Spacing,
    kamada_kawai_layout,
    layered_layout,
    spring_layout,
)
from explorer.graph.model import (
    EdgeKind,
    NodeKind,
    alias_node,
    asset_node,
    dag_node,
    gate_node,
    ref_node,
    scenario_graph,
    schedule_kind,
    task_node,
)

__all__ = [
    "SPACING",
    "EdgeKind",
    "LayoutCancelled",
    "NodeKind",
    "Spacing",
    "alias_node",
    "asset_node",
    "dag_node",
    "gate_node",
    "kamada_kawai_layout",
    "layered_layout",
    "ref_node",
    "scenario_graph",
    "schedule_kind",
    "spring_layout",
    "task_node",
]
