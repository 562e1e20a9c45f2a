"""The desktop app (PySide6): the canvas, the inspector, files and undo.

Layering (napari's model/Qt split): :mod:`explorer.scenario` holds the plain,
frozen model; the pure modules here (``conditions``, ``edits``, ``nodes``,
``schedule_kinds``) transform and describe it without Qt, so they can be
tested headless; everything else is Qt and only ever changes the model by
pushing a command onto the document's undo stack.
"""
