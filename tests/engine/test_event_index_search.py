"""An asset's event index finds the events after a floor by searching back from its
end (a consumer's floor is its latest run's); the answer is a bisection's."""

from __future__ import annotations

from array import array
from bisect import bisect_right

from hypothesis import given
from hypothesis import strategies as st

from explorer.engine.assets.store import EventIndex, EventLog, _bisect_right_from_end

stamps_st = st.lists(st.integers(0, 60), max_size=300).map(sorted)


@given(stamps_st, st.integers(-5, 65), st.data())
def test_the_search_from_the_end_is_a_bisection(
    stamps: list[int], value: int, data: st.DataObject
) -> None:
    column = array("q", stamps)
    hi = data.draw(st.integers(0, len(stamps)))
    assert _bisect_right_from_end(column, value, hi) == bisect_right(column, value, 0, hi)


@given(stamps_st, st.integers(-5, 65) | st.none(), st.integers(-5, 65))
def test_ids_between_are_the_events_in_the_window_in_order(
    stamps: list[int], floor: int | None, upto: int
) -> None:
    index = EventIndex(EventLog())
    for event_id, stamp in enumerate(stamps):
        index.add(event_id, stamp)
    expected = [
        event_id
        for event_id, stamp in enumerate(stamps)
        if (floor is None or floor < stamp) and stamp <= upto
    ]
    assert index.ids_between(floor, upto) == expected
