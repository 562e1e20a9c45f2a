"""Writing a scenario: canonical JSON text, replaced atomically on disk.

Canonical text makes saving a fixed point (a second save is byte-identical to
the first) and keeps diffs of scenario files in code review small: 2-space
indentation, keys in schema order, UTF-8, a final newline, and small shallow
containers (a run selector, a layout position, a list of asset nodes) on one
line.

The file is replaced, not rewritten in place: the text goes to a temporary
file in the same folder, is flushed to disk, then moved over the old file with
``os.replace``. A save that fails at any point leaves the old file as it was.
A file with several hard links is the exception (:func:`save_scenario`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from pathlib import Path

from explorer.scenario.model import Scenario
from explorer.scenario.values import JsonValue
from explorer.scenario.write import write_scenario

__all__ = ["dumps_scenario", "save_scenario", "to_canonical_json"]

_INDENT = "  "
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
#: A shallow container stays on one line if the line is at most this wide ...
_INLINE_WIDTH = 100
#: ... and it nests at most this deep (a selector: 1; a list of asset nodes: 2).
_INLINE_DEPTH = 2


def dumps_scenario(scenario: Scenario) -> str:
    """The scenario as the text ``save_scenario`` writes."""
    return to_canonical_json(write_scenario(scenario))


def save_scenario(scenario: Scenario, path: str | os.PathLike[str]) -> None:
    """Write ``scenario`` to ``path`` atomically (the old file survives any failure).

    A symlink is followed: the file it points to is written and the link stays. A
    read-only file is refused (``PermissionError``), never replaced. A file with
    other hard links is written in place once a complete copy is on disk beside it,
    so every name keeps seeing the same file.
    """
    target = Path(os.path.realpath(path))
    data = dumps_scenario(scenario).encode("utf-8")  # fails before the disk is touched
    if not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, "the folder does not exist", str(target.parent))
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    if existing is not None and (
        not existing.st_mode & _WRITE_BITS or not os.access(target, os.W_OK)
    ):  # the mode too: root may write anything, but a 0444 file says "keep me"
        raise PermissionError(
            errno.EACCES, "the file is read-only: save under another name", str(path)
        )
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if existing is not None and existing.st_nlink > 1:
            _write_in_place(target, temp, data)
            temp.unlink()
            return
        if existing is not None:
            os.chmod(temp, existing.st_mode & 0o7777)  # keep the old file's permissions
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _sync_folder(target.parent)


def _write_in_place(target: Path, copy: Path, data: bytes) -> None:
    """Rewrite a hard-linked file in place, after ``copy`` (complete and synced) was
    read back equal: were this write cut short, the copy holds the text."""
    if copy.read_bytes() != data:
        raise OSError(errno.EIO, "the copy read back differs; nothing was changed", str(copy))
    with open(target, "r+b") as stream:
        stream.write(data)
        stream.truncate()
        stream.flush()
        os.fsync(stream.fileno())


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows it (POSIX)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def to_canonical_json(value: JsonValue) -> str:
    """``value`` as canonical JSON text (see the module docstring), ending with a newline."""
    return _render(value, 0, 0) + "\n"


def _render(value: JsonValue, depth: int, lead: int) -> str:
    """``value`` written at ``depth``, after ``lead`` characters already on its line."""
    if not isinstance(value, dict | list) or not value:
        return _scalar(value)
    inline = _inline(value)
    if inline is not None and lead + len(inline) <= _INLINE_WIDTH:
        return inline
    pad, close = _INDENT * (depth + 1), _INDENT * depth
    if isinstance(value, dict):
        lines = []
        for key, child in value.items():
            prefix = f"{pad}{_scalar(key)}: "
            lines.append(prefix + _render(child, depth + 1, len(prefix)))
        return "{\n" + ",\n".join(lines) + f"\n{close}}}"
    lines = [pad + _render(child, depth + 1, len(pad)) for child in value]
    return "[\n" + ",\n".join(lines) + f"\n{close}]"


def _inline(value: dict[str, JsonValue] | list[JsonValue]) -> str | None:
    """One-line form of a shallow container (plain values, or containers of plain values)."""
    if _depth(value) > _INLINE_DEPTH:
        return None
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_inline_any(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(_inline_any(v) for v in value) + "]"


def _inline_any(value: JsonValue) -> str:
    if isinstance(value, dict | list) and value:
        inline = _inline(value)
        assert inline is not None  # a child of a shallow container is shallow
        return inline
    return _scalar(value)


def _depth(value: JsonValue) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _scalar(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)
