"""The welcome gallery: start empty, open a file, a recent file, or a bundled example.

Shown when the app starts without a file, and from File > Welcome gallery.
Each example is a scenario of ``resources/scenarios`` with its name and
description (what to look for in it), so a first-time user starts from
something that teaches.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.document.files import Example, examples
from explorer.document.wording import count

__all__ = ["Gallery"]

_ROLE = Qt.ItemDataRole.UserRole


class Gallery(QWidget):
    startEmpty = Signal()
    openRequested = Signal()
    #: A bundled example (opened as a copy: saving asks for a new file).
    exampleChosen = Signal(Path)
    #: A recent file (opened in place).
    chosen = Signal(Path)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gallery")
        title = QLabel("Schedule Explorer")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        title.setFont(font)
        intro = QLabel(
            "See what Apache Airflow 3.3's scheduler will do with your DAGs before you ship "
            "them. Start from an example, or compose a scenario: producer DAGs, assets and "
            "the consumers waiting on them."
        )
        intro.setWordWrap(True)
        self.empty = QPushButton("Start empty")
        self.empty.setObjectName("startEmpty")
        self.empty.setToolTip("A new, empty scenario (Ctrl+N)")
        self.empty.setDefault(True)
        self.open = QPushButton("Open file…")
        self.open.setObjectName("openFile")
        self.open.setToolTip("Open a scenario file (Ctrl+O); you can also drop one on the window")
        buttons = QHBoxLayout()
        buttons.addWidget(self.empty)
        buttons.addWidget(self.open)
        buttons.addStretch(1)
        self.examples = QListWidget()
        self.examples.setObjectName("examples")
        self.examples.setToolTip(
            "Bundled examples: double-click or Enter to open a copy (Save asks where to keep it)"
        )
        self.examples.setWordWrap(True)
        self.examples.setSpacing(4)
        self.examples.setAlternatingRowColors(True)
        self.recent = QListWidget()
        self.recent.setObjectName("recentFiles")
        self.recent.setToolTip("Recently opened files: double-click or Enter to open")
        self.recent.setMaximumHeight(140)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(40, 30, 40, 30)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addLayout(buttons)
        layout.addWidget(_heading("Examples"))
        layout.addWidget(self.examples, 3)
        layout.addWidget(_heading("Recent files"))
        layout.addWidget(self.recent, 1)
        self.empty.clicked.connect(self.startEmpty)
        self.open.clicked.connect(self.openRequested)
        self.examples.itemActivated.connect(self._example)
        self.recent.itemActivated.connect(self._activated)
        self.fill_examples(examples())

    def fill_examples(self, found: list[Example]) -> None:
        self.examples.clear()
        for example in found:
            text = f"{example.name}\n{count(example.dags, 'DAG')} · {example.path.name}"
            item = QListWidgetItem(text)
            item.setData(_ROLE, str(example.path))
            item.setToolTip(example.description or example.name)
            self.examples.addItem(item)
        if self.examples.count():
            self.examples.setCurrentRow(0)

    def fill_recent(self, files: list[Path]) -> None:
        self.recent.clear()
        for path in files:
            item = QListWidgetItem(f"{path.name} — {path.parent}")
            item.setData(_ROLE, str(path))
            item.setToolTip(str(path))
            self.recent.addItem(item)
        if not files:
            item = QListWidgetItem("No recent files yet")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.recent.addItem(item)

    def _example(self, item: QListWidgetItem) -> None:
        path = item.data(_ROLE)
        if path:
            self.exampleChosen.emit(Path(path))

    def _activated(self, item: QListWidgetItem) -> None:
        path = item.data(_ROLE)
        if path:
            self.chosen.emit(Path(path))


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label
