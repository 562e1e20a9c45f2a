"""Which files under an imported root Airflow 3.3.2's DAG processor parses, and why not others.

Follows ``airflow._shared.module_loading.file_discovery`` and
``airflow.utils.file.find_dag_file_paths``: a recursive walk honouring
``.airflowignore`` files (``[core] dag_ignore_file_syntax``: ``glob``, 3.3's
default, with gitwildmatch patterns through ``pathspec`` as Airflow uses, or
``regexp``, searched in the path relative to the root; both run in linear time,
:mod:`explorer.importer.ignore_match`), patterns inherited by
sub-folders, later patterns overriding earlier ones; then ``.py`` files only,
and in safe mode (the default) only files whose bytes, lower-cased, contain
``airflow`` and either ``dag`` or ``asset`` (``might_contain_dag_via_default_heuristic``).

Departures, each for safety and each reported per file: a symlink whose
target leaves the root is not followed (Airflow follows it); a file of 10 MB or
more, a named pipe, a device or a socket is not read; a symlink loop is
reported; a folder reached twice through links (the root included) is read once.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from explorer.importer.ignore_match import (
    IgnorePattern,
    IgnoreTooComplex,
    compile_glob,
    compile_regexp,
)

__all__ = [
    "MAX_FILE_BYTES",
    "Found",
    "IgnoreSyntax",
    "IgnoreTooComplex",
    "discover",
    "might_contain_dag",
]

#: Files of this size or more are reported, never read.
MAX_FILE_BYTES = 10 * 1024 * 1024
IGNORE_FILE = ".airflowignore"
IgnoreSyntax = Literal["glob", "regexp"]

#: What a file that is not a regular file is, for the reason it is not read (a FIFO
#: would block the reader forever, a device may never end).
_SPECIAL = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


@dataclass(frozen=True, slots=True)
class Found:
    """A file met under a root: ``skip`` is None for a file to read, else why it is not read."""

    path: Path
    #: Relative to the root, posix separators.
    relative: str
    skip: str | None = None


def might_contain_dag(content: bytes) -> bool:
    """Airflow's safe-mode heuristic: ``airflow`` and (``dag`` or ``asset``), case-insensitive."""
    lowered = content.lower()
    if b"airflow" not in lowered:
        return False
    return b"dag" in lowered or b"asset" in lowered


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: IgnorePattern
    relative_to: Path | None = None
    dir_only: bool = False


def _compile(line: str, definition: Path, syntax: IgnoreSyntax, base: Path) -> _Rule | None:
    where = _relative(definition, base)
    if syntax == "regexp":
        pattern = compile_regexp(line, where)
        return None if pattern is None else _Rule(pattern)
    if line.strip() == "/":
        return None
    relative_to = definition.parent if line.startswith("/") or "/" in line.rstrip("/") else None
    raw = line.lstrip("!")
    dir_only = raw.rstrip() != raw.rstrip().rstrip("/")
    glob = compile_glob(line, where)
    return None if glob is None else _Rule(glob, relative_to, dir_only)


def _ignored(path: Path, rules: list[_Rule], base: Path, syntax: IgnoreSyntax) -> bool:
    if syntax == "regexp":
        text = str(path.relative_to(base))
        return any(r.pattern.matches(text) for r in rules)
    matched = False
    is_dir = path.is_dir()
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        relative = path.relative_to(rule.relative_to) if rule.relative_to else Path(path.name)
        posix = relative.as_posix()
        if rule.pattern.matches(f"{posix}/" if is_dir else posix):
            matched = rule.pattern.include
    return matched


def _real(path: Path) -> Path:
    """``path`` with every link followed; a link loop stays where it loops (no exception:
    ``Path.resolve`` raises RuntimeError on one, and a loop is reported per file)."""
    return Path(os.path.realpath(path))


def _inside(path: Path, root: Path) -> bool:
    try:
        _real(path).relative_to(root)
    except ValueError:
        return False
    return True


def discover(root: Path, syntax: IgnoreSyntax = "glob") -> Iterator[Found]:
    """Every file under ``root`` in walk order, each either to read or with why not."""
    base = root.absolute()
    real_root = _real(root)
    # the root is met once already: a link back to it (``sub/up -> ..``) is not walked again
    by_dir: dict[Path, list[_Rule]] = {real_root: []}
    for folder, dirs, files in os.walk(base, followlinks=True):
        here = Path(folder)
        rules = list(by_dir.get(_real(here), []))
        ignore_file = here / IGNORE_FILE
        if ignore_file.is_file() and _inside(ignore_file, real_root):
            content = ignore_file.read_text(encoding="utf-8", errors="replace")
            for raw in content.split("\n"):
                line = re.sub(r"\s*#.*", "", raw)
                if line:
                    rule = _compile(line, ignore_file, syntax, base)
                    if rule is not None:
                        rules.append(rule)
        kept: list[str] = []
        for sub in sorted(dirs):
            path = here / sub
            if _ignored(path, rules, base, syntax):
                continue
            if path.is_symlink() and not _inside(path, real_root):
                yield Found(
                    path,
                    _relative(path, base),
                    "a symlink leaving the imported root (not followed)",
                )
                continue
            resolved = _real(path)
            if resolved in by_dir:
                yield Found(
                    path,
                    _relative(path, base),
                    "a folder already read, reached again through a symlink (read once)",
                )
                continue
            by_dir[resolved] = list(rules)
            kept.append(sub)
        dirs[:] = kept
        for name in sorted(files):
            if name == IGNORE_FILE or not name.endswith((".py", ".zip")):
                continue
            path = here / name
            if _ignored(path, rules, base, syntax):
                if name.endswith(".py"):
                    yield Found(path, _relative(path, base), f"matched by {IGNORE_FILE}")
                continue
            yield _check_file(path, base, real_root)


def check_single(path: Path) -> Found:
    """A file given directly (not found by walking a folder)."""
    return _check_file(path.absolute(), path.absolute().parent, _real(path).parent)


def _check_file(path: Path, base: Path, real_root: Path) -> Found:
    relative = _relative(path, base)
    if not path.name.endswith(".py"):
        if path.suffix == ".zip":
            return Found(path, relative, "a zip archive (DAGs inside archives are not read)")
        return Found(path, relative, "not a Python file")
    if path.is_symlink() and not _inside(path, real_root):
        return Found(path, relative, "a symlink leaving the imported root (not followed)")
    try:
        status = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Found(path, relative, "a symlink loop (the link leads back to itself)")
        return Found(path, relative, f"cannot be read: {exc.strerror}")
    if not stat.S_ISREG(status.st_mode):
        kind = _SPECIAL.get(stat.S_IFMT(status.st_mode), "not a regular file")
        return Found(path, relative, f"{kind}, not a regular file: not read")
    size = status.st_size
    if size >= MAX_FILE_BYTES:
        return Found(path, relative, f"{size:,} bytes: files of 10 MB or more are not read")
    return Found(path, relative)


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.name
