"""The canvas: scene (model -> items), items, view (zoom, pan), interactions, minimap."""
