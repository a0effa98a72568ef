"""Every rule has a documentation page with fixed headings, and the page's examples are true.

The headings say what the rule flags, why it matters, what stays silent, what it does when the
consumer of the value is not in view, an example and its fix, how safe the fix is, and when to
suppress; none is left empty.

The Example block of docs/rules/<code>.md must be flagged with that code, and the Use instead block
must not be; padlint/rules/docs (a link to docs/rules) must serve the same page to `padlint rule`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from padlint.engine import lint_source
from padlint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULE_DOCS = DOCS / "rules"
PACKAGED_DOCS = ROOT / "padlint" / "rules" / "docs"

HEADINGS = [
    "What it does",
    "Why is this bad?",
    "What stays silent",
    "When the consumer is unknown",
    "Example",
    "Use instead",
    "Fix safety",
    "When to suppress",
]

CODE_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def _sections(text: str) -> dict[str, str]:
    """The body of each `## ` section, by heading."""
    parts = re.split(r"^## (.+?)\s*$", text, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def _python_blocks(section: str) -> list[str]:
    return [body for lang, body in CODE_BLOCK.findall(section) if lang == "python"]


def _page(rule) -> str:
    path = RULE_DOCS / f"{rule.code}.md"
    assert path.is_file(), f"{rule.code} has no page at {path.relative_to(ROOT)}"
    return path.read_text(encoding="utf-8")


def _codes(source: str) -> set[str]:
    return {d.code for d in lint_source(source, "example.py")}


RULES = pytest.mark.parametrize("rule", ALL_RULES, ids=[r.code for r in ALL_RULES])


def test_registry_is_not_empty():
    assert ALL_RULES


@RULES
def test_page_title_and_headings(rule):
    text = _page(rule)
    assert text.splitlines()[0] == f"# {rule.code} `{rule.name}`"
    headings = re.findall(r"^## (.+?)\s*$", text, flags=re.MULTILINE)
    assert headings == HEADINGS


@RULES
def test_every_section_says_something(rule):
    empty = [heading for heading, body in _sections(_page(rule)).items() if not body.strip()]
    assert not empty, f"empty sections: {empty}"


@RULES
def test_page_names_its_fix_safety(rule):
    """The Fix safety section says which fixes are safe and which are unsafe, as `padlint rules` does."""
    section = _sections(_page(rule))["Fix safety"]
    for word in ("safe", "unsafe"):
        if re.search(rf"\b{word}\b", rule.fix_safety):
            assert re.search(rf"\*\*{word}\*\*", section), f"Fix safety never calls a fix **{word}**"


@RULES
def test_example_is_flagged(rule):
    blocks = _python_blocks(_sections(_page(rule))["Example"])
    assert len(blocks) == 1, "the Example section needs exactly one python block"
    codes = _codes(blocks[0])
    assert rule.code in codes, f"the {rule.code} Example is not flagged (found: {sorted(codes)})"


@RULES
def test_use_instead_is_silent(rule):
    blocks = _python_blocks(_sections(_page(rule))["Use instead"])
    assert len(blocks) == 1, "the Use instead section needs exactly one python block"
    codes = _codes(blocks[0])
    assert rule.code not in codes, f"the {rule.code} Use instead block is flagged"


@RULES
def test_page_is_served_from_the_package(rule):
    packaged = PACKAGED_DOCS / f"{rule.code}.md"
    assert packaged.is_file(), f"{packaged.relative_to(ROOT)} is missing"
    assert packaged.read_text(encoding="utf-8") == _page(rule)


@pytest.mark.parametrize("doc", ["docs/index.md", "README.md"])
def test_rule_tables_list_every_rule(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    rows = {m.group(1) for m in re.finditer(r"^\|\s*\[?`?(PAD\d{3})", text, flags=re.MULTILINE)}
    missing = sorted(r.code for r in ALL_RULES if r.code not in rows)
    assert not missing, f"{doc}: no rule-table row for {missing}"
