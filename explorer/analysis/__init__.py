"""Answers that leave the app: expectations, behavioural diffs, review reports.

Headless like :mod:`explorer.cli` (no Qt); it reads simulations built by
:mod:`explorer.scenario` and judges them. The one exception to "no Qt" is named in
pyproject's import-linter contract: ``explorer report`` draws its pictures with the
app's own drawing module, loaded lazily and offscreen.
"""
