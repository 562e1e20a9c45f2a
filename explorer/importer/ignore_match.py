"""``.airflowignore`` patterns matched in time linear in the name.

Airflow 3.3.2 matches glob lines with pathspec's ``GitWildMatchPattern`` and
regexp lines with Python's ``re``; both backtrack, and a line such as
``*a*a*a*a*a*a*b`` or ``(a+)+$`` against a long name takes minutes or years.
Here each pattern keeps its meaning but is run by RE2 (``google-re2``), whose
automaton is linear in the name:

- a glob line becomes the regular expression pathspec builds for it, which RE2
  reads with the same meaning for every name;
- a regexp line goes to RE2 when RE2 gives Python's answer for it: the pattern
  compiles in RE2 with none of the constructs the two read differently, and the
  name is printable ASCII (Python's ``\\d``, ``\\w`` and ``\\s`` are Unicode-aware,
  RE2's are not). Otherwise Python's ``re`` runs it, but only when the pattern
  cannot backtrack out of bounds (no repeat inside a repeat, at most two
  unbounded repeats); else :class:`IgnoreTooComplex` stops the import, naming
  the pattern and the file, rather than give a different result.
"""

from __future__ import annotations

import re
import re._parser as parser  # the parse tree re.compile itself builds
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import re2
from pathspec.patterns.gitwildmatch import GitWildMatchPattern

__all__ = ["IgnorePattern", "IgnoreTooComplex", "compile_glob", "compile_regexp"]

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

#: Regexp constructs RE2 accepts with another meaning than Python's ``re``.
_DIFFERENT_IN_RE2 = ("[:", "{,")
#: Names RE2 and Python's ``re`` read alike: printable ASCII, no newline.
_PLAIN_NAME = re.compile(r"[\x20-\x7e]*\Z")
#: How many unbounded repeats Python's ``re`` may backtrack over in a name (quadratic).
_MAX_UNBOUNDED = 2


class IgnoreTooComplex(Exception):
    """A regexp line that only Python's backtracking ``re`` can answer, and not within bounds."""

    def __init__(self, pattern: str, definition: str, name: str) -> None:
        super().__init__(
            f"the {definition} pattern {pattern!r} cannot be matched against {name!r} within "
            "the import's work bound (a repeat inside a repeat, or more than two unbounded "
            "repeats, on a name that is not plain ASCII): the import stops rather than "
            "risk a different answer than Airflow's; simplify the pattern"
        )
        self.pattern = pattern
        self.definition = definition


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    """One compiled line: ``include`` is False for a negated glob line (``!x``)."""

    source: str
    definition: str
    include: bool
    linear: Any
    python: re.Pattern[str] | None = None
    bounded: bool = True

    def matches(self, text: str) -> bool:
        if self.python is None:
            return self.linear.match(text) is not None
        if self.linear is not None and _PLAIN_NAME.match(text):
            return self.linear.search(text) is not None
        if not self.bounded:
            raise IgnoreTooComplex(self.source, self.definition, text)
        return self.python.search(text) is not None


def compile_glob(line: str, definition: str) -> IgnorePattern | None:
    """A gitwildmatch line as pathspec (and so Airflow) reads it, or None for none."""
    with warnings.catch_warnings():
        # pathspec deprecates the name; Airflow 3.3.2 uses exactly this class, so do we.
        warnings.simplefilter("ignore", DeprecationWarning)
        pattern = GitWildMatchPattern(line)
    if pattern.include is None or pattern.regex is None:
        return None
    linear = re2.compile(pattern.regex.pattern, _OPTIONS)
    return IgnorePattern(line, definition, bool(pattern.include), linear)


def compile_regexp(line: str, definition: str) -> IgnorePattern | None:
    """A regexp line as Python's ``re`` reads it, or None when ``re`` refuses it (Airflow
    skips such a line too)."""
    try:
        python = re.compile(line)
    except re.error:
        return None
    linear = None
    if not any(construct in line for construct in _DIFFERENT_IN_RE2):
        try:
            linear = re2.compile(line, _OPTIONS)
        except re2.error:
            linear = None
    return IgnorePattern(line, definition, True, linear, python, _backtracks_in_bounds(line))


def _backtracks_in_bounds(line: str) -> bool:
    """True when Python's ``re`` matches ``line`` in at most quadratic steps: no repeat
    inside a repeat and at most two unbounded repeats in all."""
    repeats = list(_repeats(parser.parse(line), inside=False))
    unbounded = sum(1 for endless, _ in repeats if endless)
    return not any(nested for _, nested in repeats) and unbounded <= _MAX_UNBOUNDED


_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


def _repeats(items: Any, inside: bool) -> Iterator[tuple[bool, bool]]:
    """``(unbounded, nested)`` for each repeat of more than once in a parse tree."""
    for op, value in items:
        name = str(op)
        if name in _REPEATS:
            _, high, body = value
            many = high == parser.MAXREPEAT or high > 1
            if many:
                yield high == parser.MAXREPEAT, inside
            yield from _repeats(body, inside or many)
        elif name == "SUBPATTERN":
            yield from _repeats(value[-1], inside)
        elif name == "BRANCH":
            for branch in value[1]:
                yield from _repeats(branch, inside)
        elif name in ("ASSERT", "ASSERT_NOT"):
            yield from _repeats(value[1], inside)
