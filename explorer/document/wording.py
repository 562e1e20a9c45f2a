"""Small pieces of English the panes share (so "1 DAGs" is written nowhere)."""

from __future__ import annotations

__all__ = ["count"]


def count(n: int, noun: str) -> str:
    """``1 DAG``, ``2 DAGs``, ``0 script actions``: a number with its noun, plural or not."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
