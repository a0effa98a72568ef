"""Fix code broken at its brackets to keep within the line length means what it meant on one line."""

from __future__ import annotations

import ast

import pytest

from padlint.rules.layout import wrap


@pytest.mark.parametrize(
    "line",
    [
        "f(first_argument, padding_value=left_value_name if left_value_name is not None else right_value_name)",
        "value = left_value_name_that_is_long if left_value_name_that_is_long is not None else right_value_name",
    ],
)
def test_wrapping_a_conditional_keeps_its_meaning(line):
    lines = wrap(line, 60)
    assert len(lines) > 1 and all(len(x) <= 60 for x in lines)
    assert ast.dump(ast.parse("\n".join(lines))) == ast.dump(ast.parse(line))
