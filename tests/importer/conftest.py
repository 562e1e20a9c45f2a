"""Helpers: write a small Airflow project, import it, read the result by dag_id."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from explorer.importer import ImportResult, import_paths
from explorer.scenario.write import write_scenario

#: The deployment instant every test imports at (parse-time values read as it).
AT = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)


class Project:
    """A folder of DAG files written by a test, imported statically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def run(self, **kwargs: Any) -> ImportResult:
        return import_paths([self.root], parsed_at=AT, **kwargs)

    def dags(self, **kwargs: Any) -> dict[str, dict[str, Any]]:
        """The written scenario's DAGs (JSON as saved), by dag_id."""
        document = write_scenario(self.run(**kwargs).scenario)
        dags = document.get("dags", [])
        assert isinstance(dags, list)
        return {d["dag_id"]: d for d in dags}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "dags"
    root.mkdir()
    return Project(root)
