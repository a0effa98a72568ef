"""Targets handed back beside a loss mask are weighted by it.

A dataset that returns `(input_ids, target_ids, loss_mask)` tells its trainer which target positions
count, as a `"loss_mask"` key of a feature dict does: the pads need no -100 there (PAD002 stays silent).
Without the mask beside them, padded targets are reported as before.
"""

from __future__ import annotations

import textwrap

import pytest
import torch
from torch.utils.data import Dataset

from padlint.engine import lint_source

SFT_ROWS = """
import torch
from torch.utils.data import Dataset


class InstructionRows(Dataset):
    def __init__(self, rows, encode, width=8):
        self.rows, self.encode, self.width = rows, encode, width

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        prompt, answer = self.rows[i]
        tokens = self.encode(prompt + answer)[: self.width]
        real = len(tokens)
        tokens = tokens + [0] * (self.width - real)
        input_ids = tokens[:-1]
        target_ids = tokens[1:]
        loss_mask = [0] * len(input_ids)
        for j in range(len(self.encode(prompt)) - 1, min(real - 1, len(loss_mask))):
            loss_mask[j] = 1
        input_ids = torch.tensor(input_ids)
        target_ids = torch.tensor(target_ids)
        loss_mask = torch.tensor(loss_mask, dtype=torch.float)
        {ret}
"""

WITH_MASK = "return input_ids, target_ids, loss_mask"
WITHOUT_MASK = "return input_ids, target_ids"


def codes(ret: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(SFT_ROWS.format(ret=ret)), "rows.py")]


def test_targets_returned_beside_a_loss_mask_need_no_minus_100():
    assert codes(WITH_MASK) == []


def test_targets_returned_alone_are_reported():
    assert codes(WITHOUT_MASK) == ["PAD002"]


def test_the_mask_is_zero_at_every_pad_so_the_weighted_loss_never_reads_one():
    """Run the rows: the loss mask is 0 at each padded target position."""
    namespace: dict = {}
    exec(textwrap.dedent(SFT_ROWS.format(ret=WITH_MASK)), namespace)
    rows = namespace["InstructionRows"]([("ab", "c"), ("a", "bcd")], lambda text: [ord(ch) for ch in text])
    assert isinstance(rows, Dataset)
    for i in range(len(rows)):
        _, targets, mask = rows[i]
        assert torch.all(mask[targets == 0] == 0)


PAIRS = """
import torch


def tokenize_pairs(prompts, answers, tokenizer):
    pad = tokenizer.pad_token_id
    prompt_ids = tokenizer(prompts)["input_ids"]
    answer_ids = tokenizer(answers)["input_ids"]
    width = max(len(p) + len(a) for p, a in zip(prompt_ids, answer_ids))
    rows, masks = [], []
    for p, a in zip(prompt_ids, answer_ids):
        row = p + a + [pad] * (width - len(p) - len(a))
        masks.append([len(p) <= i < len(p) + len(a) for i in range(1, width)])
        rows.append(row)
    full = torch.tensor(rows)
    return {{"input_ids": full[:, :-1], "labels": full[:, 1:], {mask_entry}}}
"""


@pytest.mark.parametrize("key", ["response_mask", "completion_mask", "action_mask"])
def test_labels_beside_a_response_mask_of_rl_libraries_need_no_minus_100(key):
    source = textwrap.dedent(PAIRS.format(mask_entry=f'"{key}": torch.tensor(masks)'))
    assert [d.code for d in lint_source(source, "pairs.py")] == []


def test_labels_beside_an_attention_mask_only_are_reported():
    source = textwrap.dedent(PAIRS.format(mask_entry='"attention_mask": (full[:, :-1] != pad).long()'))
    assert [d.code for d in lint_source(source, "pairs.py")] == ["PAD002"]
