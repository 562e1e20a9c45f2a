"""What Airflow 3.3.2's own DagBag makes of a DAG folder, as JSON (the Airflow half of
``diff_import_vs_airflow.py``).

Run with the interpreter of a virtualenv holding ``apache-airflow-core==3.3.2``
(and ``apache-airflow-providers-standard``)::

    python _airflow_dagbag.py FOLDER NOW_ISO [--regexp]

Loads FOLDER the way the DAG processor does (``BundleDagBag``: the folder on
``sys.path``, safe mode, ``.airflowignore``) with the wall clock frozen at NOW
(``datetime.now()``, ``pendulum.now()``/``today()`` in DAG files and the
timetables' ``utcnow``), and prints for every DAG: dag_id, file, timetable
class and ``serialize()``, time zone, start/end dates, catchup,
max_active_runs, the asset condition, every task's outlets and inlets, and the
next 10 runs the timetable gives (each call's reference the previous answer,
as the scheduler asks). Import errors are printed per file.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sys
import tempfile
import types
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("AIRFLOW_HOME", os.path.join(tempfile.gettempdir(), "se-airflow-home"))
os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")


def _fmt(value: Any) -> str | None:
    if value is None:
        return None
    u = value.astimezone(_dt.UTC)
    text = u.strftime("%Y-%m-%dT%H:%M:%S")
    if u.microsecond:
        text += f".{u.microsecond:06d}"
    return text + "Z"


def _freeze(now: _dt.datetime) -> None:
    """Every clock a DAG file or a timetable reads says ``now``."""
    import airflow.serialization.serialized_objects  # noqa: F401
    import airflow.timetables.interval as interval_mod
    import airflow.timetables.simple as simple_mod
    import airflow.timetables.trigger as trigger_mod
    import pendulum

    frozen = pendulum.instance(now)

    class FrozenDateTime(_dt.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:  # type: ignore[override]
            value = (
                now.astimezone(tz)
                if tz is not None
                else now.astimezone(_dt.UTC).replace(tzinfo=None)
            )
            return (
                cls.fromtimestamp(value.timestamp(), tz)
                if tz is not None
                else cls(*value.timetuple()[:6], value.microsecond)
            )

        @classmethod
        def utcnow(cls) -> Any:  # type: ignore[override]
            value = now.astimezone(_dt.UTC)
            return cls(*value.timetuple()[:6], value.microsecond)

        @classmethod
        def today(cls) -> Any:  # type: ignore[override]
            return cls.utcnow()

    # DAG files import ``datetime`` while the bag fills: they get a copy of the module whose
    # ``datetime`` is frozen; libraries imported before keep the real module and class.
    proxy = types.ModuleType("datetime")
    proxy.__dict__.update(_dt.__dict__)
    proxy.datetime = FrozenDateTime  # type: ignore[attr-defined]
    sys.modules["datetime"] = proxy
    # (datetime.date stays: libraries test isinstance(x, date) against it.)
    pendulum.now = lambda tz="UTC": frozen.in_timezone(tz)  # type: ignore[assignment]
    pendulum.today = lambda tz="UTC": frozen.in_timezone(tz).start_of("day")  # type: ignore[assignment]
    pendulum.yesterday = lambda tz="UTC": frozen.in_timezone(tz).start_of("day").subtract(days=1)  # type: ignore[assignment]
    pendulum.tomorrow = lambda tz="UTC": frozen.in_timezone(tz).start_of("day").add(days=1)  # type: ignore[assignment]

    for module in (interval_mod, trigger_mod, simple_mod):
        if hasattr(module, "utcnow"):
            module.__dict__["utcnow"] = lambda: frozen
    try:
        import airflow._shared.timezones.timezone as shared_tz

        shared_tz.utcnow = lambda: frozen  # type: ignore[assignment]
    except ImportError:
        pass
    try:
        import airflow.utils.timezone as tzmod

        tzmod.utcnow = lambda: frozen  # type: ignore[assignment]
    except ImportError:
        pass
    try:
        import airflow.sdk.timezone as sdk_tz

        sdk_tz.utcnow = lambda: frozen  # type: ignore[assignment]
    except ImportError:
        pass

    class _Time:
        def __getattr__(self, name: str) -> Any:
            import time

            return getattr(time, name)

        def time(self) -> float:
            return frozen.timestamp()

    trigger_mod.__dict__["time"] = _Time()


def _asset(node: Any) -> Any:
    """An asset condition or outlet as plain JSON, independent of the classes' spelling."""
    kind = type(node).__name__.removeprefix("Serialized")
    if kind == "_NullAsset":
        return None
    if kind in ("Asset", "Dataset", "Model", "AssetDefinition"):
        return {"asset": [node.name, node.uri]}
    if kind in ("AssetAlias", "DatasetAlias"):
        return {"alias": node.name}
    if kind == "AssetNameRef":
        return {"ref_name": node.name}
    if kind == "AssetUriRef":
        return {"ref_uri": node.uri}
    if kind in ("AssetAll", "DatasetAll"):
        return {"all": [_asset(o) for o in node.objects]}
    if kind in ("AssetAny", "DatasetAny"):
        return {"any": [_asset(o) for o in node.objects]}
    return {"other": kind}


def _zone(tz: Any) -> str:
    name = getattr(tz, "name", None) or getattr(tz, "key", None) or str(tz)
    return "UTC" if name in ("UTC", "Etc/UTC", "+00:00") else str(name)


def _runs(dag: Any, count: int) -> tuple[list[list[str | None]], str | None]:
    """The scheduler's chain: each call's reference is the previous answer (SerializedDAG API)."""
    runs: list[list[str | None]] = []
    last = None
    for _ in range(count):
        try:
            info = dag.next_dagrun_info(last_automated_run_info=last)
        except Exception as exc:
            return runs, f"{type(exc).__name__}: {exc}"
        if info is None:
            break
        interval = info.data_interval
        runs.append(
            [
                _fmt(info.logical_date),
                _fmt(interval.start) if interval else None,
                _fmt(interval.end) if interval else None,
                _fmt(info.run_after),
                getattr(info, "partition_key", None),
            ]
        )
        last = info
    return runs, None


def _describe(sdk_dag: Any, folder: Path) -> dict[str, Any]:
    from airflow.serialization.serialized_objects import DagSerialization

    # The scheduler's view: the serialized DAG, with Airflow-core timetables.
    dag = DagSerialization.from_dict(DagSerialization.to_dict(sdk_dag))
    table = dag.timetable
    try:
        serialized = table.serialize()
    except Exception as exc:  # pragma: no cover - depends on Airflow
        serialized = {"error": str(exc)}
    condition = getattr(table, "asset_condition", None)
    tasks = {}
    for task in sdk_dag.tasks:
        tasks[task.task_id] = {
            "outlets": [_asset(o) for o in (task.outlets or [])],
            "inlets": [_asset(o) for o in (task.inlets or []) if type(o).__name__ not in ("str",)],
        }
    runs, error = _runs(dag, 10)
    try:
        file = str(Path(dag.fileloc).relative_to(folder))
    except ValueError:
        file = dag.fileloc
    return {
        "dag_id": dag.dag_id,
        "file": file,
        "timetable": type(table).__name__,
        "timetable_args": serialized,
        "timezone": _zone(dag.timezone),
        # What the scheduler restricts runs with (SerializedDAG._time_restriction, TT-2):
        # the DAG's and its tasks' dates, which the import's DAG dates stand for.
        "start_date": _fmt(dag._time_restriction.earliest),
        "end_date": _fmt(dag._time_restriction.latest),
        "catchup": dag.catchup,
        "max_active_runs": dag.max_active_runs,
        "condition": None if condition is None else _asset(condition),
        "tasks": tasks,
        "runs": runs,
        "runs_error": error,
    }


def main() -> int:
    folder = Path(sys.argv[1]).resolve()
    now = _dt.datetime.fromisoformat(sys.argv[2].replace("Z", "+00:00"))
    if "--regexp" in sys.argv:
        os.environ["AIRFLOW__CORE__DAG_IGNORE_FILE_SYNTAX"] = "regexp"
    out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("ignore")
        # Airflow's modules first: they keep the real datetime class; DAG files see the frozen one.
        import airflow.sdk  # noqa: F401
        from airflow.dag_processing.dagbag import BundleDagBag

        _freeze(now)

        bag = BundleDagBag(
            dag_folder=folder, bundle_path=folder, bundle_name="diff", safe_mode=True
        )
        # Parsing is over: libraries test isinstance(x, datetime.datetime) from here on.
        sys.modules["datetime"] = _dt
        errors = {str(k): str(v).strip().splitlines()[-1] for k, v in bag.import_errors.items()}
        dags = []
        for dag in bag.dags.values():
            try:
                dags.append(_describe(dag, folder))
            except Exception as exc:  # the DAG processor fails to serialize it: never scheduled
                errors[f"{dag.fileloc} ({dag.dag_id})"] = f"{type(exc).__name__}: {exc}"
    json.dump({"dags": dags, "import_errors": errors}, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
