"""Every rule ID the repository cites is defined in ``docs/rules.md``.

Code, tests, ADRs, benchmarks, packaging notes and the README cite Airflow
scheduling rules by ID. ``docs/rules.md`` defines each under a heading
``### <ID> <short title>``; these tests fail when a cited ID has no such heading,
or when a definition is empty or names no test or data file under ``tests/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT: Path = Path(__file__).resolve().parents[1]
RULES: Path = ROOT / "docs" / "rules.md"

#: A rule ID as cited anywhere: family, number, optional letter suffix.
RULE_ID: re.Pattern[str] = re.compile(r"\b(?:TT|DST|SCH|AS|URI|PT|WA|DEP|RND|DL)-[0-9]+[a-z]?\b")
#: A definition heading: ``### <ID> <short title>``.
HEADING: re.Pattern[str] = re.compile(r"^### (\S+) (\S.*)$", re.MULTILINE)
#: A test module or data file named in a definition.
TESTS_PATH: re.Pattern[str] = re.compile(r"\btests/[\w./-]*[\w/]")

#: Folders whose files may cite rules, and the single files.
CITING_DIRS: tuple[str, ...] = ("explorer", "tests", "adr", "benchmarks", "packaging")
CITING_FILES: tuple[str, ...] = ("README.md",)
#: Text files read for citations (data files such as JSON vectors are not).
TEXT_SUFFIXES: frozenset[str] = frozenset(
    {".py", ".md", ".svg", ".sh", ".spec", ".xml", ".desktop", ".txt", ".toml", ".j2"}
)
#: Test data, read by the tests rather than written by the project.
SKIPPED_DIRS: tuple[Path, ...] = (ROOT / "tests" / "data",)


def _citing_files() -> Iterator[Path]:
    for name in CITING_DIRS:
        for path in sorted((ROOT / name).rglob("*")):
            if (
                path.suffix in TEXT_SUFFIXES
                and path.is_file()
                and "__pycache__" not in path.parts
                and not any(path.is_relative_to(skipped) for skipped in SKIPPED_DIRS)
            ):
                yield path
    for name in CITING_FILES:
        yield ROOT / name


def _cited_ids() -> dict[str, list[str]]:
    """Each cited rule ID with the files (relative to the root) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in _citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for rule in sorted(set(RULE_ID.findall(text))):
            cited.setdefault(rule, []).append(path.relative_to(ROOT).as_posix())
    return cited


def _definitions() -> dict[str, str]:
    """Each ``### `` heading's ID with the body below it, up to the next heading."""
    text = RULES.read_text(encoding="utf-8")
    headings = list(re.finditer(r"^#{1,3} .*$", text, re.MULTILINE))
    bodies: dict[str, str] = {}
    for index, match in enumerate(headings):
        if not match.group().startswith("### "):
            continue
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        heading = HEADING.fullmatch(match.group())
        assert heading is not None, f"malformed heading in docs/rules.md: {match.group()!r}"
        rule = heading.group(1)
        assert rule not in bodies, f"{rule} is defined twice in docs/rules.md"
        bodies[rule] = text[match.end() : end].strip()
    return bodies


def test_every_cited_rule_is_defined() -> None:
    cited = _cited_ids()
    assert cited, "no rule IDs found: the citing folders moved?"
    defined = _definitions()
    missing = {rule: files for rule, files in sorted(cited.items()) if rule not in defined}
    assert not missing, "rule IDs cited but not defined in docs/rules.md:\n" + "\n".join(
        f"  {rule}: {', '.join(files[:5])}" for rule, files in missing.items()
    )


def test_every_definition_has_a_body_naming_a_test() -> None:
    defined = _definitions()
    assert defined, "docs/rules.md defines no rules"
    problems: list[str] = []
    for rule, body in defined.items():
        if not RULE_ID.fullmatch(rule):
            problems.append(f"{rule}: not a rule ID")
        if not body:
            problems.append(f"{rule}: empty definition")
            continue
        paths = TESTS_PATH.findall(body)
        if not paths:
            problems.append(f"{rule}: names no test or data path under tests/")
        problems.extend(
            f"{rule}: names {path}, which does not exist"
            for path in paths
            if not (ROOT / path).exists()
        )
    assert not problems, "docs/rules.md:\n" + "\n".join(f"  {p}" for p in problems)
