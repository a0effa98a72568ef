"""A PAD010 fix that makes its line too long is broken at the line's brackets, and still runs right."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import load_module  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402
from padlint.rules.layout import wrap  # noqa: E402

LONG_LINE = """
import torch
from torch.nn.utils.rnn import pad_sequence


def batch_rows(rows, tokenizer):
    tensors = [torch.tensor(r) for r in rows]
    return pad_sequence(tensors, batch_first=True, padding_value=tokenizer.pad_token_id or tokenizer.eos_token_id)
"""

TWO_STATEMENTS = """
import torch
from torch.nn.utils.rnn import pad_sequence


def batch_rows(rows, tokenizer):
    fill = tokenizer.pad_token_id or tokenizer.eos_token_id; tensors = [torch.tensor(r) for r in rows]
    return pad_sequence(tensors, batch_first=True, padding_value=fill)
"""


def _run(source: str, tmp_path: Path, tag: str):
    path = tmp_path / f"line_length_{tag}.py"
    path.write_text(source)
    module = load_module(path, f"padlint_line_length_{tag}")
    rows = [[5, 6, 7], [8]]
    return module.batch_rows(rows, StandInTokenizer()).tolist()  # pad id 0, EOS 2


def test_long_fix_fits_the_line_length_and_pads_with_the_pad_id(tmp_path):
    pytest.importorskip("torch")
    assert any(len(line) > 88 for line in LONG_LINE.splitlines())
    assert _run(LONG_LINE, tmp_path, "orig")[1] == [8, 2, 2]  # the bug: a pad id of 0 became EOS
    [finding] = [d for d in lint_source(LONG_LINE, "rows.py") if d.code == "PAD010"]
    assert finding.fix is not None
    fixed = fix_source(LONG_LINE, "rows.py").source
    assert all(len(line) <= 88 for line in fixed.splitlines()), fixed
    assert _run(fixed, tmp_path, "fixed") == [[5, 6, 7], [8, 0, 0]]
    assert "PAD010" not in {d.code for d in lint_source(fixed, "rows.py")}


def test_a_line_with_two_statements_keeps_one_line(tmp_path):
    pytest.importorskip("torch")
    fixed = fix_source(TWO_STATEMENTS, "rows.py").source
    assert fixed.count("\n") == TWO_STATEMENTS.count("\n")  # not broken: `a; b` has no safe break
    assert _run(fixed, tmp_path, "semicolon") == [[5, 6, 7], [8, 0, 0]]


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
