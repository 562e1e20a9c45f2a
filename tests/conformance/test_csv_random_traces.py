"""Every ``random_traces`` vector's runs as CSV: the same check as ``test_csv_traces``."""

from __future__ import annotations

from typing import Any

from tests.conformance import test_csv_traces

FAMILY = "random_traces"


def test_random_trace_runs_as_csv(case: dict[str, Any]) -> None:
    test_csv_traces.test_trace_runs_as_csv(case)
