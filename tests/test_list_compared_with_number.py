"""A masking write whose condition compares a Python list with a number masks nothing: `ids == pad_id`
with `ids` a list is the one bool False (a list never equals a number), so `masked_fill_` and a boolean
index write no position (bench/fresh8's MC-BERT miss, where `torch.tensor(list == 0)` left every pad
trained). `!=` is the one bool True: every position, pads included, is written. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

DATASET = """
import torch
from torch.utils.data import DataLoader, Dataset
from transformers import AutoModelForMaskedLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/encoder")
model = AutoModelForMaskedLM.from_pretrained("org/encoder")


class Blocks(Dataset):
    def __init__(self, rows, width=64):
        self.rows, self.width = rows, width

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = self.rows[i][: self.width]
        ids = ids + [tokenizer.pad_token_id] * (self.width - len(ids))
        mask = [0 if t == tokenizer.pad_token_id else 1 for t in ids]
        labels = torch.tensor(ids)
        {masking}
        return torch.tensor(ids), torch.tensor(mask), labels


def train(rows):
    for ids, mask, labels in DataLoader(Blocks(rows), batch_size=16):
        model(input_ids=ids, attention_mask=mask, labels=labels).loss.backward()
"""


SOURCE_LINES = textwrap.dedent(DATASET).splitlines()
COPY_ROW = next(i for i, line in enumerate(SOURCE_LINES, 1) if "labels = torch.tensor(ids)" in line)


def findings(masking: str) -> list[tuple[str, int, str]]:
    source = textwrap.dedent(DATASET).replace("{masking}", masking)
    return [(d.code, d.location.row, d.message) for d in lint_source(source, "blocks.py")]


@pytest.mark.parametrize(
    "masking",
    [
        "labels.masked_fill_(torch.tensor(ids == tokenizer.pad_token_id), -100)",
        "labels[torch.tensor(ids == tokenizer.pad_token_id)] = -100",
        "labels = labels.masked_fill(torch.as_tensor(ids == tokenizer.pad_token_id), -100)",
    ],
)
def test_a_list_compared_with_the_pad_id_masks_nothing_and_the_finding_says_so(masking):
    found = findings(masking)
    assert [(code, row) for code, row, _ in found] == [("PAD002", COPY_ROW)]
    assert "compares a Python list with a number" in found[0][2] and f"line {COPY_ROW + 1}" in found[0][2]


@pytest.mark.parametrize(
    "masking",
    [
        "labels.masked_fill_(torch.tensor(ids) == tokenizer.pad_token_id, -100)",
        "labels[torch.tensor(mask) == 0] = -100",
        "labels = labels.masked_fill(torch.tensor([t == tokenizer.pad_token_id for t in ids]), -100)",
        # every position written, pads included: not this rule's harm
        "labels.masked_fill_(torch.tensor(ids != tokenizer.pad_token_id), -100)",
    ],
)
def test_per_position_masking_stays_silent(masking):
    assert findings(masking) == []


def test_without_any_masking_the_message_names_no_masking_line():
    found = findings("pass")
    assert [(code, row) for code, row, _ in found] == [("PAD002", COPY_ROW)]
    assert "Python list" not in found[0][2]
