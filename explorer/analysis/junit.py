"""Expectation results as JUnit XML, the test-report format every CI shows.

GitHub Actions (via test-reporter actions), GitLab (``artifacts:reports:junit``) and
Jenkins (``junit`` step) all read the Ant-style ``<testsuites>`` document: one
``<testcase>`` per expectation, a ``<failure>`` child carrying the violations.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from explorer.analysis.expectations import ExpectationResult

__all__ = ["junit_xml"]


def junit_xml(results: Sequence[ExpectationResult], *, suite: str, until: str) -> bytes:
    failures = sum(1 for r in results if not r.ok and r.error is None)
    errors = sum(1 for r in results if r.error is not None)
    root = ET.Element(
        "testsuites",
        name="explorer check",
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
    )
    node = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time="0",
    )
    props = ET.SubElement(node, "properties")
    ET.SubElement(props, "property", name="until", value=until)
    for result in results:
        case = ET.SubElement(
            node, "testcase", classname=f"{suite}.{result.kind}", name=result.name, time="0"
        )
        if result.error is not None:
            err = ET.SubElement(case, "error", message=result.error, type="invalid")
            err.text = result.description
        elif not result.ok:
            lines = [result.description, *(v.message for v in result.violations)]
            fail = ET.SubElement(
                case,
                "failure",
                message=f"{len(result.violations)} violation(s): {result.violations[0].message}",
                type=result.kind,
            )
            fail.text = "\n".join(lines)
        else:
            ET.SubElement(case, "system-out").text = result.description
    for element in root.iter():
        element.text = _xml_safe(element.text)
        for key, value in element.attrib.items():
            element.attrib[key] = _xml_safe(value) or ""
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


#: Characters XML 1.0 does not allow anywhere, even escaped (controls but tab, newline
#: and carriage return; lone surrogates; U+FFFE and U+FFFF).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(text: str | None) -> str | None:
    """``text`` with each character XML forbids written as its escape (``\\x1b``), so
    every CI's parser reads the report and a person still sees what was there."""
    if text is None:
        return None
    return _FORBIDDEN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
