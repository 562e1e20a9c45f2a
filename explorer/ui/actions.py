"""One registry of user actions: menus, the toolbar, shortcuts and tests all use it.

qutebrowser registers each user command once and refers to it by name
everywhere; here an action is registered once with its id, title,
shortcut, tooltip and callable, and menus and toolbars are *built* from lists
of ids. Tests trigger actions by id (``registry.trigger("edit.undo")``),
the same path a menu click or a key press takes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QStyle, QToolBar, QWidget

__all__ = ["ActionRegistry", "Menu", "Separator", "Shortcut", "Submenu"]

#: A standard key (New, Open, Undo...: the platform's own binding) or a portable string.
Shortcut = QKeySequence.StandardKey | str | None


class Separator:
    """A line between groups in a menu or toolbar."""


@dataclass(frozen=True)
class Submenu:
    """A menu whose items are made when it opens (Open Recent)."""

    title: str
    fill: Callable[[QMenu], None]


@dataclass(frozen=True)
class Menu:
    title: str
    items: Sequence[str | Separator | Submenu | Menu] = field(default_factory=tuple)


class ActionRegistry(QObject):
    """Every action of the window, by id (``"file.save"``, ``"view.fit"``...)."""

    def __init__(self, owner: QWidget) -> None:
        super().__init__(owner)
        self._owner = owner
        self._actions: dict[str, QAction] = {}

    def register(
        self,
        action_id: str,
        text: str,
        callback: Callable[[], object],
        *,
        shortcut: Shortcut = None,
        tip: str = "",
        icon: QStyle.StandardPixmap | None = None,
        checkable: bool = False,
        context: Qt.ShortcutContext = Qt.ShortcutContext.WindowShortcut,
    ) -> QAction:
        """Make the action ``action_id``; its shortcut is shown in its tooltip."""
        if action_id in self._actions:
            raise ValueError(f"action {action_id!r} is registered twice")
        action = QAction(text, self._owner)
        action.setObjectName(action_id)
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(shortcut)
        elif shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(context)
        if icon is not None:
            action.setIcon(self._owner.style().standardIcon(icon))
        action.setCheckable(checkable)
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        plain = text.replace("&", "").rstrip(".…")
        action.setToolTip(f"{tip or plain} ({keys})" if keys else tip or plain)
        action.setStatusTip(tip or plain)
        if checkable:
            action.toggled.connect(lambda _checked: callback())
        else:
            action.triggered.connect(lambda _checked=False: callback())
        if context == Qt.ShortcutContext.WindowShortcut:
            self._owner.addAction(action)  # shortcuts work even when no menu shows it
        self._actions[action_id] = action
        return action

    def action(self, action_id: str) -> QAction:
        try:
            return self._actions[action_id]
        except KeyError:
            raise KeyError(f"no action {action_id!r}; known: {', '.join(self._actions)}") from None

    def ids(self) -> list[str]:
        return list(self._actions)

    def trigger(self, action_id: str) -> None:
        """Run an action as a menu click would (disabled actions do nothing)."""
        self.action(action_id).trigger()

    def set_enabled(self, action_id: str, enabled: bool) -> None:
        self.action(action_id).setEnabled(enabled)

    def set_icon(self, action_id: str, icon: QIcon) -> None:
        self.action(action_id).setIcon(icon)

    # ----------------------------------------------------------------- building
    def build_menus(self, bar: QMenuBar, menus: Sequence[Menu]) -> None:
        for menu in menus:
            self._fill(bar.addMenu(menu.title), menu.items)

    def _fill(self, target: QMenu, items: Sequence[str | Separator | Submenu | Menu]) -> None:
        for item in items:
            if isinstance(item, Separator):
                target.addSeparator()
            elif isinstance(item, Submenu):
                sub = target.addMenu(item.title)
                sub.setObjectName(f"menu:{item.title.replace('&', '')}")
                sub.aboutToShow.connect(lambda sub=sub, fill=item.fill: _refill(sub, fill))
                _refill(sub, item.fill)
            elif isinstance(item, Menu):
                self._fill(target.addMenu(item.title), item.items)
            else:
                target.addAction(self.action(item))

    def build_toolbar(self, toolbar: QToolBar, items: Sequence[str | Separator]) -> None:
        for item in items:
            if isinstance(item, Separator):
                toolbar.addSeparator()
            else:
                toolbar.addAction(self.action(item))


def _refill(menu: QMenu, fill: Callable[[QMenu], None]) -> None:
    menu.clear()
    fill(menu)
