"""Every scene item's rectangle in one array, so the scene's bounds cost a reduction.

Qt's ``QGraphicsScene.itemsBoundingRect`` asks every item for its scene rectangle:
about two milliseconds at 200 DAGs, paid again after each drag of a node that lies
on the graph's border (its move may shrink the bounds, so the kept bounds cannot
simply grow). A node drag must cost at most 16 ms in all.

:class:`ItemExtents` keeps each item's scene rectangle as a row of a numpy array.
A node that moved or changed its box marks itself, its edges and their children
stale (:meth:`ItemExtents.touch`); :meth:`ItemExtents.bounds` measures the stale
rows again and reduces the array. The answer is the one Qt gives: the union of
every item's ``sceneBoundingRect``, null rectangles left out (QRectF's ``|``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem

_NAN = (np.nan, np.nan, np.nan, np.nan)


def _row(item: QGraphicsItem) -> tuple[float, float, float, float]:
    r = item.sceneBoundingRect()
    if r.isNull():
        return _NAN  # QRectF's union ignores it (Qt's itemsBoundingRect too)
    return (r.left(), r.top(), r.right(), r.bottom())


class ItemExtents:
    """The scene rectangles of a fixed set of items (the scene drops it on add/remove)."""

    def __init__(self, items: Iterable[QGraphicsItem]) -> None:
        listed = list(items)
        self._index = {item: i for i, item in enumerate(listed)}
        self._rows = np.array([_row(item) for item in listed], dtype=float).reshape(-1, 4)
        self._stale: set[QGraphicsItem] = set()

    def touch(self, *items: QGraphicsItem) -> None:
        """These items (and their children) may have moved or changed their box."""
        self._stale.update(items)

    def bounds(self) -> QRectF:
        """The union of every item's scene rectangle, as Qt's ``itemsBoundingRect``."""
        if self._stale:
            stack = list(self._stale)
            self._stale.clear()
            while stack:
                item = stack.pop()
                i = self._index.get(item)
                if i is not None:
                    self._rows[i] = _row(item)
                stack.extend(item.childItems())
        rows = self._rows
        if rows.size == 0 or np.isnan(rows[:, 0]).all():
            return QRectF()
        left, top = np.nanmin(rows[:, 0]), np.nanmin(rows[:, 1])
        right, bottom = np.nanmax(rows[:, 2]), np.nanmax(rows[:, 3])
        return QRectF(float(left), float(top), float(right - left), float(bottom - top))
