"""Every module under tests/fixtures/rules/PADnnn/ is linted and its findings compared with its markers.

Convention (see the fixture files):
- an offending line ends with `# expect: PAD001` (several codes: `# expect: PAD001, PAD002`); the marker
  sits on the line where the offending expression starts;
- a file whose name starts with `near_` is a near-miss: padlint must report nothing at all in it;
- in other files, the findings compared are those whose code is named by a marker of the file (or is
  the code of the fixture's directory); they must match the markers exactly, row by row.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from padlint.engine import lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
# Every rule of the registry that has a fixture folder (PAD001-PAD012).
SEED_CODES = tuple(sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("PAD")))
MARKER = re.compile(r"#\s*expect:\s*(PAD\d{3}(?:\s*,\s*PAD\d{3})*)\s*$")
MIN_LINES, MAX_LINES = 10, 40


def fixture_files() -> list[Path]:
    return sorted(p for code in SEED_CODES for p in (FIXTURES / code).glob("*.py"))


def expected_markers(text: str) -> set[tuple[str, int]]:
    found = set()
    for row, line in enumerate(text.splitlines(), start=1):
        m = MARKER.search(line)
        if m:
            for code in m.group(1).split(","):
                found.add((code.strip(), row))
    return found


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


FILES = fixture_files()


def _fmt(pairs) -> str:
    return "[" + ", ".join(f"{c}@{r}" for c, r in sorted(pairs, key=lambda p: (p[1], p[0]))) + "]"


@pytest.mark.parametrize("path", FILES, ids=fixture_id)
def test_fixture_is_well_formed(path: Path):
    """The fixture itself: valid Python 3, 10-40 lines, markers consistent with its name and folder."""
    text = path.read_text()
    ast.parse(text, filename=str(path))
    n_lines = len(text.splitlines())
    assert MIN_LINES <= n_lines <= MAX_LINES, f"{n_lines} lines"
    markers = expected_markers(text)
    # a marker-looking comment that the regex did not accept is a typo
    for row, line in enumerate(text.splitlines(), start=1):
        if "expect:" in line:
            assert MARKER.search(line), f"malformed marker on line {row}: {line.strip()}"
    if path.name.startswith("near_"):
        assert not markers, "a near-miss carries no markers"
    else:
        assert path.parent.name in {c for c, _ in markers}, f"no {path.parent.name} marker"


@pytest.mark.parametrize("path", FILES, ids=fixture_id)
def test_rule_fixture(path: Path):
    text = path.read_text()
    expected = expected_markers(text)
    diagnostics = lint_source(text, str(path))
    near = path.name.startswith("near_")
    if near:
        found = {(d.code, d.location.row) for d in diagnostics}
    else:
        considered = {c for c, _ in expected} | {path.parent.name}
        found = {(d.code, d.location.row) for d in diagnostics if d.code in considered}
    if found != expected:
        details = "\n".join(f"  {d.code}@{d.location.row}:{d.location.column} {d.message}" for d in diagnostics)
        pytest.fail(
            f"{fixture_id(path)}{' (near-miss: no finding allowed)' if near else ''}\n"
            f"  expected: {_fmt(expected)}\n"
            f"  found:    {_fmt(found)}\n"
            f"  missing:  {_fmt(expected - found)}\n"
            f"  extra:    {_fmt(found - expected)}\n"
            f"all findings:\n{details or '  (none)'}",
            pytrace=False,
        )
