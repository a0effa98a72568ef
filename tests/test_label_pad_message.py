"""PAD006 says what the label pad value is: a token id the loss learns, or a sentinel it does not ignore."""

from __future__ import annotations

import pytest

from padlint.engine import lint_source

COLLATOR = """
from transformers import DataCollatorForSeq2Seq

def make_collator(tokenizer, model):
    return DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id={value})
"""

PADDED = """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(batch, tokenizer):
    labels = pad_sequence([torch.tensor(b["labels"]) for b in batch], batch_first=True, padding_value={value})
    return {{"labels": labels}}
"""


def _message(template: str, value: str) -> str:
    [finding] = [d for d in lint_source(template.format(value=value), "m.py") if d.code == "PAD006"]
    return finding.message


@pytest.mark.parametrize("template", [COLLATOR, PADDED])
@pytest.mark.parametrize("value", ["-1", "-2"])
def test_a_negative_sentinel_is_not_called_a_token_id(template, value):
    message = _message(template, value)
    assert "token id" not in message.replace("no token id", "")
    assert "sentinel" in message and "does not ignore" in message


@pytest.mark.parametrize("template", [COLLATOR, PADDED])
@pytest.mark.parametrize("value", ["tokenizer.pad_token_id", "0"])
def test_a_token_id_is_called_one(template, value):
    message = _message(template, value)
    assert "token id" in message and "trains on the padding" in message
