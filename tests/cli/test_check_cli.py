"""``explorer check``: its own exit code, a readable list of failures, JUnit XML CI reads."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.cli.test_cli import ROOT, explorer

CHECKED = ROOT / "tests" / "data" / "check" / "spring_forward_expectations.json"


def _without_failing(tmp_path: Path) -> Path:
    doc = json.loads(CHECKED.read_text(encoding="utf-8"))
    doc["expectations"] = [e for e in doc["expectations"] if e["name"] != "no report on Sunday"]
    path = tmp_path / "holds.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_broken_expectation_exits_5_and_names_the_run(tmp_path: Path) -> None:
    result = explorer("check", str(CHECKED))
    assert result.returncode == 5, result.stderr
    out = result.stdout
    assert "ok   orders at midnight New York" in out
    assert "ok   five customer runs" in out
    assert "FAIL no report on Sunday: midnight_report has no run in" in out
    # The run that breaks it, with its run_id and its local time.
    assert "scheduled__2024-03-10T05:00:00+00:00" in out
    assert "2024-03-10 00:00 EST" in out
    assert "3 of 4 expectations hold" in out


def test_junit_xml_is_read_by_a_junit_parser(tmp_path: Path) -> None:
    junit = tmp_path / "results.xml"
    result = explorer("check", str(CHECKED), "--junit", str(junit))
    assert result.returncode == 5
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "0")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {
        "orders at midnight New York",
        "five customer runs",
        "no report on Sunday",
        "quiet",
    }
    failure = cases["no report on Sunday"].find("failure")
    assert failure is not None and failure.get("type") == "no_run"
    assert "scheduled__2024-03-10T05:00:00+00:00" in (failure.text or "")
    assert cases["quiet"].find("failure") is None
    assert cases["quiet"].get("classname", "").endswith(".no_alert")


def test_expectations_that_hold_exit_0(tmp_path: Path) -> None:
    junit = tmp_path / "ok.xml"
    result = explorer("check", str(_without_failing(tmp_path)), "--junit", str(junit))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 of 3 expectations hold" in result.stdout
    assert ET.parse(junit).getroot().find("testsuite").get("failures") == "0"  # type: ignore[union-attr]


def test_until_moves_the_horizon_of_the_check(tmp_path: Path) -> None:
    # Before Sunday's midnight report exists, nothing breaks the freeze window yet...
    early = explorer("check", str(_without_failing(tmp_path)), "--until", "2024-03-09T12:00:00Z")
    # ...but only two customer runs are due by then: the count breaks.
    assert early.returncode == 5
    assert "FAIL five customer runs" in early.stdout
    assert "1 runs of ingest_customers" in early.stdout


def test_invalid_input_keeps_the_usual_codes(tmp_path: Path) -> None:
    assert explorer("check", str(tmp_path / "missing.json")).returncode == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert explorer("check", str(bad)).returncode == 1
    assert explorer("check", str(CHECKED), "--until", "tomorrow").returncode == 2


def test_the_run_limit_exits_3() -> None:
    result = explorer("check", str(CHECKED), "--max-runs", "3")
    assert result.returncode == 3
    assert "more than 3 runs" in result.stderr
