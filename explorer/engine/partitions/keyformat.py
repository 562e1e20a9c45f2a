"""Reading week and quarter keys back (PT-6), as ``temporal.py::_compile_output_format_regex``.

``%V`` and ``{quarter}`` cannot go back through ``strptime``, so Airflow turns
the output format into an anchored regular expression with one named group per
directive or placeholder, and refuses a malformed format when the mapper is
built (the scheduler fails to load the DAG: a construction error).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from explorer.engine.partitions.base import PartitionError

__all__ = ["QUARTER_PATTERNS", "compile_key_pattern"]

#: The directives that become groups; any other ``%x`` is matched literally.
_DIRECTIVE_PATTERNS: dict[str, str] = {
    "%Y": r"\d{4}",
    "%m": r"\d{2}",
    "%d": r"\d{2}",
    "%H": r"\d{2}",
    "%M": r"\d{2}",
    "%S": r"\d{2}",
    "%V": r"\d{2}",
    "%U": r"\d{2}",
    "%W": r"\d{2}",
}

#: StartOfQuarterMapper narrows ``{quarter}`` to one digit 1-4.
QUARTER_PATTERNS: Mapping[str, str] = {"quarter": r"[1-4]"}

_DEFAULT_PLACEHOLDER = r"\w+"


def compile_key_pattern(
    fmt: str, placeholder_patterns: Mapping[str, str] | None = None
) -> re.Pattern[str]:
    """An anchored regex reading keys written with ``fmt``; PartitionError if ``fmt`` is malformed.

    Refused, as in Airflow: ``{}`` or a placeholder that is not an identifier, a
    directive or placeholder used twice, two adjacent placeholders that both use
    the greedy default pattern. A ``{`` without a closing ``}`` is a literal.
    """
    patterns = placeholder_patterns or {}
    parts: list[str] = []
    seen: set[str] = set()
    previous_default = False
    i = 0
    while i < len(fmt):
        directive = fmt[i : i + 2]
        if directive in _DIRECTIVE_PATTERNS:
            _claim(fmt, seen, directive[1], f"reuses directive {directive!r}")
            parts.append(f"(?P<{directive[1]}>{_DIRECTIVE_PATTERNS[directive]})")
            i += 2
            previous_default = False
            continue
        end = fmt.find("}", i) if fmt[i] == "{" else -1
        if end != -1:
            name = fmt[i + 1 : end]
            if not name.isidentifier():
                raise PartitionError(
                    f"output_format {fmt!r} has invalid placeholder {{{name}}}; "
                    "placeholder names must be valid Python identifiers."
                )
            _claim(fmt, seen, name, f"reuses placeholder {{{name}}}")
            is_default = name not in patterns
            if is_default and previous_default:
                raise PartitionError(
                    f"output_format {fmt!r} has adjacent default-pattern placeholders ending "
                    f"at {{{name}}}; insert a separator between them."
                )
            parts.append(f"(?P<{name}>{patterns.get(name, _DEFAULT_PLACEHOLDER)})")
            i = end + 1
            previous_default = is_default
            continue
        parts.append(re.escape(fmt[i]))
        i += 1
        previous_default = False
    try:
        return re.compile(f"^{''.join(parts)}$")
    except re.error as exc:  # pragma: no cover - names are identifiers, so this should not happen
        raise PartitionError(f"output_format {fmt!r} cannot be read back: {exc}") from exc


def _claim(fmt: str, seen: set[str], group: str, what: str) -> None:
    if group in seen:
        raise PartitionError(
            f"output_format {fmt!r} {what}; each directive or placeholder may appear at most once."
        )
    seen.add(group)
