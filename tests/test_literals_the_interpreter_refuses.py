"""A string literal that parses but that Python refuses when compiling (a Windows path with single
backslashes: `"C:\\Users\\..."` holds a truncated `\\U` escape) is read as an unknown value: the rest of the
file is still checked (it raised an internal error and the whole notebook was skipped: fresh74)."""

from __future__ import annotations

from padlint.engine import lint_source

SOURCE = r"""
import pandas as pd
import torch
from torch.nn.utils.rnn import pad_sequence

frame = pd.read_csv("C:\Users\me\Downloads\questions.csv")


def collate(rows, pad_id):
    ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=pad_id)
    return {"input_ids": ids, "attention_mask": (ids != pad_id).long(), "labels": ids.clone()}
"""


def test_a_file_with_a_refused_escape_is_still_checked():
    assert [d.code for d in lint_source(SOURCE, "similarity.py")] == ["PAD002"]
