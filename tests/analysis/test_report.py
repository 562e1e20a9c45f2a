"""``explorer report`` opened in a real browser: headless Chromium screenshots and prints it.

Debian's ``chromium`` and ``poppler-utils`` (``pdftoppm``, ``pdftotext``, ``pdfinfo``) are
in ``.ci/run``'s package list. The PDF pages are turned into PNGs as a reviewer would see
them, and the text of every page is read back to check that no table row is split.
"""

from __future__ import annotations

import html.parser
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cli import ROOT, explorer

EXAMPLES = ROOT / "resources" / "scenarios"
RUN_TYPES = ("scheduled", "manual", "asset_triggered", "backfill")


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / "chromium-profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


class _Outline(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    result = explorer("report", str(EXAMPLES / "hourly_to_daily_rollup.json"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "propagateSizeHints" not in result.stderr
    return out


def test_the_report_is_one_self_contained_file(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    outline = _Outline()
    outline.feed(text)
    tags = [t for t, _ in outline.tags]
    assert tags.count("svg") >= 2, "the canvas and the timeline inline as SVG"
    assert not {"script", "link", "img", "iframe"} & set(tags), "nothing loaded from elsewhere"
    for _, attrs in outline.tags:
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            assert not value.startswith(("http:", "https:", "//")), (key, value)
    # Title, legend, zone and clock are in the pictures themselves.
    assert text.count("Times in UTC · clock at Thu 12 Mar 2026 03:00 UTC") >= 2
    assert "logical_date" in text and "run_after" in text
    assert "sliding_24h_summary" in text and "consumer_silent" in text
    assert 'id="never-ran"' in text, "a DAG that never ran is explained"
    assert re.search(r"ingest_hourly_sales · \d+ runs", text)


def test_chromium_screenshot_shows_the_pictures_and_tables(report: Path, tmp_path: Path) -> None:
    from PySide6 import QtGui

    shot = tmp_path / "report.png"
    result = chromium(tmp_path, "--window-size=1280,2000", f"--screenshot={shot}", report.as_uri())
    assert shot.exists(), result.stderr
    image = QtGui.QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 2000)
    # The pictures and tables put ink on the page: count non-white pixels on a grid.
    ink = sum(
        1
        for y in range(0, image.height(), 8)
        for x in range(0, image.width(), 8)
        if QtGui.QColor(image.pixel(x, y)).lightness() < 200
    )
    assert ink > 2000, ink


def _pages(pdf: Path) -> list[str]:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    count = int(re.search(r"Pages:\s+(\d+)", info.stdout).group(1))  # type: ignore[union-attr]
    return [
        subprocess.run(
            ["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for n in range(1, count + 1)
    ]


@pytest.mark.parametrize(("paper", "points"), [("Letter", "(letter)"), ("A4", "(A4)")])
def test_prints_on_a4_and_letter_without_splitting_rows(
    report: Path, tmp_path: Path, paper: str, points: str
) -> None:
    page = tmp_path / f"report-{paper}.html"
    # Chromium prints on the CSS page size; the report states margins, not a paper size.
    text = report.read_text(encoding="utf-8")
    page.write_text(
        text.replace("</style>", f"@page {{ size: {paper}; }}</style>", 1), encoding="utf-8"
    )
    pdf = tmp_path / f"report-{paper}.pdf"
    result = chromium(tmp_path, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri())
    assert pdf.exists(), result.stderr
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert points in info.stdout, info.stdout
    prefix = tmp_path / paper
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(pdf), str(prefix)], check=True)
    pngs = sorted(tmp_path.glob(f"{paper}-*.png"))
    texts = _pages(pdf)
    assert len(pngs) == len(texts) >= 3
    header = re.compile(r"^\s*run_id\s+type\b")
    rows_seen = 0
    for number, page_text in enumerate(texts, 1):
        lines = [ln for ln in page_text.splitlines() if ln.strip()]
        for i, line in enumerate(lines):
            if header.match(line):
                # The line after a (repeated) header starts a row: its run_type is there.
                # A row split across pages would leave its tail under the next page's header.
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                if nxt.strip().startswith(("interval", "start")):
                    nxt = lines[i + 2] if i + 2 < len(lines) else ""
                assert any(t in nxt for t in RUN_TYPES), (number, line, nxt)
        rows_seen += sum(
            1 for ln in lines if re.search(r"\b(success|failed|running|queued)\s*$", ln)
        )
    assert rows_seen >= 50
    # Each picture prints whole: its title and its caption are on the same page.
    for caption in (
        "The DAGs and assets as the canvas draws them.",
        "Every run on the simulated clock",
    ):
        holder = next(t for t in texts if caption in t)
        assert "Hourly to daily rollup" in holder


def test_the_report_lists_expectations_with_their_status(tmp_path: Path) -> None:
    checked = ROOT / "tests" / "data" / "check" / "spring_forward_expectations.json"
    out = tmp_path / "checked.html"
    result = explorer("report", str(checked), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "4 expectations, 1 failing" in result.stdout
    text = out.read_text(encoding="utf-8")
    section = text[text.index('id="expectations"') : text.index('id="dst"')]
    assert section.count(">holds<") == 3 and section.count(">FAILS<") == 1
    assert "scheduled__2024-03-10T05:00:00+00:00" in section
    assert "Sun 10 Mar 2024" in text  # the DST day in range


def test_pictures_use_the_apps_sans_serif_and_run_ids_wrap_only_at_separators() -> None:
    from explorer.analysis.report import _break_at_separators, _svg_inline

    svg = _svg_inline('<?xml version="1.0"?><svg><text font-family="Sans Serif">a</text></svg>')
    assert 'font-family="DejaVu Sans, sans-serif"' in svg and svg.startswith("<svg")
    wrapped = str(_break_at_separators("scheduled__2024-05-02T00:00:00+00:00<x>"))
    assert wrapped.startswith("scheduled__<wbr>2024-<wbr>05-<wbr>02T<wbr>")
    assert "&lt;x&gt;" in wrapped  # escaped, never markup
    assert "20<wbr>24" not in wrapped
