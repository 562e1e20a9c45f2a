"""The document layer and its tests load with Qt made unimportable.

import-linter guards the source's direct and indirect imports; this runs the real
thing: a fresh interpreter in which importing PySide6, pyqtgraph or shiboken6
fails, importing every module of :mod:`explorer.document` and every test module of
this folder. A package ``__init__`` that pulls widgets in (as
``explorer.ui.timeline``'s does) would fail here even if the module itself is pure.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import explorer.document

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

PROBE = """
import importlib, sys
for blocked in ("PySide6", "pyqtgraph", "shiboken6"):
    sys.modules[blocked] = None  # an import of it now raises ImportError
for name in sys.argv[1:]:
    importlib.import_module(name)
loaded = sorted(m for m in sys.modules if m.startswith("explorer.ui"))
assert not loaded, loaded
print(len(sys.argv) - 1)
"""


def _document_modules() -> list[str]:
    prefix = explorer.document.__name__ + "."
    return [info.name for info in pkgutil.walk_packages(explorer.document.__path__, prefix)]


def _test_modules() -> list[str]:
    return [f"tests.document.{path.stem}" for path in sorted(HERE.glob("test_*.py"))]


def test_every_document_module_and_test_imports_without_qt() -> None:
    modules = _document_modules() + _test_modules()
    assert "explorer.document.edits" in modules
    assert "explorer.document.timeline.data" in modules
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(modules)
