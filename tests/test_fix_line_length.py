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


def test_a_def_written_by_a_fix_keeps_its_wrapped_lines_inside_its_body():
    """The collate function PAD004's fix writes inside a function: a body line too long for the project's
    line length is broken at its brackets with its continuation lines indented from the body, as a
    formatter writes them (they used to start at the def's own indentation, outside the body)."""
    from padlint.engine import fix_source

    source = (
        "from transformers import DataCollatorForLanguageModeling\n"
        "\n"
        "\n"
        "def make_collator(student_tokenizer):\n"
        "    student_tokenizer.pad_token = student_tokenizer.eos_token\n"
        "    return DataCollatorForLanguageModeling(tokenizer=student_tokenizer, mlm=False)\n"
    )
    fixed = fix_source(source, "collators.py", unsafe=True).source
    lines = fixed.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def collate_causal_lm"))
    end = next(i for i, line in enumerate(lines) if line.strip() == "return batch")
    body = lines[start + 1 : end + 1]
    assert all(len(line) <= 88 for line in body), fixed
    assert len(body) > 3, "the long line was not broken: " + fixed  # the masked_fill call spans lines
    def_indent = len(lines[start]) - len(lines[start].lstrip())
    assert all(len(line) - len(line.lstrip()) > def_indent for line in body), fixed
    ast.parse(fixed)
