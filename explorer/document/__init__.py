"""The document layer: what the app does to a scenario and says about it, without Qt.

Edits (``edits``, ``conditions``), the canvas's model (``nodes``, ``free_space``),
schedule kinds, clipboard payloads, file names, provenance, wording, badges,
captions and the timeline's run columns all transform or describe the frozen
:mod:`explorer.scenario` model and the engine's record. They live here, outside
:mod:`explorer.ui`, so they are typed strictly, tested without a display, and kept
headless by the import-linter contract; :mod:`explorer.ui` keeps the widgets,
which only change the model by pushing a command onto the undo stack (ADR 0005).
"""
