"""A padding helper's default pad value, and labels hidden before they were padded (issue 13: parameter
defaults; issue 12: what counts as masking).

`pad_or_truncate(seq, n, padding_value=0)` pads whatever it is handed with the value its caller passes,
or with its default. Labels made of a tokenizer's ids with the prompt set to -100 and then padded by it
with 0 train on the pads: the -100 they held before the padding hides the prompt, never the pads the
padding adds. The same helper handed -100 for the labels, labels masked again after the padding, and
rows that are not token ids (tags, where 0 is a class) stay silent.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

DATASET = """
import torch
from torch.utils.data import Dataset

IGNORE_INDEX = -100


def pad_or_truncate(seq, max_length, padding_value=0):
    if len(seq) < max_length:
        return seq + [padding_value] * (max_length - len(seq))
    return seq[:max_length]


class InstructionRows(Dataset):
    def __init__(self, rows, tokenizer, max_length=64):
        self.rows, self.tokenizer, self.max_length = rows, tokenizer, max_length

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        row = self.rows[index]
        prompt = self.tokenizer(row["instruction"], add_special_tokens=False)["input_ids"]
        answer = self.tokenizer(row["output"], add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        ids = prompt + answer
        input_ids = pad_or_truncate(ids, self.max_length, self.tokenizer.pad_token_id)
        attention_mask = pad_or_truncate([1] * len(ids), self.max_length)
{labels}
        return {{
            "input_ids": torch.tensor(input_ids),
            "attention_mask": torch.tensor(attention_mask),
            "labels": torch.tensor(labels),
        }}
"""

TRAINS_ON_PADS = [
    "        labels = pad_or_truncate([-100] * len(prompt) + answer, self.max_length)",
    "        labels = pad_or_truncate([IGNORE_INDEX] * len(prompt) + answer, self.max_length, 0)",
    "        labels = pad_or_truncate(answer, self.max_length)",
]

SILENT = [
    "        labels = pad_or_truncate([-100] * len(prompt) + answer, self.max_length, -100)",
    "        labels = pad_or_truncate([-100] * len(prompt) + answer, self.max_length, padding_value=IGNORE_INDEX)",
    "        labels = pad_or_truncate([-100] * len(prompt) + answer, self.max_length)\n"
    "        labels = [t if m else -100 for t, m in zip(labels, attention_mask)]",
    # tags of the words, not token ids: 0 is a class
    '        labels = pad_or_truncate(row["tags"], self.max_length)',
]


def _codes(labels: str) -> list[str]:
    return [f.code for f in lint_source(textwrap.dedent(DATASET.format(labels=labels)), "rows.py")]


@pytest.mark.parametrize("labels", TRAINS_ON_PADS)
def test_token_labels_padded_by_the_helpers_default_are_reported(labels):
    assert _codes(labels) == ["PAD002"]


@pytest.mark.parametrize("labels", SILENT)
def test_labels_padded_with_the_ignore_value_or_masked_after_are_silent(labels):
    assert _codes(labels) == []
