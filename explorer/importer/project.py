"""One import run: discover files, read each statically, build the scenario and its report.

Files are read one by one in a stable order (roots as given, then walk order),
so the same project always gives the same scenario. A file that cannot be
read never stops the others: it is listed with its reason. Sibling modules
(``import common.tables``) are found under the root a DAG file came from, as
Airflow puts the DAG folder on ``sys.path``.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from explorer.engine.perf import bulk_allocation
from explorer.importer.convert import ConvertedAsset, ConvertedDag, Skip, convert_asset, convert_dag
from explorer.importer.discover import (
    Found,
    IgnoreSyntax,
    check_single,
    discover,
    might_contain_dag,
)
from explorer.importer.reader import ModuleLoader, read_module
from explorer.importer.report import DagReport, FileReport, ImportReport, Unresolved
from explorer.importer.result import Cancel, ImportCancelled, ImportResult, Progress
from explorer.importer.scenario import build_scenario
from explorer.importer.source import SourceError, decode_source
from explorer.scenario.checks import validate_scenario
from explorer.scenario.model import Scenario
from explorer.scenario.values import format_duration

__all__ = ["module_finder", "run_import"]


@dataclass(frozen=True, slots=True)
class _Root:
    path: Path
    #: Prefix of every display name (the root's own name when several roots are imported).
    prefix: str
    #: Folder on "sys.path" for this root's DAG files.
    folder: Path


def _roots(paths: list[Path]) -> list[_Root]:
    roots: list[_Root] = []
    several = len(paths) > 1
    for path in paths:
        absolute = path.absolute()
        folder = absolute if absolute.is_dir() else absolute.parent
        prefix = f"{absolute.name}/" if several and absolute.is_dir() else ""
        roots.append(_Root(absolute, prefix, folder))
    return roots


def module_finder(folder: Path) -> Callable[[str], tuple[str, str] | None]:
    """Where ``import a.b`` finds ``a/b.py`` or ``a/b/__init__.py`` under the DAG folder."""
    real = folder.resolve()

    def find(dotted: str) -> tuple[str, str] | None:
        parts = dotted.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        base = folder.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                try:
                    candidate.resolve().relative_to(real)
                except ValueError:
                    return None
                if candidate.stat().st_size >= 10 * 1024 * 1024:
                    return None
                try:
                    text = decode_source(candidate.read_bytes())
                except (SourceError, OSError):
                    return None
                return text, candidate.relative_to(folder).as_posix()
        if base.is_dir():
            return "", f"{base.relative_to(folder).as_posix()}/"  # a namespace package
        return None

    return find


def run_import(
    paths: list[Path],
    *,
    parsed_at: datetime,
    task_duration: timedelta,
    base_dir: Path | None,
    name: str | None,
    progress: Progress | None,
    cancel: Cancel | None,
    ignore_syntax: IgnoreSyntax = "glob",
) -> ImportResult:
    if parsed_at.tzinfo is None:
        raise ValueError("parsed_at must be timezone-aware")
    parsed_at = parsed_at.astimezone(UTC)
    roots = _roots(paths)
    found: list[tuple[_Root, Found]] = []
    for root in roots:
        if not root.path.exists():
            found.append(
                (root, Found(root.path, root.prefix + root.path.name, "no such file or folder"))
            )
        elif root.path.is_dir():
            found.extend((root, f) for f in discover(root.path, ignore_syntax))
        else:
            found.append((root, check_single(root.path)))
    files: list[FileReport] = []
    dags: list[tuple[ConvertedDag, str]] = []
    assets: list[tuple[ConvertedAsset, str]] = []
    reports: list[DagReport] = []
    total = len(found)
    with bulk_allocation():  # ASTs and records of every file live to the end: no GC passes
        _read_all(found, total, parsed_at, files, dags, assets, reports, progress, cancel)
    _drop_duplicates(dags, assets, reports)
    scenario = build_scenario(
        [d for d, _ in dags],
        [a for a, _ in assets],
        {d.dag_id: f for d, f in dags} | {a.dag_id: f for a, f in assets},
        parsed_at=parsed_at,
        task_duration=task_duration,
        roots=[_root_text(r.path, base_dir) for r in roots],
        name=name or _name(roots),
    )
    scenario = _drop_invalid(scenario, reports, files)
    report = ImportReport(
        dags=tuple(sorted(reports, key=lambda r: (r.file, r.line, r.dag_id))),
        files=tuple(files),
        task_duration=_duration_text(task_duration),
        parsed_at=parsed_at.isoformat().replace("+00:00", "Z"),
        roots=tuple(_root_text(r.path, base_dir) for r in roots),
        notes=(
            "task durations are not in DAG files: every task lasts the stated default "
            f"({_duration_text(task_duration)})",
            "DAGs that do not set is_paused_upon_creation are simulated unpaused; Airflow's "
            "default [core] dags_are_paused_at_creation=True keeps a new DAG paused until "
            "someone unpauses it",
        ),
    )
    return ImportResult(scenario, report)


def _read_all(
    found: list[tuple[_Root, Found]],
    total: int,
    parsed_at: datetime,
    files: list[FileReport],
    dags: list[tuple[ConvertedDag, str]],
    assets: list[tuple[ConvertedAsset, str]],
    reports: list[DagReport],
    progress: Progress | None,
    cancel: Cancel | None,
) -> None:
    """Read every found file in order, appending to the lists; one loader per DAG folder."""
    loaders: dict[Path, ModuleLoader] = {}
    for done, (root, entry) in enumerate(found, start=1):
        if cancel is not None and cancel():
            raise ImportCancelled
        display = root.prefix + entry.relative
        if entry.skip is not None:
            files.append(FileReport(display, "skipped", entry.skip))
        else:
            loader = loaders.get(root.folder)
            if loader is None:
                loader = ModuleLoader(module_finder(root.folder), parsed_at)
                loaders[root.folder] = loader
            try:
                report = _read_file(entry.path, display, loader, dags, assets, reports)
            except RecursionError:
                report = FileReport(display, "error", "nested too deeply to be read statically")
            except Exception as exc:  # a reader bug must never stop the other files
                report = FileReport(
                    display,
                    "error",
                    f"the import could not read this file ({type(exc).__name__}: {exc})",
                )
            files.append(report)
        if progress is not None:
            progress(done, total, display)


def _read_file(
    path: Path,
    display: str,
    loader: ModuleLoader,
    dags: list[tuple[ConvertedDag, str]],
    assets: list[tuple[ConvertedAsset, str]],
    reports: list[DagReport],
) -> FileReport:
    try:
        content = path.read_bytes()
    except OSError as exc:
        return FileReport(display, "error", f"cannot be read: {exc.strerror}")
    if not might_contain_dag(content):
        return FileReport(
            display,
            "skipped",
            "safe mode: the file does not contain both 'airflow' and 'dag' (or 'asset'), "
            "so Airflow's DAG processor does not parse it",
        )
    try:
        source = decode_source(content)
    except SourceError as exc:
        return FileReport(display, "error", str(exc))
    try:
        tree = ast.parse(source, filename=display)
    except SyntaxError as exc:
        return FileReport(display, "error", f"SyntaxError at line {exc.lineno}: {exc.msg}")
    except ValueError as exc:
        return FileReport(display, "error", f"cannot be parsed: {exc}")
    reading = read_module(tree, display, loader, str(path.absolute()))
    ids: list[str] = []
    if reading.refusal is not None:
        refusal = reading.refusal
        not_loaded = (
            f"Airflow 3.3.2 would not load this file (line {refusal.line}): {refusal.reason}"
        )
        if refusal.dag_id is not None:
            reports.append(
                DagReport(
                    refusal.dag_id,
                    display,
                    refusal.line,
                    "skipped",
                    (),
                    f"Airflow 3.3 refuses this DAG: {refusal.reason}",
                )
            )
        for dag in reading.dags:
            dag_id = dag.dag_id if isinstance(dag.dag_id, str) else "?"
            reports.append(
                DagReport(
                    dag_id,
                    display,
                    dag.line,
                    "skipped",
                    (),
                    not_loaded,
                )
            )
        return FileReport(
            display,
            "error",
            not_loaded,
        )
    for dag in reading.dags:
        try:
            converted = convert_dag(dag, file=display)
        except Skip as exc:
            dag_id = dag.dag_id if isinstance(dag.dag_id, str) else "?"
            reports.append(DagReport(dag_id, display, dag.line, "skipped", (), str(exc)))
            continue
        dags.append((converted, display))
        ids.append(converted.dag_id)
        reports.append(_dag_report(converted.dag_id, display, converted.line, converted.unresolved))
    for asset in reading.assets:
        try:
            converted_asset = convert_asset(asset, file=display)
        except Skip as exc:
            reports.append(DagReport(asset.name, display, asset.line, "skipped", (), str(exc)))
            continue
        assets.append((converted_asset, display))
        ids.append(converted_asset.dag_id)
        reports.append(
            _dag_report(
                converted_asset.dag_id, display, converted_asset.line, converted_asset.unresolved
            )
        )
    for line, why in reading.missed:
        reports.append(
            DagReport("?", display, line, "skipped", (), f"DAGs made here are not read: {why}")
        )
    return FileReport(display, "parsed", None, tuple(ids), reading.needs)


def _drop_invalid(
    scenario: Scenario, reports: list[DagReport], files: list[FileReport]
) -> Scenario:
    """Leave out the files whose DAGs the scenario rules refuse as Airflow's DAG constructor
    does (a ``@continuous`` DAG with max_active_runs above 1, catchup without a
    start_date...): the constructor raises, so Airflow loads no DAG of that file. Each is
    listed with the refusal; the rest stays a valid scenario."""
    for _ in range(len(scenario.dags) + len(scenario.asset_dags) + 1):
        failed: dict[str, str] = {}
        for error in validate_scenario(scenario, source="import"):
            steps = error.steps
            if len(steps) < 2 or steps[0] not in ("dags", "asset_dags"):
                continue
            if not isinstance(steps[1], int):
                continue
            if steps[0] == "dags":
                dag = scenario.dags[steps[1]]
                file = dag.source.file if dag.source is not None else ""
                dag_id = dag.dag_id
            else:
                entry = scenario.asset_dags[steps[1]]
                source = entry.extras.get("x-source")
                file = str(source.get("file")) if isinstance(source, dict) else ""
                dag_id = entry.dag_id
            failed.setdefault(file, f"{dag_id}: {error.message}")
        if not failed:
            return scenario
        for file, why in failed.items():
            reason = f"Airflow 3.3 fails this file when it builds DAG {why}"
            for index, report in enumerate(reports):
                if report.file == file and report.status != "skipped":
                    reports[index] = replace(report, status="skipped", reason=reason)
            for index, entry_report in enumerate(files):
                if entry_report.file == file:
                    files[index] = replace(entry_report, status="error", reason=reason, dag_ids=())
        scenario = replace(
            scenario,
            dags=tuple(d for d in scenario.dags if d.source is None or d.source.file not in failed),
            asset_dags=tuple(
                d
                for d in scenario.asset_dags
                if not (
                    isinstance(d.extras.get("x-source"), dict)
                    and str(d.extras["x-source"].get("file")) in failed  # type: ignore[union-attr]
                )
            ),
        )
    return scenario


def _dag_report(dag_id: str, file: str, line: int, unresolved: list[Unresolved]) -> DagReport:
    partial = any(not u.parse_time for u in unresolved)
    return DagReport(dag_id, file, line, "partial" if partial else "imported", tuple(unresolved))


def _drop_duplicates(
    dags: list[tuple[ConvertedDag, str]],
    assets: list[tuple[ConvertedAsset, str]],
    reports: list[DagReport],
) -> None:
    """A dag_id defined twice: the first file keeps it (Airflow refuses the later one)."""
    seen: dict[str, str] = {}
    keep_dags: list[tuple[ConvertedDag, str]] = []
    for dag, file in dags:
        if dag.dag_id in seen:
            _mark(
                reports, dag.dag_id, file, dag.line, f"dag_id already defined in {seen[dag.dag_id]}"
            )
            continue
        seen[dag.dag_id] = file
        keep_dags.append((dag, file))
    keep_assets: list[tuple[ConvertedAsset, str]] = []
    for asset, file in assets:
        if asset.dag_id in seen:
            _mark(
                reports,
                asset.dag_id,
                file,
                asset.line,
                f"dag_id already defined in {seen[asset.dag_id]}",
            )
            continue
        seen[asset.dag_id] = file
        keep_assets.append((asset, file))
    dags[:] = keep_dags
    assets[:] = keep_assets


def _mark(reports: list[DagReport], dag_id: str, file: str, line: int, reason: str) -> None:
    for index, report in enumerate(reports):
        if report.dag_id == dag_id and report.file == file and report.line == line:
            reports[index] = DagReport(dag_id, file, line, "skipped", report.unresolved, reason)
            return


def _root_text(path: Path, base_dir: Path | None) -> str:
    if base_dir is not None:
        try:
            return Path(os.path.relpath(path, base_dir.absolute())).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _name(roots: list[_Root]) -> str:
    names = ", ".join(r.path.name for r in roots)
    return f"Imported from {names}"


def _duration_text(value: timedelta) -> str:
    return format_duration(value)
