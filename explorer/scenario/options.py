"""Airflow options a scenario can set, spelled as in ``airflow.cfg`` (ADR 0007, DEP-7).

One table maps each ``[section] key`` to its field of :class:`AirflowConfig`, its
type and Airflow 3.3.2's default, so the file reader and writer, the ``set_option``
action and ``explorer simulate --set section.key=value`` agree on one vocabulary.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from explorer.scenario.errors import did_you_mean
from explorer.scenario.model import AirflowConfig

__all__ = [
    "OPTIONS",
    "SECTIONS",
    "Option",
    "effective_catchup",
    "effective_max_active_runs",
    "find_option",
    "parse_option_text",
    "with_option",
]


@dataclass(frozen=True, slots=True)
class Option:
    """One ``airflow.cfg`` option: where it lives, what it holds, its default."""

    section: str
    key: str
    type: type[bool] | type[int]
    default: bool | int
    #: Smallest value an integer option accepts.
    minimum: int | None = None

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"


OPTIONS: tuple[Option, ...] = (
    Option("scheduler", "create_cron_data_intervals", bool, False),
    Option("scheduler", "catchup_by_default", bool, False),
    Option("scheduler", "create_delta_data_intervals", bool, False),
    Option("core", "max_active_runs_per_dag", int, 16, minimum=1),
    Option("dag_processor", "refresh_interval", int, 300, minimum=1),
)

#: Sections in the order a file writes them.
SECTIONS: tuple[str, ...] = ("scheduler", "core", "dag_processor")

_BY_NAME = {(o.section, o.key): o for o in OPTIONS}
# airflow.cfg's boolean spellings (AirflowConfigParser.getboolean).
_TRUE = {"t", "true", "1"}
_FALSE = {"f", "false", "0"}


def find_option(section: str, key: str) -> Option:
    """The option ``[section] key``, or ``KeyError`` with a sentence naming the known ones."""
    option = _BY_NAME.get((section, key))
    if option is None:
        names = [o.name for o in OPTIONS]
        hint = did_you_mean(f"{section}.{key}", names)
        raise KeyError(
            f"unknown Airflow option [{section}] {key}{hint}; "
            f"Schedule Explorer models: {', '.join(names)}"
        )
    return option


def parse_option_text(option: Option, text: str) -> bool | int:
    """A value as written in ``airflow.cfg`` (``True``, ``false``, ``300``), or ``ValueError``."""
    word = text.strip()
    if option.type is bool:
        if word.lower() in _TRUE:
            return True
        if word.lower() in _FALSE:
            return False
        raise ValueError(f"[{option.section}] {option.key} takes true or false, not {text!r}")
    try:
        number = int(word)
    except ValueError:
        raise ValueError(
            f"[{option.section}] {option.key} takes a whole number, not {text!r}"
        ) from None
    if option.minimum is not None and number < option.minimum:
        raise ValueError(f"[{option.section}] {option.key} must be at least {option.minimum}")
    return number


def with_option(config: AirflowConfig, option: Option, value: bool | int) -> AirflowConfig:
    """``config`` with one option changed (the field is named after the key)."""
    changes: dict[str, Any] = {option.key: value}
    return dataclasses.replace(config, **changes)


def effective_catchup(catchup: bool | None, config: AirflowConfig) -> bool:
    """A DAG's catchup as a parse reads it: unset means ``catchup_by_default`` (DEP-7)."""
    return config.catchup_by_default if catchup is None else catchup


def effective_max_active_runs(limit: int | None, config: AirflowConfig) -> int:
    """A DAG's max_active_runs: unset means ``[core] max_active_runs_per_dag`` (DEP-7)."""
    return config.max_active_runs_per_dag if limit is None else limit
