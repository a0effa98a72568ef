"""The project's readers of a module's labels include the modules that read them through another: a report
dataset in `tools/dataset/base.py` (namespace packages, no `__init__.py`) padded with a dedicated pad id,
subclassed in `tools/dataset/task.py`, whose subclass the training script at the top imports and grades with
`ignore_index=tokenizer.pad_token_id`. The pads are skipped there: no finding, and no -100 fix (it would
crash that loss's target range check)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from padlint.engine import lint_source

BASE = """
import torch
from torch.utils.data import Dataset


class Reports(Dataset):
    def __init__(self, reports, tokenizer):
        self.reports, self.tokenizer = reports, tokenizer

    def __len__(self):
        return len(self.reports)

    def __getitem__(self, i):
        enc = self.tokenizer(self.reports[i], padding="max_length", max_length=64, return_tensors="pt")
        item = {"decoder_input_ids": enc.input_ids[0][:-1], "decoder_attention_mask": enc.attention_mask[0][1:]}
        item["label_ids"] = enc.input_ids[0][1:].clone()
        return item
"""

TASK = """
from tools.dataset.base import Reports


class ChestReports(Reports):
    pass
"""

TRAIN = """
import torch.nn.functional as F

from tools.dataset.task import ChestReports


def step(model, tokenizer, batch):
    logits = model(batch["decoder_input_ids"], attention_mask=batch["decoder_attention_mask"]).logits
    return F.cross_entropy(logits.permute(0, 2, 1), batch["label_ids"]{ignore})
"""


def _lint(tmp_path: Path, ignore: str) -> list:
    files = {
        "tools/dataset/base.py": BASE,
        "tools/dataset/task.py": TASK,
        "tools/encoder.py": "WIDTH = 64\\n",
        "train.py": TRAIN.replace("{ignore}", ignore),
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    base = tmp_path / "tools" / "dataset" / "base.py"
    return lint_source(base.read_text(), str(base))


def test_labels_a_script_reads_through_a_subclass_and_skips_by_pad_id_are_not_reported(tmp_path: Path):
    assert _lint(tmp_path, ", ignore_index=tokenizer.pad_token_id") == []


def test_the_same_labels_read_by_a_loss_that_skips_only_minus_100_are_reported(tmp_path: Path):
    assert [d.code for d in _lint(tmp_path, "")] == ["PAD002"]
