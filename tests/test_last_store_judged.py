"""Labels stored under a key are judged by the value the key holds last (issue 12, class 1).

`out["labels"] = padded_ids` then, on the next statement, `out["labels"] = [[-100 if t == pad else t
...] ...]`: the model receives the second value. What the first store raised (labels padded with the pad
id, targets tokenized with padding) is withdrawn by the second store; a second value that still holds
the padding unmasked raises it again.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

TARGETS = """
def preprocess(examples, tokenizer):
    model_inputs = tokenizer(examples["source"], max_length=64, truncation=True, padding="max_length")
    targets = tokenizer(text_target=examples["target"], max_length=16, truncation=True, padding="max_length")
    model_inputs["labels"] = targets["input_ids"]
    model_inputs["labels"] = {second}
    return model_inputs
"""

PADDED = """
import torch
from torch.nn.utils.rnn import pad_sequence


def collate(rows, pad_id):
    out = {{}}
    out["input_ids"] = pad_sequence([torch.tensor(r["ids"]) for r in rows], batch_first=True, padding_value=pad_id)
    out["attention_mask"] = out["input_ids"].ne(pad_id).long()
    out["labels"] = pad_sequence([torch.tensor(r["tags"]) for r in rows], batch_first=True, padding_value=pad_id)
    out["labels"] = {second}
    return out
"""

MASKED_TARGETS = [
    # kept unless it is the pad id, written either way round
    '[[(t if t != tokenizer.pad_token_id else -100) for t in row] for row in model_inputs["labels"]]',
    '[[-100 if t == tokenizer.pad_token_id else t for t in row] for row in model_inputs["labels"]]',
]

MASKED_PADDED = [
    'torch.where(out["labels"] == pad_id, -100, out["labels"])',
    'out["labels"].masked_fill(out["labels"] == pad_id, -100)',
    '[[-100 if t == pad_id else t for t in row] for row in out["labels"].tolist()]',
]

# A second value that still carries the pads as they were: the first store's finding stands.
UNMASKED_TARGETS = ['[list(row) for row in model_inputs["labels"]]']
UNMASKED_PADDED = ['out["labels"].long()', 'out["labels"].clone()']


def _codes(template: str, second: str) -> list[str]:
    return [f.code for f in lint_source(textwrap.dedent(template.format(second=second)), "m.py")]


@pytest.mark.parametrize("second", MASKED_TARGETS)
def test_targets_stored_again_masked_are_silent(second):
    assert _codes(TARGETS, second) == []


@pytest.mark.parametrize("second", MASKED_PADDED)
def test_labels_padded_with_the_pad_id_then_masked_in_the_key_are_silent(second):
    assert _codes(PADDED, second) == []


@pytest.mark.parametrize("second", UNMASKED_TARGETS)
def test_targets_stored_again_unmasked_are_reported(second):
    assert _codes(TARGETS, second) == ["PAD006"]


@pytest.mark.parametrize("second", UNMASKED_PADDED)
def test_labels_padded_with_the_pad_id_stored_again_unmasked_are_reported(second):
    assert _codes(PADDED, second) == ["PAD006"]
