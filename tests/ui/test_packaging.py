"""The desktop integration files of packaging/ agree with the app and with each other.

The .desktop file, the AppStream metainfo, the icon and the MIME type are found by name
by the desktop; one wrong name and the app shows without its icon, or double-clicking a
scenario opens a text editor. (``desktop-file-validate`` and ``appstreamcli validate``
themselves run in .ci/run and packaging/build-deb.sh.)
"""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtGui import QImage

from explorer.ui.app import APP_ID, app_icon

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons" / "hicolor"
EXAMPLES = ROOT / "resources" / "scenarios"
MIME_TYPE = "application/x-schedule-explorer+json"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(PACKAGING / f"{APP_ID}.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_desktop_entry_names_the_icon_the_command_and_the_scenario_type() -> None:
    entry = _desktop_entry()
    assert entry["Icon"] == APP_ID
    assert entry["Exec"].split()[0] == "schedule-explorer"
    assert entry["MimeType"].rstrip(";").split(";") == [MIME_TYPE]


def test_the_metainfo_launches_this_desktop_entry_with_this_icon() -> None:
    component = ET.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == f"{APP_ID}.desktop"
    assert component.findtext("icon") == APP_ID
    assert component.findtext("provides/mediatype") == MIME_TYPE
    assert component.findtext("provides/binary") == "schedule-explorer"


def test_every_icon_size_is_a_square_png_with_transparent_corners() -> None:
    assert (ICONS / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    for size in SIZES:
        image = QImage(str(ICONS / f"{size}x{size}" / "apps" / f"{APP_ID}.png"))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
        assert image.pixelColor(0, 0).alpha() == 0  # rounded card: the corner is see-through
        assert image.pixelColor(size // 2, size * 3 // 4).alpha() == 255


def test_the_app_carries_every_icon_size(qapp: object) -> None:
    sizes = {s.width() for s in app_icon().availableSizes()}
    assert set(SIZES) <= sizes


def _mime_types(paths: list[Path], data_home: Path) -> list[str]:
    """Qt's MIME database in a fresh process that sees only this package's MIME XML added."""
    (data_home / "mime" / "packages").mkdir(parents=True)
    xml = (PACKAGING / f"{APP_ID}.mime.xml").read_bytes()
    (data_home / "mime" / "packages" / f"{APP_ID}.xml").write_bytes(xml)
    code = (
        "import sys\nfrom PySide6.QtCore import QMimeDatabase\ndb = QMimeDatabase()\n"
        "for p in sys.argv[1:]: print(db.mimeTypeForFile(p).name())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(data_home)},
        check=True,
        timeout=60,
    )
    return result.stdout.split()


def test_scenario_files_are_known_by_contents_or_by_name_and_other_json_is_not(
    tmp_path: Path,
) -> None:
    examples = sorted(EXAMPLES.glob("*.json"))
    plain = tmp_path / "package.json"
    plain.write_text(json.dumps({"name": "not a scenario", "format": "other/1"}), encoding="utf-8")
    compact = tmp_path / "compact.json"
    compact.write_text('{"format":"schedule-explorer/1","name":"x"}', encoding="utf-8")
    named = tmp_path / "empty.schedule.json"
    named.write_text("{}", encoding="utf-8")
    found = _mime_types([*examples, plain, compact, named], tmp_path / "share")
    assert found == [MIME_TYPE] * len(examples) + ["application/json", MIME_TYPE, MIME_TYPE]
