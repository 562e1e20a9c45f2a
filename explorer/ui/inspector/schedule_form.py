"""The schedule editor: every kind of ``schedule=`` the engine reads, with its arguments.

A combo picks the kind (cron or preset, None, ``@once``, ``@continuous``,
timedelta, relativedelta, an asset condition, or one of Airflow's timetable
classes); below it, one field per argument with Airflow's argument name. As
the user types, each field is checked with the engine's own reader (a cron
with croniter's message, a whole timetable with the factory's); the
schedule's description and its next runs, in the DAG's time zone, follow
live. Only a value the engine accepts is emitted (:attr:`candidate`); the DAG
form then checks it against the scenario's rules before pushing a command.
"""

from __future__ import annotations

import copy
import json
import zoneinfo
from collections.abc import Callable
from functools import cache
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from explorer.document import schedule_kinds
from explorer.engine.cron import validate_cron
from explorer.engine.describe import describe_cron
from explorer.engine.errors import EngineError
from explorer.engine.tz import get_zone
from explorer.scenario import Dag, Scenario, ScenarioError
from explorer.scenario.values import (
    RELATIVEDELTA_FIELDS,
    JsonValue,
    parse_duration,
    parse_instant,
)
from explorer.ui.inspector.fields import MessageLabel, ValidatedLine
from explorer.ui.inspector.partition_form import PartitionEditor

__all__ = ["ScheduleEditor", "zone_completer"]

_TIME_KINDS = [
    (kind, label)
    for kind, label in schedule_kinds.KINDS
    if kind.startswith("timetable:")
    and kind not in ("timetable:AssetOrTimeSchedule", "timetable:PartitionedAssetTimetable")
]


@cache
def _zones() -> list[str]:
    return sorted(zoneinfo.available_timezones())


def zone_completer(parent: QWidget) -> QCompleter:
    completer = QCompleter(_zones(), parent)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    return completer


# ----------------------------------------------------------------------------- text <-> values


def check_cron(text: str) -> str | None:
    try:
        validate_cron(text.strip())
    except EngineError as exc:
        return str(exc)
    return None


def check_zone(text: str) -> str | None:
    if not text.strip():
        return None
    try:
        get_zone(text.strip())
    except EngineError as exc:
        return str(exc)
    return None


def parse_delta(text: str) -> JsonValue:
    """``PT6H`` (a timedelta) or ``months=1, days=2`` (a relativedelta)."""
    text = text.strip()
    if "=" in text:
        fields: dict[str, JsonValue] = {}
        for part in text.replace(";", ",").split(","):
            if not part.strip():
                continue
            key, _, value = part.partition("=")
            key = key.strip()
            if key not in RELATIVEDELTA_FIELDS:
                raise ValueError(
                    f"relativedelta has no field {key!r}; use {', '.join(RELATIVEDELTA_FIELDS)}"
                )
            fields[key] = int(value.strip())
        return {"relativedelta": fields}
    parse_duration(text)
    return text


def delta_text(value: JsonValue) -> str:
    if isinstance(value, dict) and isinstance(value.get("relativedelta"), dict):
        rd = value["relativedelta"]
        assert isinstance(rd, dict)
        return ", ".join(f"{k}={v}" for k, v in rd.items())
    if isinstance(value, dict) and "timedelta" in value:
        return str(value["timedelta"])
    return "" if value is None else str(value)


def check_delta(text: str) -> str | None:
    try:
        parse_delta(text)
    except ValueError as exc:
        return str(exc)
    return None


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(";") if p.strip()]


# ----------------------------------------------------------------------------- argument fields


class _Arg:
    """One timetable argument: a widget, how to show a value, how to read one back."""

    def __init__(
        self,
        widget: QWidget,
        show: Callable[[JsonValue], None],
        read: Callable[[], tuple[bool, JsonValue]],
        error: Callable[[str], None],
    ) -> None:
        self.widget, self.show, self.read, self.error = widget, show, read, error


class ScheduleEditor(QWidget):
    """Edits one schedule value; ``candidate`` carries every value the engine accepts."""

    candidate = Signal(object)

    def __init__(self, parent: QWidget | None = None, *, time_only: bool = False) -> None:
        super().__init__(parent)
        self.time_only = time_only
        self.setObjectName("scheduleEditor" if not time_only else "innerScheduleEditor")
        self.kind = QComboBox()
        self.kind.setObjectName("scheduleKind")
        self.kind.setToolTip("What drives the DAG: Airflow's schedule= argument")
        self.kind.setAccessibleName("Schedule kind")
        for kind, label in _TIME_KINDS if time_only else schedule_kinds.KINDS:
            self.kind.addItem(label, kind)
        self.args_box = QWidget()
        self.args_form = QFormLayout(self.args_box)
        self.args_form.setContentsMargins(0, 0, 0, 0)
        # Argument names above their fields: the inspector is narrow, values are long.
        self.args_form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.kind_error = MessageLabel()
        self.description = QLabel()
        self.description.setObjectName("scheduleDescription")
        self.description.setWordWrap(True)
        self.description.setToolTip("The schedule in words (Airflow's timetable description)")
        self.runs = QLabel()
        self.runs.setObjectName("nextRuns")
        self.runs.setWordWrap(True)
        self.runs.setTextFormat(Qt.TextFormat.RichText)
        self.runs.setToolTip(
            "The first automatic runs after deployment (clock.start), in the DAG's zone"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.kind)
        layout.addWidget(self.kind_error)
        layout.addWidget(self.args_box)
        if not time_only:
            layout.addWidget(self.description)
            layout.addWidget(self.runs)
        self.value: JsonValue = None
        self.dag: Dag | None = None
        self.scenario: Scenario | None = None
        self.args: dict[str, _Arg] = {}
        self._shown_kind = ""
        self._loading = False
        self.kind.currentIndexChanged.connect(self._kind_chosen)

    # ----------------------------------------------------------------- model -> widgets
    def set_context(self, value: JsonValue, dag: Dag, scenario: Scenario) -> None:
        self.value, self.dag, self.scenario = copy.deepcopy(value), dag, scenario
        kind = schedule_kinds.kind_of(value)
        self._loading = True
        try:
            index = self.kind.findData(kind)
            if index < 0:
                self.kind.addItem(kind, kind)
                index = self.kind.count() - 1
            self.kind.setCurrentIndex(index)
            if kind != self._shown_kind:
                self._build(kind)
            self._show_values()
        finally:
            self._loading = False
        self.kind_error.clear_message()
        self._describe(value)

    def _build(self, kind: str) -> None:
        while self.args_form.rowCount():
            self.args_form.removeRow(0)
        self.args = {}
        self._shown_kind = kind
        if kind == "cron":
            self._add("cron", "cron")
        elif kind == "timedelta":
            self._add("timedelta", "delta")
        elif kind == "relativedelta":
            self._add("relativedelta", "delta")
        elif kind == "assets":
            self._add("assets", "condition")
        elif kind.startswith("timetable:"):
            required, optional = schedule_kinds.args_of(kind.removeprefix("timetable:"))
            for name in (*required, *optional):
                if name == "partition_mapper_config":
                    continue  # edited with default_partition_mapper
                self._add(name, schedule_kinds.ARG_TYPES.get(name, "json"), name in required)

    def _show_values(self) -> None:
        value = self.value
        kind = self._shown_kind
        if kind in ("cron", "timedelta", "relativedelta", "assets"):
            arg = self.args[kind]
            arg.show(value if kind != "timedelta" else value.get("timedelta"))  # type: ignore[union-attr]
            return
        args = value.get("args", {}) if isinstance(value, dict) else {}
        for name, arg in self.args.items():
            if name == "default_partition_mapper":
                arg.show(args)
            else:
                arg.show(args.get(name) if isinstance(args, dict) else None)

    # ----------------------------------------------------------------- argument widgets
    def _add(self, name: str, kind: str, required: bool = True) -> None:
        label = name if required else f"{name} (optional)"
        arg = self._make(name, kind)
        self.args[name] = arg
        arg.widget.setObjectName(f"arg:{name}")
        self.args_form.addRow(label, arg.widget)

    def _make(self, name: str, kind: str) -> _Arg:
        tip = _TIPS.get(name, name)
        if kind == "bool":
            box = QCheckBox()
            box.setToolTip(tip)
            box.toggled.connect(lambda _on: self._arg_edited())
            return _Arg(
                box,
                lambda v: _set_checked(box, bool(v)),
                lambda: (True, box.isChecked()),
                lambda m: None,
            )
        if kind == "condition":
            text = QLabel()
            text.setWordWrap(True)
            text.setToolTip(
                "The asset condition: connect assets into the DAG on the canvas, and edit AND/OR "
                "in a gate's inspector"
            )
            return _Arg(
                text,
                lambda v: text.setText(schedule_kinds.condition_text(v) if v else "no assets yet"),
                lambda: (True, self._current_condition()),
                lambda m: None,
            )
        if kind == "timetable":
            inner = ScheduleEditor(self, time_only=True)
            inner.setToolTip("The time-based timetable of AssetOrTimeSchedule")
            inner.candidate.connect(lambda _v: self._arg_edited())

            def show_inner(v: JsonValue) -> None:
                if self.dag is not None and self.scenario is not None:
                    default: JsonValue = {
                        "timetable": "CronTriggerTimetable",
                        "args": {"cron": "0 0 * * *"},
                    }
                    inner.set_context(v or default, self.dag, self.scenario)

            return _Arg(inner, show_inner, lambda: (True, inner.value), inner.kind_error.show_error)
        if kind == "mapper":
            editor = PartitionEditor(self)

            def read_mapper() -> tuple[bool, JsonValue]:
                return True, editor.spec()

            editor.changed.connect(lambda _fragment: self._arg_edited())
            return _Arg(
                editor,
                lambda v: editor.set_args(v if isinstance(v, dict) else {}),
                read_mapper,
                editor.show_error,
            )
        line = ValidatedLine(
            _VALIDATORS.get(kind), tooltip=tip, placeholder=_PLACEHOLDERS.get(kind, "")
        )
        if kind == "zone":
            line.edit.setCompleter(zone_completer(line))
        if kind == "cron":
            line.note = lambda t: describe_cron(t.strip())
        line.committed.connect(lambda _text: self._arg_edited())
        return _Arg(
            line,
            lambda v: line.set_value(_to_text(kind, v)),
            lambda: _from_text(kind, line.value()),
            line.set_error,
        )

    def _current_condition(self) -> JsonValue:
        from explorer.document.conditions import condition_root, get_at

        root = condition_root(self.value)
        return None if root is None else copy.deepcopy(get_at(self.value, root))

    # ----------------------------------------------------------------- widgets -> value
    def _kind_chosen(self, _index: int) -> None:
        if self._loading:
            return
        kind = str(self.kind.currentData())
        new = schedule_kinds.convert(self.value, kind)
        if kind in ("assets",) and not new:
            self.kind_error.show_error(
                "no assets yet: drag an asset's port into this DAG on the canvas to schedule it "
                "on assets"
            )
            return
        self._propose(new)

    def _arg_edited(self) -> None:
        if self._loading:
            return
        kind = self._shown_kind
        if kind in ("cron", "timedelta", "relativedelta"):
            ok, value = self.args[kind].read()
            if not ok:
                return
            new: JsonValue = value
            if kind == "timedelta" and isinstance(value, str):
                new = {"timedelta": value}
            self._propose(new)
            return
        if not kind.startswith("timetable:"):
            return
        args: dict[str, JsonValue] = {}
        required, _optional = schedule_kinds.args_of(kind.removeprefix("timetable:"))
        for name, arg in self.args.items():
            ok, value = arg.read()
            if not ok:
                return
            if name == "default_partition_mapper":
                mapper = value
                if mapper is not None:
                    args["default_partition_mapper"] = mapper
                per_asset = _per_asset(self.args[name].widget)
                if per_asset is not None:
                    args["partition_mapper_config"] = per_asset
                continue
            if value is None or (value == "" and name not in required):
                continue
            args[name] = value
        new_value: dict[str, JsonValue] = {"timetable": kind.removeprefix("timetable:")}
        if args or required:
            new_value["args"] = args
        self._propose(new_value)

    def _propose(self, new: JsonValue) -> None:
        """Check ``new`` with the engine; emit it if accepted, else show the refusal in place."""
        if self.dag is None or self.scenario is None:
            return
        try:
            schedule_kinds.read(new, self.dag, self.scenario)
        except ScenarioError as exc:
            self.show_error(exc)
            return
        except (EngineError, ValueError, TypeError, KeyError) as exc:
            self.kind_error.show_error(str(exc))
            return
        self.kind_error.clear_message()
        self.value = copy.deepcopy(new)
        if self.time_only:
            self.candidate.emit(new)
            return
        self._describe(new)
        self.candidate.emit(new)

    def show_error(self, exc: ScenarioError | str) -> None:
        """A refusal, shown at the argument it names when there is one."""
        if isinstance(exc, str):
            self.kind_error.show_error(exc)
            return
        steps = [s for s in exc.steps if s not in ("dags", 0)]
        arg_name = next((str(s) for s in steps if isinstance(s, str) and str(s) in self.args), None)
        if arg_name is not None:
            self.args[arg_name].error(exc.message)
        elif self._shown_kind in self.args:
            self.args[self._shown_kind].error(exc.message)
        else:
            self.kind_error.show_error(exc.message)

    # ----------------------------------------------------------------- description
    def _describe(self, value: JsonValue) -> None:
        if self.time_only or self.dag is None or self.scenario is None:
            return
        dag = self.dag
        from dataclasses import replace

        candidate = replace(dag, schedule=value)
        summary = schedule_kinds.summarize(candidate, self.scenario)
        try:
            resolved = schedule_kinds.read(value, dag, self.scenario).name
        except (ScenarioError, EngineError, ValueError, TypeError, KeyError):
            resolved = ""
        words = summary.description or summary.chip
        self.description.setText(
            f"<b>{_escape(resolved)}</b>: {_escape(words)}" if resolved else words
        )
        try:
            runs = schedule_kinds.next_runs(candidate, self.scenario, 5)
        except (ScenarioError, EngineError, ValueError) as exc:
            self.runs.setText(f"<i>next runs unknown: {_escape(str(exc))}</i>")
            return
        if runs:
            self.runs.setText(_runs_html(runs, dag.timezone))
        else:
            self.runs.setText(f"<i>{_escape(_no_runs(value, summary.description))}</i>")


def _set_checked(box: QCheckBox, on: bool) -> None:
    box.blockSignals(True)
    box.setChecked(on)
    box.blockSignals(False)


def _per_asset(widget: QWidget) -> JsonValue:
    if (
        isinstance(widget, PartitionEditor)
        and widget.per_asset.value().strip()
        and widget.per_asset.is_valid()
    ):
        value: JsonValue = json.loads(widget.per_asset.value())
        return value or None
    return None


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _no_runs(schedule: JsonValue, description: str) -> str:
    """Why no next runs are listed, in the words of the schedule's kind."""
    kind = schedule_kinds.kind_of(schedule)
    if kind in ("assets", "timetable:PartitionedAssetTimetable"):
        return f"{description}: asset-triggered runs, none on a clock to list."
    if kind == "none":
        return "No automatic runs: this DAG runs only when triggered."
    return "No runs after deployment: the schedule ends before clock.start (or end_date)."


def _runs_html(runs: list[Any], timezone: str) -> str:
    zone = get_zone(timezone)
    lines = [f"<b>Next runs</b> ({_escape(timezone)}, after deployment):"]
    for info in runs:
        after = info.run_after.astimezone(zone)
        text = after.strftime("%a %Y-%m-%d %H:%M %Z")
        interval = info.data_interval
        if interval is not None and interval.start != interval.end:
            start = interval.start.astimezone(zone).strftime("%m-%d %H:%M")
            end = interval.end.astimezone(zone).strftime("%m-%d %H:%M")
            text += f" — data interval {start} → {end}"
        if info.partition_key:
            text += f" — key {info.partition_key}"
        lines.append("• " + _escape(text))
    return "<br>".join(lines)


_TIPS = {
    "cron": "A cron expression or preset (@daily, @hourly...), read by croniter as Airflow does",
    "crons": "Several cron expressions, separated by ';'",
    "timezone": "IANA time zone the cron is read in (blank: the DAG's timezone)",
    "interval": "ISO-8601 duration (PT6H) or relativedelta fields (months=1)",
    "delta": "ISO-8601 duration (PT6H, P1D) or relativedelta fields (months=1)",
    "timedelta": "ISO-8601 duration of fixed length: PT6H, P1D, P1DT30M",
    "relativedelta": "Calendar step as relativedelta fields: months=1, days=2",
    "run_immediately": "true, false, or an ISO-8601 duration",
    "run_offset": "An integer, or blank for none",
    "key_format": "strftime format of the partition key",
    "event_dates": "ISO-8601 datetimes with an offset, separated by ';'",
    "restrict_to_events": "Manual runs take the preceding event's date",
    "presorted": "The event dates are already sorted",
    "description": "A description of the events",
}

_PLACEHOLDERS = {
    "cron": "0 0 * * *",
    "crons": "0 6 * * *; 0 18 * * *",
    "zone": "the DAG's timezone",
    "delta": "PT6H or months=1",
    "datetimes": "2024-05-01T00:00:00Z; 2024-05-08T00:00:00Z",
    "int_or_null": "none",
}


def _check_crons(text: str) -> str | None:
    parts = _split(text)
    if not parts:
        return "give at least one cron expression"
    for part in parts:
        error = check_cron(part)
        if error is not None:
            return error
    return None


def _check_datetimes(text: str) -> str | None:
    for part in _split(text):
        try:
            parse_instant(part)
        except ValueError as exc:
            return str(exc)
    return None


def _check_bool_or_duration(text: str) -> str | None:
    t = text.strip().lower()
    if t in ("", "true", "false"):
        return None
    try:
        parse_duration(text.strip())
    except ValueError as exc:
        return f"true, false or a duration: {exc}"
    return None


def _check_int_or_null(text: str) -> str | None:
    t = text.strip()
    if t in ("", "none", "null"):
        return None
    try:
        int(t)
    except ValueError:
        return f"{t!r} is not an integer"
    return None


def _check_json(text: str) -> str | None:
    if not text.strip():
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not JSON: {exc.msg}"
    return None


_VALIDATORS: dict[str, Callable[[str], str | None]] = {
    "cron": check_cron,
    "crons": _check_crons,
    "zone": check_zone,
    "delta": check_delta,
    "datetimes": _check_datetimes,
    "bool_or_duration": _check_bool_or_duration,
    "int_or_null": _check_int_or_null,
    "json": _check_json,
}


def _to_text(kind: str, value: JsonValue) -> str:
    if value is None:
        return ""
    if kind == "delta":
        return delta_text(value)
    if kind in ("crons", "datetimes") and isinstance(value, list):
        return "; ".join(str(v) for v in value)
    if kind == "bool_or_duration":
        return str(value).lower() if isinstance(value, bool) else str(value)
    if kind == "json":
        return json.dumps(value)
    return str(value)


def _from_text(kind: str, text: str) -> tuple[bool, JsonValue]:
    t = text.strip()
    try:
        if kind == "delta":
            return True, parse_delta(t) if t else None
        if kind in ("crons", "datetimes"):
            parts: list[JsonValue] = list(_split(t))
            return True, parts if t else None
        if kind == "bool_or_duration":
            if t.lower() in ("", "false"):
                return True, None if not t else False
            return True, True if t.lower() == "true" else t
        if kind == "int_or_null":
            return True, None if t.lower() in ("", "none", "null") else int(t)
        if kind == "json":
            return True, json.loads(t) if t else None
    except ValueError:
        return False, None
    return True, t or None
