"""An asset's AssetWatchers: name, poll interval and trigger class, each checked as typed.

Airflow 3.3 attaches ``AssetWatcher(name, trigger)`` to an asset; the
simulated trigger polls its source every ``poll_interval`` and keeps a
watermark in the asset's state store (WA-1..WA-4). What lands in the source
(``source`` items: when, and what) is edited here item by item; an item's
``payload`` is kept as written. The trigger class is shown and saved, never
imported.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from explorer.scenario import Duration, Instant, SourceItem, Watcher
from explorer.scenario.values import parse_duration
from explorer.ui.inspector.fields import ValidatedLine, instant_problem

__all__ = ["WatchersEditor"]

_TRIGGER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\Z")
_DEFAULT_TRIGGER = "airflow.providers.standard.triggers.file.FileDeleteTrigger"


def _check_interval(text: str) -> str | None:
    try:
        value = parse_duration(text.strip())
    except ValueError as exc:
        return str(exc)
    return None if value.total_seconds() > 0 else "a watcher polls every positive duration"


def _check_at(text: str) -> str | None:
    return instant_problem(text, optional=False)


def _check_item(text: str) -> str | None:
    return None if text.strip() else "a source item needs a name (a file, a row key...)"


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
        #: Where a new source item lands when the watcher has none yet (the scenario's
        #: clock.start, set by the asset form).
        self.first_instant: datetime = datetime(2024, 1, 1, tzinfo=UTC)

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
        items = QLabel(f"source: {len(watcher.source)} item(s) landing while simulated")
        items.setToolTip("What lands in the watched source: when (UTC or with an offset) and what")
        grid.setColumnStretch(0, 3)  # room for a whole instant, offset included
        grid.setColumnStretch(1, 2)
        grid.addWidget(name, 0, 0)
        grid.addWidget(interval, 0, 1)
        grid.addWidget(remove, 0, 2)
        grid.addWidget(trigger, 1, 0, 1, 3)
        grid.addWidget(items, 2, 0, 1, 3)
        for n, item in enumerate(watcher.source):
            self._source_row(grid, 3 + n, index, n, item)
        add_item = QPushButton("Add source item")
        add_item.setObjectName("addSourceItem")
        add_item.setToolTip("Something lands in the source one poll interval after the last item")
        add_item.clicked.connect(lambda _=False, i=index: self._add_item(i))
        grid.addWidget(add_item, 3 + len(watcher.source), 0, 1, 3)
        return box

    def _source_row(
        self, grid: QGridLayout, row: int, index: int, n: int, item: SourceItem
    ) -> None:
        at = ValidatedLine(_check_at, tooltip="at: when it lands, e.g. 2024-03-08T08:05:00Z")
        at.set_value(item.at.text)
        at.edit.setMinimumWidth(at.edit.fontMetrics().horizontalAdvance(item.at.text + "MM"))
        at.committed.connect(
            lambda t, i=index, k=n: self._replace_item(i, k, at=Instant.parse(t.strip()))
        )
        what = ValidatedLine(_check_item, tooltip="item: what lands (a file name, a row key)")
        what.set_value(item.item)
        what.committed.connect(lambda t, i=index, k=n: self._replace_item(i, k, item=t.strip()))
        drop = QToolButton()
        drop.setText("✕")
        drop.setToolTip(f"Remove source item {item.item}")
        drop.clicked.connect(lambda _=False, i=index, k=n: self._remove_item(i, k))
        grid.addWidget(at, row, 0)
        grid.addWidget(what, row, 1)
        grid.addWidget(drop, row, 2)

    def _replace(self, index: int, **changes: object) -> None:
        new = dataclasses.replace(self.watchers[index], **changes)  # type: ignore[arg-type]
        self.changed.emit(tuple(new if i == index else w for i, w in enumerate(self.watchers)))

    def _replace_item(self, index: int, n: int, **changes: object) -> None:
        source = self.watchers[index].source
        new = dataclasses.replace(source[n], **changes)  # type: ignore[arg-type]
        self._replace(index, source=tuple(new if k == n else s for k, s in enumerate(source)))

    def _remove_item(self, index: int, n: int) -> None:
        source = self.watchers[index].source
        self._replace(index, source=tuple(s for k, s in enumerate(source) if k != n))

    def _add_item(self, index: int) -> None:
        watcher = self.watchers[index]
        source = watcher.source
        at = (
            max(s.at.value for s in source) + watcher.poll_interval.value
            if source
            else self.first_instant
        )
        taken = {s.item for s in source}
        n = len(source) + 1
        while f"item_{n}" in taken:
            n += 1
        item = SourceItem(at=Instant.of(at.astimezone(UTC)), item=f"item_{n}")
        self._replace(index, source=(*source, item))

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
