"""Each part of the engine writes only the state it owns (adr/0011-engine-parts.md).

``SimState`` is one record (a checkpoint is one deepcopy of it) whose fields are
grouped by owner. This test reads every engine module with ``ast`` and finds where
it writes a field: an assignment or ``del`` (``st.runs = ...``, ``st.due[0] = ...``,
``st.deployment.files[k] = ...``), a container mutation (``append``, ``add``,
``discard``, ``pop``, ``setdefault``, ...) or a heap operation on it. Calling a
field's own methods (``st.overrides.resolve``, ``st.runs.thaw``,
``st.rotation.examine``) is that owner's interface and is not a write here. The
state is reached as ``st``, ``state`` or ``<anything>.state``.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import explorer.engine
from explorer.engine.state import SimState

ENGINE = Path(explorer.engine.__file__).parent
FIELDS = {f.name for f in dataclasses.fields(SimState)}
MUTATORS = {
    "append",
    "appendleft",
    "extend",
    "extendleft",
    "insert",
    "pop",
    "popleft",
    "remove",
    "clear",
    "add",
    "discard",
    "update",
    "setdefault",
    "sort",
    "reverse",
}
HEAP = {"heappush", "heappop", "heapify", "heapreplace", "heappushpop"}

#: field -> the modules (under explorer.engine) that may write it.
OWNERS: dict[str, set[str]] = {
    "now": {"loop"},
    "dags": {"simulation"},  # adopt gives a changed DAG its initial state
    "runs": {"lifecycle"},
    "active": {"lifecycle"},
    "activation": {"lifecycle"},
    "activations": {"lifecycle"},
    "completions": {"lifecycle"},
    # The loop's work lists: the run life cycle adds runs, the loop prunes them.
    "pending": {"lifecycle", "loop"},
    "touched": {"lifecycle", "loop"},
    "due": {"dagschedule"},
    "waiting": {"dagschedule"},
    "waiting_ids": {"dagschedule"},
    "waiting_parse": {"dagschedule"},
    "waiting_recheck": {"dagschedule"},
    "waiting_options": {"dagschedule"},
    "script_index": {"script"},
    "paused_ids": {"script"},
    "overrides": {"script"},
    "unmatched": {"script"},
    # One sequence numbers both the overrides and the task timers.
    "seq": {"script", "lifecycle"},
    "last_tick": {"loop"},
    "examined_upto": {"loop"},
    "rotation": {"loop"},
    "warnings": {"simulation"},
    "backfills": {"backfill"},
    "assets": {"assets.scheduling", "assets.orphanage"},
    "asset_queued": {"assets.scheduling"},
    "asset_ready": {"assets.scheduling"},
    "asset_open": {"assets.scheduling"},
    "asset_full": {"assets.scheduling"},
    # Airflow's audit log gets rows from the asset rules and the partition requests.
    "audit_log": {"assets.scheduling", "assets.partitioned"},
    "watchers": {"assets.watching"},
    "partition_requests": {"assets.partitioned"},
    "partition_latest": {"assets.partitioned"},
    "partition_unevaluated": {"assets.partitioned"},
    "partition_opened": {"assets.partitioned"},
    # The facade sets the initial files and options; DEP-8: the partition-request step
    # records the requests it drops.
    "deployment": {"deployment", "simulation", "assets.partitioned"},
}
#: "Something changed: a loop may be needed" is every part's to say.
SHARED = {"dirty"}


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ENGINE).with_suffix("").parts)


def _is_state(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("st", "state")) or (
        isinstance(node, ast.Attribute) and node.attr == "state"
    )


def _field(node: ast.expr) -> str | None:
    """The SimState field an expression writes into, if any."""
    while isinstance(node, ast.Subscript | ast.Attribute):
        if isinstance(node, ast.Attribute) and node.attr in FIELDS and _is_state(node.value):
            return node.attr
        node = node.value
    return None


def writes(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in MUTATORS:
                targets = [node.func.value]
            elif node.func.attr in HEAP and node.args:
                targets = [node.args[0]]
        for target in targets:
            for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                name = _field(item)
                if name is not None:
                    found.add(name)
    return found


def test_every_field_has_an_owner() -> None:
    assert set(OWNERS) | SHARED == FIELDS


def test_the_detector_sees_writes() -> None:
    # A detector that sees nothing would pass the ownership test below.
    assert {"runs", "completions", "active"} <= writes(ENGINE / "lifecycle.py")
    assert "deployment" in writes(ENGINE / "assets" / "partitioned.py")


def test_each_part_writes_only_what_it_owns() -> None:
    foreign = {
        _module(path): sorted(
            name for name in writes(path) - SHARED if _module(path) not in OWNERS[name]
        )
        for path in sorted(ENGINE.rglob("*.py"))
    }
    assert {module: names for module, names in foreign.items() if names} == {}
