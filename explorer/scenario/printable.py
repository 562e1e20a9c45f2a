"""Names from other people's files, made safe to print on a terminal or in a log line.

A DAG id, a file name or an expectation name may hold terminal escapes
(``\\x1b]0;...``), carriage returns that overwrite what was printed, bidi
overrides that reorder it, or lone surrogates that no encoder accepts. Each is
shown as its Python escape (``\\x1b``, ``\\u202e``), so what a person reads is
what the file holds.
"""

from __future__ import annotations

import re

__all__ = ["printable", "printable_line"]

#: C0 controls but tab and newline, DEL, C1 controls, bidi controls, lone surrogates.
_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_IN_LINE = re.compile(r"[\t\n]|" + _UNSAFE.pattern)


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape", "backslashreplace").decode("ascii")


def printable(text: str) -> str:
    """``text`` with every unsafe character escaped; tabs and newlines kept."""
    return _UNSAFE.sub(_escape, text)


def printable_line(text: str) -> str:
    """``text`` as one line: tabs and newlines escaped too."""
    return _UNSAFE_IN_LINE.sub(_escape, text)
