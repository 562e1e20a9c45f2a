"""Import an Airflow project's DAG files into a scenario, statically.

DAG files are arbitrary code: they are read with :mod:`ast` and never executed,
imported or compiled. What can be read exactly becomes a format-2 scenario;
what cannot is listed in an :class:`ImportReport` with file, line and reason,
never guessed silently. Headless: no Qt (an import-linter contract).

API (the GUI's File > Import / Re-import call these)::

    import_paths(paths, *, task_duration=timedelta(minutes=10), parsed_at,
                 base_dir=None, name=None, progress=None, cancel=None) -> ImportResult
        paths: DAG files or folders (searched recursively, ``.airflowignore``
        honoured). parsed_at: the deployment instant (aware); it becomes
        ``clock.start`` and is what ``datetime.now()`` in a DAG file means.
        progress(done, total, file) is called after each file; cancel() is
        polled between files and raises ImportCancelled when it returns True.
        ImportResult.scenario: a format-2 scenario (``import_info``: roots,
        task_duration, parsed_at; each DAG's ``tags``, ``source``, ``unresolved``;
        ``catchup``/``max_active_runs`` None when the file leaves them unset);
        .report: the ImportReport (``.to_json()`` is the JSON report;
        ``.summary()`` the human text); ``.dag_count``.

    reimport(old, *, base_dir=None, parsed_at=None, progress=None, cancel=None)
        -> ReimportResult(scenario, report, changes)
        Imports ``old.import_info.roots`` again (relative to ``base_dir``, the
        scenario file's folder) and merges: layout positions, the script,
        expectations, settings and every field listed in a DAG's ``supplied``
        keep the old values; everything else comes from the files.

    merge_reimport(old, fresh: ImportResult) -> ReimportResult
        The merge alone (for a caller that ran import_paths itself, e.g. in a
        worker thread).

    Change(kind, dag_id, field, before, after): kind is ``dag_added``,
    ``dag_removed`` or ``changed`` (field: schedule, start_date, end_date,
    timezone, catchup, max_active_runs, is_paused_upon_creation, tags,
    assets); ``str(change)`` is a sentence.

Nothing here reads the wall clock: the caller passes ``parsed_at``.
"""

from __future__ import annotations

from explorer.importer.api import import_paths
from explorer.importer.reimport import Change, ReimportResult, merge_reimport, reimport
from explorer.importer.report import DagReport, FileReport, ImportReport, Unresolved
from explorer.importer.result import (
    DEFAULT_TASK_DURATION,
    ImportCancelled,
    ImportResult,
)

__all__ = [
    "DEFAULT_TASK_DURATION",
    "Change",
    "DagReport",
    "FileReport",
    "ImportCancelled",
    "ImportReport",
    "ImportResult",
    "ReimportResult",
    "Unresolved",
    "import_paths",
    "merge_reimport",
    "reimport",
]
