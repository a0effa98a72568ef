"""Every rule's own examples (its VALID and INVALID lists, shown in its docs and by `padlint rule`)
say what the rule does: each INVALID example reports the rule's code, no VALID example does."""

from __future__ import annotations

import pytest

from padlint import engine
from padlint.rules import ALL_RULES


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_invalid_examples_report_the_rule(rule):
    assert rule.INVALID
    for example in rule.INVALID:
        assert rule.code in [d.code for d in engine.lint_source(example, "example.py", None)], example


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_valid_examples_stay_silent(rule):
    assert rule.VALID
    for example in rule.VALID:
        assert rule.code not in [d.code for d in engine.lint_source(example, "example.py", None)], example
