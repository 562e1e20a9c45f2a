"""Autosave to a recovery file, and the offer to recover after a crash.

While a document has unsaved edits, an :class:`Autosaver` writes its
scenario (the document's, exactly what undo sees) to a recovery file on a
timer, with a small sidecar naming the original file and the process. A save
or a clean close deletes both; so recovery files that survive belong to a
session that crashed, and :func:`pending_recoveries` finds them at the next
start (skipping those of a process still running). The timer is injectable:
tests pass one they fire by hand, so no test waits.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QTimer, SignalInstance

from explorer.scenario import Scenario, save_scenario
from explorer.ui.document import ScenarioDocument

__all__ = ["Autosaver", "Recovery", "Timer", "discard_recovery", "pending_recoveries"]

_SUFFIX = ".recovery.json"
_META = ".recovery-meta.json"


class Timer(Protocol):
    """What the autosaver needs of a timer (``QTimer`` has it; tests pass a fake)."""

    timeout: SignalInstance

    def start(self, msec: int) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Recovery:
    path: Path
    meta: Path
    original: Path | None
    saved_at: str
    name: str
    pid: int
    #: Why its sidecar was set aside, or None.
    problem: str | None = None


class Autosaver(QObject):
    def __init__(
        self,
        document: ScenarioDocument,
        folder: Path,
        *,
        interval_ms: int = 30_000,
        timer: Timer | None = None,
    ) -> None:
        super().__init__(document)
        self.document = document
        self.folder = folder
        token = uuid.uuid4().hex[:12]
        self.path = folder / f"{token}{_SUFFIX}"
        self.meta = folder / f"{token}{_META}"
        self._last: Scenario | None = None
        self.timer: Timer = timer if timer is not None else QTimer(self)
        self.timer.timeout.connect(self.autosave)
        if interval_ms > 0:
            self.timer.start(interval_ms)
        document.modifiedChanged.connect(self._on_modified)

    def autosave(self) -> bool:
        """Write the recovery file if the document has edits not yet autosaved."""
        doc = self.document
        if not doc.is_modified():
            self.discard()
            return False
        if doc.scenario is self._last:
            return False
        self.folder.mkdir(parents=True, exist_ok=True)
        save_scenario(doc.scenario, self.path)
        meta = {
            "original": None if doc.path is None else str(doc.path),
            "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "name": doc.scenario.name,
            "pid": os.getpid(),
        }
        self.meta.write_text(json.dumps(meta), encoding="utf-8")
        self._last = doc.scenario
        return True

    def discard(self) -> None:
        """The document is saved or closed cleanly: its recovery file has no use."""
        self._last = None
        discard_recovery(self.path, self.meta)

    def stop(self) -> None:
        self.timer.stop()
        self.discard()

    def _on_modified(self, modified: bool) -> None:
        if not modified:
            self.discard()


def discard_recovery(path: Path, meta: Path) -> None:
    for file in (path, meta):
        with contextlib.suppress(FileNotFoundError):
            file.unlink()


#: Linux's largest possible process id (``PID_MAX_LIMIT``); other systems stay below it.
_PID_MAX = 4_194_304


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _read_meta(meta: Path) -> tuple[dict[str, object], str | None]:
    """The sidecar's fields and what was wrong with it, if anything. A sidecar that is not
    a JSON object is renamed ``*.bad``; a pid that is not a process id is dropped (its
    owner cannot be alive). A recovery file is never lost to a bad sidecar."""
    try:
        info = json.loads(meta.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, "its note is missing"
    except (OSError, ValueError) as exc:
        info = exc
    if not isinstance(info, dict):
        with contextlib.suppress(OSError):
            meta.replace(meta.with_name(meta.name + ".bad"))
        problem = info if isinstance(info, Exception) else "not a JSON object"
        return {}, f"its note could not be read ({problem}) and was set aside"
    pid = info.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= _PID_MAX:
        return {k: v for k, v in info.items() if k != "pid"}, (
            f"its note names no valid process ({pid!r})"
        )
    return info, None


def pending_recoveries(folder: Path) -> list[Recovery]:
    """Recovery files left by sessions that did not end cleanly, newest first.

    A sidecar that cannot be trusted (not JSON, a pid that is not a process id) is
    renamed ``*.bad`` and its recovery file is offered with the problem stated.
    """
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"*{_SUFFIX}"):
        meta = path.with_name(path.name.removesuffix(_SUFFIX) + _META)
        info, problem = _read_meta(meta)
        pid = info.get("pid", 0)
        assert isinstance(pid, int)
        if pid and _alive(pid):
            continue
        original = info.get("original")
        found.append(
            Recovery(
                path,
                meta,
                Path(original) if isinstance(original, str) and original else None,
                str(info.get("saved_at", "")),
                str(info.get("name", path.name.removesuffix(_SUFFIX))),
                pid,
                problem,
            )
        )
    return sorted(found, key=lambda r: r.saved_at, reverse=True)
