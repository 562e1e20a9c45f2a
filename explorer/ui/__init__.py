"""The desktop app (PySide6): the canvas, the inspector, files and undo.

Layering (napari's model/Qt split): :mod:`explorer.scenario` holds the plain,
frozen model; :mod:`explorer.document` transforms and describes it without Qt
(edits, conditions, nodes, schedule kinds, the timeline's columns), so it is
tested headless; everything here is Qt and only ever changes the model by
pushing a command onto the document's undo stack.
"""
