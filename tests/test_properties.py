"""Properties of linting and fixing over generated modules (hypothesis, hypothesmith).

Two sources of modules: hypothesmith's grammar-generated Python (anything valid, mostly nonsense,
which is what shakes out crashes), and modules stitched together from the rule fixtures and the
rules' own examples (which have findings and fixes, so the fix properties are exercised for real).
Example counts are kept small so the suite stays fast; set HYPOTHESIS_PROFILE=long for more.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from padlint.engine import SourceError, fix_source, lint_source  # noqa: E402
from padlint.rules import ALL_RULES  # noqa: E402
from padlint.types import Applicability  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _snippets() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    for rule in ALL_RULES:
        texts += list(rule.INVALID) + list(rule.VALID)
    return [t if t.endswith("\n") else t + "\n" for t in texts if _parses(t)]


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


SNIPPETS = _snippets()
generated = hypothesmith.from_grammar()
stitched = st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=3).map("\n\n".join)
modules = st.one_of(generated, stitched)


def _lint(text: str):
    try:
        return lint_source(text, "generated.py")
    except SourceError:
        return None  # libcst refuses some code CPython accepts: reported as PAD000, not a crash


def _fixable(diagnostics, unsafe: bool) -> bool:
    allowed = {Applicability.SAFE} | ({Applicability.UNSAFE} if unsafe else set())
    return any(d.fix is not None and d.fix.applicability in allowed for d in diagnostics)


@given(generated)
def test_linting_never_raises_on_a_valid_module(text):
    found = _lint(text)
    assert found is None or all(d.filename == "generated.py" for d in found)


@given(modules, st.booleans())
def test_fixing_changes_nothing_without_a_fixable_finding(text, unsafe):
    found = _lint(text)
    if found is None or _fixable(found, unsafe):
        return
    outcome = fix_source(text, "generated.py", unsafe=unsafe)
    assert outcome.source == text and outcome.fixed == []


@given(stitched, st.booleans())
def test_fixing_twice_equals_fixing_once_and_the_result_parses(text, unsafe):
    if _lint(text) is None:
        return
    once = fix_source(text, "generated.py", unsafe=unsafe).source
    assert _parses(once), once
    assert fix_source(once, "generated.py", unsafe=unsafe).source == once
