"""The Airflow options a scenario can set, read as ``airflow.cfg`` reads them (DEP-7).

Only the options that change what the scheduler does with a DAG file are
here. They are read when a file is parsed, so a change reaches a DAG at its
next parse, never before; the DAG processor's ``refresh_interval`` sets the
grid on which removed files are noticed (DEP-6).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from explorer.engine.errors import EngineError

__all__ = ["OPTION_KEYS", "AirflowOptions", "OptionError", "parse_option_value"]


class OptionError(EngineError):
    """An unknown option or a value ``airflow.cfg`` would not accept."""


#: (section, key) -> (attribute of :class:`AirflowOptions`, value type), Airflow 3.3.2's names.
OPTION_KEYS: dict[tuple[str, str], tuple[str, type]] = {
    ("scheduler", "create_cron_data_intervals"): ("create_cron_data_intervals", bool),
    ("scheduler", "catchup_by_default"): ("catchup_by_default", bool),
    ("scheduler", "create_delta_data_intervals"): ("create_delta_data_intervals", bool),
    ("core", "max_active_runs_per_dag"): ("max_active_runs_per_dag", int),
    ("dag_processor", "refresh_interval"): ("refresh_interval", int),
}

# Airflow's ``conf.getboolean`` accepts these spellings (case-insensitive).
_TRUE = frozenset({"t", "true", "1"})
_FALSE = frozenset({"f", "false", "0"})


def _known() -> str:
    return ", ".join(f"{s}.{k}" for s, k in OPTION_KEYS)


def parse_option_value(section: str, key: str, value: object) -> bool | int:
    """``value`` (a JSON value, or text as written in ``airflow.cfg``) as the option's type.

    Raises :class:`OptionError` naming the option for an unknown key or a bad value.
    """
    entry = OPTION_KEYS.get((section, key))
    if entry is None:
        raise OptionError(f"unknown Airflow option [{section}] {key}; known: {_known()}")
    kind = entry[1]
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise OptionError(f"[{section}] {key} must be true or false, not {value!r}")
    if isinstance(value, bool):
        raise OptionError(f"[{section}] {key} must be an integer, not {value!r}")
    try:
        number = int(value) if isinstance(value, int | str) else None
    except ValueError:
        number = None
    if number is None:
        raise OptionError(f"[{section}] {key} must be an integer, not {value!r}")
    if key == "max_active_runs_per_dag" and number < 1:
        raise OptionError(f"[{section}] {key} must be at least 1, not {number}")
    if key == "refresh_interval" and number < 1:
        raise OptionError(f"[{section}] {key} must be at least 1 second, not {number}")
    return number


@dataclass(frozen=True, slots=True)
class AirflowOptions:
    """Airflow 3.3.2's defaults; :meth:`set` returns a copy with one option changed."""

    create_cron_data_intervals: bool = False
    catchup_by_default: bool = False
    #: Ignored by 3.3.2 (a timedelta schedule follows ``create_cron_data_intervals``, TT-1).
    create_delta_data_intervals: bool = False
    max_active_runs_per_dag: int = 16
    #: ``[dag_processor] refresh_interval`` in seconds (DEP-6).
    refresh_interval: int = 300

    def set(self, section: str, key: str, value: object) -> AirflowOptions:
        attribute = OPTION_KEYS[(section, key)][0] if (section, key) in OPTION_KEYS else None
        parsed = parse_option_value(section, key, value)
        assert attribute is not None
        return replace(self, **{attribute: parsed})  # type: ignore[arg-type]

    def get(self, section: str, key: str) -> bool | int:
        entry = OPTION_KEYS.get((section, key))
        if entry is None:
            raise OptionError(f"unknown Airflow option [{section}] {key}; known: {_known()}")
        value: bool | int = getattr(self, entry[0])
        return value

    @property
    def refresh_period(self) -> timedelta:
        return timedelta(seconds=self.refresh_interval)
