"""An asset's AssetWatchers: name, poll interval and trigger class, each checked as typed.

Airflow 3.3 attaches ``AssetWatcher(name, trigger)`` to an asset; the
simulated trigger polls its source every ``poll_interval`` and keeps a
watermark in the asset's state store (WA-1..WA-4). What lands in the source
(``source`` items) is listed by count here and kept as it is; the trigger
class is shown and saved, never imported.
"""

from __future__ import annotations

import dataclasses
import re

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from explorer.scenario import Duration, Watcher
from explorer.scenario.values import parse_duration
from explorer.ui.inspector.fields import ValidatedLine

__all__ = ["WatchersEditor"]

_TRIGGER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\Z")
_DEFAULT_TRIGGER = "airflow.providers.standard.triggers.file.FileDeleteTrigger"


def _check_interval(text: str) -> str | None:
    try:
        value = parse_duration(text.strip())
    except ValueError as exc:
        return str(exc)
    return None if value.total_seconds() > 0 else "a watcher polls every positive duration"


def _check_trigger(text: str) -> str | None:
    if not text.strip() or _TRIGGER.match(text.strip()):
        return None
    return "a trigger class path, e.g. airflow.providers.standard.triggers.file.FileDeleteTrigger"


class WatchersEditor(QWidget):
    #: The asset's new watchers (only values that passed their checks).
    changed = Signal(tuple)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("watchersEditor")
        self.rows = QVBoxLayout()
        self.rows.setContentsMargins(0, 0, 0, 0)
        self.add = QPushButton("Add watcher")
        self.add.setObjectName("addWatcher")
        self.add.setToolTip("Add an AssetWatcher polling every 5 minutes")
        self.add.clicked.connect(self._add)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.rows)
        layout.addWidget(self.add)
        self.watchers: tuple[Watcher, ...] = ()

    def set_watchers(self, watchers: tuple[Watcher, ...]) -> None:
        if watchers == self.watchers and self.rows.count() == len(watchers):
            return
        self.watchers = watchers
        while self.rows.count():
            item = self.rows.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()
        for index, watcher in enumerate(watchers):
            self.rows.addWidget(self._row(index, watcher))

    def _row(self, index: int, watcher: Watcher) -> QWidget:
        box = QWidget()
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 2, 0, 2)
        name = ValidatedLine(
            lambda t: None if t.strip() else "a watcher needs a name", tooltip="AssetWatcher name"
        )
        name.set_value(watcher.name)
        name.committed.connect(lambda t, i=index: self._replace(i, name=t.strip()))
        interval = ValidatedLine(
            _check_interval, tooltip="poll_interval: ISO-8601 duration, e.g. PT5M"
        )
        interval.set_value(watcher.poll_interval.text)
        interval.committed.connect(
            lambda t, i=index: self._replace(i, poll_interval=Duration.parse(t.strip()))
        )
        trigger = ValidatedLine(
            _check_trigger, tooltip="trigger: the trigger's class path (kept, never imported)"
        )
        trigger.set_value(watcher.trigger or "")
        trigger.committed.connect(lambda t, i=index: self._replace(i, trigger=t.strip() or None))
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip(f"Remove watcher {watcher.name}")
        remove.clicked.connect(lambda _=False, i=index: self._remove(i))
        items = QLabel(f"{len(watcher.source)} source item(s) landing while simulated")
        items.setToolTip("What lands in the watched source (edit the file to change it)")
        grid.addWidget(name, 0, 0)
        grid.addWidget(interval, 0, 1)
        grid.addWidget(remove, 0, 2)
        grid.addWidget(trigger, 1, 0, 1, 3)
        grid.addWidget(items, 2, 0, 1, 3)
        return box

    def _replace(self, index: int, **changes: object) -> None:
        new = dataclasses.replace(self.watchers[index], **changes)  # type: ignore[arg-type]
        self.changed.emit(tuple(new if i == index else w for i, w in enumerate(self.watchers)))

    def _remove(self, index: int) -> None:
        self.changed.emit(tuple(w for i, w in enumerate(self.watchers) if i != index))

    def _add(self) -> None:
        taken = {w.name for w in self.watchers}
        n = 1
        while f"watcher_{n}" in taken:
            n += 1
        watcher = Watcher(
            name=f"watcher_{n}", poll_interval=Duration.parse("PT5M"), trigger=_DEFAULT_TRIGGER
        )
        self.changed.emit((*self.watchers, watcher))
