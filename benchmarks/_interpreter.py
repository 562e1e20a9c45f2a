"""Which interpreter ran a benchmark, in one line printed beside its figures.

The same engine runs about 1.35x faster under Debian's ``/usr/bin/python3.11`` (built
with profile-guided and link-time optimisation, the interpreter linked into the
executable) than under a default pyenv build (no PGO, the interpreter in a shared
``libpython``), with identical records (benchmarks/README.md). Figures taken under two
interpreters are therefore not comparable, and each benchmark says which one it ran on.
"""

from __future__ import annotations

import os
import platform
import sys

from explorer.installation import engine_build

__all__ = ["describe"]


def _libpython() -> str:
    """``shared libpython`` when the running process maps one, ``static`` when it maps
    none (Linux's /proc), ``unknown`` elsewhere."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            return "shared libpython" if "libpython" in maps.read() else "static"
    except OSError:
        return "unknown"


def describe(*, engine: bool = True) -> str:
    """``interpreter: CPython 3.11.2 (main, ...) [GCC ...] at <path>, static``, and
    ``; engine: ...`` when ``engine`` (False for a benchmark whose runs are subprocesses
    of both kinds)."""
    build = ", ".join(platform.python_build())
    line = (
        f"interpreter: {platform.python_implementation()} {platform.python_version()} "
        f"({build}) [{platform.python_compiler()}] at {os.path.realpath(sys.executable)}, "
        f"{_libpython()}"
    )
    return f"{line}; engine: {engine_build()}" if engine else line
