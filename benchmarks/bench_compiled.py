"""The engine's hot modules compiled with mypyc against the same tree as plain Python, side by side.

Usage::

    python benchmarks/bench_compiled.py [--dags 1000] [--days 30] [--repeat N] [--rev 7bcc1e1]
    python benchmarks/bench_compiled.py --scenario FILE.json [--modules explorer/engine/loop.py,...]

Why: after issue 14's work on the loop, a run still costs the interpreter's own
overhead on every attribute read and call of the per-run path (``adr/0013``).
mypyc compiles type-annotated Python (the engine is mypy-strict) into C
extensions without changing the source. This script measures what that would
give on the headless path a user runs (``explorer simulate --format csv``),
before anything is shipped compiled.

It copies this tree's ``explorer/`` into a temporary folder, compiles the
``--modules`` there (``packaging/compile_engine.py``: ``mypycify`` in a subprocess of this
virtualenv's Python; nothing is written into the working tree), then runs, in
fresh interpreters and alternately, ``--repeat`` times each: this tree as plain
Python, the compiled copy, and with ``--rev`` another revision (``git archive``,
as ``bench_cli.py`` does; for issue 14's 10x figure, 7bcc1e1).

Printed per version: ``wall_s`` (best of the repeats), ``rows`` and
``csv_sha256``; then ``build_s`` (compiling), ``identical`` (the compiled copy's
CSV is byte for byte the plain tree's: a module whose compiled semantics drifted
shows here) and the speedups. Needs mypy (a dev dependency), setuptools, a C
compiler and the Python headers. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "packaging"))

from _interpreter import describe  # noqa: E402
from bench_cli import deployment_file, race, revision  # noqa: E402
from compile_engine import MODULES, compile_into, copy_checkout_besides_explorer  # noqa: E402


def _compile(tree: Path, modules: list[str]) -> float:
    """``packaging/compile_engine.py``'s build into ``tree``; the seconds it took."""
    try:
        return compile_into(tree, modules)
    except RuntimeError as exc:
        raise SystemExit(
            f"compiling failed (mypy, setuptools, gcc and the Python headers are needed):\n{exc}"
        ) from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", type=Path, help="a scenario file (default: generated)")
    parser.add_argument("--dags", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20240301)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rev", help="also time this revision (e.g. 7bcc1e1), side by side")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="also copy the compiled tree, with every other file of the checkout, to DIR "
        "(new), to run the suite on it: cd DIR && python -m pytest -m 'not plain_only' "
        "--ignore=tests/ui (run from DIR: pytest puts the tree it runs in first on sys.path)",
    )
    parser.add_argument(
        "--modules",
        default=",".join(MODULES),
        help="comma-separated module paths to compile "
        "(default: packaging/compile_engine.py's list)",
    )
    args = parser.parse_args(argv)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()]

    with tempfile.TemporaryDirectory(prefix="bench-compiled-") as scratch:
        folder = Path(scratch)
        document, current = deployment_file(folder, args.scenario, args.dags, args.days, args.seed)
        compiled = folder / "compiled"
        print(f"dags={len(document['dags'])} clock={document['clock']}", flush=True)
        print(describe(engine=False), flush=True)  # every side runs on this interpreter
        print(f"compiling {len(modules)} modules with mypyc ...", flush=True)
        build_s = _compile(compiled, modules)
        if args.keep is not None:
            shutil.copytree(compiled, args.keep)
            copy_checkout_besides_explorer(args.keep)
            print(f"compiled tree kept in {args.keep}", flush=True)
        versions = [("plain", ROOT, current), ("compiled", compiled, current)]
        if args.rev:
            versions.append(("rev", *revision(args.rev, folder, document, current)))
        best = race(versions, args.repeat)
        print(f"build_s={build_s:.1f} modules={len(modules)}")
        print(f"identical={'true' if best['plain'][2] == best['compiled'][2] else 'false'}")
        print(f"speedup_compiled_vs_plain={best['plain'][0] / best['compiled'][0]:.2f}")
        if "rev" in best:
            print(f"speedup_plain_vs_rev={best['rev'][0] / best['plain'][0]:.2f}")
            print(f"speedup_compiled_vs_rev={best['rev'][0] / best['compiled'][0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
