"""Every file under tests/fixtures/ is read by a test of its own: a fixture no test reads asserts nothing.

Some tests sweep every fixture for another purpose (the first look, the summary memo, properties of
all code): they do not count as a use. A folder is read whole by the test that globs it (the rule
fixtures, the cross-boundary projects, the look's spellings); in the other folders each file (or,
for projects of several modules, each project folder) must be named by a test module.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
# tests that read every fixture for a purpose of their own, not the fixture's
SWEEPS = {"test_prefilter.py", "test_summary_memo.py", "test_properties.py", "test_fixture_files_used.py"}
# folders read whole (every module in them, by a glob), and the test that reads each
READ_WHOLE = {
    "rules": "test_rule_fixtures.py",
    "cross": "test_cross_boundaries.py",
    "look_spellings": "test_prefilter.py",
}


def _test_sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in TESTS.glob("test_*.py") if p.name not in SWEEPS}


def test_folders_read_whole_are_globbed_by_their_test():
    for folder, test in READ_WHOLE.items():
        source = (TESTS / test).read_text(encoding="utf-8")
        assert re.search(rf'"fixtures"\s*/\s*"{folder}"', source), f"{test} does not name fixtures/{folder}"
        assert re.search(r"\.(r?glob|iterdir)\(", source), f"{test} does not read fixtures/{folder} whole"


def test_every_fixture_file_is_named_by_a_test():
    sources = _test_sources()
    unread = []
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        parts = path.relative_to(FIXTURES).parts
        if parts[0] in READ_WHOLE:
            continue
        # a module of its own is named by its file name; a module of a project folder by the folder
        name = path.name if len(parts) == 2 else parts[1]
        if not any(re.search(rf"\b{re.escape(name)}\b", text) for text in sources.values()):
            unread.append("/".join(parts))
    assert not unread, f"fixtures no test reads: {unread}"


def test_rule_fixtures_sit_in_a_rule_folder():
    """tests/test_rule_fixtures.py reads the `*.py` of each PADnnn folder: a module anywhere else there is
    never linted."""
    misplaced = [
        str(p.relative_to(FIXTURES))
        for p in (FIXTURES / "rules").rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and not (p.suffix == ".py" and re.fullmatch(r"PAD\d{3}", p.parent.name) and p.parent.parent.name == "rules")
    ]
    assert not misplaced, misplaced


def test_helper_modules_of_the_tests_are_imported():
    helpers = [p for p in TESTS.glob("*.py") if not p.name.startswith("test_") and p.name != "conftest.py"]
    sources = _test_sources()
    unused = [p.name for p in helpers if not any(re.search(rf"\b{p.stem}\b", text) for text in sources.values())]
    assert not unused, f"helper modules no test imports: {unused}"
