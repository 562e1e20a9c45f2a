"""Parametrize every conformance test by the cases of its vector family.

A test module sets ``FAMILY = "<file stem>"`` and takes a ``case`` argument;
each case becomes one test whose id is the vector's own ``id``. The folder is
``--conformance-dir`` (default ``tests/data/conformance``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest


@cache
def _load(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" not in metafunc.fixturenames:
        return
    family = getattr(metafunc.module, "FAMILY", None)
    if family is None:
        return
    folder = Path(metafunc.config.getoption("--conformance-dir"))
    data = _load(str(folder / f"{family}.json"))
    cases = data["cases"]
    select = getattr(metafunc.module, "select_case", None)
    params = []
    for case in cases:
        marks = select(case) if select else ()
        params.append(pytest.param(case, id=case["id"], marks=marks))
    metafunc.parametrize("case", params)
