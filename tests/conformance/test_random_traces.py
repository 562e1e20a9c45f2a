"""Every ``random_traces`` vector (conformance README 7.10): random deployments replayed.

Same replay (``traces.build``) and the same field-by-field comparison as
``scheduler_traces``: the cases differ only in how they were drawn (at random,
plus the hand-minimised ``min-`` cases that pin SEMANTICS RND-1..RND-7 and the
script-reading points of README 7.3-7.4).
"""

from __future__ import annotations

from typing import Any

from tests.conformance import test_scheduler_traces as scheduler_traces

FAMILY = "random_traces"


def test_random_trace(case: dict[str, Any]) -> None:
    scheduler_traces.test_scheduler_trace(case)
