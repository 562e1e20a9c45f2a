"""Reading older scenario files: ordered, named migrations between format versions.

A file says which version wrote it (``"format": "schedule-explorer/<N>"``).
Older files are brought forward one step at a time, each step a small named
function from one version's JSON to the next, before the schema sees them, so
the reader only ever knows the current version (contract section 3). A newer
or unknown format is refused: guessing would silently drop what a newer
version meant.

To add version N+1: write ``_vN_to_vN1(doc) -> doc`` here, append
``Migration(N, N+1, "what changed", ...)``, bump ``FORMAT_VERSION`` in
``model.py`` and ship ``scenario-<N+1>.schema.json``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import FORMAT_VERSION
from explorer.scenario.values import JsonObject

__all__ = ["MIGRATIONS", "Migration", "format_version", "migrate"]

_FORMAT = re.compile(r"schedule-explorer/(?P<version>[0-9]+)\Z")


@dataclass(frozen=True, slots=True)
class Migration:
    """One step: a file of ``from_version`` becomes a file of ``to_version``."""

    from_version: int
    to_version: int
    name: str
    func: Callable[[JsonObject], JsonObject]


def _v1_to_v2(doc: JsonObject) -> JsonObject:
    """Format 2 (ADR 0007): options by ``airflow.cfg`` section; ``deploy`` was a parse.

    Unset ``catchup``/``max_active_runs`` need no rewrite: format 1 could not change
    the options that decide them, so absent meant exactly what unset means now.
    """
    config = doc.get("airflow_config")
    if isinstance(config, dict) and "create_cron_data_intervals" in config:
        rest = {k: v for k, v in config.items() if k != "create_cron_data_intervals"}
        scheduler = {"create_cron_data_intervals": config["create_cron_data_intervals"]}
        doc["airflow_config"] = {"scheduler": scheduler, **rest}
    script = doc.get("script")
    if isinstance(script, list):
        doc["script"] = [
            {**action, "do": "parse"}
            if isinstance(action, dict) and action.get("do") == "deploy"
            else action
            for action in script
        ]
    return doc


#: Every migration ever shipped, oldest first.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, 2, "airflow_config by section; deploy becomes parse", _v1_to_v2),
)


def format_version(document: JsonObject, *, source: str) -> int:
    """The ``N`` of ``"format": "schedule-explorer/<N>"``, or a located refusal."""
    if "format" not in document:
        raise ScenarioError(
            source,
            ("format",),
            f'missing; a scenario file starts with "format": "schedule-explorer/{FORMAT_VERSION}"',
        )
    value = document["format"]
    match = _FORMAT.match(value) if isinstance(value, str) else None
    if match is None:
        raise ScenarioError(
            source,
            ("format",),
            f"unknown format {value!r}; expected 'schedule-explorer/<version>' "
            "(is this a Schedule Explorer scenario file?)",
        )
    return int(match["version"])


def migrate(
    document: JsonObject,
    *,
    source: str,
    migrations: Sequence[Migration] | None = None,
    current: int = FORMAT_VERSION,
) -> JsonObject:
    """``document`` brought to version ``current``; the input is left untouched.

    ``migrations`` defaults to :data:`MIGRATIONS`, read at call time.
    """
    version = format_version(document, source=source)
    if version > current:
        raise ScenarioError(
            source,
            ("format",),
            f"written by a newer version of Schedule Explorer (format schedule-explorer/{version});"
            f" this version reads schedule-explorer/{current} and older: upgrade to open it",
        )
    steps = {m.from_version: m for m in (MIGRATIONS if migrations is None else migrations)}
    while version < current:
        step = steps.get(version)
        if step is None:
            raise ScenarioError(
                source,
                ("format",),
                f"format schedule-explorer/{version} is no longer supported "
                f"(no migration from version {version})",
            )
        if step.to_version <= version:
            raise ValueError(f"migration {step.name!r} does not move the format forward")
        document = _apply(step, document, source)
        version = step.to_version
    return document


def _apply(step: Migration, document: JsonObject, source: str) -> JsonObject:
    # A migration reads files that were never validated by this version; a
    # surprise in them must come out as a located message, not a traceback.
    # It gets a shallow copy and replaces (never mutates) what it changes below
    # the top level: a deep copy would recurse through arbitrarily deep
    # conditions, which a later stage refuses with a located message.
    try:
        result = step.func(dict(document))
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise ScenarioError(
            source,
            "$",
            f"cannot migrate from schedule-explorer/{step.from_version} "
            f"({step.name}): {type(exc).__name__}: {exc}",
        ) from exc
    result["format"] = f"schedule-explorer/{step.to_version}"
    return result
