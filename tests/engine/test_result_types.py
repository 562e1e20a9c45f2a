"""The timetables' result objects are built slot by slot (cheaper than the frozen
dataclass ``__init__``); they must stay the same frozen values."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from datetime import UTC, datetime, timedelta

import pytest

from explorer.engine.types import DagRunInfo, DataInterval, ReferenceRun

START = datetime(2024, 3, 10, 7, tzinfo=UTC)
END = START + timedelta(hours=1)


def test_the_shortcuts_build_what_the_constructors_build() -> None:
    info = DagRunInfo.interval(START, END)
    assert info == DagRunInfo(run_after=END, data_interval=DataInterval(START, END))
    assert hash(info) == hash(DagRunInfo(END, DataInterval(start=START, end=END)))
    assert (info.logical_date, info.partition_key, info.partition_date) == (START, None, None)
    assert DagRunInfo.exact(START) == DagRunInfo(START, DataInterval.exact(START))
    reference = ReferenceRun.of(info)
    assert reference == ReferenceRun(data_interval=DataInterval(START, END), run_after=END)
    assert reference.data_interval is info.data_interval
    keyed = DagRunInfo(END, None, partition_key="k", partition_date=START)
    assert (keyed.partition_key, keyed.partition_date, keyed.data_interval) == ("k", START, None)


@pytest.mark.parametrize(
    "value",
    [
        DataInterval(START, END),
        DagRunInfo.interval(START, END),
        ReferenceRun.of(DagRunInfo.interval(START, END)),
    ],
    ids=type,
)
def test_they_stay_frozen_values(value: object) -> None:
    first = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, first, END)
    assert copy.copy(value) == value == pickle.loads(pickle.dumps(value))
    assert dataclasses.replace(value) == value  # type: ignore[type-var]
    assert repr(value).startswith(type(value).__name__ + "(")
