"""View > Compare with saved version: the edit's effect drawn with the ADR 0009 diff."""

from __future__ import annotations

import dataclasses
import shutil

from explorer.ui.commands import edit
from tests.ui.conftest import EXAMPLES
from tests.ui.test_pictures import menu_action


def test_compare_with_saved_version_marks_the_weekday_edit(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dst.json"
    shutil.copy(EXAMPLES / "ny_dst_spring_forward.json", path)
    assert window.open_file(path)
    document = window.workspace.document
    scenario = document.scenario
    orders = scenario.dags[0]
    schedule = {**orders.schedule, "args": {**orders.schedule["args"], "cron": "0 0 * * 1-5"}}
    changed = dataclasses.replace(orders, schedule=schedule)
    # Through the undo stack, as the inspector does.
    assert edit(
        document, dataclasses.replace(scenario, dags=(changed, *scenario.dags[1:])), "Edit schedule"
    )
    menu_action(window, "View", "Compare with Saved Version").trigger()
    diff_window = window.compares.last
    assert diff_window is not None and diff_window.isVisible()
    view = diff_window.view
    assert view.diff.counts() == {"added": 0, "removed": 2, "shifted": 1}
    assert [link.text for link in view.links] == ["47 h later"]  # Sat 00:00 EST -> Mon 00:00 EDT
    assert sorted(box.status for box in view.boxes) == [2, 2]  # two removed (crossed) runs
    assert view.table.rowCount() == 3
    assert "2 removed" in view.summary.text()
    diff_window.close()
    # Undo: the document behaves as saved again.
    document.undo_stack.undo()
    menu_action(window, "View", "Compare with Saved Version").trigger()
    assert window.compares.last.view.diff.same
    window.compares.last.close()


def test_compare_needs_a_saved_file(window) -> None:  # type: ignore[no-untyped-def]
    window.files.new()
    assert window.compares.compare_saved() is None
