"""The script's overrides are found by the DAG they name, not by a scan of all of them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest

from explorer.engine import actions as act
from explorer.engine import overrides as overrides_module
from explorer.engine.overrides import Overrides

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def _override(dag_id: str, minutes: int) -> act.Override:
    return act.Override(at=T0, run=act.RunSelector(dag_id, nth=0), delay=timedelta(minutes=minutes))


def test_overrides_are_indexed_by_dag_in_script_order() -> None:
    book = Overrides()
    added = [book.add(_override(d, i), i) for i, d in enumerate(["a", "b", "a", "c", "a"])]
    assert [p.action.delay for p in book.of_dag("a")] == [
        timedelta(0),
        timedelta(minutes=2),
        timedelta(minutes=4),
    ]
    assert book.of_dag("b") == [added[1]] and book.of_dag("nobody") == []
    assert list(book) == added  # readers still see every override in script order


@pytest.mark.plain_only
def test_a_run_is_matched_against_its_own_dags_overrides_only() -> None:
    book = Overrides()
    others = [book.add(_override(f"other{i}", 1), i) for i in range(50)]
    mine = book.add(_override("mine", 7), 50)
    for pending in others:  # reading any of them would raise
        pending.action = mock.NonCallableMock(spec=[])
    run = mock.Mock(dag_id="mine", tasks=[])
    with mock.patch.object(overrides_module, "select_run", return_value=run):
        book.resolve(run, mock.Mock(), mock.Mock())
        assert book.delay(run, mock.Mock(task_id="t"), mock.Mock()) == timedelta(minutes=7)
    assert mine.matched
