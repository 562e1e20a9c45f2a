"""The asset form: name and uri, the uri Airflow stores shown live, conflicts and near misses.

Airflow normalizes an asset's uri when the DAG file is parsed (a lower-case
scheme, no trailing slash, no password...: URI-3) and the name defaults to
the uri as written (URI-1). While the user types, the form shows the stored
form, ``make_asset``'s warnings, the assets this one would clash with (two
assets may not share a name or a uri: URI-2, URI-6) and the uris that differ
only by a slash or a case (``near_misses``): the mistakes that make a
consumer wait forever. A uri Airflow refuses is refused in place.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from explorer.document import edits
from explorer.engine.assets.uri import conflicts, make_asset, near_misses
from explorer.engine.errors import EngineError
from explorer.graph import asset_node
from explorer.scenario import Scenario, Watcher
from explorer.ui.document import ScenarioDocument
from explorer.ui.inspector.base import Form
from explorer.ui.inspector.fields import MessageLabel, ValidatedLine
from explorer.ui.inspector.watcher_form import WatchersEditor

__all__ = ["AssetForm", "asset_notes"]


def _identities(scenario: Scenario) -> dict[str, tuple[str, str]]:
    """Every asset the canvas shows: name -> (name, uri as written)."""
    from explorer.document.nodes import layout_graph

    graph = layout_graph(scenario)
    out: dict[str, tuple[str, str]] = {}
    for _node, data in graph.nodes(data=True):
        if data.get("kind") == "asset":
            out[str(data["name"])] = (str(data["name"]), str(data["uri"]))
    return out


def asset_notes(scenario: Scenario, name: str, uri: str) -> list[str]:
    """Warnings for an asset named ``name`` with ``uri``: clashes and near misses."""
    try:
        me, _ = make_asset(name, uri or None)
    except EngineError:
        return []
    notes: list[str] = []
    others = [(n, u) for n, (n2, u) in _identities(scenario).items() if n != name]
    identities = []
    for other_name, other_uri in others:
        try:
            identities.append(make_asset(other_name, other_uri)[0])
        except EngineError:
            continue
    for conflict in conflicts([*identities, me]):
        if conflict.inactive == me:
            notes.append(
                f"conflict: asset {conflict.active.name!r} already has this {conflict.field} "
                f"({conflict.active.uri!r}); Airflow keeps one of them inactive (URI-2)"
            )
    close = near_misses(me.uri, [i.uri for i in identities])
    for uri_close in close:
        notes.append(
            f"near miss: {uri_close!r} differs only by a slash, a case or the scheme; "
            "a consumer of one never sees events of the other (URI-5, URI-6)"
        )
    return notes


class AssetForm(Form):
    title_text = "Asset"

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(document, parent)
        self.setObjectName("assetForm")
        self.name = ValidatedLine(self._check_name, tooltip="Asset name (unique in the deployment)")
        self.name.edit.setObjectName("asset_name")
        self.name.committed.connect(self._rename)
        self.add_row("name", self.name)
        self.uri = ValidatedLine(
            self._check_uri,
            tooltip="Asset uri, e.g. s3://bucket/path (blank: the name, as in Asset(name))",
            placeholder="the name",
        )
        self.uri.edit.setObjectName("asset_uri")
        self.uri.note = self._uri_note
        self.uri.committed.connect(self._set_uri)
        self.add_row("uri", self.uri)
        self.stored = QLabel()
        self.stored.setObjectName("normalizedUri")
        self.stored.setWordWrap(True)
        self.stored.setToolTip("The uri Airflow stores after normalization (URI-3)")
        self.add_row("stored as", self.stored)
        self.warnings = MessageLabel()
        self.warnings.setObjectName("assetWarnings")
        self.add_row("", self.warnings)
        self.usage = QLabel()
        self.usage.setWordWrap(True)
        self.usage.setToolTip("Who writes this asset and who waits on it")
        self.add_row("used by", self.usage)
        self.watchers = WatchersEditor()
        self.watchers.changed.connect(self._set_watchers)
        self.add_row("watchers", self.watchers)
        self.outer.addStretch(1)

    def _name(self) -> str:
        return edits.parse_node(self.target).name

    def refresh(self, scenario: Scenario) -> None:
        name = self._name()
        identities = _identities(scenario)
        if name not in identities:
            return
        _, uri = identities[name]
        decl = next((a for a in scenario.assets if a.name == name), None)
        written = decl.uri if decl is not None else uri
        self.title.setText(f"Asset {name}")
        self.subtitle.setText(
            "declared in the scenario's assets" if decl is not None else "written inline in a DAG"
        )
        self.name.set_value(name)
        self.uri.set_value(written if written and written != name else "")
        self._show_stored(self.uri.value())
        self.usage.setText(self._usage(scenario, name))
        self.watchers.setEnabled(decl is not None)
        self.watchers.setToolTip(
            "AssetWatchers polling a source for this asset (WA-1..WA-4)"
            if decl is not None
            else "Only a declared asset can have a watcher"
        )
        self.watchers.first_instant = scenario.clock.start.value
        self.watchers.set_watchers(decl.watchers if decl is not None else ())

    def _usage(self, scenario: Scenario, name: str) -> str:
        node = asset_node(name)
        from explorer.document.nodes import layout_graph

        graph = layout_graph(scenario)
        if node not in graph:
            return ""
        writers = [
            f"{edits.parse_node(p).name}.{t}"
            for p in graph.predecessors(node)
            for t in graph.edges[p, node].get("tasks", ())
        ]
        readers = [edits.parse_node(s).name for s in graph.successors(node)]
        parts = []
        parts.append("written by " + (", ".join(writers) if writers else "no task"))
        parts.append("read by " + (", ".join(readers) if readers else "nothing"))
        return "; ".join(parts)

    # ----------------------------------------------------------------- checks
    def _check_name(self, text: str) -> str | None:
        if not text:
            return "an asset needs a name"
        try:
            make_asset(text, self.uri.value() or None)
        except EngineError as exc:
            return str(exc)
        if text != self._name() and text in edits.asset_names(self.document.scenario):
            return f"an asset named {text!r} already exists"
        return None

    def _check_uri(self, text: str) -> str | None:
        try:
            make_asset(self._name(), text or None)
        except EngineError as exc:
            return str(exc)
        return None

    def _uri_note(self, text: str) -> str:
        self._show_stored(text)
        return ""

    def _show_stored(self, text: str) -> None:
        name = self._name()
        try:
            identity, warnings = make_asset(name, text or None)
        except EngineError as exc:
            self.stored.setText("—")
            self.warnings.show_error(str(exc))
            return
        self.stored.setText(identity.uri)
        notes = [*warnings, *asset_notes(self.document.scenario, name, text or name)]
        if identity.uri != (text or name):
            notes.insert(0, f"Airflow stores {identity.uri!r}, not {text or name!r}")
        if notes:
            self.warnings.show_note("\n".join(f"⚠ {n}" for n in notes))
        else:
            self.warnings.clear_message()

    # ----------------------------------------------------------------- commands
    def _rename(self, text: str) -> None:
        old = self._name()
        s = self.document.scenario
        if self.push(
            lambda: edits.rename_asset(s, old, text),
            f"Rename asset {old} to {text}",
            on_error=self.name.set_error,
        ):
            self.set_target(asset_node(text))

    def _set_watchers(self, watchers: tuple[Watcher, ...]) -> None:
        name = self._name()
        s = self.document.scenario
        self.push(lambda: edits.set_watchers(s, name, watchers), f"Set watchers of {name}")

    def _set_uri(self, text: str) -> None:
        name = self._name()
        s = self.document.scenario
        self.push(
            lambda: edits.set_asset(s, name, uri=text.strip() or None),
            f"Set uri of {name}",
            on_error=self.uri.set_error,
        )
