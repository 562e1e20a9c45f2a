"""The engine's import graph has no cycle (adr/0011-engine-parts.md).

Every ``import`` counts: at module level, inside functions, and under
``TYPE_CHECKING`` (a type-only import is still a dependency of the design; a
cycle hidden inside a function is still a cycle). Parts that need the
simulation depend on the typed interfaces in ``explorer.engine.parts``, not on
``explorer.engine.simulation``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import explorer.engine

ENGINE = Path(explorer.engine.__file__).parent
PACKAGE = "explorer.engine"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> list[str]:
    """The engine modules a ``from ... import ...`` names (relative imports resolved)."""
    if node.level:
        base = module.split(".")
        if path.name != "__init__.py":
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    # ``from explorer.engine import actions`` names a module, not a symbol.
    return [target, *(f"{target}.{alias.name}" for alias in node.names)]


def import_graph() -> nx.DiGraph:
    """Module → engine modules it imports, from every import statement in every file."""
    files = sorted(ENGINE.rglob("*.py"))
    modules = {_module_name(p): p for p in files}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = _resolve(module, path, node)
            else:
                continue
            for target in targets:
                # ``import a.b.c`` depends on a.b.c itself; a package's __init__ is a
                # module of its own, reached only when it is named.
                if target in modules and target != module:
                    graph.add_edge(module, target)
    return graph


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """The strongly connected components of more than one module, sorted."""
    return sorted(
        sorted(component)
        for component in nx.strongly_connected_components(graph)
        if len(component) > 1
    )


def test_graph_sees_the_engine() -> None:
    # A graph of nothing would have no cycle either: check that it sees real edges.
    graph = import_graph()
    assert graph.has_edge("explorer.engine.alerts", "explorer.engine.record")
    assert graph.has_edge("explorer.engine.simulation", "explorer.engine.runlog")
    assert graph.number_of_edges() > 100


def test_engine_import_graph_has_no_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles inside explorer/engine:\n" + "\n".join(
        " <-> ".join(component) for component in found
    )


def test_record_sections_do_not_know_the_record() -> None:
    # adr/0011: ``record`` assembles the record from its sections (pending waits,
    # partition waits); a section never reaches back into the module that assembles it.
    graph = import_graph()
    for section in ("pending", "partition_waits"):
        assert graph.has_edge("explorer.engine.record", f"explorer.engine.{section}")
        assert not nx.has_path(graph, f"explorer.engine.{section}", "explorer.engine.record")


def test_alerts_are_computed_from_the_record_not_the_other_way_round() -> None:
    # The rule: "record builds the record; alerts are computed from the record". The
    # record reaches alerts by no path (not even type-only or inside a function);
    # alerts reads the record it is given.
    graph = import_graph()
    assert graph.has_edge("explorer.engine.alerts", "explorer.engine.record")
    assert not nx.has_path(graph, "explorer.engine.record", "explorer.engine.alerts")


def _private_uses(path: Path) -> list[str]:
    """Private names of other engine modules this file reaches: ``from m import _x``,
    ``m._x`` on an imported engine module, ``sim._x`` on the simulation a part is given."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE):
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and (node.value.id in modules or node.value.id in ("sim", "host"))
        ):
            found.append(f"{node.value.id}.{node.attr} (line {node.lineno})")
    return found


def test_no_part_calls_another_parts_private_names() -> None:
    # adr/0011: the parts meet through public, typed interfaces (host.Host and each
    # part's __all__), never through one another's private names.
    found = {
        _module_name(path): uses
        for path in sorted(ENGINE.rglob("*.py"))
        if (uses := _private_uses(path))
        and path.name != "__init__.py"  # the package pins tz as ``_tz``
    }
    assert found == {}
