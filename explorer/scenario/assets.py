"""Asset nodes of a scenario as engine values, and the asset rules beyond the schema.

A scenario writes assets in Airflow's words (contract section 1):
``{"asset": {"name": ..., "uri": ...}}``, ``{"asset": "<declared name>"}``,
``{"asset_ref": {"name"|"uri": ...}}``, ``{"alias": {"name": ...}}``, inside
conditions (``all``/``any``/lists), task outlets, alias events and external
asset events. This module turns them into the engine's values with its own
readers (``condition_from_spec``, ``asset_key``: Airflow's defaults and URI
normalization, URI-1 .. URI-4), locating every refusal at a JSON path, and
finds what Airflow accepts but what silently does nothing (an alias nothing
emits through, an ``Asset.ref`` that matches no asset), which become warnings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from explorer.engine.assets.condition import AliasNode, AssetKey, AssetNode, Condition, RefNode
from explorer.engine.assets.spec import ConditionError, asset_key, condition_from_spec
from explorer.engine.assets.uri import make_asset, near_misses
from explorer.engine.dag import Outlet
from explorer.engine.errors import EngineError
from explorer.scenario.errors import JsonPath, ScenarioError, did_you_mean
from explorer.scenario.model import AssetDecl, AssetEventAction, Dag, Scenario, TaskOutcomeAction
from explorer.scenario.values import JsonValue

__all__ = [
    "AssetCatalog",
    "FrozenObject",
    "Place",
    "asset_notes",
    "asset_places",
    "condition_nodes",
    "declared_names",
    "frozen_extra",
    "known_assets",
    "schedule_conditions",
    "unknown_asset_message",
    "without_extras",
]

NodeKind = Literal["asset", "asset_ref", "alias"]
Role = Literal["schedule", "inlet", "outlet", "alias_event", "asset_event"]
#: (where, what), the shape of problems and warnings before a file name is added.
Finding = tuple[JsonPath, str]

_NODE_KINDS: tuple[NodeKind, ...] = ("asset", "asset_ref", "alias")
_NOT_CONDITIONS = ("timetable", "timedelta", "relativedelta")


def without_extras(value: JsonValue) -> JsonValue:
    """``value`` without its ``x-...`` keys, at every depth (an asset's ``extra`` is kept whole)."""
    if isinstance(value, dict):
        return {
            key: child if key == "extra" else without_extras(child)
            for key, child in value.items()
            if not key.startswith("x-")
        }
    if isinstance(value, list):
        return [without_extras(child) for child in value]
    return value


class FrozenObject(dict[str, object]):
    """A JSON object that can be hashed (it is never changed once made).

    The engine groups alias emissions by ``(asset, extra)`` (AS-9: equal extras
    through several aliases give one event), so an extra must hash even when
    its values are objects or lists; ``json.dumps`` still writes it as an object.
    Equal objects hash alike whatever their key order, as ``==`` says.
    """

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))


def _frozen(value: JsonValue) -> object:
    if isinstance(value, dict):
        return FrozenObject((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def frozen_extra(
    extra: Mapping[str, JsonValue] | None, *, sort_keys: bool = False
) -> tuple[tuple[str, object], ...]:
    """An event's ``extra`` as the engine's ``((key, value), ...)``, every value hashable.

    ``sort_keys`` puts the keys in order, so that two extras Airflow finds equal
    (it compares them as JSON with sorted keys) are equal tuples.
    """
    items = [(key, _frozen(value)) for key, value in (extra or {}).items()]
    return tuple(sorted(items, key=lambda item: item[0]) if sort_keys else items)


def _uri_refused(uri: JsonValue) -> bool:
    """Does Airflow refuse this uri whatever the name (URI-3, URI-4)?"""
    try:
        make_asset("x", uri if isinstance(uri, str) else str(uri))
    except EngineError:
        return True
    return False


def _refine(value: JsonValue, steps: JsonPath) -> JsonPath:
    """Point a refusal of ``{"asset": {...}}`` at the ``uri`` or ``name`` that causes it."""
    node: JsonValue = value
    for step in steps:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return steps
    if not steps or steps[-1] != "asset" or not isinstance(node, dict):
        return steps
    if "uri" in node and _uri_refused(node["uri"]):
        return (*steps, "uri")
    if "name" in node:
        return (*steps, "name")
    return steps


class AssetCatalog:
    """The scenario's declared assets as engine keys; every asset node is read through it.

    A declaration Airflow would refuse (``Asset(uri="airflow://...")``) is a
    problem at its place, and its name is remembered as ``broken`` so that the
    nodes naming it are not reported a second time. Two declarations whose
    identities clash (``s3://b/p/`` and ``s3://b/p``: URI-6) are accepted, as
    Airflow accepts them; the engine warns when it deploys them (URI-2).
    """

    def __init__(self, declarations: Sequence[AssetDecl]) -> None:
        self.keys: dict[str, AssetKey] = {}
        self.broken: set[str] = set()
        #: Problems of the declarations, by index in the ``assets`` list.
        self.problems: dict[int, Finding] = {}
        #: ``make_asset``'s own warnings (a password dropped from a uri), by declaration.
        self.notes: list[Finding] = []
        for index, decl in enumerate(declarations):
            if decl.name in self.keys or decl.name in self.broken:
                continue  # a repeated name: reported by the rules, the first one counts
            try:
                _, warnings = make_asset(decl.name, decl.uri)
                self.keys[decl.name] = asset_key({"name": decl.name, "uri": decl.uri})
            except EngineError as exc:
                self.broken.add(decl.name)
                where = "uri" if decl.uri is not None and _uri_refused(decl.uri) else "name"
                self.problems[index] = (("assets", index, where), str(exc))
                continue
            self.notes.extend((("assets", index, "uri"), w) for w in warnings)

    def names_broken(self, node: JsonValue) -> bool:
        """Does ``node`` name a declaration that was refused (and is reported there)?"""
        return any(name in self.broken for _, name in declared_names(node))

    def condition(self, value: JsonValue, path: JsonPath) -> Condition:
        """A condition (or one asset node) at ``path``; refusals are located ScenarioErrors."""
        try:
            return condition_from_spec(without_extras(value), self.keys)
        except ConditionError as exc:
            raise ScenarioError("", (*path, *_refine(value, exc.path)), str(exc)) from exc
        except EngineError as exc:
            raise ScenarioError("", path, str(exc)) from exc

    def outlet(self, node: JsonValue, path: JsonPath) -> Outlet:
        """A task outlet: an asset, ``Asset.ref(...)`` or an alias (AS-1, AS-9, AS-10)."""
        read = self.condition(node, path)
        if isinstance(read, AssetNode):
            return read.key
        if isinstance(read, RefNode | AliasNode):
            return read
        raise ScenarioError("", path, "an outlet is one asset, Asset.ref or alias, not a condition")

    def asset(self, node: JsonValue, path: JsonPath, *, what: str) -> AssetKey:
        """A concrete asset (``{"asset": ...}``): what alias events and external events name."""
        read = self.condition(node, path)
        if isinstance(read, AssetNode):
            return read.key
        kind = next((k for k in _NODE_KINDS if isinstance(node, dict) and k in node), None)
        where = path if kind is None else (*path, kind)
        raise ScenarioError(
            "",
            where,
            f'{what} names an asset: write {{"asset": ...}}, not an Asset.ref or an alias',
        )

    def key(self, body: JsonValue) -> AssetKey | None:
        """The key of an ``{"asset": body}`` node, or None if it cannot be read."""
        if isinstance(body, str):
            return self.keys.get(body)
        if not isinstance(body, dict):
            return None
        try:
            return asset_key(without_extras(body))  # type: ignore[arg-type]
        except EngineError:
            return None


def declared_names(node: JsonValue, path: JsonPath = ()) -> Iterator[tuple[JsonPath, str]]:
    """Every ``{"asset": "<name>"}`` reference to a declared asset inside ``node``."""
    if isinstance(node, dict):
        target = node.get("asset")
        if isinstance(target, str):
            yield (*path, "asset"), target
        for key, child in node.items():
            if not key.startswith("x-") and key != "extra":
                yield from declared_names(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from declared_names(child, (*path, index))


# ----------------------------------------------------------------------------- places


@dataclass(frozen=True, slots=True)
class Place:
    """One asset node of the scenario: where it is, what kind, its body, what it is for."""

    path: JsonPath  # ends with the node's key: "asset", "asset_ref" or "alias"
    kind: NodeKind
    body: JsonValue
    role: Role
    dag_id: str | None = None
    task_id: str | None = None


def schedule_conditions(
    schedule: JsonValue, path: JsonPath
) -> Iterator[tuple[JsonValue, JsonPath]]:
    """The conditions inside a schedule value: itself, or an asset timetable's ``assets``."""
    if isinstance(schedule, list) or (
        isinstance(schedule, dict) and not any(k in schedule for k in _NOT_CONDITIONS)
    ):
        yield schedule, path
    elif isinstance(schedule, dict) and "timetable" in schedule:
        args = schedule.get("args")
        if isinstance(args, dict):
            if "assets" in args:
                yield args["assets"], (*path, "args", "assets")
            if isinstance(args.get("timetable"), dict):
                yield from schedule_conditions(args["timetable"], (*path, "args", "timetable"))


def condition_nodes(
    value: JsonValue, path: JsonPath
) -> Iterator[tuple[JsonPath, NodeKind, JsonValue]]:
    """The asset, reference and alias nodes of a condition (or of one node), with their paths."""
    if isinstance(value, list):
        for index, child in enumerate(value):
            yield from condition_nodes(child, (*path, index))
    elif isinstance(value, dict):
        for key, child in value.items():
            if key in ("all", "any") and isinstance(child, list):
                for index, item in enumerate(child):
                    yield from condition_nodes(item, (*path, key, index))
            elif key in _NODE_KINDS:
                yield (*path, key), key, child


#: Each DAG's asset nodes, by the DAG's identity and place (the model is immutable and an
#: edit keeps every DAG it does not change): the GUI builds the scenario after every edit,
#: and the builder walks every DAG's conditions twice. The DAG is kept with
#: them, so its identity is never another DAG's. Oldest entries go first beyond the limit.
_PLACES: dict[tuple[int, int], tuple[Dag, tuple[Place, ...]]] = {}
_PLACES_LIMIT = 8192


def asset_places(scenario: Scenario) -> Iterator[Place]:
    """Every asset node of the scenario, in file order."""
    for d, dag in enumerate(scenario.dags):
        known = _PLACES.get((id(dag), d))
        if known is None or known[0] is not dag:
            if len(_PLACES) >= _PLACES_LIMIT:
                for key in list(_PLACES)[: _PLACES_LIMIT // 2]:
                    del _PLACES[key]
            known = _PLACES[(id(dag), d)] = (dag, tuple(_dag_places(dag, d)))
        yield from known[1]
    for index, action in enumerate(scenario.script):
        if isinstance(action, TaskOutcomeAction):
            for e, event in enumerate(action.alias_events or ()):
                where = ("script", index, "alias_events", e, "asset")
                for path, kind, body in condition_nodes(event.asset, where):
                    yield Place(path, kind, body, "alias_event", action.run.dag_id, action.task_id)
        elif isinstance(action, AssetEventAction):
            for path, kind, body in condition_nodes(action.asset, ("script", index, "asset")):
                yield Place(path, kind, body, "asset_event")


def _dag_places(dag: Dag, d: int) -> Iterator[Place]:
    """The asset nodes of the DAG at ``$.dags[d]``, in file order."""
    base: JsonPath = ("dags", d)
    for value, where in schedule_conditions(dag.schedule, (*base, "schedule")):
        for path, kind, body in condition_nodes(value, where):
            yield Place(path, kind, body, "schedule", dag.dag_id)
    for t, task in enumerate(dag.tasks):
        task_path: JsonPath = (*base, "tasks", t)
        for i, inlet in enumerate(task.inlets):
            for path, kind, body in condition_nodes(inlet, (*task_path, "inlets", i)):
                yield Place(path, kind, body, "inlet", dag.dag_id, task.task_id)
        for o, outlet in enumerate(task.outlets):
            for path, kind, body in condition_nodes(outlet, (*task_path, "outlets", o)):
                yield Place(path, kind, body, "outlet", dag.dag_id, task.task_id)
        for e, event in enumerate(task.alias_events):
            where = (*task_path, "alias_events", e, "asset")
            for path, kind, body in condition_nodes(event.asset, where):
                yield Place(path, kind, body, "alias_event", dag.dag_id, task.task_id)


def known_assets(scenario: Scenario, catalog: AssetCatalog) -> dict[AssetKey, None]:
    """The assets the deployment knows: declared, or named by a DAG or an alias emission.

    These are the rows Airflow would have in its ``asset`` table (parsing
    creates them; an alias emission creates its asset on the fly, AS-9);
    external events name one of them, and ``Asset.ref`` resolves to one.
    """
    known = dict.fromkeys(catalog.keys.values())
    for place in asset_places(scenario):
        if place.kind == "asset" and place.role != "asset_event":
            key = catalog.key(place.body)
            if key is not None:
                known.setdefault(key)
    return known


def unknown_asset_message(key: AssetKey, known: Mapping[AssetKey, None]) -> str:
    """Why an external event on ``key`` is refused, with the spellings the user may have meant."""
    same_uri = next((k for k in known if k.uri == key.uri), None)
    same_name = next((k for k in known if k.name == key.name), None)
    if same_uri is not None:
        hint = (
            f" (asset {same_uri.name!r} has this uri; names differ, and a name defaults to the "
            "uri as written: URI-1, URI-6)"
        )
    elif same_name is not None:
        hint = f" (asset {same_name.name!r} has the uri {same_name.uri!r})"
    else:
        hint = did_you_mean(key.name, [k.name for k in known])
        close = near_misses(key.uri, [k.uri for k in known])
        hint = hint or (f" (did you mean the uri {close[0]!r}?)" if close else "")
    return (
        f"no asset {key.label()} in this deployment: Airflow answers 404 (AssetModel not found)"
        f"{hint}; declare it in the top-level 'assets' list or use it in a DAG"
    )


# ----------------------------------------------------------------------------- warnings


def asset_notes(scenario: Scenario, catalog: AssetCatalog) -> list[Finding]:
    """What Airflow accepts but what silently does nothing, each at its place.

    - an alias in a schedule that nothing can ever emit through: no task has
      it as an outlet and no alias event names it (the part stays false, AS-9);
    - an ``Asset.ref`` that matches no asset of the deployment (AS-3, AS-10);
    - an alias outlet the simulation never emits through (nothing says what
      the task adds to it at run time);
    - a password dropped from a uri (``make_asset``'s warning, URI-3).
    Alias events through an alias that is not an outlet of the task are
    reported where they are converted (``build``).
    """
    places = list(asset_places(scenario))
    known = known_assets(scenario, catalog)
    outlet_aliases = {
        _alias_name(p.body) for p in places if p.kind == "alias" and p.role == "outlet"
    }
    emitted: set[tuple[str | None, str | None, str]] = set()
    for dag in scenario.dags:
        for task in dag.tasks:
            emitted.update((dag.dag_id, task.task_id, e.alias) for e in task.alias_events)
    for action in scenario.script:
        if isinstance(action, TaskOutcomeAction):
            emitted.update(
                (action.run.dag_id, action.task_id, e.alias) for e in action.alias_events or ()
            )
    emitted_aliases = {alias for _, _, alias in emitted}
    notes: list[Finding] = list(catalog.notes)
    for place in places:
        if place.kind == "alias" and place.role == "schedule":
            name = _alias_name(place.body)
            if name not in outlet_aliases and name not in emitted_aliases:
                notes.append((place.path, _never_emitted(name)))
        elif place.kind == "alias" and place.role == "outlet":
            name = _alias_name(place.body)
            if (place.dag_id, place.task_id, name) not in emitted:
                notes.append((place.path, _outlet_silent(name)))
        elif place.kind == "asset_ref" and place.role in ("schedule", "outlet"):
            ref = _ref(place.body)
            if ref is not None and not any(ref.matches(key) for key in known):
                notes.append((place.path, _ref_unmatched(ref, place.role, known)))
        elif place.kind == "asset" and isinstance(place.body, dict):
            notes.extend(((*place.path, "uri"), w) for w in _make_warnings(place.body))
    return notes


def _alias_name(body: JsonValue) -> str:
    return str(body.get("name")) if isinstance(body, dict) else str(body)


def _ref(body: JsonValue) -> RefNode | None:
    if not isinstance(body, dict):
        return None
    name, uri = body.get("name"), body.get("uri")
    return RefNode(
        name=name if isinstance(name, str) else None, uri=uri if isinstance(uri, str) else None
    )


def _make_warnings(body: dict[str, JsonValue]) -> list[str]:
    name, uri = body.get("name"), body.get("uri")
    try:
        _, warnings = make_asset(
            name if isinstance(name, str) else None, uri if isinstance(uri, str) else None
        )
    except EngineError:
        return []
    return warnings


def _never_emitted(name: str) -> str:
    return (
        f"alias {name!r} is never emitted through: no task has it as an outlet and no "
        "alias_events name it. Airflow accepts this DAG, but this part of its condition stays "
        "false (an AND with it never triggers: AS-9)"
    )


def _outlet_silent(name: str) -> str:
    return (
        f"the simulation emits nothing through alias {name!r}: say what the task adds to it "
        "at run time (outlet_events[AssetAlias(...)].add) with alias_events on the task or on "
        "a task_success action"
    )


def _ref_unmatched(ref: RefNode, role: Role, known: Mapping[AssetKey, None]) -> str:
    effect = (
        "it never resolves, so this part of the condition stays false"
        if role == "schedule"
        else "it never resolves, so this outlet emits nothing"
    )
    if ref.name is not None:
        hint = did_you_mean(ref.name, [k.name for k in known])
    else:
        close = near_misses(ref.uri or "", [k.uri for k in known])
        hint = (
            f" (did you mean {close[0]!r}? Asset.ref(uri=...) is compared with the normalized uri)"
            if close
            else ""
        )
    return f"{ref.label()} matches no asset declared or used in this scenario{hint}: {effect}"
