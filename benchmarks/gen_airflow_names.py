"""Write the table of what ``import``/``from ... import`` succeeds on in Airflow 3.3.2.

Run it with the Python of a throwaway virtualenv that has exactly the three
distributions the importer judges DAG files against (never the product's own
environment: the product never imports Airflow)::

    python3.11 -m venv /tmp/af && /tmp/af/bin/pip install \\
        apache-airflow-core==3.3.2 apache-airflow-task-sdk==1.3.2 \\
        apache-airflow-providers-standard==1.21.0
    /tmp/af/bin/python benchmarks/gen_airflow_names.py          # rewrites the table
    /tmp/af/bin/python benchmarks/gen_airflow_names.py --check  # compares, byte for byte

Every module file of the three distributions is imported (with ``AIRFLOW_HOME`` in a
temporary folder); a module that fails to import keeps its error, as Airflow would
raise it. For each module the table lists the names ``from module import name``
finds: its attributes, the names a module-level ``__getattr__`` answers (lazy
imports and deprecation shims: every identifier written as a string in the module
and its packages is tried), and the modules Airflow creates at run time
(``airflow.operators.bash`` & co., forwarding to the standard provider). It also lists
the top-level modules those distributions install (pendulum, dateutil...): a DAG file
may import them wherever Airflow runs.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.metadata
import io
import json
import os
import pkgutil
import re
import sys
import tempfile
import warnings
from pathlib import Path
from types import ModuleType

DISTRIBUTIONS = {
    "apache-airflow-core": "3.3.2",
    "apache-airflow-task-sdk": "1.3.2",
    "apache-airflow-providers-standard": "1.21.0",
}
TABLE = Path(__file__).resolve().parents[1] / "explorer" / "importer" / "airflow_3_3_2_names.json"

#: Module attributes every module has: never what a DAG file imports.
_STANDARD = {
    "__name__",
    "__doc__",
    "__file__",
    "__loader__",
    "__spec__",
    "__package__",
    "__builtins__",
    "__cached__",
    "__path__",
    "__getattr__",
    "__dir__",
    "__annotations__",
}


def _module_names() -> list[str]:
    found: set[str] = set()
    for dist, version in DISTRIBUTIONS.items():
        installed = importlib.metadata.version(dist)
        if installed != version:
            raise SystemExit(f"{dist} {installed} is installed; the table is of {version}")
        for file in importlib.metadata.files(dist) or ():
            parts = file.parts
            if parts[0] != "airflow" or file.suffix != ".py":
                continue
            dotted = ".".join(parts[:-1] if file.stem == "__init__" else (*parts[:-1], file.stem))
            if all(p.isidentifier() for p in dotted.split(".")):
                found.add(dotted)
    return sorted(found)


def _strings(module: ModuleType) -> set[str]:
    """Identifiers written as strings in a module's source (its lazy names live there)."""
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return set()
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for piece in node.value.replace(":", ".").split("."):
                if piece.isidentifier():
                    out.add(piece)
    return out


def _names(dotted: str, module: ModuleType) -> list[str]:
    names = {n for n in vars(module) if n not in _STANDARD}
    if hasattr(module, "__getattr__"):
        candidates = set(getattr(module, "__all__", ()) or ())
        with contextlib.suppress(Exception):
            candidates |= set(dir(module))
        parts = dotted.split(".")
        for depth in range(1, len(parts) + 1):
            owner = sys.modules.get(".".join(parts[:depth]))
            if owner is not None:
                candidates |= _strings(owner)
        for name in sorted(candidates - names):
            with contextlib.suppress(Exception):
                getattr(module, name)
                names.add(name)
    return sorted(names)


def build() -> dict[str, object]:
    home = tempfile.mkdtemp(prefix="airflow-home-")
    os.environ.update(
        AIRFLOW_HOME=home,
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__CORE__UNIT_TEST_MODE="False",
    )
    warnings.simplefilter("ignore")
    errors: dict[str, str] = {}
    files = _module_names()
    for dotted in files:
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                importlib.import_module(dotted)
        except BaseException as exc:
            errors[dotted] = f"{type(exc).__name__}: {exc}"
    modules: dict[str, object] = {}
    ours = set(files)
    created = {  # made at run time inside one of the three distributions' packages
        m
        for m, module in list(sys.modules.items())
        if m.startswith("airflow.")
        and m not in ours
        and getattr(module, "__file__", None) is None
        and m.rpartition(".")[0] in ours
    }
    every = sorted(ours | created)
    for dotted in every:
        if dotted in errors:
            # the error as Python prints it, less the file path of this machine's install
            message = re.sub(r" \(/[^)]*\)$", "", errors[dotted].splitlines()[0])
            modules[dotted] = {"error": message}
            continue
        module = sys.modules.get(dotted)
        if isinstance(module, ModuleType):
            modules[dotted] = _names(dotted, module)
    installed = sorted(
        {
            m.name
            for m in pkgutil.iter_modules([p for p in sys.path if p.endswith("site-packages")])
            if m.name.isidentifier() and not m.name.startswith("_")
        }
        - set(sys.stdlib_module_names)
        - {"pip", "setuptools", "_distutils_hack", "pkg_resources", "airflow"}
    )
    return {
        "installed": installed,
        "about": "what `from MODULE import NAME` finds in Airflow 3.3.2 "
        "(benchmarks/gen_airflow_names.py)",
        "distributions": DISTRIBUTIONS,
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "modules": modules,
    }


def render(table: dict[str, object]) -> str:
    return json.dumps(table, indent=0, sort_keys=True, ensure_ascii=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table")
    args = parser.parse_args()
    text = render(build())
    if args.check:
        same = TABLE.read_text(encoding="utf-8") == text
        print("identical" if same else f"differs from {TABLE}")
        return 0 if same else 1
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
