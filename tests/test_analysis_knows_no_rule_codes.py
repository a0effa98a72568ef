"""The analysis describes values; the rules judge them (docs/ARCHITECTURE.md). A rule's code written in
padlint/analysis/ (a fact recorded for one rule, or a comment that ties a mechanism to one) is a rule's
judgement leaking into the shared description: none may appear there."""

from __future__ import annotations

import re
from pathlib import Path

import padlint

RULE_CODE = re.compile(r"\bPAD\d{3}\b")


def test_no_module_of_the_analysis_names_a_rule_code():
    folder = Path(padlint.__file__).parent / "analysis"
    named = [
        f"{path.name}:{row}"
        for path in sorted(folder.glob("*.py"))
        for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if RULE_CODE.search(line)
    ]
    assert named == []
