"""``explorer simulate --format csv`` on one file, this tree against another revision, side by side.

Usage::

    python benchmarks/bench_cli.py --rev 7bcc1e1 [--dags 1000] [--days 30] [--seed S] [--repeat N]
    python benchmarks/bench_cli.py --rev 7bcc1e1 --scenario FILE.json

Issue 14 asks for the headless path a user runs (``explorer simulate --format
csv``) on a generated 1,000-DAG deployment (``gen_deployment.py``) to be timed
against main as it stood when the issue was filed, "measured side by side in one
run". This script exports ``--rev`` with ``git archive`` into a temporary folder,
then runs both versions alternately, ``--repeat`` times each, in fresh
interpreters of this virtualenv (``python -m explorer``, ``PYTHONPATH`` set to the
version's tree), so both pay the same start-up, parsing and CSV writing. A
revision older than scenario format 2 gets the same file with the format line
set to ``schedule-explorer/1`` (the generator uses nothing format 2 added).

Printed per version: ``wall_s`` (best of the repeats), ``rows`` (CSV data rows:
runs) and ``csv_sha256``; then ``speedup`` (the other revision's wall over
this tree's). Run counts may differ by what later engine fixes changed (the
random-scenario rules RND-1..7 arrived after some revisions). Figures only:
nothing is asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from gen_deployment import generate  # noqa: E402


def _export(rev: str, into: Path) -> Path:
    """The tree of ``rev`` (a commit of this repository) unpacked into ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _knows_format_2(tree: Path) -> bool:
    return (tree / "explorer" / "scenario" / "schema" / "scenario-2.schema.json").exists()


def _run(tree: Path, scenario: Path) -> tuple[float, int, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "simulate", str(scenario), "--format", "csv"],
        cwd=tree,
        env=env,
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{tree}: exit {done.returncode}\n{done.stderr.decode()[-2000:]}")
    rows = max(0, done.stdout.count(b"\n") - 1)
    return wall, rows, hashlib.sha256(done.stdout).hexdigest()


def deployment_file(
    folder: Path, scenario: Path | None, dags: int, days: int, seed: int
) -> tuple[dict[str, Any], Path]:
    """The scenario document (``scenario``'s, else a generated deployment) and its copy
    written into ``folder``, which every version reads."""
    if scenario is not None:
        document = json.loads(scenario.read_text(encoding="utf-8"))
    else:
        document = generate(dags, days, seed)
    current = folder / "deployment.json"
    current.write_text(json.dumps(document), encoding="utf-8")
    return document, current


def revision(rev: str, folder: Path, document: dict[str, Any], current: Path) -> tuple[Path, Path]:
    """``rev``'s tree exported into ``folder`` and the scenario file it reads: the same
    file, or one with the format line set to ``schedule-explorer/1`` for a revision
    older than format 2."""
    tree = _export(rev, folder / "other")
    if _knows_format_2(tree):
        return tree, current
    older = folder / "deployment-format-1.json"
    older.write_text(json.dumps(dict(document, format="schedule-explorer/1")), encoding="utf-8")
    return tree, older


def race(versions: list[tuple[str, Path, Path]], repeat: int) -> dict[str, tuple[float, int, str]]:
    """Run the versions ``(name, tree, scenario)`` alternately, ``repeat`` times each;
    print each run and then each version's best: ``wall_s``, ``rows``, ``csv_sha256``."""
    best: dict[str, tuple[float, int, str]] = {}
    for _ in range(repeat):
        for name, tree, scenario in versions:
            wall, rows, digest = _run(tree, scenario)
            print(f"  {name}: wall_s={wall:.2f} rows={rows}", flush=True)
            if name not in best or wall < best[name][0]:
                best[name] = (wall, rows, digest)
    for name, (wall, rows, digest) in best.items():
        print(f"{name}: wall_s={wall:.2f} rows={rows} csv_sha256={digest}")
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", required=True, help="the other revision (a commit, tag or branch)")
    parser.add_argument("--scenario", type=Path, help="a scenario file (default: generated)")
    parser.add_argument("--dags", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20240301)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-cli-") as scratch:
        folder = Path(scratch)
        document, current = deployment_file(folder, args.scenario, args.dags, args.days, args.seed)
        other_tree, other = revision(args.rev, folder, document, current)
        print(f"dags={len(document['dags'])} clock={document['clock']} rev={args.rev}", flush=True)
        best = race([("this", ROOT, current), ("rev", other_tree, other)], args.repeat)
        print(f"speedup={best['rev'][0] / best['this'][0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
