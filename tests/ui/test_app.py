"""The app as a whole: start-up, the action registry, shortcuts, tooltips, themes, a Qt trap."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6 import QtGui
from PySide6.QtGui import QKeySequence, QPalette
from PySide6.QtWidgets import QMenu

from explorer.ui import app as app_module
from explorer.ui.theme import _dark_palette, _light_palette, canvas_colors
from tests.ui.conftest import EXAMPLES

ORDERS = EXAMPLES / "ny_dst_orders_mart.json"


def test_pyside_none_refcount_guard() -> None:
    """PySide6 6.12.0 on Python 3.11 drops a reference to None per void call (stack notes)."""
    before = sys.getrefcount(None)
    for _ in range(1000):
        QtGui.QPainterPath().moveTo(1, 1)
    assert sys.getrefcount(None) - before > -500


def test_pyside_is_pinned_below_6_12() -> None:
    import PySide6

    major, minor = (int(p) for p in PySide6.__version__.split(".")[:2])
    assert (major, minor) < (6, 12)


@pytest.mark.parametrize(
    ("action_id", "standard"),
    [
        ("file.new", QKeySequence.StandardKey.New),
        ("file.open", QKeySequence.StandardKey.Open),
        ("file.save", QKeySequence.StandardKey.Save),
        ("file.save_as", QKeySequence.StandardKey.SaveAs),
        ("edit.undo", QKeySequence.StandardKey.Undo),
        ("edit.redo", QKeySequence.StandardKey.Redo),
        ("edit.delete", QKeySequence.StandardKey.Delete),
        ("edit.find", QKeySequence.StandardKey.Find),
        ("view.zoom_in", QKeySequence.StandardKey.ZoomIn),
        ("view.zoom_out", QKeySequence.StandardKey.ZoomOut),
    ],
)
def test_standard_shortcuts(window, action_id, standard) -> None:  # type: ignore[no-untyped-def]
    assert window.registry.action(action_id).shortcuts() == QKeySequence.keyBindings(standard)


def test_menus_and_toolbar_come_from_the_registry(window) -> None:  # type: ignore[no-untyped-def]
    registered = {window.registry.action(i) for i in window.registry.ids()}
    for menu in window.menuBar().findChildren(QMenu):
        if menu.objectName().startswith("menu:"):
            continue  # Open Recent: files, not actions
        for action in menu.actions():
            if action.isSeparator() or action.menu() is not None:
                continue
            assert action in registered, action.text()
    for action_id in window.registry.ids():
        assert window.registry.action(action_id).toolTip(), action_id
    assert window.registry.action("view.fit").shortcut().toString() == "Ctrl+0"


def test_actions_need_a_document(window) -> None:  # type: ignore[no-untyped-def]
    assert not window.registry.action("file.save").isEnabled()
    assert not window.registry.action("edit.undo").isEnabled()
    assert window.open_file(ORDERS)
    assert window.registry.action("file.save").isEnabled()
    window.workspace.add_at("dag")
    assert window.registry.action("edit.undo").text() == "&Undo Add DAG dag_1"


def test_launch_opens_a_file_given_on_the_command_line(qtbot, prefs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window = app_module.launch([str(ORDERS)], prefs=prefs, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    assert window.isVisible()
    assert window.windowTitle().startswith("ny_dst_orders_mart.json")
    window.close()


def test_launch_without_a_file_shows_the_gallery(qtbot, prefs, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("EXPLORER_OPEN", raising=False)
    window = app_module.launch([], prefs=prefs, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    assert window.stack.currentWidget() is window.gallery
    monkeypatch.setenv("EXPLORER_OPEN", str(ORDERS))
    second = app_module.launch([], prefs=prefs, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(second)
    assert second.document() is not None
    window.close()
    second.close()


def test_explorer_without_arguments_imports_the_app() -> None:
    import explorer.__main__ as entry

    source = Path(entry.__file__).read_text()
    assert "from explorer.ui.app import main as gui_main" in source
    assert callable(app_module.main)


def _contrast(a: QtGui.QColor, b: QtGui.QColor) -> float:
    def lum(c: QtGui.QColor) -> float:
        def ch(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF())

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("palette", [_light_palette(), _dark_palette()], ids=["light", "dark"])
def test_canvas_text_is_readable_in_both_palettes(palette: QPalette) -> None:
    colors = canvas_colors(palette)
    assert _contrast(colors.text, colors.fill) >= 7.0
    assert _contrast(colors.text, colors.header) >= 7.0
    assert _contrast(colors.muted, colors.fill) >= 4.5
    assert _contrast(colors.chip_text, colors.chip_fill) >= 4.5
    for kind in ("dag", "asset", "alias", "gate"):
        assert _contrast(colors.accent(kind), colors.fill) >= 3.0, kind


def test_switching_to_the_dark_theme_repaints_the_canvas(window, qapp) -> None:  # type: ignore[no-untyped-def]
    assert window.open_file(ORDERS)
    try:
        window.registry.trigger("view.theme.dark")
        assert window.prefs.theme() == "dark"
        assert window.workspace.scene.colors.background.lightness() < 100
        window.registry.trigger("view.theme.light")
        assert window.workspace.scene.colors.background.lightness() > 200
    finally:
        from explorer.ui.theme import apply_theme

        apply_theme(qapp, "light")
