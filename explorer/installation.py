"""Which modules of this installation run compiled (adr/0013).

The bundle (``packaging/build-deb.sh``) ships the engine's per-run path compiled by
mypyc; a checkout, an editable install and a bundle built without a C compiler run
the same modules as plain Python, with byte-identical records. ``explorer --version``
and ``explorer --self-test`` say which one a user has, so that a speed figure or a
crash report can name it. Read from the files beside the package, not from what
happens to be imported yet.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib.machinery import EXTENSION_SUFFIXES

import explorer


def extension_files(root: str, package: str = "") -> dict[str, str]:
    """Every C extension under the folder ``root``: its dotted module name (inside
    ``package``, when given) mapped to its file. One walk for the installation's
    description and for the bundle's spec, which swaps these files in for bytecode."""
    found: dict[str, str] = {}
    for folder, _dirs, files in os.walk(root):
        relative = os.path.relpath(folder, root)
        parts = [] if relative == "." else relative.split(os.sep)
        prefix = [package] if package else []
        for name in files:
            suffix = next((s for s in EXTENSION_SUFFIXES if name.endswith(s)), None)
            if suffix is not None:
                module = ".".join([*prefix, *parts, name.removesuffix(suffix)])
                found[module] = os.path.join(folder, name)
    return found


def compiled_modules(roots: Iterable[str] | None = None) -> list[str]:
    """The ``explorer`` modules that are C extensions, sorted: found as extension files
    in the package's folders (``roots``: those folders; default ``explorer.__path__``)."""
    found: set[str] = set()
    for root in explorer.__path__ if roots is None else roots:
        found.update(extension_files(root, "explorer"))
    return sorted(found)


def engine_build(roots: Iterable[str] | None = None) -> str:
    """One line: ``compiled (N modules, mypyc)`` or ``plain Python``."""
    names = compiled_modules(roots)
    return f"compiled ({len(names)} modules, mypyc)" if names else "plain Python"
