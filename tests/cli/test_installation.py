"""Which engine an installation runs, as ``--version`` and ``--self-test`` say (adr/0013)."""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import explorer
from explorer.engine import loop
from explorer.installation import compiled_modules, engine_build, extension_files


def test_extension_files_beside_the_package_are_named_as_modules(tmp_path: Path) -> None:
    suffix = EXTENSION_SUFFIXES[0]
    (tmp_path / "engine" / "timetables").mkdir(parents=True)
    (tmp_path / f"cli{suffix}").write_bytes(b"")
    (tmp_path / "engine" / f"loop{suffix}").write_bytes(b"")
    (tmp_path / "engine" / "timetables" / f"trigger{suffix}").write_bytes(b"")
    (tmp_path / "engine" / "runs.py").write_text("", encoding="utf-8")
    (tmp_path / "engine" / "notes.txt").write_text("", encoding="utf-8")
    roots = [str(tmp_path)]
    assert compiled_modules(roots) == [
        "explorer.cli",
        "explorer.engine.loop",
        "explorer.engine.timetables.trigger",
    ]
    assert engine_build(roots) == "compiled (3 modules, mypyc)"
    assert engine_build([str(tmp_path / "engine" / "timetables" / "none")]) == "plain Python"


def test_the_bundle_spec_and_the_description_share_one_walk(tmp_path: Path) -> None:
    # packaging/schedule-explorer.spec swaps these files in for the modules' bytecode: the
    # names must be the importable ones, mypyc's shared library (top level) included
    suffix = EXTENSION_SUFFIXES[0]
    (tmp_path / "explorer" / "engine").mkdir(parents=True)
    (tmp_path / f"abc123__mypyc{suffix}").write_bytes(b"")
    (tmp_path / "explorer" / "engine" / f"loop{suffix}").write_bytes(b"")
    (tmp_path / "explorer" / "engine" / "loop.py").write_text("", encoding="utf-8")
    assert extension_files(str(tmp_path)) == {
        "abc123__mypyc": str(tmp_path / f"abc123__mypyc{suffix}"),
        "explorer.engine.loop": str(tmp_path / "explorer" / "engine" / f"loop{suffix}"),
    }
    assert extension_files(str(tmp_path / "explorer"), "explorer") == {
        "explorer.engine.loop": str(tmp_path / "explorer" / "engine" / f"loop{suffix}"),
    }


def test_the_installation_under_test_is_described_as_it_is() -> None:
    compiled = str(loop.__file__).endswith(tuple(EXTENSION_SUFFIXES))
    assert ("explorer.engine.loop" in compiled_modules()) == compiled
    assert (engine_build() == "plain Python") == (not compiled)
    assert all(name.startswith("explorer.") for name in compiled_modules(explorer.__path__))
