"""A partitioned consumer's mapper: class, window, wait policy and caps, checked by the engine.

``PartitionedAssetTimetable`` maps each upstream event's partition key to
downstream keys with a *partition mapper* (Airflow's classes, PT-3..PT-17).
This form edits the ``default_partition_mapper`` spec field by field:
the mapper class; for the temporal ones their zone and key formats; for
``RollupMapper`` and ``FanOutMapper`` the upstream mapper, the window and its
direction (or segments), the wait policy (rollups) and the
``max_downstream_keys`` cap; ``partition_mapper_config`` (per-asset mappers)
as JSON. Every change is built with the engine's own ``build_mapper``, whose
refusal is shown in place; only a spec it accepts is emitted.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QSpinBox, QWidget

from explorer.engine.errors import EngineError
from explorer.engine.partitions.spec import MAPPER_NAMES, POLICY_NAMES, WINDOW_NAMES, build_mapper
from explorer.scenario.values import JsonValue
from explorer.ui.inspector.fields import MessageLabel, ValidatedLine

__all__ = ["PartitionEditor"]


def _choose(combo: QComboBox, text: str) -> None:
    """Select ``text``, adding it if the combo does not list it (never show a wrong value)."""
    if combo.findText(text) < 0:
        combo.addItem(text)
    combo.setCurrentText(text)


_TEMPORAL = tuple(n for n in MAPPER_NAMES if n.startswith("StartOf"))
_WINDOWED = ("RollupMapper", "FanOutMapper")
_DEFAULT = "(default) IdentityMapper"


class PartitionEditor(QWidget):
    """Edits ``{"default_partition_mapper": ..., "partition_mapper_config": ...}``."""

    #: The args fragment: {"default_partition_mapper": ..., "partition_mapper_config": ...}
    changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("partitionEditor")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.mapper = QComboBox()
        self.mapper.addItems([_DEFAULT, *MAPPER_NAMES])
        self.mapper.setToolTip(
            "default_partition_mapper: how an upstream key maps to this DAG's keys"
        )
        self.timezone = ValidatedLine(tooltip="timezone of the temporal mapper (IANA name)")
        self.input_format = ValidatedLine(tooltip="input_format (strptime) of upstream keys")
        self.upstream = QComboBox()
        self.upstream.addItems([*_TEMPORAL, *(n for n in MAPPER_NAMES if n not in _TEMPORAL)])
        self.upstream.setToolTip("upstream_mapper: decodes each upstream key before the window")
        self.window_kind = QComboBox()
        self.window_kind.addItems(list(WINDOW_NAMES))
        self.window_kind.setToolTip("window: which upstream keys make one downstream period")
        self.direction = QComboBox()
        self.direction.addItems(["forward", "backward"])
        self.direction.setToolTip("the window's direction: the period from the anchor, or to it")
        self.segments = ValidatedLine(tooltip="SegmentWindow segments, separated by ';'")
        self.policy = QComboBox()
        self.policy.addItems(["(none)", *POLICY_NAMES])
        self.policy.setToolTip("wait_policy of a rollup: all members, or a minimum count")
        self.count = QSpinBox()
        self.count.setRange(-1000, 1000)
        self.count.setToolTip("MinimumCount n (negative: all but n members)")
        self.has_cap = QCheckBox("cap downstream keys")
        self.has_cap.setToolTip("max_downstream_keys: refuse an event mapping to more keys")
        self.cap = QSpinBox()
        self.cap.setRange(1, 1_000_000)
        self.cap.setToolTip("max_downstream_keys")
        self.keys = ValidatedLine(tooltip="allowed_keys (AllowedKeyMapper), separated by ';'")
        self.fixed = ValidatedLine(tooltip="downstream_key (FixedKeyMapper)")
        self.nested = ValidatedLine(
            self._check_json_list, tooltip="mappers of a Chain/ProductMapper, as a JSON list"
        )
        self.per_asset = ValidatedLine(
            self._check_json_list,
            tooltip='partition_mapper_config: [{"asset": ..., "mapper": {...}}, ...] as JSON',
            placeholder="[] (no per-asset mapper)",
        )
        self.error = MessageLabel()
        self.spec_label = QLabel()
        self.spec_label.setWordWrap(True)
        self.spec_label.setToolTip("The mapper spec as the scenario file writes it")
        rows: list[tuple[str, QWidget]] = [
            ("Mapper", self.mapper),
            ("Time zone", self.timezone),
            ("Input format", self.input_format),
            ("Upstream mapper", self.upstream),
            ("Window", self.window_kind),
            ("Direction", self.direction),
            ("Segments", self.segments),
            ("Wait policy", self.policy),
            ("Minimum count", self.count),
            ("", self.has_cap),
            ("Max downstream keys", self.cap),
            ("Allowed keys", self.keys),
            ("Downstream key", self.fixed),
            ("Mappers", self.nested),
            ("Per-asset mappers", self.per_asset),
        ]
        self._rows: dict[QWidget, int] = {}
        for label, widget in rows:
            form.addRow(label, widget)
            self._rows[widget] = form.rowCount() - 1
        form.addRow(self.error)
        form.addRow("Spec", self.spec_label)
        self.form = form
        self._loading = False
        self._loaded: dict[str, Any] | None = None
        for combo in (self.mapper, self.upstream, self.window_kind, self.direction, self.policy):
            combo.currentIndexChanged.connect(self._edited)
        for spin in (self.count, self.cap):
            spin.editingFinished.connect(self._edited)
        self.has_cap.toggled.connect(self._edited)
        for line in (
            self.timezone,
            self.input_format,
            self.segments,
            self.keys,
            self.fixed,
            self.nested,
            self.per_asset,
        ):
            line.committed.connect(lambda _text: self._edited())

    @staticmethod
    def _check_json_list(text: str) -> str | None:
        if not text.strip():
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return f"not JSON: {exc.msg} (column {exc.colno})"
        return None if isinstance(value, list) else "expected a JSON list [...]"

    # ----------------------------------------------------------------- model -> fields
    def set_args(self, args: dict[str, Any]) -> None:
        self._loading = True
        try:
            spec = args.get("default_partition_mapper")
            spec = spec if isinstance(spec, dict) else {}
            #: What the file says: fields the form does not show are kept from it.
            self._loaded = copy.deepcopy(spec) if spec else None
            inner: dict[str, Any] = spec.get("args") or {}
            _choose(self.mapper, spec.get("mapper", _DEFAULT) if spec else _DEFAULT)
            self.timezone.set_value(str(inner.get("timezone", "")))
            self.input_format.set_value(str(inner.get("input_format", "")))
            upstream = inner.get("upstream_mapper") or {}
            _choose(self.upstream, upstream.get("mapper", "StartOfHourMapper"))
            window = inner.get("window") or {}
            _choose(self.window_kind, window.get("window", "DayWindow"))
            wargs = window.get("args") or {}
            _choose(self.direction, wargs.get("direction", "forward"))
            self.segments.set_value(";".join(wargs.get("segments", [])))
            policy = inner.get("wait_policy") or {}
            _choose(self.policy, policy.get("policy", "(none)"))
            self.count.setValue(int((policy.get("args") or {}).get("n", 1)))
            cap = inner.get("max_downstream_keys")
            self.has_cap.setChecked(cap is not None)
            self.cap.setValue(int(cap) if cap is not None else 100)
            self.keys.set_value(";".join(inner.get("allowed_keys", [])))
            self.fixed.set_value(str(inner.get("downstream_key", "")))
            self.nested.set_value(json.dumps(inner["mappers"]) if "mappers" in inner else "")
            per_asset = args.get("partition_mapper_config")
            self.per_asset.set_value(json.dumps(per_asset) if per_asset else "")
        finally:
            self._loading = False
        self._show_rows()
        self._check(self.spec())

    def _show_rows(self) -> None:
        name = self.mapper.currentText()
        windowed = name in _WINDOWED
        visible = {
            self.timezone: name in _TEMPORAL,
            self.input_format: name in _TEMPORAL,
            self.upstream: windowed,
            self.window_kind: windowed,
            self.direction: windowed and self.window_kind.currentText() != "SegmentWindow",
            self.segments: windowed and self.window_kind.currentText() == "SegmentWindow",
            self.policy: name == "RollupMapper",
            self.count: name == "RollupMapper" and self.policy.currentText() == "MinimumCount",
            self.has_cap: name != _DEFAULT,
            self.cap: name != _DEFAULT and self.has_cap.isChecked(),
            self.keys: name == "AllowedKeyMapper",
            self.fixed: name == "FixedKeyMapper",
            self.nested: name in ("ChainMapper", "ProductMapper"),
        }
        for widget, show in visible.items():
            self.form.setRowVisible(self._rows[widget], show)

    # ----------------------------------------------------------------- fields -> spec
    def spec(self) -> dict[str, Any] | None:
        """The spec the fields say, starting from the file's: what the form does not show
        (an upstream mapper's own arguments, a fan-out's downstream mapper...) is kept."""
        name = self.mapper.currentText()
        if name == _DEFAULT:
            return None
        loaded = self._loaded or {}
        same = loaded.get("mapper") == name
        args: dict[str, Any] = copy.deepcopy(loaded.get("args") or {}) if same else {}
        if name in _TEMPORAL:
            for key, line in (("timezone", self.timezone), ("input_format", self.input_format)):
                if line.value().strip():
                    args[key] = line.value().strip()
                else:
                    args.pop(key, None)
        if name in _WINDOWED:
            upstream = args.get("upstream_mapper")
            if (
                not isinstance(upstream, dict)
                or upstream.get("mapper") != self.upstream.currentText()
            ):
                args["upstream_mapper"] = {"mapper": self.upstream.currentText()}
            window_name = self.window_kind.currentText()
            window = args.get("window")
            if not isinstance(window, dict) or window.get("window") != window_name:
                window = {"window": window_name}
            window_args: dict[str, Any] = dict(window.get("args") or {})
            if window_name == "SegmentWindow":
                window_args.pop("direction", None)
                window_args["segments"] = [
                    p.strip() for p in self.segments.value().split(";") if p.strip()
                ]
            else:
                window_args.pop("segments", None)
                direction = self.direction.currentText()
                if "direction" in window_args or direction != "forward":  # forward: the default
                    window_args["direction"] = direction
            args["window"] = {**window, "args": window_args} if window_args else window
        if name == "RollupMapper":
            if self.policy.currentText() == "(none)":
                args.pop("wait_policy", None)
            else:
                policy: dict[str, Any] = {"policy": self.policy.currentText()}
                if self.policy.currentText() == "MinimumCount":
                    policy["args"] = {"n": self.count.value()}
                args["wait_policy"] = policy
        if name == "AllowedKeyMapper":
            args["allowed_keys"] = [k.strip() for k in self.keys.value().split(";") if k.strip()]
        if name == "FixedKeyMapper":
            args["downstream_key"] = self.fixed.value()
        if name in ("ChainMapper", "ProductMapper"):
            try:
                args["mappers"] = json.loads(self.nested.value() or "[]")
            except json.JSONDecodeError:
                args["mappers"] = []
        if self.has_cap.isChecked():
            args["max_downstream_keys"] = self.cap.value()
        else:
            args.pop("max_downstream_keys", None)
        out: dict[str, Any] = {**loaded, "mapper": name} if same else {"mapper": name}
        if args:
            out["args"] = args
        else:
            out.pop("args", None)
        return out

    def _check(self, spec: dict[str, Any] | None) -> str | None:
        self.spec_label.setText(
            json.dumps(spec) if spec is not None else "IdentityMapper (default)"
        )
        if spec is None:
            self.error.clear_message()
            return None
        try:
            build_mapper(spec)
        except EngineError as exc:
            self.error.show_error(str(exc))
            return str(exc)
        self.error.clear_message()
        return None

    def show_error(self, message: str) -> None:
        self.error.show_error(message)

    def _edited(self) -> None:
        if self._loading:
            return
        self._show_rows()
        spec = self.spec()
        if self._check(spec) is not None:
            return
        per_asset: JsonValue = None
        if self.per_asset.value().strip() and self.per_asset.is_valid():
            per_asset = json.loads(self.per_asset.value())
        self.changed.emit(
            {"default_partition_mapper": spec, "partition_mapper_config": per_asset or None}
        )
