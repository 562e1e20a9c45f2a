"""Compile the engine's per-run path with mypyc into a copy of ``explorer/`` (adr/0013).

Usage::

    python packaging/compile_engine.py --into build/compiled [--checkout] [--modules a.py,b.py]

Writes ``<into>/explorer/`` (a copy of this checkout's package) with the modules of
:data:`MODULES` compiled next to their sources, and mypyc's shared library at
``<into>/``; put ``<into>`` first on ``PYTHONPATH`` to run it. ``--checkout`` also
copies every other file git tracks (tests, resources, pyproject.toml) beside it, so
the suite runs there (``.ci/run``'s second job). The checkout itself is never written
to: an extension beside its ``.py`` is imported instead of it, so one left in the
working tree would run stale code after the next edit. ``packaging/build-deb.sh``
builds the bundle with it; ``benchmarks/bench_compiled.py`` measures it.

Needs mypy (its mypyc), setuptools, a C compiler and the Python headers. Exits 2 with
the compiler's last lines when the build fails, or when a compiled module is not
compiled or one of its classes takes weak references (mypyc/mypyc#1102, adr/0013),
so a caller can fall back to the plain package.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The modules of the per-run path that compile and keep the whole suite passing
#: (the ``plain_only`` tests aside): the loop, run life, the examination, the
#: next-run cache, DAG state, ticks, the asset and partition paths a task's end
#: takes, the cron stepping, the timetables, and the run itself (``DagRun`` and
#: ``TaskInstance`` native, the run log's packing); what compiled code reads on
#: every run (the DAG and task specs, the scheduler settings, the state record, the
#: instant helpers and the zone offset spans); and the asset side of a run (the
#: event store, asset keys and conditions, the listener index, the zoned cron); and
#: what the run log and the indexes lean on for every run (the spilling arrays the
#: per-DAG and per-asset indexes read, the table of packed runs still held).
#: The timetables compile as one package: a compiled class with an interpreted base
#: takes weak references that mypyc never clears when it is freed
#: (mypyc/mypyc#1102, adr/0013).
MODULES = (
    "explorer/engine/loop.py",
    "explorer/engine/lifecycle.py",
    "explorer/engine/examine.py",
    "explorer/engine/dagschedule.py",
    "explorer/engine/dagstate.py",
    "explorer/engine/ticks.py",
    "explorer/engine/deployment.py",
    "explorer/engine/overrides.py",
    "explorer/engine/task_instances.py",
    "explorer/engine/max_active_flag.py",
    "explorer/engine/assets/scheduling.py",
    "explorer/engine/assets/partitioned.py",
    "explorer/engine/cronfast.py",
    "explorer/engine/cronfast_zoned.py",
    "explorer/engine/timetables/base.py",
    "explorer/engine/timetables/interval.py",
    "explorer/engine/timetables/trigger.py",
    "explorer/engine/timetables/simple.py",
    "explorer/engine/timetables/events.py",
    "explorer/engine/timetables/partitioned.py",
    "explorer/engine/timetables/factory.py",
    "explorer/engine/runs.py",
    "explorer/engine/runpack.py",
    "explorer/engine/dag.py",
    "explorer/engine/config.py",
    "explorer/engine/state.py",
    "explorer/engine/tz.py",
    "explorer/engine/tzspans.py",
    "explorer/engine/assets/condition.py",
    "explorer/engine/assets/store.py",
    "explorer/engine/assets/listeners.py",
    "explorer/engine/cron.py",
    "explorer/engine/runspill.py",
    "explorer/engine/heldruns.py",
)

#: Run in the compiled tree after the build: every compiled class must refuse weak
#: references. mypyc gives a class with an interpreted base a ``__weakref__`` slot but
#: never clears it when the object is freed (mypyc/mypyc#1102), so a weak reference
#: that outlives such an object crashes the interpreter later (adr/0013).
_WEAKREF_CHECK = """\
import importlib, inspect, sys
bad = []
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    if not module.__file__.endswith(".so"):
        bad.append(f"{name} was not compiled")
    for cls in vars(module).values():
        if not inspect.isclass(cls) or cls.__module__ != name or not cls.__weakrefoffset__:
            continue
        if issubclass(cls, BaseException) or getattr(cls, "_is_protocol", False):
            continue  # built by type() as Python classes: CPython's own dealloc
        bad.append(f"{name}.{cls.__name__} takes weak references")
print("\\n".join(bad))
sys.exit(1 if bad else 0)
"""

_SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

modules = sys.argv.pop(1).split(",")
setup(name="explorer-compiled", ext_modules=mypycify(modules, opt_level="3"))
"""


def compile_into(into: Path, modules: tuple[str, ...] | list[str] = MODULES) -> float:
    """Copy ``explorer/`` into ``into`` (emptied first) and compile ``modules`` there;
    the seconds it took. Raises ``RuntimeError`` with the build's output on failure."""
    missing = [m for m in modules if not (ROOT / m).is_file()]
    if missing:
        raise RuntimeError(f"no such module in this checkout: {', '.join(missing)}")
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    shutil.copytree(
        ROOT / "explorer",
        into / "explorer",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    # mypy's own settings for the build (the project's pyproject.toml is not copied:
    # its strictness is for the checkout, and setuptools would read its metadata).
    (into / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n", encoding="utf-8")
    (into / "setup_compiled.py").write_text(_SETUP, encoding="utf-8")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "setup_compiled.py", ",".join(modules), "build_ext", "--inplace"],
        cwd=into,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError((done.stdout + done.stderr)[-3000:])
    shutil.rmtree(into / "build", ignore_errors=True)
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    check = subprocess.run(
        [sys.executable, "-c", _WEAKREF_CHECK, *names],
        cwd=into,
        env=dict(os.environ, PYTHONPATH=str(into)),
        capture_output=True,
        text=True,
        check=False,
    )
    if check.returncode != 0:
        raise RuntimeError("unsafe compiled build:\n" + check.stdout + check.stderr[-2000:])
    return time.perf_counter() - started


def copy_checkout_besides_explorer(into: Path) -> None:
    """Every file git tracks outside ``explorer/`` (tests, their data, resources,
    benchmarks, pyproject.toml, ...) copied into ``into``, so the suite runs there."""
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True
    ).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        if name.startswith("explorer/") or not (ROOT / name).is_file():
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--into", type=Path, required=True, help="the folder to write (emptied)")
    parser.add_argument(
        "--modules",
        default=",".join(MODULES),
        help="comma-separated module paths to compile (default: the list above)",
    )
    parser.add_argument(
        "--checkout",
        action="store_true",
        help="also copy every other file git tracks beside it, to run the suite there",
    )
    args = parser.parse_args(argv)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()]
    try:
        seconds = compile_into(args.into, modules)
    except RuntimeError as exc:
        print(f"compiling the engine failed:\n{exc}", file=sys.stderr)
        return 2
    if args.checkout:
        copy_checkout_besides_explorer(args.into)
    print(f"compiled {len(modules)} modules into {args.into} in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
