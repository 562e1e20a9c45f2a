"""Located refusals: every problem in a scenario file names the file and a JSON path.

The contract (section 4) asks for "one clear message naming the file, the place
in it (a JSON path) and what was expected", and ``explorer validate`` must
explain every problem at once. So a problem is a value (file, path, message),
several problems travel together in :class:`ScenarioErrors`, and both are
:class:`ScenarioError` so callers catch one type.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "JsonPath",
    "ScenarioError",
    "ScenarioErrors",
    "child",
    "did_you_mean",
    "raise_problems",
    "render_path",
]

#: A place in a JSON document: object keys and array indexes from the root.
JsonPath = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def render_path(path: JsonPath) -> str:
    """``("dags", 2, "schedule")`` -> ``$.dags[2].schedule``; odd keys are quoted."""
    parts = ["$"]
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _PLAIN_KEY.match(step):
            parts.append(f".{step}")
        else:
            escaped = step.replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'["{escaped}"]')
    return "".join(parts)


def child(path: JsonPath, *steps: str | int) -> JsonPath:
    return (*path, *steps)


class ScenarioError(Exception):
    """One problem in one scenario file, at one place."""

    def __init__(self, file: str, path: JsonPath | str, message: str) -> None:
        self.file = file
        #: The place as steps from the root (empty when only a rendered path was given).
        self.steps: JsonPath = () if isinstance(path, str) else tuple(path)
        self.path = path if isinstance(path, str) else render_path(path)
        self.message = message
        super().__init__(f"{self.file}: {self.path}: {self.message}")

    @property
    def problems(self) -> tuple[ScenarioError, ...]:
        """Every problem this error stands for (one here; see :class:`ScenarioErrors`)."""
        return (self,)


class ScenarioErrors(ScenarioError):
    """Several problems found in one pass, each located; ``str()`` gives one line each.

    ``file``, ``path`` and ``message`` are the first problem's, so code that
    expects a single :class:`ScenarioError` still shows something true.
    """

    def __init__(self, problems: Sequence[ScenarioError]) -> None:
        if not problems:
            raise ValueError("ScenarioErrors needs at least one problem")
        self._problems = tuple(problems)
        first = self._problems[0]
        Exception.__init__(self, "\n".join(str(p) for p in self._problems))
        self.file, self.path, self.message = first.file, first.path, first.message
        self.steps = first.steps

    @property
    def problems(self) -> tuple[ScenarioError, ...]:
        return self._problems


def raise_problems(problems: Iterable[ScenarioError]) -> None:
    """Raise nothing, the one problem, or all of them together."""
    found = list(problems)
    if len(found) == 1:
        raise found[0]
    if found:
        raise ScenarioErrors(found)


def did_you_mean(word: Any, choices: Iterable[Any]) -> str:
    """``" (did you mean 'catchup'?)"`` for a near miss among ``choices``, else ``""``."""
    if not isinstance(word, str):
        return ""
    strings = [c for c in choices if isinstance(c, str)]
    by_case = {c.lower(): c for c in strings}
    if word.lower() in by_case and by_case[word.lower()] != word:
        return f" (did you mean {by_case[word.lower()]!r}?)"
    close = difflib.get_close_matches(word, strings, n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""
