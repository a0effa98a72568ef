"""A label fix reads the mask of the ids it masks, never another padding step's: targets padded to 8 beside
prompts padded to 32 with their own masks (fresh69: the prompts' mask list was written after a list of
target rows, `[...].masked_fill(self.source_masks == 0, -100)`, which raised on the list and would have
paired each target with a prompt's pads)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import torch
from standin_tokenizer import EOS_ID, PAD_ID, StandInTokenizer
from test_fix_execution import load_module

from padlint.engine import fix_source, lint_source

FIXTURE = Path(__file__).parent / "fixtures" / "rules" / "PAD002" / "targets_padded_beside_a_prompt_mask.py"

BOUND = """
import torch
from torch.utils.data import Dataset


class QueryPairs(Dataset):
    def __init__(self, prompts, targets, tokenizer):
        source = tokenizer(prompts, padding="max_length", max_length=32, truncation=True)
        self.input_ids = torch.tensor(source["input_ids"])
        self.source_mask = torch.tensor(source["attention_mask"])
        target = tokenizer(targets, padding="max_length", max_length=8, truncation=True)
        self.labels = torch.tensor(target["input_ids"])

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"input_ids": self.input_ids[i], "attention_mask": self.source_mask[i], "labels": self.labels[i]}
"""

PROMPTS = ["who wrote the book", "when", "what is the tallest mountain on earth"]
TARGETS = ["author of book </s>", "date </s>", "tallest mountain </s>"]


def test_a_list_of_target_rows_beside_prompt_masks_gets_no_fix():
    findings = lint_source(FIXTURE.read_text(), str(FIXTURE))
    assert [f.code for f in findings] == ["PAD002"]
    assert all(f.fix is None for f in findings)


def test_the_fix_masks_the_targets_by_their_own_encoding(tmp_path: Path):
    source = textwrap.dedent(BOUND).lstrip()
    fixed = fix_source(source, "pairs.py").source  # safe fixes only
    assert fixed != source
    path = tmp_path / "pairs.py"
    path.write_text(fixed)
    tokenizer = StandInTokenizer()
    pairs = load_module(path, "pairs_fixed").QueryPairs(PROMPTS, TARGETS, tokenizer)
    plain = tokenizer(TARGETS, padding="max_length", max_length=8, truncation=True)
    for i, ids in enumerate(plain["input_ids"]):
        labels = pairs[i]["labels"]
        real = [t for t, m in zip(ids, plain["attention_mask"][i]) if m]
        assert labels[: len(real)].tolist() == real  # the real tokens, their EOS included, keep their labels
        assert EOS_ID in real
        assert labels[len(real) :].tolist() == [-100] * (8 - len(real))  # exactly the pads are -100
        assert PAD_ID not in labels.tolist()
    assert isinstance(pairs[0]["labels"], torch.Tensor)
