"""Shared test configuration: headless Qt, the conformance vector folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DEFAULT_CONFORMANCE_DIR = Path(__file__).parent / "data" / "conformance"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--conformance-dir",
        default=str(DEFAULT_CONFORMANCE_DIR),
        help="folder of Airflow conformance vectors (default: tests/data/conformance)",
    )
