"""Where a new node goes: the nearest free place to where it was asked for.

Nodes added from the palette (at the view's centre) or by Tab (at the cursor)
landed on top of the nodes already there. :func:`free_spot` walks rings of
candidate centres around the asked-for point, nearest first, and returns the
first one whose box, with a margin, overlaps no node. Qt-free.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["free_spot"]

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def free_spot(
    centre: tuple[float, float],
    size: tuple[float, float],
    occupied: Sequence[Box],
    *,
    margin: float = 24.0,
    rings: int = 40,
) -> tuple[float, float]:
    """The centre nearest ``centre`` where a ``size`` box (plus ``margin``) touches nothing."""
    w, h = size[0] + 2 * margin, size[1] + 2 * margin
    step_x, step_y = w / 2, h / 2

    def free(x: float, y: float) -> bool:
        box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        return not any(_overlaps(box, other) for other in occupied)

    cx, cy = centre
    if free(cx, cy):
        return centre
    for ring in range(1, rings + 1):
        candidates = [
            (cx + i * step_x, cy + j * step_y)
            for i in range(-ring, ring + 1)
            for j in range(-ring, ring + 1)
            if max(abs(i), abs(j)) == ring
        ]
        candidates.sort(key=lambda p: math.hypot(p[0] - cx, p[1] - cy))
        for x, y in candidates:
            if free(x, y):
                return (x, y)
    return centre  # a crowded canvas: where it was asked for
