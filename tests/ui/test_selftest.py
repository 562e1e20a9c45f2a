"""``explorer --self-test``, run as CI and a user run it: the installed command, a real process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPainter

from explorer.ui.selftest import SelfTestFailed, inspect_picture

ROOT = Path(__file__).resolve().parents[2]


def self_test(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The ``explorer`` console script pip installed next to this interpreter (or on PATH)."""
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    command = shutil.which("explorer", path=search)
    assert command is not None, "the explorer command is not installed (pip install -e .)"
    # No display and no platform chosen: the self-test must pick offscreen itself.
    base = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "QT_QPA_PLATFORM"}}
    return subprocess.run(
        [command, "--self-test", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**base, **(env or {})},
        timeout=300,
        check=False,
    )


def _drawn_share(path: Path) -> float:
    image = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB32)
    stride = image.bytesPerLine() // 4
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32, count=stride * image.height())
    pixels = pixels.reshape(image.height(), stride)[:, : image.width()]
    _colours, counts = np.unique(pixels, return_counts=True)
    return float(1 - counts.max() / pixels.size)


def test_self_test_opens_steps_and_exports_pictures_with_something_drawn(tmp_path: Path) -> None:
    result = self_test("--output", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("self-test passed: opened ny_dst_orders_mart.json offscreen")
    assert "propagateSizeHints" not in result.stderr
    for name in ("timeline.png", "canvas.png"):
        picture = tmp_path / name
        assert picture.stat().st_size > 0
        image = QImage(str(picture))
        assert image.width() > 400 and image.height() > 200
        # Read back here, not through the module under test: bars, nodes and labels drawn.
        assert _drawn_share(picture) > 0.05, name
    # It ran on its own settings in the output folder, not the user's.
    assert (tmp_path / "settings.ini").is_file()


def test_self_test_fails_with_a_message_when_the_examples_are_missing(tmp_path: Path) -> None:
    empty = tmp_path / "no-examples"
    empty.mkdir()
    result = self_test(env={"EXPLORER_EXAMPLES": str(empty)})
    assert result.returncode == 1
    assert "self-test FAILED: the bundled example ny_dst_orders_mart.json is not installed" in (
        result.stderr
    )
    assert result.stdout == ""


def _picture(tmp_path: Path, draw: bool) -> Path:
    image = QImage(600, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    if draw:
        painter = QPainter(image)
        painter.fillRect(50, 50, 200, 40, QColor("#2f6fc4"))
        painter.fillRect(300, 150, 120, 40, QColor("#ffc94d"))
        painter.end()
    path = tmp_path / ("drawn.png" if draw else "blank.png")
    assert image.save(str(path))
    return path


def test_a_blank_picture_fails_and_a_drawn_one_passes(qapp: object, tmp_path: Path) -> None:
    with pytest.raises(SelfTestFailed, match="holds only the background"):
        inspect_picture(_picture(tmp_path, draw=False))
    drawn = inspect_picture(_picture(tmp_path, draw=True))
    assert (drawn.width, drawn.height) == (600, 300)
    assert drawn.drawn_share == pytest.approx((200 * 40 + 120 * 40) / (600 * 300))
    assert drawn.colours == 3


def test_a_missing_or_unreadable_picture_fails(qapp: object, tmp_path: Path) -> None:
    with pytest.raises(SelfTestFailed, match="no picture was written"):
        inspect_picture(tmp_path / "absent.png")
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a png")
    with pytest.raises(SelfTestFailed, match="not a readable PNG"):
        inspect_picture(junk)
