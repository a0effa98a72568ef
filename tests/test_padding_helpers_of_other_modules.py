"""A padding helper in another module of the project whose fill is named as a pad id (`ids + [pad_id] * n`,
`torch.full(size, self.pad_id)` in a base class) pads wherever it is called.

The first look reads such a definition on its own, with no caller to say what its fill holds; a fill named so
is a pad id whatever the caller. Linted as pre-commit does (only the caller's file named), the collator that
calls the helper reaches the analysis, which follows the helper's padding into the mask and the labels. A
correct collator calling the same helper stays silent. Fixtures are our own.
"""

from __future__ import annotations

import textwrap

from click.testing import CliRunner

from padlint.cli import main

LIST_HELPER = """
def pad_to(ids, width, pad_id):
    return ids + [pad_id] * (width - len(ids))
"""

BASE_WITH_BUFFER = """
import torch


class BaseCollator:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def pad(self, seqs):
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), self.pad_id)
        for i, s in enumerate(seqs):
            ids[i, : len(s)] = torch.tensor(s)
        return ids
"""

CALLS_LIST_HELPER = """
import torch

from padding import pad_to


def collate(rows, pad_id):
    width = max(len(r) for r in rows)
    ids = torch.tensor([pad_to(r, width, pad_id) for r in rows])
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}
"""

CALLS_LIST_HELPER_CORRECTLY = """
import torch

from padding import pad_to


def collate(rows, pad_id):
    width = max(len(r) for r in rows)
    ids = torch.tensor([pad_to(r, width, pad_id) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    labels = torch.tensor([pad_to(r, width, -100) for r in rows])
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}
"""

SUBCLASS = """
import torch

from base import BaseCollator


class SFTCollator(BaseCollator):
    def __call__(self, rows):
        ids = self.pad([r["input_ids"] for r in rows])
        labels = ids.masked_fill(ids == self.pad_id, -100)
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}
"""


def check(tmp_path, monkeypatch, files: dict[str, str], target: str) -> str:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", target]).output


def test_a_collator_calling_a_list_padding_helper_of_another_module_is_judged(tmp_path, monkeypatch):
    output = check(tmp_path, monkeypatch, {"padding.py": LIST_HELPER, "collate.py": CALLS_LIST_HELPER}, "collate.py")
    assert "collate.py:10:49: PAD001" in output  # torch.ones_like(ids) over the helper's pads
    assert "collate.py:10:81: PAD002" in output  # labels copied with the pads


def test_a_subclass_padding_through_its_base_class_of_another_module_is_judged(tmp_path, monkeypatch):
    output = check(tmp_path, monkeypatch, {"base.py": BASE_WITH_BUFFER, "sft.py": SUBCLASS}, "sft.py")
    assert "sft.py:11:" in output and "PAD001" in output


def test_a_correct_collator_calling_the_same_helper_stays_silent(tmp_path, monkeypatch):
    files = {"padding.py": LIST_HELPER, "collate.py": CALLS_LIST_HELPER_CORRECTLY}
    assert check(tmp_path, monkeypatch, files, "collate.py") == "All checks passed!\n"


# ---- a mask handed back beside the ids, whose place is the importer's ----------------------------------
BATCHING = """
import torch
from torch.nn.utils.rnn import pad_sequence


def to_batch(seqs, pad_id):
    ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
    mask = torch.ones_like(ids)
    return ids, mask
"""

BATCHING_FROM_LENGTHS = BATCHING.replace(
    "mask = torch.ones_like(ids)",
    "lengths = torch.tensor([len(s) for s in seqs])\n    mask = (torch.arange(ids.size(1))[None, :] < lengths[:, None]).long()",
)

TRAIN_STEP = """
from batching import to_batch


def step(model, seqs, pad_id, opt):
    ids, mask = to_batch(seqs, pad_id)
    out = model(input_ids=ids, attention_mask=mask, labels=ids.masked_fill(mask == 0, -100))
    out.loss.backward()
    opt.step()
"""


def test_a_returned_all_ones_mask_an_importer_uses_as_the_attention_mask_is_reported(tmp_path, monkeypatch):
    files = {"batching.py": BATCHING, "train.py": TRAIN_STEP}
    output = check(tmp_path, monkeypatch, files, "batching.py")
    assert "batching.py:8:12: PAD001" in output  # found where the mask is made, named nowhere as a mask there
    assert check(tmp_path, monkeypatch, files, "train.py") == "All checks passed!\n"  # reported in its module


def test_a_returned_mask_built_from_lengths_stays_silent(tmp_path, monkeypatch):
    files = {"batching.py": BATCHING_FROM_LENGTHS, "train.py": TRAIN_STEP}
    assert check(tmp_path, monkeypatch, files, ".") == "All checks passed!\n"
