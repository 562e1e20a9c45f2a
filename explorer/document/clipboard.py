"""Copy and paste of canvas nodes as small scenario files. No Qt.

What is copied is written as a scenario file (format ``schedule-explorer/2``)
holding the selected DAGs, the declared assets they or the selection name,
and the selected nodes' positions, so a paste into another window, or into a
text editor, carries Airflow's own words. Pasting renames what would clash
(``ingest_orders`` becomes ``ingest_orders_2``), reuses an asset already
declared with the same name and URI, and offsets the pasted nodes so they
do not hide the originals.
"""

from __future__ import annotations

import dataclasses
import json

from explorer.document import edits
from explorer.graph import asset_node, dag_node
from explorer.scenario import FORMAT, Scenario, ScenarioError, dumps_scenario
from explorer.scenario.load import parse_json
from explorer.scenario.migrations import migrate
from explorer.scenario.read import read_scenario
from explorer.scenario.validate import schema_problems

__all__ = ["copy_nodes", "paste"]

PASTE_OFFSET = 40.0


def copy_nodes(s: Scenario, node_ids: list[str]) -> str | None:
    """The selection as scenario-file text, or None when nothing copyable is selected."""
    wanted = set(node_ids)
    dags = tuple(d for d in s.dags if dag_node(d.dag_id) in wanted)
    used = {edits.leaf_asset_name(n) for n in edits.dag_leaves(dags)}
    assets = tuple(a for a in s.assets if a.name in used or asset_node(a.name) in wanted)
    layout = {k: v for k, v in s.layout.items() if k in wanted}
    pending = [n for n in node_ids if n.startswith(("alias:", "ref:"))]
    for node in pending:
        layout.setdefault(node, s.layout.get(node, (0.0, 0.0)))
    if not dags and not assets and not pending:
        return None
    fragment = Scenario(name="copied nodes", clock=s.clock, assets=assets, dags=dags, layout=layout)
    return dumps_scenario(fragment)


def paste(s: Scenario, text: str) -> tuple[Scenario, list[str]]:
    """``s`` with the copied nodes added; returns the new node ids (to select them)."""
    fragment = _read(text)
    out = s
    added: list[str] = []
    renamed_assets: dict[str, str] = {}
    existing = {a.name: a for a in s.assets}
    for decl in fragment.assets:
        same = existing.get(decl.name)
        if same is not None and same.uri == decl.uri:
            continue  # the very asset: reuse it
        name = decl.name
        if name in edits.asset_names(out):
            name = edits.unique_id(name, edits.asset_names(out))
            renamed_assets[decl.name] = name
        position = _offset(fragment.layout.get(asset_node(decl.name)))
        out, node = edits.add_asset(out, position, name, decl.uri)
        added.append(node)
    for dag in fragment.dags:
        dag_id = edits.unique_id(dag.dag_id, {d.dag_id for d in out.dags})
        position = _offset(fragment.layout.get(dag_node(dag.dag_id)))
        out, node = edits.add_dag(out, position, dag_id, schedule=dag.schedule, tasks=dag.tasks)
        copy = dataclasses.replace(dag, dag_id=dag_id)
        out = edits.replace_dag(out, dag_id, copy)
        added.append(node)
    for old, new in renamed_assets.items():
        out = _rename_in_dags(out, old, new, {edits.parse_node(n).name for n in added})
    for node, xy in fragment.layout.items():
        if node.startswith(("alias:", "ref:")) and node not in out.layout:
            out = dataclasses.replace(out, layout={**out.layout, node: _offset(xy)})
            added.append(node)
    return out, added


def _rename_in_dags(s: Scenario, old: str, new: str, dag_ids: set[str]) -> Scenario:
    """References to a renamed pasted asset, fixed in the pasted DAGs only."""
    part = dataclasses.replace(s, dags=tuple(d for d in s.dags if d.dag_id in dag_ids), assets=())

    def change(node: object) -> object:
        if isinstance(node, dict) and node.get("asset") == old:
            return {**node, "asset": new}
        return None

    fixed = {d.dag_id: d for d in edits.map_all_leaves(part, change).dags}  # type: ignore[arg-type]
    return dataclasses.replace(s, dags=tuple(fixed.get(d.dag_id, d) for d in s.dags))


def _offset(xy: tuple[float, float] | None) -> tuple[float, float]:
    x, y = xy if xy is not None else (0.0, 0.0)
    return (x + PASTE_OFFSET, y + PASTE_OFFSET)


def _read(text: str) -> Scenario:
    """The copied fragment; only its shape is checked (it may name assets it does not declare)."""
    try:
        document = migrate(parse_json(text, source="clipboard"), source="clipboard")
    except ScenarioError as exc:
        raise edits.EditError(
            f"the clipboard holds no Schedule Explorer nodes ({exc.message})"
        ) from exc
    problems = schema_problems(document, source="clipboard")
    if problems:
        raise edits.EditError(f"the copied nodes cannot be read: {problems[0].message}")
    if document.get("format") != FORMAT:
        raise edits.EditError("the clipboard holds no Schedule Explorer nodes")
    return read_scenario(json.loads(json.dumps(document)))
