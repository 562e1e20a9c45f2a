"""The inspector: one form per selected item kind (DAG, asset, alias/ref, gate, connection)."""

from explorer.ui.inspector.panel import Inspector

__all__ = ["Inspector"]
