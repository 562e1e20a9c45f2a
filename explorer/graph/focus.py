"""Which part of a large scenario graph to show: a filter by name, tag or folder, and a focus.

A project of 300 to 1,000 DAGs is unreadable all at once. The canvas and the
timeline therefore show a *part* of the graph, chosen by one :class:`Focus`:

* ``text``: DAGs whose dag_id contains the text (case-insensitive);
* ``tag``: DAGs carrying this tag (Airflow's ``tags=``);
* ``folder``: DAGs whose source file lies in this folder or below it
  (:func:`dag_folder`; ``""`` is the import root itself);
* ``around``: one DAG with everything upstream and downstream of it: the
  nodes from which events can reach it and those its events can reach,
  following the graph's edges (producer DAG -> task -> asset -> gate ->
  consumer DAG).

The criteria combine with *and*. A DAG that passes them is shown with its
context: the assets, aliases, refs and gates of its condition, and what its
tasks write; never the other DAGs on the far side of those assets (they are
shown when they pass too). With ``around`` the context is the whole lineage,
minus the DAGs the other criteria leave out.

Pure networkx over :func:`explorer.graph.model.scenario_graph`'s graph (tasks
folded or not); a DAG node's ``tags`` and ``file`` attributes come from the
scenario's provenance (format 2, ADR 0007). The same visible set drives the
canvas and the timeline (:func:`timeline_keys`), so both always show one
thing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from posixpath import dirname
from typing import Any

import networkx as nx

__all__ = [
    "Focus",
    "dag_folder",
    "folders_of",
    "lineage",
    "matching_dags",
    "tags_of",
    "timeline_keys",
    "visible_nodes",
]

#: Kinds walked through when collecting a DAG's context (never DAGs or tasks).
_CONTEXT_KINDS = frozenset({"asset", "alias", "ref", "gate", "unresolved"})


@dataclass(frozen=True, slots=True)
class Focus:
    """What to show; the default shows everything (:attr:`active` is False)."""

    text: str = ""
    tag: str | None = None
    folder: str | None = None
    #: A dag_id: this DAG with its upstream and downstream.
    around: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.text.strip()) or any(
            v is not None for v in (self.tag, self.folder, self.around)
        )

    def describe(self) -> str:
        """The focus in words, for the filter bar and the status bar."""
        parts = []
        if self.around is not None:
            parts.append(f"{self.around} with its upstream and downstream")
        if self.text.strip():
            parts.append(f"name contains {self.text.strip()!r}")
        if self.tag is not None:
            parts.append(f"tag {self.tag!r}")
        if self.folder is not None:
            parts.append(f"in folder {self.folder or '(import root)'}")
        return ", ".join(parts) if parts else "everything"


def dag_folder(file: str | None) -> str | None:
    """The folder of a DAG's source file (``source.file``, posix, relative); None without one."""
    if file is None:
        return None
    return dirname(file.replace("\\", "/"))


def tags_of(graph: Any) -> list[str]:
    """Every tag of the graph's DAGs, sorted."""
    tags: set[str] = set()
    for _, data in _dag_nodes(graph):
        tags.update(data.get("tags", ()))
    return sorted(tags)


def folders_of(graph: Any) -> list[str]:
    """Every folder holding a DAG's source file, and the folders above them, sorted."""
    folders: set[str] = set()
    for _, data in _dag_nodes(graph):
        folder = dag_folder(data.get("file"))
        while folder is not None:
            folders.add(folder)
            folder = dirname(folder) if folder else None
    return sorted(folders)


def lineage(graph: Any, node: str) -> set[str]:
    """``node`` with every node upstream of it (ancestors) and downstream (descendants)."""
    if node not in graph:
        return set()
    found: set[str] = {node}
    found.update(nx.ancestors(graph, node))
    found.update(nx.descendants(graph, node))
    return found


def matching_dags(graph: Any, focus: Focus) -> set[str]:
    """The DAG nodes that pass ``focus``'s criteria."""
    text = focus.text.strip().casefold()
    allowed = lineage(graph, f"dag:{focus.around}") if focus.around is not None else None
    found: set[str] = set()
    for node, data in _dag_nodes(graph):
        if allowed is not None and node not in allowed:
            continue
        if text and text not in str(data.get("dag_id", data.get("label", ""))).casefold():
            continue
        if focus.tag is not None and focus.tag not in data.get("tags", ()):
            continue
        if focus.folder is not None and not _in_folder(data.get("file"), focus.folder):
            continue
        found.add(node)
    return found


def visible_nodes(graph: Any, focus: Focus) -> set[str] | None:
    """The nodes to show for ``focus``; None when it shows everything."""
    if not focus.active:
        return None
    dags = matching_dags(graph, focus)
    if focus.around is not None:
        around = lineage(graph, f"dag:{focus.around}")
        hidden_dags = {n for n, _ in _dag_nodes(graph) if n in around and n not in dags}
        hidden = hidden_dags | {t for d in hidden_dags for t in _tasks(graph, d)}
        return around - hidden
    shown: set[str] = set()
    for dag in dags:
        shown.add(dag)
        shown |= _context(graph, dag)
    return shown


def timeline_keys(graph: Any, visible: Iterable[str]) -> tuple[set[str], set[str]]:
    """The dag_ids and asset names among ``visible`` (the timeline's DAG and asset lanes)."""
    dag_ids: set[str] = set()
    assets: set[str] = set()
    kinds = graph.nodes
    for node in visible:
        if node not in kinds:
            continue
        data = kinds[node]
        if data.get("kind") == "dag":
            dag_ids.add(str(data.get("dag_id", node.removeprefix("dag:"))))
        elif data.get("kind") == "asset":
            assets.add(str(data.get("name", node.removeprefix("asset:"))))
    return dag_ids, assets


# ----------------------------------------------------------------------------- helpers


def _dag_nodes(graph: Any) -> Iterable[tuple[str, dict[str, Any]]]:
    return ((n, d) for n, d in graph.nodes(data=True) if d.get("kind") == "dag")


def _in_folder(file: str | None, folder: str) -> bool:
    own = dag_folder(file)
    if own is None:
        return False
    folder = folder.strip("/")
    return not folder or own == folder or own.startswith(folder + "/")


def _tasks(graph: Any, dag: str) -> list[str]:
    return [t for t in graph.successors(dag) if graph.edges[dag, t].get("kind") == "owns"]


def _context(graph: Any, dag: str) -> set[str]:
    """A DAG's tasks, its condition (upstream up to other DAGs' tasks) and what it writes."""
    kinds = graph.nodes
    found: set[str] = set()
    stack = [p for p in graph.predecessors(dag) if kinds[p].get("kind") in _CONTEXT_KINDS]
    while stack:
        node = stack.pop()
        if node in found:
            continue
        found.add(node)
        stack.extend(
            p
            for p in graph.predecessors(node)
            if kinds[p].get("kind") in _CONTEXT_KINDS and p not in found
        )
    writers = [dag, *_tasks(graph, dag)]
    found.update(writers[1:])
    for writer in writers:
        for target in graph.successors(writer):
            if kinds[target].get("kind") in _CONTEXT_KINDS:
                found.add(target)
                # an alias's events land on assets (AS-9): show where they go
                found.update(
                    t
                    for t in graph.successors(target)
                    if graph.edges[target, t].get("kind") == "emits"
                )
    return found
