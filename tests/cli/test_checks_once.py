"""``explorer simulate`` / ``validate`` check a scenario once, not at load and again at build.

Run in-process through the real entry point (``explorer.__main__.main``) so
that the checks can be counted; the other CLI tests run it as a process.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

import explorer.scenario.build
import explorer.scenario.load
from explorer.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "resources" / "scenarios" / "orders_mart_two_assets.json"


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Calls of the schema check and of the rule checks, wherever they are made."""
    calls: Counter[str] = Counter()

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    for module in (explorer.scenario.load, explorer.scenario.build):
        for name in ("schema_problems", "check_scenario"):
            monkeypatch.setattr(module, name, counted(name, getattr(module, name)))
    return calls


def run(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def test_simulate_checks_the_scenario_once(checks: Counter[str]) -> None:
    text = run("simulate", str(SCENARIO), "--format", "csv")
    assert text.startswith("dag_id,run_id,")
    assert len(text.splitlines()) > 10  # it simulated for real
    assert checks == {"schema_problems": 1, "check_scenario": 1}


def test_validate_checks_each_file_once(checks: Counter[str]) -> None:
    text = run("validate", str(SCENARIO), str(SCENARIO))
    assert text.count(": valid (") == 2
    assert checks == {"schema_problems": 2, "check_scenario": 2}


def test_an_option_set_on_the_command_line_is_checked_with_it(checks: Counter[str]) -> None:
    # ``--set`` makes a new model after the load: that one is checked at the build.
    text = run(
        "simulate", str(SCENARIO), "--format", "csv", "--set", "scheduler.catchup_by_default=true"
    )
    assert text.startswith("dag_id,run_id,")
    assert checks == {"schema_problems": 2, "check_scenario": 2}
