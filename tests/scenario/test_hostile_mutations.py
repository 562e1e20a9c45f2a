"""A seeded random mutator of scenario files and DAG files: whatever a careless or hostile
edit does, the answer is a located refusal or a simulation that ends within its run limit,
never a traceback, and nothing is written outside the output path."""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from explorer.engine.errors import EngineError, SimulationLimitError
from explorer.importer import import_paths
from explorer.scenario import ScenarioError, build_engine_inputs, loads_scenario
from explorer.scenario.save import dumps_scenario
from explorer.scenario.simulate import make_simulation
from tests.engine.test_random_scenarios import scenario_settings
from tests.importer.conftest import AT

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "resources" / "scenarios").glob("*.json"))
RUN_LIMIT = 3_000

HOSTILE_LEAVES = st.one_of(
    st.sampled_from(
        [
            "P999999999D",
            "PT0S",
            "PT0.000001S",
            "-PT1H",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2024-03-10T02:30:00",
            "*/1 * * * *",
            "0 0 31 2 *",
            "@continuous",
            "@once",
            "Mars/Olympus",
            "x\ud800y",
            "dag\n",
            "\x1b[31m",
            "=HYPERLINK(1)",
            "{{ macros.json.codecs }}",
            "",
            "a" * 10_000,
        ]
    ),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
HOSTILE = st.recursive(
    HOSTILE_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


#: Values a careless edit leaves that still make sense where they land, by the kind of
#: text they replace: most mutated files then validate, and the simulation is tested too.
_KINDS = [
    (re.compile(r"-?P\d|PT"), ["PT1H", "P1D", "PT1S", "P36525D", "PT0.001S", "P7D"]),
    (
        re.compile(r"\d{4}-\d{2}-\d{2}T"),
        ["2024-03-09T00:00:00Z", "1900-01-01T00:00:00Z", "2024-11-03T01:30:00-04:00"],
    ),
    (re.compile(r"[\d*@]"), ["0 * * * *", "*/1 * * * *", "@daily", "@hourly", "30 2 * * *"]),
    (re.compile(r"[A-Z][a-z]+/|UTC"), ["UTC", "America/New_York", "Australia/Lord_Howe"]),
]


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document a value can be put (the root's fields and below)."""
    found = [path] if path else []
    if isinstance(node, dict):
        for key, value in node.items():
            found.extend(_places(value, (*path, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_places(value, (*path, index)))
    return found


def _get(document: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        document = document[step]
    return document


def _like(value: Any) -> st.SearchStrategy[Any]:
    """A plausible value of the same JSON type as ``value`` (a careless edit)."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int | float):
        return st.integers(0, 50)
    if isinstance(value, str):
        for kind, values in _KINDS:
            if kind.match(value):
                return st.sampled_from(values)
        return st.just(value)
    if isinstance(value, list):
        return st.just(value[:-1] if value else value)  # an item dropped
    return st.just({k: v for i, (k, v) in enumerate(value.items()) if i})  # a key dropped


def _put(document: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        document = document[step]
    document[path[-1]] = value


@scenario_settings(80)
@given(data=st.data())
def test_a_mutated_scenario_is_refused_with_a_path_or_simulated_within_its_limit(
    data: st.DataObject,
) -> None:
    source = data.draw(st.sampled_from(SCENARIOS))
    document = json.loads(source.read_text(encoding="utf-8"))
    places = _places(document)
    for _ in range(data.draw(st.integers(1, 2))):
        place = data.draw(st.sampled_from(places))
        try:
            current = _get(document, place)
            hostile = data.draw(st.integers(0, 3)) == 0
            _put(document, place, data.draw(HOSTILE if hostile else _like(current)))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced this place's parent
        places = _places(document)
    text = json.dumps(document)
    try:
        scenario = loads_scenario(text, source="mutated")
    except ScenarioError as exc:
        assert exc.problems and all(p.path.startswith("$") for p in exc.problems)
        return
    dumps_scenario(scenario).encode("utf-8")  # whatever validates can be saved
    inputs = build_engine_inputs(scenario, source="mutated")
    sim = make_simulation(inputs, run_limit=RUN_LIMIT)
    horizon = inputs.start + timedelta(days=20)
    try:
        sim.advance_to(min(horizon, inputs.until or horizon))
    except SimulationLimitError:
        assert len(sim.runs) <= RUN_LIMIT
    except EngineError:
        pass  # a located engine refusal (a timetable that cannot run), reported as such


DAG_FILE = """\
from datetime import datetime, timedelta
from airflow.sdk import DAG, Asset
from airflow.providers.standard.operators.empty import EmptyOperator

orders = Asset("s3://lake/orders")
with DAG(
    "orders_{n}",
    schedule="0 6 * * *",
    start_date=datetime(2024, 1, 1),
    tags=["{{0}}".format("t")],
    default_args={{"retries": 1, "retry_delay": timedelta(minutes=5)}},
):
    EmptyOperator(task_id="load", outlets=[orders])
"""

SNIPPETS = [
    "x = 3\nfor _ in range(40):\n    x = x * x\n",
    "y = sum([[0] * 999999] * 999999, [])\n",
    'z = "{:>8000000000}".format(1)\n',
    'w = "{0.__init__.__globals__}".format(timedelta(days=1))\n',
    "while True:\n    pass\n",
    "import os\nos.system('touch PWNED')\n",
    "open('PWNED', 'w').write('x')\n",
    "v = " + "(" * 300 + "1" + ")" * 300 + "\n",
    "u = [i for i in range(10**9)]\n",
    "def f(n):\n    return f(n + 1)\nf(0)\n",
    "t = 10 ** 10 ** 10\n",
    "s = 'x' * 10**9\n",
    "exec('import os')\n",
    "__import__('os').system('touch PWNED')\n",
    "r = getattr(__builtins__, 'open')('PWNED', 'w')\n",
    "q = ''.join(str(i) for i in range(10**8))\n",
]


@scenario_settings(40)
@given(data=st.data())
def test_a_mutated_dag_folder_imports_without_a_traceback_or_a_side_effect(
    data: st.DataObject, tmp_path_factory: Any
) -> None:
    work = tmp_path_factory.mktemp("hostile")
    folder = work / "dags"
    folder.mkdir()
    for n in range(data.draw(st.integers(1, 3))):
        lines = DAG_FILE.format(n=n).splitlines(keepends=True)
        for _ in range(data.draw(st.integers(1, 3))):
            at = data.draw(st.integers(0, len(lines)))
            snippet = data.draw(st.sampled_from(SNIPPETS))
            indent = "    " if at > 0 and lines[at - 1].startswith("    ") else ""
            lines.insert(at, "".join(indent + line for line in snippet.splitlines(True)))
        (folder / f"dag_{n}.py").write_text("".join(lines), encoding="utf-8")
    before = sorted(p.name for p in work.rglob("*"))
    cwd = Path.cwd()
    os.chdir(work)
    try:
        result = import_paths([folder], parsed_at=AT)
    finally:
        os.chdir(cwd)
    assert result.report.files
    assert sorted(p.name for p in work.rglob("*")) == before, "the import wrote a file"
