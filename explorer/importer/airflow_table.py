"""Would ``import`` succeed in Airflow 3.3.2? Answered from the generated table.

``airflow_3_3_2_names.json`` lists every module of ``apache-airflow-core`` 3.3.2,
``apache-airflow-task-sdk`` 1.3.2 and ``apache-airflow-providers-standard``
1.21.0 with the names ``from module import name`` finds in it (lazy names and
deprecation shims included), or the error importing it raises; it is written by
``benchmarks/gen_airflow_names.py`` in a virtualenv that has exactly those three,
never by the product, which does not import Airflow. The DAG processor loads a file
only when every import in it succeeds, so a name missing here means Airflow records
an import error and the file's DAGs never exist.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["ImportVerdict", "from_import", "import_module", "outside_need"]

TABLE = "airflow_3_3_2_names.json"

#: Airflow 2 names and modules with their Airflow 3 replacement, for the message.
REPLACEMENTS = {
    "airflow.datasets": "airflow.sdk (Asset, AssetAlias, AssetAll, AssetAny)",
    "airflow.models.dataset": "airflow.sdk.Asset",
    "Dataset": "airflow.sdk.Asset",
    "DatasetAlias": "airflow.sdk.AssetAlias",
    "DatasetAll": "airflow.sdk.AssetAll",
    "DatasetAny": "airflow.sdk.AssetAny",
    "days_ago": "a fixed start_date (days_ago was removed in Airflow 3)",
    "airflow.contrib": "the provider packages (airflow.providers.*)",
    "airflow.operators.subdag": "task groups (SubDAGs are gone)",
    "airflow.operators.dummy": "airflow.providers.standard.operators.empty.EmptyOperator",
    "DummyOperator": "airflow.providers.standard.operators.empty.EmptyOperator",
}

#: Provider packages outside the table: judged where Airflow runs, not here.
_PROVIDERS = "airflow.providers."
_IN_TABLE_PROVIDERS = ("airflow.providers.standard",)


@dataclass(frozen=True, slots=True)
class ImportVerdict:
    """``error``: what Airflow would raise (the file fails); ``needs``: a distribution the
    table cannot judge, which must be installed where Airflow parses the file."""

    error: str | None = None
    needs: str | None = None


@cache
def _table() -> dict[str, list[str] | dict[str, str]]:
    text = resources.files("explorer.importer").joinpath(TABLE).read_text(encoding="utf-8")
    modules: dict[str, list[str] | dict[str, str]] = json.loads(text)["modules"]
    return modules


@cache
def _names(module: str) -> frozenset[str]:
    entry = _table().get(module)
    return frozenset(entry) if isinstance(entry, list) else frozenset()


def _hint(key: str) -> str:
    replacement = REPLACEMENTS.get(key)
    if replacement:
        return f" (Airflow 3: use {replacement})"
    if key.startswith(("airflow.operators.", "airflow.sensors.", "airflow.hooks.")):
        return (
            " (moved in Airflow 3: operators, sensors and hooks live in airflow.providers.*, "
            "e.g. airflow.providers.standard.operators.bash)"
        )
    return ""


def import_module(dotted: str) -> ImportVerdict:
    """``import dotted`` (or the module part of ``from dotted import ...``) in Airflow 3.3.2.

    Only ``airflow`` modules are judged; anything else is the caller's."""
    if dotted != "airflow" and not dotted.startswith("airflow."):
        return ImportVerdict()
    if dotted.startswith(_PROVIDERS) and not dotted.startswith(_IN_TABLE_PROVIDERS):
        package = dotted[len(_PROVIDERS) :].split(".")
        name = "-".join(package[: 2 if package[0] in _TWO_PART_PROVIDERS else 1])
        return ImportVerdict(needs=f"apache-airflow-providers-{name.replace('_', '-')}")
    table = _table()
    parts = dotted.split(".")
    for depth in range(1, len(parts) + 1):  # parents are imported first, as Python does
        prefix = ".".join(parts[:depth])
        entry = table.get(prefix)
        if entry is None:
            return ImportVerdict(f"ModuleNotFoundError: No module named '{prefix}'{_hint(prefix)}")
        if isinstance(entry, dict):
            return ImportVerdict(entry["error"])
    return ImportVerdict()


def from_import(module: str, name: str) -> ImportVerdict:
    """``from module import name`` in Airflow 3.3.2 (``module`` itself imports)."""
    if module != "airflow" and not module.startswith("airflow."):
        return ImportVerdict()
    verdict = import_module(module)
    if verdict.error is not None or verdict.needs is not None:
        return verdict
    if name in _names(module) or f"{module}.{name}" in _table():
        return ImportVerdict()
    return ImportVerdict(f"ImportError: cannot import name '{name}' from '{module}'{_hint(name)}")


#: Provider packages whose distribution name has two parts (``common-sql``...).
_TWO_PART_PROVIDERS = frozenset({"common", "apache", "microsoft", "cncf", "dbt", "atlassian"})


@cache
def _installed() -> frozenset[str]:
    text = resources.files("explorer.importer").joinpath(TABLE).read_text(encoding="utf-8")
    return frozenset(json.loads(text)["installed"])


def outside_need(dotted: str) -> str | None:
    """The top-level module ``import dotted`` needs beyond Python's library and what the
    three Airflow distributions install (``pandas``), or None."""
    top = dotted.split(".")[0]
    if top in ("airflow", "__future__") or top in sys.stdlib_module_names or top in _installed():
        return None
    return top
